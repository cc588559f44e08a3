r"""Check any UHP engine against the protocol and the rules: ``hiveai uhp-check ENGINE...``.

The checker starts the engine with :func:`hiveai.engine.popen_uhp` and runs
*cases*, each a short conversation with an expectation taken from the
`Universal Hive Protocol <https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol>`_
and from the clients that speak it (MzingaViewer, the Hive website's bot
bridge hive-hydra), or from the rules, with hiveai's move generator
(:class:`hiveai.rules.board.Board`) as the reference. Move sets are compared as
(piece, destination) pairs, never as text, since engines may name a
destination by any neighbouring piece.

Every case ends as one of:

* ``pass``: the engine does what the protocol or the rules say;
* ``fail``: it does not; the report shows the exchange that failed;
* ``note``: it follows a documented convention that differs from Mzinga's,
  recognised by what the engine does, never by its name (see :data:`NOTES`);
* ``skip``: the case cannot run here (a game type the engine does not announce).

A difference in move generation is shrunk to the shortest game that still
shows it (moves are taken out while the difference stays) and printed as a
GameString with the moves each side has and the other lacks.

>>> [c.name for c in CASES][:3]
['banner', 'info', 'newgame']
>>> Result("eof", "protocol", FAIL, "did not exit").line()
'FAIL  eof               did not exit'
"""

from __future__ import annotations

import collections
import itertools
import json
import math
import os
import random
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Callable, Iterator, Sequence

from hiveai.engine import (
    EngineCommandError,
    EngineError,
    EngineOption,
    EngineTerminatedError,
    EngineTimeoutError,
    UhpEngine,
    popen_uhp,
)

PASS, FAIL, NOTE, SKIP = "pass", "fail", "note", "skip"

# Seconds a `bestmove time T` may take beyond T. MzingaViewer shows a progress bar for T and
# hive-hydra waits for the process; half a second is well past an honest overrun.
TIME_MARGIN = 0.5
# Seconds an engine gets to exit once its input ends (hive-hydra waits for the exit) or after `exit`
# (MzingaViewer kills the engine 3 s after `exit`: src/Mzinga.Viewer/CLIEngineWrapper.cs).
EXIT_WAIT = 3.0
# Seconds to wait for stray output after an `ok` (nothing may follow it until the next command).
STRAY_WAIT = 0.05
# Seconds the start-up banner and a first short game may take (hiveai compiles on first use).
STARTUP_TIMEOUT = 120.0
# Lines the one-process-per-move pattern may produce before the engine counts as running away.
ONE_SHOT_LINES = 200
# Commands sent before any game, which must be answered err.
NO_GAME_COMMANDS = ("validmoves", "play wS1", "undo", "bestmove depth 1")
# Positions compared in random games, over all game types: --quick and the default.
POSITIONS_QUICK = 200
POSITIONS_DEFAULT = 3000
# Plies after which a random game starts again (random play rarely ends a game).
RANDOM_GAME_PLIES = 80
# Engine queries one shrink may spend.
SHRINK_BUDGET = 200
# The capability flags UHP defines, and the letter each adds to a GameTypeString.
EXPANSIONS = {"Mosquito": "M", "Ladybug": "L", "Pillbug": "P"}

# Documented differences between engines' conventions, reported as notes. Each is recognised by
# behaviour in the case named; the key is the note's name in the report and the JSON.
NOTES = {
    "whole-seconds": (
        "answers err to a `bestmove time` with a fraction of a second and takes whole seconds "
        "(nokamute's convention: src/uhp_server.rs in https://github.com/edre/nokamute); MzingaViewer "
        "sends fractions such as 00:00:02.5000000"),
    "threefold-repetition": (
        "declares Draw on threefold repetition (nokamute's Rules::get_winner, "
        "https://github.com/edre/nokamute, and the Hive website hivegame.com); Mzinga has no draw by "
        "repetition, so MzingaViewer keeps asking for moves"),
    "no-sigint": (
        "does not answer a running bestmove at SIGINT; UHP does not require it, but MzingaViewer's "
        "Cancel button sends SIGINT (src/Mzinga.Viewer/CLIEngineWrapper.cs)"),
}


class CaseFailed(Exception):
    """Raised by a case: the engine broke the expectation ``args[0]`` describes."""


@dataclass
class Result:
    """One case's verdict: ``status`` is pass, fail, note or skip; ``exchange`` the
    lines around a failure (``> sent``, ``< received``)."""

    name: str
    group: str
    status: str
    message: str
    exchange: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """The report line: status, name, message."""
        return f"{self.status.upper():5} {self.name:17} {self.message}".rstrip()


@dataclass
class Case:
    """A named check; ``run(checker)`` returns a message (pass), or a (status, message) pair."""

    name: str
    group: str
    run: Callable[[Checker], object]
    doc: str


CASES: list[Case] = []


def case(name: str, group: str) -> Callable[[Callable[[Checker], object]], Callable[[Checker], object]]:
    """Register a case function under ``name`` (in report order)."""
    def wrap(fn: Callable[[Checker], object]) -> Callable[[Checker], object]:
        CASES.append(Case(name, group, fn, (fn.__doc__ or "").strip().splitlines()[0]))
        return fn
    return wrap


# --- game strings and move sets ----------------------------------------------------------------

def _board_from(text: str):
    from hiveai.rules.board import Board
    return Board.parse(text)


def move_key(board, text: str) -> int:
    """The (piece, destination) of MoveString ``text`` on ``board`` as a move int, legal or not.

    Raises :class:`hiveai.errors.HiveError` if it does not name a move at all.

    >>> from hiveai.rules.board import Board
    >>> b = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
    >>> move_key(b, "wQ -wS1") == move_key(b, "WQ  bS1-") - 0   # not the same cell
    False
    >>> move_key(b, "wQ -wS1") == b.parse_move("wq -WS1").code
    True
    """
    return move_keyer(board)(text)


