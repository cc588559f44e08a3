"""One refereed game between two UHP engine processes.

:class:`EngineProcess` is the library's UHP client, :class:`hiveai.engine.UhpEngine`,
with the referee's view of failures: every command waits for its ``ok`` with
a deadline instead of hanging, the engine's stderr goes to the game log, and a
dead or mute engine is a forfeit (CRASH, HANG) of the side it plays.

:func:`play_game` is the referee. hiveai's own rules core keeps the game:
every move an engine sends is checked before it is passed on to both engines
(``play``/``pass``), and results come from the referee's board, never from
what an engine declares (the one exception, a draw claim, is below). A game
is lost by the engine that

* crashes (its process exits or closes its pipes),
* hangs: no start-up banner within ``banner_timeout`` (10 s); no ``ok``
  to a ``bestmove`` within the move budget plus max(1 s, half the budget)
  in time mode (``bestmove time``); no ``ok`` to any other command within
  ``hang_timeout`` (default 60 s: options, ``newgame``, a ``bestmove``
  with any other limit such as ``depth``), or to ``play``/``pass`` within
  10 s if that is shorter (docs/tournament-timeouts.md),
* oversteps its clock: a ``bestmove time T`` answer that took longer than
  T * (1 + 10 %) + 100 ms (both tolerances are settings),
* answers with an illegal move, with output that is no move at all, with
  ``err``, rejects (``invalidmove``/``err``) a legal move it is told to play,
  or rejects one of its options.

Draws are adjudicated at ``max_plies`` plies (opening included; 0 = never)
and at the third occurrence of a position (same pieces, side to move and
stunned piece: the Zobrist key), unless repetition is switched off. An engine
may also declare the game drawn in its reply to a ``play`` (nokamute declares
threefold repetition itself): the referee checks the claim against its own
count of the position, opening included. A true claim ends the game as a
draw, even with repetition adjudication off. A false claim is flagged in the
game's record and log and the game goes on; if the claimant then refuses to
move, that is its forfeit like any other ``err``. Any other declared state
that differs from the referee's is flagged the same way, and the referee's
verdict stands.

Engines are kept running between the games a worker thread plays (``newgame``
starts each game) unless ``fresh_engines`` is set; an engine that failed is
killed and started again, options and all, for its next game. An engine that
fails to start (no banner, a rejected option) is killed and reaped at once,
so it cannot keep a core busy for the rest of the tournament, wherever the
game runs (this thread, a pool worker or a Ray worker).
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass
from typing import Callable

from hiveai.rules.board import Board
from hiveai.engine import EngineError, EngineTerminatedError, EngineTimeoutError, UhpEngine
from hiveai.errors import GameStringError, IllegalMoveError, MoveStringError
from hiveai.rules.notation import FINISHED, read_game_string
from hiveai.rules.outcome import Termination
from hiveai.text import plural
from hiveai.search.timeman import parse_timespan
from hiveai.tournament.timeouts import (
    BANNER_TIMEOUT,
    COMMAND_TIMEOUT,
    DEPTH_HANG_TIMEOUT,
    EXIT_GRACE,
    HANG_MARGIN_FRACTION,
    HANG_MARGIN_MIN,
    MAX_PLIES,
    TIME_TOLERANCE,
    TIME_TOLERANCE_MS,
)
from hiveai.tournament.schedule import EngineSpec, ScheduledGame


class EngineFailure(Exception):
    """An engine broke the protocol or the rules; ``reason`` is one of
    :data:`hiveai.rules.outcome.FORFEITS`."""

    def __init__(self, reason: Termination, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail
        self.side: int | None = None  # set by the referee: 0 white, 1 black


class GameLog:
    """Timestamped transcript of one game: commands, replies, engines' stderr, referee notes."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.lines: list[str] = []  # list.append is atomic: reader threads add too

    def add(self, who: str, tag: str, text: str) -> None:
        self.lines.append(f"{time.monotonic() - self.start:9.3f} {who} {tag} {text}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n" if self.lines else ""


# Option hiveai tournament gives hiveai engines (NumThreads=1) unless the user sets it.
THREADS_OPTION = ("NumThreads", "1")


def is_hiveai(banner: list[str]) -> bool:
    """Whether a start-up banner is hiveai's (its id line: ``id hiveai vX.Y``)."""
    return any(line.lower().startswith("id hiveai") for line in banner)


def single_thread_options(spec: EngineSpec, banner: list[str]) -> list[tuple[str, str]]:
    """``[("NumThreads", "1")]`` for a hiveai engine whose options leave NumThreads alone, else []."""
    if not is_hiveai(banner) or any(name.lower() == THREADS_OPTION[0].lower() for name, _ in spec.options):
        return []
    return [THREADS_OPTION]


# What the start-up banner is called in the log and in a hang's detail.
BANNER = "start-up"

# Every running engine, so a shutdown can stop them all (close_all). Pool threads
# add and remove engines while close_all may be copying the set: always under the lock.
_LIVE: weakref.WeakSet[EngineProcess] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


class EngineProcess:
    """A running UHP engine for the referee: a :class:`hiveai.engine.UhpEngine` whose
    failures are forfeits.

    Every wait has a deadline; what the client raises becomes an
    :class:`EngineFailure` with the referee's reason: the process exited or
    closed its output (:class:`~hiveai.engine.EngineTerminatedError`) is CRASH,
    no ``ok`` in time (:class:`~hiveai.engine.EngineTimeoutError`, the process
    is then killed) is HANG. ``err`` and ``invalidmove`` replies are returned,
    not raised: the referee judges them where it knows what they mean. Every
    line sent and received, and the engine's stderr, go to :attr:`log`.
    """

    def __init__(self, spec: EngineSpec, log: GameLog) -> None:
        self.spec = spec
        self.log = log
        try:
            # The banner is read by handshake(), with the game's banner deadline.
            self.uhp = UhpEngine(spec.command, read_banner=False,
                                 log=lambda tag, text: self.log.add(self.spec.name, tag, text))
        except EngineTerminatedError as e:
            raise EngineFailure(Termination.CRASH, str(e)) from None
        self.proc = self.uhp.proc
        with _LIVE_LOCK:
            _LIVE.add(self)

    def alive(self) -> bool:
        return self.uhp.alive()

    @staticmethod
    def _failure(error: EngineError, what: str, timeout: float) -> EngineFailure:
        """The forfeit an error of the client, waiting ``timeout`` s for ``what``, stands for."""
        if isinstance(error, EngineTimeoutError):
            detail = (f"no start-up banner (its 'id' line and 'ok') within {timeout:.1f} s" if what == BANNER
                      else f"no 'ok' within {timeout:.1f} s of '{what}'")
            return EngineFailure(Termination.HANG, detail)
        if isinstance(error, EngineTerminatedError):
            code = error.returncode
            how = f"exited with code {code}" if code is not None else "closed its output"
            return EngineFailure(Termination.CRASH, f"{how} during '{what}'")
        return EngineFailure(Termination.ENGINE_ERROR, str(error))

    def handshake(self, banner_timeout: float, timeout: float) -> list[str]:
        """Read the start-up banner (within ``banner_timeout``) and set the spec's
        options (each answered within ``timeout``); returns the banner.

        A hiveai engine (its ``id`` line says ``id hiveai``) is first set to
        one search thread, unless the spec sets NumThreads itself: timed
        games are only fair when every engine gets one core.
        """
        try:
            banner = self.uhp.read_block(banner_timeout, BANNER)
        except EngineError as e:
            raise self._failure(e, BANNER, banner_timeout) from None
        self.uhp.banner = banner
        for name, value in single_thread_options(self.spec, banner) + list(self.spec.options):
            lines, _ = self.command(f"options set {name} {value}", timeout)
            bad = [ln for ln in lines if ln.startswith(("err", "invalidmove"))]
            if bad:
                raise EngineFailure(Termination.ENGINE_ERROR, f"option {name}={value} rejected: {bad[0]}")
        return banner

    def command(self, line: str, timeout: float, *,
                slow: tuple[float, Callable[[], None]] | None = None) -> tuple[list[str], float]:
        """Send one command; return its reply lines (before ``ok``) and the seconds it took.

        ``slow = (seconds, call)``: ``call()`` once if the ``ok`` has not come after
        ``seconds`` (to say what a long wait is for).
        """
        start = time.monotonic()
        try:
            lines = self.uhp.command(line, timeout, check=False, notice=slow)
        except EngineError as e:
            raise self._failure(e, line, timeout) from None
        return lines, time.monotonic() - start

    def close(self) -> None:
        """Ask the engine to exit; kill it if it does not within EXIT_GRACE."""
        self.uhp.quit(EXIT_GRACE)
        self._forget()

    def kill(self) -> None:
        self.uhp.kill()
        self._forget()

    def _forget(self) -> None:
        with _LIVE_LOCK:
            _LIVE.discard(self)


def close_all() -> None:
    """Stop every engine process still running (end of a tournament, Ctrl-C)."""
    with _LIVE_LOCK:
        engines = list(_LIVE)
    for engine in engines:  # close() takes the lock itself: not held here
        engine.close()


class _Pool(threading.local):
    """The engines a worker thread keeps between its games, by engine name."""

    def __init__(self) -> None:
        self.engines: dict[str, EngineProcess] = {}


_POOL = _Pool()


def _start(spec: EngineSpec, log: GameLog, keep: bool, rules: Rules) -> EngineProcess:
    """This thread's running engine for ``spec``, or a new one (handshake done).

    A new engine that fails its handshake (hangs at start-up, rejects an
    option) is killed and reaped before the failure is raised.
    """
    engine = _POOL.engines.pop(spec.name, None)
    if engine is not None and (engine.spec != spec or not engine.alive()):
        engine.kill()
        engine = None
    if engine is None:
        engine = EngineProcess(spec, log)
        try:
            engine.handshake(rules.banner_timeout, rules.hang_timeout)
        except BaseException:  # EngineFailure, or Ctrl-C during the wait
            engine.kill()
            raise
    engine.log = log
    if keep:
        _POOL.engines[spec.name] = engine
    return engine


# --- the game --------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """How games are adjudicated and timed (see the module docstring)."""

    max_plies: int = MAX_PLIES
    repetition: bool = True
    time_tolerance: float = TIME_TOLERANCE
    time_tolerance_ms: float = TIME_TOLERANCE_MS
    hang_timeout: float = DEPTH_HANG_TIMEOUT
    fresh_engines: bool = False
    banner_timeout: float = BANNER_TIMEOUT

    @property
    def command_timeout(self) -> float:
        """How long a ``play`` or ``pass`` may take."""
        return min(COMMAND_TIMEOUT, self.hang_timeout)


@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one scheduled game (picklable, for Ray)."""

    game: ScheduledGame
    white: EngineSpec
    black: EngineSpec
    rules: Rules


def move_budget(go: str) -> float | None:
    """Seconds a ``bestmove`` argument string allows (``time hh:mm:ss``), None for other limits."""
    words = go.split()
    if len(words) == 2 and words[0].lower() == "time":
        return parse_timespan(words[1])
    return None


def hang_timeout(go: str, rules: Rules) -> float:
    """How long a bestmove with these arguments may take before the engine counts as hung."""
    budget = move_budget(go)
    if budget is None:
        return rules.hang_timeout
    return budget + max(HANG_MARGIN_MIN, HANG_MARGIN_FRACTION * budget)


class _Game:
    """State of one game while it is refereed."""

    def __init__(self, task: GameTask) -> None:
        self.task = task
        self.specs = (task.white, task.black)
        self.log = GameLog()
        self.board = Board.from_game_string(task.game.opening)
        self.opening_plies = self.board.ply
        self.engines: list[EngineProcess | None] = [None, None]
        self.times: list[float] = []
        self.flags: list[str] = []
        self.disagreements: set[tuple[int, str, str]] = set()

    def note(self, text: str) -> None:
        self.log.add("referee", "!", text)

    def flag(self, text: str) -> None:
        self.flags.append(text)
        self.note(text)

    def ask(self, side: int, line: str, timeout: float) -> tuple[list[str], float]:
        """A command to one side's engine; any failure is blamed on that side."""
        try:
            return self.engines[side].command(line, timeout)
        except EngineFailure as e:
            e.side = side
            raise

    # -- phases -------------------------------------------------------------

    def setup(self) -> None:
        rules = self.task.rules
        opening = self.task.game.opening
        newgame = "newgame " + (opening if self.board.ply else self.board.game_type_string)
        for side in (0, 1):
            try:
                self.engines[side] = _start(self.specs[side], self.log, not rules.fresh_engines, rules)
            except EngineFailure as e:
                e.side = side
                raise
            lines, _ = self.ask(side, newgame, rules.hang_timeout)
            self.check_game_string(side, lines, newgame)

    def adjudicate(self) -> tuple[str, Termination, str] | None:
        """(result, reason, detail) if the game is over now, else None."""
        board, rules = self.board, self.task.rules
        if board.is_game_over():
            state = board.state
            if state == "Draw":
                return state, Termination.BOTH_SURROUNDED, "both queens are surrounded"
            loser = "Black" if state == "WhiteWins" else "White"
            return state, Termination.QUEEN_SURROUNDED, f"{loser}'s queen is surrounded"
        if rules.repetition and board.is_repetition():  # the opening's positions count too
            return "Draw", Termination.REPETITION, f"the position after ply {board.ply} occurred for the third time"
        if rules.max_plies and board.ply >= rules.max_plies:
            return ("Draw", Termination.MAX_PLIES,
                    f"{plural(board.ply, 'ply', 'plies')} played (limit {rules.max_plies})")
        return None

    def engine_move(self) -> str:
        """Ask the side to move for its move, check it and return its canonical MoveString."""
        side = self.board.turn
        spec = self.specs[side]
        lines, seconds = self.ask(side, f"bestmove {spec.go}", hang_timeout(spec.go, self.task.rules))
        self.times.append(round(seconds, 4))
        answer = next((ln for ln in reversed(lines) if ln.strip()), "")
        if not answer:
            raise self.fail(side, Termination.UNPARSEABLE_OUTPUT, "empty reply to bestmove")
        if answer.startswith(("err", "invalidmove")):
            raise self.fail(side, Termination.ENGINE_ERROR, f"bestmove answered {answer!r}")
        text = answer.split(";")[0].strip()  # Mzinga's intermediate lines are move;depth;score
        try:
            move = self.board.parse_move(text)
        except MoveStringError as e:
            raise self.fail(side, Termination.UNPARSEABLE_OUTPUT, f"bestmove answered {answer!r}: {e}") from None
        except IllegalMoveError as e:
            raise self.fail(side, Termination.ILLEGAL_MOVE, f"{text!r} at ply {self.board.ply + 1}: {e}") from None
        budget = move_budget(spec.go)
        rules = self.task.rules
        if budget is not None and seconds > budget * (1 + rules.time_tolerance) + rules.time_tolerance_ms / 1000:
            raise self.fail(side, Termination.TIME_FORFEIT,
                            f"{seconds:.3f} s for a {budget:g} s move (ply {self.board.ply + 1})")
        self.board.push(move)
        return str(move)

    def tell(self, move_string: str) -> tuple[str, Termination, str] | None:
        """Pass the move to both engines (mover first); a true draw claim ends the game."""
        line = "pass" if move_string == "pass" else f"play {move_string}"
        mover = 1 - self.board.turn
        outcome = None
        for side in (mover, 1 - mover):
            lines, _ = self.ask(side, line, self.task.rules.command_timeout)
            state = self.check_game_string(side, lines, line)
            name = self.specs[side].name
            referee_state = self.board.state
            if state == "Draw" and referee_state not in FINISHED:
                outcome = outcome or self.draw_claim(side)
            elif state != referee_state and {state, referee_state} != {"NotStarted", "InProgress"}:
                if (side, state, referee_state) not in self.disagreements:  # once per kind, not every ply
                    self.disagreements.add((side, state, referee_state))
                    self.flag(f"{name} declared {state} after ply {self.board.ply}; "
                              f"the referee says {referee_state}")
        return outcome

    def draw_claim(self, side: int) -> tuple[str, Termination, str] | None:
        """An engine declared a draw: the outcome if the referee's repetition count confirms it, else None."""
        name, ply = self.specs[side].name, self.board.ply
        count = self.board.repetitions()
        if count >= 3:
            self.flag(f"{name} declared a draw after ply {ply}; honoured: the position occurred {count} times")
            return "Draw", Termination.ENGINE_DRAW, f"{name} declared a draw by repetition after ply {ply}"
        if (side, "Draw", "claim") not in self.disagreements:  # once per engine, not every ply
            self.disagreements.add((side, "Draw", "claim"))
            self.flag(f"{name} declared a draw after ply {ply}; rejected: the position occurred "
                      f"{plural(count, 'time')}, the game goes on")
        return None

    def check_game_string(self, side: int, lines: list[str], command: str) -> str:
        """The state an engine's GameString reply declares; errors and nonsense lose."""
        first = lines[0].strip() if lines else ""
        if first.startswith(("err", "invalidmove")):
            raise self.fail(side, Termination.ENGINE_ERROR, f"'{command}' answered {first!r}")
        try:
            fields = read_game_string(first)
        except GameStringError:
            raise self.fail(side, Termination.UNPARSEABLE_OUTPUT,
                            f"'{command}' answered {first!r}, not a GameString") from None
        if len(fields.moves) != self.board.ply:
            raise self.fail(side, Termination.ENGINE_ERROR, f"after '{command}' the engine's game has {len(fields.moves)} "
                                                f"plies, the referee's {self.board.ply}")
        return fields.state

    def fail(self, side: int, reason: Termination, detail: str) -> EngineFailure:
        e = EngineFailure(reason, detail)
        e.side = side
        return e

    # -- the whole game ----------------------------------------------------------

    def play(self) -> dict:
        outcome: tuple[str, Termination, str] | None = None
        forfeit: int | None = None
        try:
            self.setup()
            while outcome is None:
                outcome = self.adjudicate()
                if outcome is None:
                    outcome = self.tell(self.engine_move())
        except EngineFailure as e:
            forfeit = e.side
            outcome = ("BlackWins" if e.side == 0 else "WhiteWins", e.reason, e.detail)
        finally:
            self.release(forfeit)
        result, reason, detail = outcome
        self.note(f"result {result}: {reason} ({detail})")
        return self.record(result, reason, detail, forfeit)

    def release(self, failed: int | None) -> None:
        """Kill a failed engine; close the others unless they are kept for the next game."""
        for side, engine in enumerate(self.engines):
            if engine is None:
                continue
            if side == failed:
                _POOL.engines.pop(engine.spec.name, None)
                engine.kill()
            elif self.task.rules.fresh_engines:
                engine.close()

    def record(self, result: str, reason: Termination, detail: str, forfeit: int | None) -> dict:
        g = self.task.game
        names = [s.name for s in self.specs]
        winner = {"WhiteWins": names[0], "BlackWins": names[1]}.get(result)
        return {
            "id": g.id, "index": g.index, "pair": g.pair, "pairing": list(g.pairing),
            "white": names[0], "black": names[1], "opening": g.opening,
            "result": result, "winner": winner, "reason": reason.value, "detail": detail,
            "forfeit": None if forfeit is None else names[forfeit],
            "plies": self.board.ply, "opening_plies": self.opening_plies,
            "game_string": self.board.game_string(), "times": self.times, "flags": self.flags,
            "log": self.log.text(),
        }


def play_game(task: GameTask) -> dict:
    """Play one scheduled game and return its record (the ``games.jsonl`` fields plus ``log``).

    A top-level function of a picklable argument, so a Ray worker can run it.
    """
    return _Game(task).play()
