"""The harness: the engine under test and the conversation with it.

A :class:`Checker` starts the engine with :func:`hiveai.engine.popen_uhp`,
warms it up, gives the cases their verbs (:meth:`~Checker.ask`,
:meth:`~Checker.one`, :meth:`~Checker.rejected`, :meth:`~Checker.newgame`,
:meth:`~Checker.validmoves`, :meth:`~Checker.bestmove`, :meth:`~Checker.shrink`)
and turns what a case did into a :class:`~hiveai.uhpcheck.verdicts.Result`.
"""

from __future__ import annotations

import collections
import os
import time
from typing import TYPE_CHECKING, Callable, Sequence

from hiveai.engine import EngineError, EngineTerminatedError, EngineTimeoutError, UhpEngine, popen_uhp
from hiveai.uhpcheck.reference import (
    SetDifference,
    board_from,
    compare_moves,
    game_string_problem,
    game_types,
    repetition_draw,
)
from hiveai.uhpcheck.verdicts import FAIL, PASS, CaseFailed, NoteMessage, Result

if TYPE_CHECKING:
    from hiveai.uhpcheck.cases import Case

# Seconds a `bestmove time T` may take beyond T. MzingaViewer shows a progress bar for T and
# hive-hydra waits for the process; half a second is well past an honest overrun.
TIME_MARGIN = 0.5
# Seconds to wait for stray output after an `ok` (nothing may follow it until the next command).
STRAY_WAIT = 0.05
# Seconds the start-up banner and a first short game may take (hiveai compiles on first use).
STARTUP_TIMEOUT = 120.0
# Commands sent before any game, which must be answered err.
NO_GAME_COMMANDS = ("validmoves", "play wS1", "undo", "bestmove depth 1")
# Engine queries one shrink may spend.
SHRINK_BUDGET = 200
def cpu_seconds(pid: int) -> float | None:
    """CPU time the process has used (Linux /proc), None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class Checker:
    """Runs cases against one engine command; see :func:`hiveai.uhpcheck.check.run_checks`."""

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

    def forget_engine(self) -> None:
        """Let go of an engine a case has seen exit or has reaped itself; the next case starts another."""
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
            b = board_from(board.game_type_string)
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

    def run(self, cases: Sequence[Case]) -> list[Result]:
        """Run ``cases`` in order and return their results."""
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
            for c in cases:
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