def move_keyer(board) -> Callable[[str], int]:
    """:func:`move_key` for many MoveStrings on one position (the position is read once)."""
    from hiveai.rules.notation import parse_move_string
    position = board.position_array
    return lambda text: parse_move_string(position, text)[0]


@dataclass
class SetDifference:
    """What ``validmoves`` gave against hiveai's moves: MoveStrings each side lacks."""

    game: str
    engine_lacks: list[str]
    engine_extra: list[str]

    def __bool__(self) -> bool:
        return bool(self.engine_lacks or self.engine_extra)

    def signature(self) -> tuple[frozenset[str], frozenset[str]]:
        """The pieces involved on each side: a shrink keeps the same ones."""
        return (frozenset(m.split()[0] for m in self.engine_lacks),
                frozenset(m.split()[0] for m in self.engine_extra))

    def describe(self, reference: str = "hiveai") -> list[str]:
        """Report lines: the GameString and the moves each side lacks."""
        lines = [f"game: {self.game}"]
        if self.engine_lacks:
            lines.append(f"{reference} has, the engine lacks: {';'.join(sorted(self.engine_lacks))}")
        if self.engine_extra:
            lines.append(f"the engine has, {reference} lacks: {';'.join(sorted(self.engine_extra))}")
        return lines


def compare_moves(board, line: str, reference: dict[int, str] | None = None) -> SetDifference:
    """Compare a ``validmoves`` line with ``reference`` ({move int: MoveString}, by default
    hiveai's legal moves on ``board``) as sets of (piece, destination).

    >>> from hiveai.rules.board import Board
    >>> b = Board("Base")
    >>> d = compare_moves(b, "wS1;wB1;wG1;wQ")
    >>> d.engine_lacks, d.engine_extra
    (['wA1'], ['wQ'])
    """
    if reference is None:
        reference = {m.code: str(m) for m in board.legal_moves}
    got: dict[int, str] = {}
    unparsed: list[str] = []
    key = move_keyer(board)
    for text in (t.strip() for t in line.split(";")):
        if not text:
            continue
        try:
            got[key(text)] = text
        except Exception:  # noqa: BLE001 - any MoveString hiveai cannot read is the engine's extra
            unparsed.append(f"{text} (names no move)")
    lacks = [reference[k] for k in reference if k not in got]
    extra = [got[k] for k in got if k not in reference] + unparsed
    return SetDifference(board.game_string(), lacks, extra)


def load_reference_positions() -> list[tuple[str, str]]:
    """The shipped reference move sets: (GameString, validmoves line) pairs, from Mzinga's tests."""
    text = resources.files("hiveai.uhpcheck").joinpath("uhpcheck_validmoves.tsv").read_text(encoding="utf-8")
    return [tuple(ln.split("\t", 1)) for ln in text.splitlines()  # type: ignore[misc]
            if ln.strip() and not ln.startswith("#")]


def load_illegal_moves() -> list[tuple[str, str, str]]:
    """The catalogue of illegal moves: (rule, GameString, MoveString) triples."""
    text = resources.files("hiveai.uhpcheck").joinpath("uhpcheck_illegal.tsv").read_text(encoding="utf-8")
    out, rule = [], ""
    for ln in text.splitlines():
        if ln.startswith("## "):
            rule = ln[3:].strip()
        elif ln.strip() and not ln.startswith("#"):
            game, move = ln.split("\t")
            out.append((rule, game, move))
    return out


def parse_game_string(text: str) -> tuple[str, str, str, list[str]]:
    """(type, state, turn, moves) of a GameString, without checking them.

    >>> parse_game_string("Base;InProgress;White[2];wS1;bS1 wS1-")
    ('Base', 'InProgress', 'White[2]', ['wS1', 'bS1 wS1-'])
    """
    fields = text.strip().split(";")
    fields += [""] * (3 - len(fields))
    return fields[0], fields[1], fields[2], [f for f in fields[3:]]


def game_string_problem(reply: str, board, before=None) -> str | None:
    """Why the engine's GameString ``reply`` does not describe ``board``'s game, or None.

    With ``before`` (the board one ply earlier, whose moves were checked already) only the
    last move is compared.
    """
    gtype, state, turn, moves = parse_game_string(reply)
    if gtype != board.game_type_string:
        return f"game type {gtype!r}, expected {board.game_type_string!r}"
    if state != board.state or turn != board.turn_string:
        return f"{state};{turn}, expected {board.state};{board.turn_string}"
    if len(moves) != board.ply:
        return f"{len(moves)} moves, expected {board.ply}"
    if before is not None:
        try:
            same = move_key(before, moves[-1]) == board.peek().code
        except Exception as e:  # noqa: BLE001
            return f"move {moves[-1]!r} does not parse: {e}"
        return None if same else f"move {moves[-1]!r} is not {board.peek()}"
    replay = _board_from(board.game_type_string)
    for mine, theirs in zip(board.move_stack, moves):
        try:
            if move_key(replay, theirs) != mine.code:
                return f"move {theirs!r} is not {mine}"
            replay.push(mine)
        except Exception as e:  # noqa: BLE001
            return f"move {theirs!r} does not parse: {e}"
    return None


def repetition_draw(board) -> bool:
    """Whether ``board``'s position has been seen three times (the side to move included)."""
    seen = collections.Counter()
    replay = _board_from(board.game_type_string)
    seen[replay.key()] += 1
    for m in board.move_stack:
        replay.push(m)
        seen[replay.key()] += 1
    return seen[board.key()] >= 3


def game_types(capabilities: Sequence[str]) -> list[str]:
    """The GameTypeStrings an engine's capability line allows, Base first.

    >>> game_types(["Mosquito", "Pillbug"])
    ['Base', 'Base+M', 'Base+P', 'Base+MP']
    """
    letters = [EXPANSIONS[c] for c in EXPANSIONS if c.lower() in {x.lower() for x in capabilities}]
    out = ["Base"]
    for n in range(1, len(letters) + 1):
        out += ["Base+" + "".join(combo) for combo in itertools.combinations(letters, n)]
    return out


def _cpu_seconds(pid: int) -> float | None:
    """CPU time the process has used (Linux /proc), None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


# --- the checker -------------------------------------------------------------------------------

class Checker:
    """Runs cases against one engine command; see :func:`run_checks`."""

    def __init__(self, command: Sequence[str], *, quick: bool = False, game_type: Sequence[str] = (),
                 seed: int = 1, timeout: float = 10.0, progress: Callable[[Result], None] | None = None) -> None:
        self.command_line = list(command)
        self.quick = quick
        self.only_types = list(game_type)
        self.seed = seed
        self.timeout = timeout
        self.progress = progress
        self.transcript: collections.deque[str] = collections.deque(maxlen=24)
        self.stray: list[str] = []
        self._engine: UhpEngine | None = None
        self.banner: list[str] = []
        self.types: list[str] = ["Base"]
        self.no_game: list[tuple[str, list[str]]] = []
        self.no_game_exchange: list[str] = []

    # engine lifetime

    def _log(self, tag: str, text: str) -> None:
        if tag == "stderr":
            return
        if tag == "stray":
            self.stray.append(text)
        self.transcript.append(f"{'<' if tag == 'stray' else tag} {text}")

    def start(self, read_banner: bool = True, warm: bool = True) -> UhpEngine:
        """A new engine process (the old one, if any, is reaped first). With ``warm`` it first
        plays through a short game with the start-up timeout, so that an engine that compiles
        or loads on first use (hiveai's numba cache) is not taken for a hung one."""
        self.stop()
        slow = max(self.timeout, STARTUP_TIMEOUT)
        if not read_banner:
            self._engine = popen_uhp(self.command_line, timeout=self.timeout, log=self._log, read_banner=False)
            return self._engine
        self._engine = popen_uhp(self.command_line, timeout=self.timeout, startup_timeout=slow, log=self._log)
        if warm:
            self.warm_up()
        return self._engine

    def warm_up(self) -> None:
        """A short game with the start-up timeout (see :meth:`start`)."""
        assert self._engine is not None
        try:
            for line in ("newgame Base+MLP", "validmoves", "play wS1", "validmoves", "newgame Base"):
                self._engine.command(line, max(self.timeout, STARTUP_TIMEOUT), check=False)
        except EngineError:
            self.stop()  # the cases will meet the same trouble and report it
        self.transcript.clear()

    @property
    def engine(self) -> UhpEngine:
        """The running engine, started again if the last one died or was killed."""
        if self._engine is None or not self._engine.alive():
            self.start()
        assert self._engine is not None
        return self._engine

    def stop(self) -> None:
        """Reap the engine, however it is."""
        if self._engine is not None:
            self._engine.quit(grace=1.0)
            self._engine = None

    # helpers cases use

    def ask(self, line: str, timeout: float | None = None, wait: float = 0.0) -> list[str]:
        """Send a command and return its reply (err and invalidmove included), then make
        sure nothing follows the ``ok`` within ``wait`` seconds (later stray lines are
        found before the next command: see :meth:`_run_one`)."""
        lines = self.engine.command(line, timeout, check=False)
        stray = self.engine.poll_line(wait)
        if stray is not None:
            raise CaseFailed(f"printed {stray!r} after the `ok` of {line!r} (nothing may follow an ok)")
        return lines

    def one(self, line: str, timeout: float | None = None) -> str:
        """The one line a command must answer (GameString, validmoves...); CaseFailed otherwise."""
        lines = self.ask(line, timeout)
        if not lines:
            raise CaseFailed(f"answered nothing but `ok` to {line!r}")
        if lines[0].startswith(("err", "invalidmove")):
            raise CaseFailed(f"answered {lines[0]!r} to {line!r}")
        if len(lines) > 1:
            raise CaseFailed(f"answered {len(lines)} lines to {line!r} (one expected): {lines!r}")
        return lines[0]

    def rejected(self, line: str) -> str:
        """The ``err``/``invalidmove`` line a command must answer; CaseFailed if accepted."""
        lines = self.ask(line)
        if not lines or not lines[0].startswith(("err", "invalidmove")):
            raise CaseFailed(f"accepted {line!r}: answered {lines!r}, expected err or invalidmove")
        return lines[0]

    def newgame(self, board) -> str:
        """Set up ``board``'s game in the engine and check the GameString it answers."""
        text = board.game_string() if board.ply else board.game_type_string
        reply = self.one(f"newgame {text}")
        problem = game_string_problem(reply, board)
        if problem is not None and not (problem.startswith("Draw;") and repetition_draw(board)):
            raise CaseFailed(f"`newgame {text}` answered {reply!r}: {problem}")
        return reply

    def validmoves(self, board) -> SetDifference:
        """The engine's validmoves against hiveai's on ``board`` (set up already)."""
        return compare_moves(board, self.one("validmoves"))

    def bestmove(self, board, command: str, timeout: float | None = None) -> tuple[str, float]:
        """The engine's answer to ``command`` (a legal move on ``board``), with the seconds it took."""
        start = time.monotonic()
        lines = self.ask(command, timeout, wait=STRAY_WAIT)
        took = time.monotonic() - start - STRAY_WAIT
        if not lines:
            raise CaseFailed(f"answered no move to {command!r}")
        if lines[0].startswith(("err", "invalidmove")):
            raise CaseFailed(f"answered {lines[0]!r} to {command!r}")
        if len(lines) > 1:
            raise CaseFailed(f"answered {len(lines)} lines to {command!r}: {lines!r}; hive-hydra (the Hive "
                             "website's bot bridge) takes the first line as the move, MzingaViewer the last")
        answer = lines[0].split(";")[0].strip()
        if not board.is_legal(answer):
            raise CaseFailed(f"answered {answer!r} to {command!r}, not a legal move in {board.game_string()}")
        return answer, took

    def shrink(self, board, diff: SetDifference) -> SetDifference:
        """The shortest game found that still shows ``diff``'s kind of difference."""
        moves = list(board.move_stack)
        want = diff.signature()
        budget = [SHRINK_BUDGET]

        def differs(candidate) -> SetDifference | None:
            b = _board_from(board.game_type_string)
            try:
                for code in candidate:
                    b.push(code)
            except Exception:  # noqa: BLE001 - not a legal game without that move
                return None
            if b.is_game_over() or budget[0] <= 0:
                return None
            budget[0] -= 1
            try:
                self.newgame(b)
                d = self.validmoves(b)
            except (CaseFailed, EngineError):
                return None
            return d if d and d.signature() == want else None

        texts = [m.code for m in moves]
        best = diff
        changed = True
        while changed and budget[0] > 0:
            changed = False
            for width in (2, 1):
                i = 0
                while i + width <= len(texts) and budget[0] > 0:
                    candidate = texts[:i] + texts[i + width:]
                    d = differs(candidate)
                    if d is not None:
                        texts, best, changed = candidate, d, True
                    else:
                        i += 1
        return best

    # running

    def run(self, names: Sequence[str] = ()) -> list[Result]:
        """Run the cases (all, or those named) and return their results in order."""
        unknown = [n for n in names if n not in {c.name for c in CASES}]
        if unknown:
            raise ValueError(f"unknown case {', '.join(unknown)}; cases: {', '.join(c.name for c in CASES)}")
        results: list[Result] = []
        try:
            try:
                self.start(warm=False)
                self.banner = list(self._engine.banner) if self._engine else []
                self.types = game_types(self._engine.capabilities if self._engine else ())
                # Before any game: the errors case judges these replies.
                slow = max(self.timeout, STARTUP_TIMEOUT)  # an engine may load after its banner
                self.no_game = [(line, self._engine.command(line, slow, check=False) if self._engine else [])
                                for line in NO_GAME_COMMANDS]
                self.no_game_exchange = list(self.transcript)
                self.warm_up()
            except EngineError as e:
                results.append(Result("banner", "protocol", FAIL, f"no start-up banner: {e}",
                                      list(self.transcript)))
                return results
            if self.only_types:
                announced = self.types
                self.types = [t for t in announced if t in self.only_types]
                if not self.types:
                    raise ValueError(f"the engine announces {', '.join(announced)}, not "
                                     f"{', '.join(self.only_types)}")
            for c in CASES:
                if names and c.name not in names:
                    continue
                results.append(self._run_one(c))
                if self.progress is not None:
                    self.progress(results[-1])
        finally:
            self.stop()
        return results

    def _run_one(self, c: Case) -> Result:
        self.transcript.clear()
        self.stray.clear()
        start = time.monotonic()
        notes: list[str] = []
        try:
            out = c.run(self)
            status, message = out if isinstance(out, tuple) else (PASS, str(out))
            if isinstance(message, NoteMessage):
                notes = message.notes
        except CaseFailed as e:
            status, message = FAIL, str(e)
        except EngineTimeoutError as e:
            status, message = FAIL, f"hung: {e} (killed)"
        except EngineTerminatedError as e:
            status, message = FAIL, f"crashed: {e}"
        except EngineError as e:
            status, message = FAIL, str(e)
        if status != FAIL and self.stray:
            status, message = FAIL, f"printed {self.stray[0]!r} between commands (nothing may follow an ok)"
        exchange = list(self.transcript) if status == FAIL else []
        if status == FAIL and self._engine is not None and not self._engine.alive():
            self._engine = None
        return Result(c.name, c.group, status, str(message), exchange, notes, round(time.monotonic() - start, 3))


class NoteMessage(str):
    """A case's message that carries the names of the notes it found."""

    notes: list[str]

    def __new__(cls, text: str, notes: Sequence[str]) -> NoteMessage:
        obj = super().__new__(cls, text)
        obj.notes = list(notes)
        return obj


def noted(message: str, *names: str) -> tuple[str, NoteMessage]:
    """A note verdict naming documented conventions (keys of :data:`NOTES`)."""
    return NOTE, NoteMessage(message + "".join(f" [{n}: {NOTES[n]}]" for n in names), names)


def _sample_board(game_type: str = "Base", plies: int = 6, seed: int = 0):
    """A position a few random plies into a game (not over)."""
    rng = random.Random(seed)
    while True:
        b = _board_from(game_type)
        for _ in range(plies):
            b.push(rng.choice(b.legal_moves))
            if b.is_game_over():
                break
        if not b.is_game_over():
            return b


# --- protocol cases ----------------------------------------------------------------------------

@case("banner", "protocol")
def _banner(ck: Checker) -> object:
    """The start-up block: `id ...`, an optional capability line, `ok`."""
    lines = ck.banner
    if not lines or not lines[0].startswith("id "):
        raise CaseFailed(f"the banner's first line is not `id <name>`: {lines!r}")
    if len(lines) > 2:
        raise CaseFailed(f"the banner has {len(lines)} lines before `ok` (at most `id` and capabilities): {lines!r}")
    if len(lines) == 2:
        flags = [f for f in lines[1].split(";")]
        bad = [f for f in flags if f not in EXPANSIONS]
        if bad:
            raise CaseFailed(f"the capability line {lines[1]!r} has {bad!r}; UHP defines Mosquito, Ladybug, Pillbug")
    return f"{'; '.join(lines)}; game types {', '.join(ck.types)}"


@case("info", "protocol")
def _info(ck: Checker) -> object:
    """`info` answers the banner's block again."""
    lines = ck.ask("info", wait=STRAY_WAIT)
    if lines != ck.banner:
        raise CaseFailed(f"`info` answered {lines!r}, the banner was {ck.banner!r}")
    return "the same block as the banner"


@case("newgame", "protocol")
def _newgame(ck: Checker) -> object:
    """`newgame` and `newgame T` for every game type announced."""
    reply = ck.one("newgame")
    if reply != "Base;NotStarted;White[1]":
        raise CaseFailed(f"`newgame` answered {reply!r}, expected 'Base;NotStarted;White[1]'")
    for t in ck.types:
        reply = ck.one(f"newgame {t}")
        if reply != f"{t};NotStarted;White[1]":
            raise CaseFailed(f"`newgame {t}` answered {reply!r}, expected '{t};NotStarted;White[1]'")
    return f"{len(ck.types) + 1} forms"


# A finished game from Mzinga's tests (Board_InvalidMovesByRuleTest.csv): White's queen is surrounded.
FINISHED_GAME = ("Base;BlackWins;White[7];wS1;bS1 wS1-;wQ \\wS1;bQ bS1/;wG1 -wQ;bG1 bQ-;wA1 wG1\\;bA1 bQ\\;"
                 "wA2 \\wQ;bA2 \\bG1;wG2 wQ/;bG1 wG2\\")


@case("newgame-string", "protocol")
def _newgame_string(ck: Checker) -> object:
    """`newgame GameString`: in progress (state and turn recomputed) and finished."""
    board = _sample_board("Base", 7, ck.seed)
    gtype, _, _, moves = parse_game_string(board.game_string())
    wrong = ";".join([gtype, "NotStarted", "White[1]", *moves])  # Mzinga recomputes these fields
    reply = ck.one(f"newgame {wrong}")
    problem = game_string_problem(reply, board)
    if problem:
        raise CaseFailed(f"`newgame {wrong}` answered {reply!r}: {problem}")
    ck.newgame(_board_from(FINISHED_GAME))
    return "in progress, with wrong state fields, and finished"


@case("play", "protocol")
def _play(ck: Checker) -> object:
    """`play` answers the new GameString; `pass` is rejected while moves exist."""
    board = _board_from("Base")
    ck.newgame(board)
    for _ in range(4):
        move = board.legal_moves[len(board.legal_moves) // 2]
        reply = ck.one(f"play {move}")
        board.push(move)
        problem = game_string_problem(reply, board)
        if problem:
            raise CaseFailed(f"`play {move}` answered {reply!r}: {problem}")
    ck.rejected("pass")
    return "4 plies and a refused pass"


@case("undo", "protocol")
def _undo(ck: Checker) -> object:
    """`undo`, `undo N` and too many undos (err, game kept)."""
    board = _sample_board("Base", 6, ck.seed + 1)
    ck.newgame(board)
    for line, n in (("undo", 1), ("undo 2", 2)):
        reply = ck.one(line)
        board.undo(n)
        problem = game_string_problem(reply, board)
        if problem:
            raise CaseFailed(f"`{line}` answered {reply!r}: {problem}")
    ck.rejected(f"undo {board.ply + 1}")
    d = ck.validmoves(board)
    if d:
        raise CaseFailed(f"after a refused `undo {board.ply + 1}` the game changed: " + "; ".join(d.describe()))
    return "undo, undo 2, and too many refused"


@case("validmoves", "protocol")
def _validmoves(ck: Checker) -> object:
    """`validmoves` is one `;`-separated line, no empty entry, no duplicate."""
    board = _sample_board("Base", 8, ck.seed + 2)
    ck.newgame(board)
    line = ck.one("validmoves")
    texts = line.split(";")
    if any(not t.strip() for t in texts):
        raise CaseFailed(f"`validmoves` has an empty entry: {line!r}")
    keys = collections.Counter()
    for t in texts:
        try:
            keys[move_key(board, t)] += 1
        except Exception:  # noqa: BLE001
            raise CaseFailed(f"`validmoves` lists {t!r}, which names no move in {board.game_string()}") from None
    dup = [k for k, n in keys.items() if n > 1]
    if dup:
        raise CaseFailed(f"`validmoves` names {len(dup)} moves twice: {line!r}")
    return f"{len(texts)} moves, well formed"


@case("errors", "protocol")
def _errors(ck: Checker) -> object:
    """No game: err; an unknown command and a malformed move: err/invalidmove, game kept."""
    for line, reply in ck.no_game:
        if not reply or not reply[0].startswith("err"):
            ck.transcript.extend(ck.no_game_exchange)
            raise CaseFailed(f"answered {reply!r} to {line!r} before any game, expected err")
    board = _sample_board("Base", 5, ck.seed + 3)
    ck.newgame(board)
    for line in ("frobnicate", "play xyz", "play wQ wQ wQ", "undo x", "bestmove sideways"):
        ck.rejected(line)
    d = ck.validmoves(board)
    if d:
        raise CaseFailed("the game changed after refused commands: " + "; ".join(d.describe()))
    return "err or invalidmove, then ok, the game kept"


@case("game-over", "protocol")
def _game_over(ck: Checker) -> object:
    """After the game ended: play, pass and bestmove refused (no crash); undo works."""
    board = _board_from(FINISHED_GAME)
    ck.newgame(board)
    for line in ("play wB1 wG2/", "pass", "bestmove depth 1"):
        ck.rejected(line)
    reply = ck.one("undo")
    board.undo()
    problem = game_string_problem(reply, board)
    if problem:
        raise CaseFailed(f"`undo` after the end answered {reply!r}: {problem}")
    return "refused, and undo goes back"


@case("bestmove-depth", "protocol")
def _bestmove_depth(ck: Checker) -> object:
    """`bestmove depth 1` and `depth 2`: one line, a legal move, the game unchanged."""
    board = _sample_board("Base", 6, ck.seed + 4)
    ck.newgame(board)
    answers = [ck.bestmove(board, f"bestmove depth {n}")[0] for n in (1, 2)]
    d = ck.validmoves(board)
    if d:
        raise CaseFailed("bestmove changed the game: " + "; ".join(d.describe()))
    return f"{' and '.join(answers)}, legal"


@case("bestmove-time", "protocol")
def _bestmove_time(ck: Checker) -> object:
    """`bestmove time` (1 s, 0.5 s, 0 s) answered within its budget plus the margin."""
    board = _sample_board("Base", 6, ck.seed + 5)
    ck.newgame(board)
    wait = 1 + TIME_MARGIN
    whole = False
    for command, budget in (("bestmove time 00:00:01", 1.0), ("bestmove time 00:00:00.5000000", 0.5),
                            ("bestmove time 00:00:00", 0.0)):
        lines = ck.ask(command, max(budget + TIME_MARGIN, min(ck.timeout, 5.0)) + 1.0)
        if lines and lines[0].startswith("err") and "." in command:
            # nokamute's convention: whole seconds only; then ceil(T) must be kept.
            _, took = ck.bestmove(board, "bestmove time 00:00:01", wait + 1.0)
            if took > wait:
                raise CaseFailed(f"`bestmove time 00:00:01` (after refusing a fraction) took {took:.2f} s")
            whole = True
            continue
        start = time.monotonic()
        ck.engine.send(command)  # asked again to time it alone
        lines = ck.engine.read_block(budget + TIME_MARGIN + 5.0, command)
        took = time.monotonic() - start
        if not lines or lines[0].startswith(("err", "invalidmove")) or not board.is_legal(lines[-1].split(";")[0]):
            raise CaseFailed(f"answered {lines!r} to {command!r}, expected a legal move")
        if took > budget + TIME_MARGIN:
            raise CaseFailed(f"`{command}` answered after {took:.2f} s (budget {budget:g} s + {TIME_MARGIN} s)")
    if whole:
        return noted("fractions refused; 1 s and 0 s answered in time", "whole-seconds")
    return "1 s, 0.5 s and 0 s answered in time"


@case("options", "protocol")
def _options(ck: Checker) -> object:
    """`options` lines well formed; `get` and `set` round trips; out-of-range values refused or clamped."""
    lines = ck.ask("options")
    if lines and lines[0].startswith("err"):
        raise CaseFailed(f"`options` answered {lines[0]!r} (an engine without options answers just ok)")
    opts = []
    for ln in lines:
        fields = ln.split(";")
        if len(fields) < 4 or any(not f for f in fields) or fields[1] not in ("bool", "int", "double", "enum"):
            raise CaseFailed(f"option line {ln!r} is not Name;bool|int|double|enum;Value;Default[;...] "
                             "with no empty field (MzingaViewer rejects the whole reply)")
        opts.append(EngineOption.parse(ln))
    for opt in opts:
        got = ck.ask(f"options get {opt.name}")
        if len(got) != 1 or EngineOption.parse(got[0]).value != opt.value:
            raise CaseFailed(f"`options get {opt.name}` answered {got!r}")
        new = {"bool": "False" if opt.value == "True" else "True", "enum": opt.choices[-1] if opt.choices else opt.value,
               "int": opt.min, "double": opt.min}.get(opt.type) or opt.value
        for value in (new, opt.value):
            got = ck.ask(f"options set {opt.name} {value}")
            if len(got) != 1 or got[0].startswith("err") or EngineOption.parse(got[0]).value != value:
                raise CaseFailed(f"`options set {opt.name} {value}` answered {got!r}")
        if opt.type == "int" and opt.min is not None:
            too_big = str(int(opt.min) - 1)  # below the minimum: a maximum may be a huge table
            got = ck.ask(f"options set {opt.name} {too_big}")
            if got and not got[0].startswith("err"):
                value = EngineOption.parse(got[0]).value
                if int(value) < int(opt.min):
                    raise CaseFailed(f"`options set {opt.name} {too_big}` took a value below its minimum "
                                     f"{opt.min}: {got!r}")
            ck.ask(f"options set {opt.name} {opt.value}")
    return f"{len(opts)} options" if opts else "no options (just ok)"


@case("sigint", "protocol")
def _sigint(ck: Checker) -> object:
    """SIGINT during `bestmove time 00:00:05` answers a legal move at once (UHP does not require it)."""
    board = _sample_board("Base", 6, ck.seed + 6)
    ck.newgame(board)
    engine = ck.engine
    engine.send("bestmove time 00:00:05")
    early = engine.poll_line(0.5)
    if early is not None:
        ck.stray.clear()  # the answer itself, read early
        if early != "ok":
            engine.read_block(ck.timeout, "bestmove")
        return SKIP, f"answered {early!r} within 0.5 s, before the signal could be sent"
    engine.send_signal(signal.SIGINT)
    start = time.monotonic()
    try:
        lines = engine.read_block(6.0, "bestmove time 00:00:05 + SIGINT")
    except EngineTerminatedError:
        ck._engine = None
        return noted("the engine exited at SIGINT", "no-sigint")
    except EngineTimeoutError:
        ck._engine = None
        return noted("no answer after SIGINT", "no-sigint")
    took = time.monotonic() - start
    if not lines or not board.is_legal(lines[-1].split(";")[0]):
        raise CaseFailed(f"answered {lines!r} after SIGINT, not a legal move")
    if took > 1.5:
        return noted(f"SIGINT ignored: answered after {took:.1f} s", "no-sigint")
    ck.ask("info")
    return f"answered {lines[-1]} {took:.2f} s after SIGINT"


@case("eof", "protocol")
def _eof(ck: Checker) -> object:
    """At the end of its input the engine finishes and exits with status 0."""
    engine = ck.engine  # warm: an engine still loading may take longer to go
    engine.command("newgame Base", check=False)
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    deadline = time.monotonic() + EXIT_WAIT
    # Poll rather than wait: an engine that loops at the end of its input may also print without
    # end (MzingaCpp answers its empty reads with err lines), and those lines pile up here.
    while engine.proc.poll() is None and time.monotonic() < deadline and engine.pending_lines() < ONE_SHOT_LINES:
        time.sleep(0.02)
    code = engine.proc.poll()
    if code is None:
        flood = engine.pending_lines()
        before, t0 = _cpu_seconds(engine.proc.pid), time.monotonic()
        time.sleep(0.5)
        after = _cpu_seconds(engine.proc.pid)
        ck.stop()
        busy = ""
        if before is not None and after is not None:
            busy = f", using {100 * (after - before) / (time.monotonic() - t0):.0f} % of a CPU"
        if flood >= ONE_SHOT_LINES:
            busy += f", printing without end ({flood} lines so far)"
        raise CaseFailed(f"still running after its input ended{busy}; killed (hive-hydra waits for the exit)")
    ck._engine = None
    if code != 0:
        raise CaseFailed(f"exited with status {code} at the end of its input")
    return "exited with status 0"


@case("exit", "protocol")
def _exit(ck: Checker) -> object:
    """`exit` ends the process, printing nothing."""
    engine = ck.engine
    engine.send("exit")
    try:
        code = engine.proc.wait(EXIT_WAIT)
    except subprocess.TimeoutExpired:
        ck.stop()
        raise CaseFailed(f"still running {EXIT_WAIT:g} s after `exit`; killed") from None
    extra = []
    while True:
        try:
            line = engine.poll_line(0.2)
        except EngineTerminatedError:
            break
        if line is None:
            break
        extra.append(line)
    ck._engine = None
    if extra:
        raise CaseFailed(f"printed {extra!r} after `exit`")
    return f"exited with status {code}"


@case("one-shot", "protocol")
def _one_shot(ck: Checker) -> object:
    """The Hive website's pattern: `newgame GameString` and `bestmove`, input closed, first line after the second ok."""
    board = _sample_board(ck.types[-1], 8, ck.seed + 7)
    engine = ck.start(read_banner=False)
    engine.send(f"newgame {board.game_string()}")
    engine.send("bestmove depth 1")
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    out: list[str] = []
    deadline = time.monotonic() + ck.timeout + EXIT_WAIT
    try:
        while time.monotonic() < deadline and len(out) < ONE_SHOT_LINES:
            out.append(engine.read_line(max(0.0, deadline - time.monotonic()), "one-shot"))
    except EngineTerminatedError:
        pass
    except EngineTimeoutError:
        ck._engine = None
        raise CaseFailed(f"did not answer and exit within {ck.timeout + EXIT_WAIT:g} s; output {out[:12]!r}") from None
    ck.stop()
    if len(out) >= ONE_SHOT_LINES or engine.proc.returncode not in (0, None) and not out:
        raise CaseFailed(f"printed {len(out)} lines or more after its input ended, without exiting; "
                         f"the first: {out[:10]!r}; killed")
    ck._engine = None
    oks = [i for i, ln in enumerate(out) if ln == "ok"]
    if len(oks) < 3 or oks[2] != len(out) - 1:
        raise CaseFailed(f"expected banner, GameString, move, each ending in ok; got {out!r}")
    answer = out[oks[1] + 1].split(";")[0]
    if not board.is_legal(answer):
        raise CaseFailed(f"the first line after the second ok is {answer!r}, not a legal move")
    code = engine.proc.returncode
    if code != 0:
        raise CaseFailed(f"exited with status {code}")
    return f"answered {answer} and exited"


# --- rules cases -------------------------------------------------------------------------------

@case("reference-moves", "rules")
def _reference_moves(ck: Checker) -> object:
    """`validmoves` equals Mzinga's move sets on real-game positions (shipped with hiveai)."""
    positions = [(g, m) for g, m in load_reference_positions() if parse_game_string(g)[0] in ck.types]
    if not positions:
        return SKIP, "the reference positions are Base+MLP games; the engine does not announce that type"
    if ck.quick:
        positions = positions[::8]
    for game, moves in positions:
        board = _board_from(game)
        ck.newgame(board)
        reference = {move_key(board, t): t for t in moves.split(";")}
        d = compare_moves(board, ck.one("validmoves"), reference)
        if d:
            raise CaseFailed("differs from Mzinga's move set:\n" + "\n".join(d.describe("Mzinga")))
    return f"{len(positions)} positions equal Mzinga's sets"


@case("random-moves", "rules")
def _random_moves(ck: Checker) -> object:
    """`validmoves` equals hiveai's on positions of random games in every game type announced."""
    total = POSITIONS_QUICK if ck.quick else POSITIONS_DEFAULT
    per_type = max(1, total // len(ck.types))
    found: list[str] = []
    notes: list[str] = []
    compared = differing = 0
    for game_type in ck.types:
        rng = random.Random(f"{ck.seed}:{game_type}")
        board = None
        first: tuple[SetDifference, object] | None = None
        for _ in range(per_type):
            if board is None or board.is_game_over() or board.ply >= RANDOM_GAME_PLIES:
                board = _board_from(game_type)
                ck.newgame(board)
            d = ck.validmoves(board)
            compared += 1
            if d:
                differing += 1
                if first is None:
                    first = (d, board.copy())
            move = rng.choice(board.legal_moves)
            reply = ck.ask(f"play {move}")
            before = board.copy()
            board.push(move)
            if not reply or reply[0].startswith(("err", "invalidmove")):
                raise CaseFailed(f"refused `play {move}`, a legal move in {before.game_string()}: {reply!r}")
            problem = game_string_problem(reply[0], board, before)
            if problem and parse_game_string(reply[0])[1] == "Draw" and repetition_draw(board):
                notes.append(f"Draw declared at {board.game_string()}")
                board = None  # the engine's game is over: start another
            elif problem:
                raise CaseFailed(f"`play {move}` in {before.game_string()} answered {reply[0]!r}: {problem}")
        if first is not None:
            shrunk = ck.shrink(first[1], first[0])
            plies = len(parse_game_string(shrunk.game)[3])
            found.append(f"{game_type}: the first difference, shrunk from {first[1].ply} plies to {plies}:\n"
                         + "\n".join(shrunk.describe()))
    if found:
        raise CaseFailed(f"{differing} of {compared} positions differ from hiveai's moves\n" + "\n".join(found))
    message = f"{compared} positions in {len(ck.types)} game types equal hiveai's moves"
    if notes:
        return noted(message + f"; {len(notes)} repetition draws, first {notes[0]}", "threefold-repetition")
    return message


@case("bestmove-legal", "rules")
def _bestmove_legal(ck: Checker) -> object:
    """`bestmove depth 1` answers a legal move in random positions of every game type."""
    count = 3 if ck.quick else 10
    n = 0
    for game_type in ck.types:
        for i in range(count):
            board = _sample_board(game_type, 4 + 3 * i, ck.seed * 1000 + i)
            ck.newgame(board)
            ck.bestmove(board, "bestmove depth 1")
            n += 1
    return f"{n} answers legal"


@case("illegal-moves", "rules")
def _illegal_moves(ck: Checker) -> object:
    """Every move of the catalogue (one or more per rule) is refused and the game kept."""
    n = 0
    rules = set()
    failures: list[str] = []
    lenient: list[str] = []
    for rule, game, move in load_illegal_moves():
        if parse_game_string(game)[0] not in ck.types and not rule.startswith("A piece not in"):
            continue
        board = _board_from(game)
        line = "pass" if move == "pass" else f"play {move}"
        try:
            ck.newgame(board)
            if _spells_legal_move(board, move):
                # A climb written with a direction (`bB1 -bQ` for the stack west of bQ): Mzinga
                # refuses the spelling, but the move it names is legal; accepting it is leniency.
                reply = ck.ask(line)
                if reply and not reply[0].startswith(("err", "invalidmove")):
                    lenient.append(move)
                    n += 1
                    continue
            ck.rejected(line)
            if not board.is_game_over():
                d = ck.validmoves(board)
                if d:
                    raise CaseFailed(f"after refusing `{line}` the game changed: " + "; ".join(d.describe()))
        except (CaseFailed, EngineError) as e:
            failures.append(f"{rule}: {e}\n  in {game}")
        n += 1
        rules.add(rule)
    also = (f"; accepted {', '.join(lenient)}: a legal climb spelt with a direction, which Mzinga refuses"
            if lenient else "")
    if failures:
        raise CaseFailed(f"{len(failures)} of {n} illegal moves not refused{also}:\n" + "\n".join(failures))
    return f"{n} illegal moves refused ({len(rules)} rules){also}"


def _spells_legal_move(board, text: str) -> bool:
    """Whether MoveString ``text``, read as its piece and the cell it points at, is a legal move
    (it is in the catalogue only for naming an occupied cell with a direction)."""
    try:
        code = move_key(board, text)
    except Exception:  # noqa: BLE001
        return False
    return code in board.legal_move_ints()


def run_checks(command: Sequence[str], cases: Sequence[str] = (), **kwargs) -> list[Result]:
    """Run the cases against ``command`` and return the results (see :class:`Checker`)."""
    return Checker(command, **kwargs).run(cases)


def summary(results: Sequence[Result]) -> dict[str, int]:
    """Counts by status."""
    counts = collections.Counter(r.status for r in results)
    return {s: counts.get(s, 0) for s in (PASS, FAIL, NOTE, SKIP)}


def report(results: Sequence[Result], seconds: float) -> str:
    """The readable report: a line per case, the exchange under each failure, a summary."""
    out = []
    for r in results:
        out.append(r.line().split("\n")[0])
        for extra in r.message.split("\n")[1:]:
            out.append(" " * 24 + extra)
        if r.exchange:
            out.append(" " * 6 + "exchange (last lines):")
            out += [" " * 8 + ln for ln in r.exchange[-12:]]
    s = summary(results)
    out.append(f"{s[PASS]} passed, {s[FAIL]} failed, {s[NOTE]} notes, {s[SKIP]} skipped in {seconds:.1f} s")
    return "\n".join(out)


def as_json(results: Sequence[Result], seconds: float, command: Sequence[str]) -> str:
    """The results as one JSON object, for scripts."""
    return json.dumps({"command": list(command), "seconds": round(seconds, 2), "summary": summary(results),
                       "cases": [asdict(r) for r in results]}, indent=1)
