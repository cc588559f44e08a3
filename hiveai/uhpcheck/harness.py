"""The harness: the engine under test, the conversation with it, and the hangs it has shown.

A :class:`Checker` starts the engine with :func:`hiveai.engine.popen_uhp`,
warms it up, gives the cases their verbs (:meth:`~Checker.ask`,
:meth:`~Checker.one`, :meth:`~Checker.rejected`, :meth:`~Checker.newgame`,
:meth:`~Checker.validmoves`, :meth:`~Checker.bestmove`, :meth:`~Checker.shrink`)
and turns what a case did into a :class:`~hiveai.uhpcheck.verdicts.Result`.

**Hangs.** A command that gets no ``ok`` within the timeout fails the case it
was sent in, and the engine is killed (its output would no longer line up with
the commands); the next case starts another process. The checker remembers the
command (:attr:`Checker.hangs`, by its first word), so that a flaw such as an
``ok`` left out after every third ``validmoves`` is waited out once, not in
every later case. When a later case sends the same command and its ``ok`` is
again missing, the engine is judged to have hung again as soon as it sits
idle: nothing written for :data:`REPEAT_WAIT` seconds (beyond the command's own
time, for ``bestmove time``), and no CPU used meanwhile by the process and its
children (read from Linux's /proc). That case then ends as a skip naming the
case that reported the hang, and the engine is killed. A slow engine is busy,
so it still gets the whole timeout; where the CPU time cannot be read, only an
engine that has written its reply and then nothing is judged idle.

The warm-up (a short game with the start-up timeout, for an engine that
compiles on first use) gives up the same way on a command answered and then
left without ``ok`` while the engine sits idle: compiling is busy work, and
comes before the reply.
"""

from __future__ import annotations

import collections
import os
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from hiveai.engine import EngineError, EngineTerminatedError, EngineTimeoutError, UhpEngine, popen_uhp
from hiveai.search.timeman import parse_timespan
from hiveai.text import plural
from hiveai.uhpcheck.reference import (
    SetDifference,
    board_from,
    compare_moves,
    game_string_problem,
    game_types,
)
from hiveai.uhpcheck.verdicts import FAIL, PASS, SKIP, CaseFailed, NoteMessage, Result

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
# Seconds of silence after which a command that hung before counts as hung again, if the engine is
# idle (at most half the timeout). A UHP reply and its `ok` come together; one second apart is a lot.
REPEAT_WAIT = 1.0
# The engine counts as idle when, over the last IDLE_WINDOW seconds, it used at most IDLE_SHARE of a
# CPU: two of the kernel's 10 ms ticks. A blocked read uses none; a busy process gets far more, even
# on a loaded machine (ten runnable processes per core leave it a tenth).
IDLE_WINDOW = 1.0
IDLE_SHARE = 0.02
# Seconds between looks at a watched engine.
POLL = 0.1


def cpu_seconds(pid: int) -> float | None:
    """CPU time the process and its descendants have used (Linux /proc), None where that cannot be read.

    >>> import os, sys
    >>> sys.platform != "linux" or cpu_seconds(os.getpid()) > 0
    True
    """
    own = _own_cpu_seconds(pid)
    if own is None:
        return None
    return own + sum(cpu_seconds(child) or 0.0 for child in _children(pid))


def _own_cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (a wrapper script's engine, say); [] where unknown."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return out


def idle(samples: Sequence[tuple[float, float | None]]) -> bool | None:
    """Whether (time, CPU seconds) samples, oldest first, show an idle process: True, False,
    or None when the CPU time is unknown. Samples spanning less than :data:`IDLE_WINDOW` are
    not enough to say it is idle.

    >>> idle([(0.0, 1.0), (1.1, 1.01)]), idle([(0.0, 1.0), (1.1, 1.2)]), idle([(0.0, 1.0), (0.2, 1.0)])
    (True, False, False)
    >>> idle([(0.0, None), (1.1, None)]) is None
    True
    """
    if not samples or any(cpu is None for _, cpu in samples):
        return None
    (t0, c0), (t1, c1) = samples[0], samples[-1]
    span = t1 - t0
    return span >= IDLE_WINDOW and c1 - c0 <= IDLE_SHARE * span  # type: ignore[operator]


def own_time(line: str) -> float:
    """Seconds a command may take by itself: T plus :data:`TIME_MARGIN` for ``bestmove time T``, else 0.

    >>> own_time("bestmove time 00:00:01.5"), own_time("validmoves")
    (2.0, 0.0)
    """
    m = re.fullmatch(r"bestmove\s+time\s+(\S+)", line.strip())
    if m is None:
        return 0.0
    try:
        return max(0.0, parse_timespan(m.group(1))) + TIME_MARGIN
    except ValueError:
        return 0.0


@dataclass(frozen=True)
class Hang:
    """A command that got no ``ok`` within the timeout, and the case that reported it."""

    command: str
    case: str


class RepeatedHang(Exception):
    """The engine hung again on a command that hung in an earlier case (see :attr:`Checker.hangs`);
    it has been killed. ``args[0]`` says so for the report."""


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
        #: The commands (by first word) that have hung, each as the first case found it.
        self.hangs: dict[str, Hang] = {}
        #: The case running now (hangs are reported under it).
        self.case_name = ""
        self._replying = False  # a watched command's reply is being read (see _watched)

    # engine lifetime

    def _log(self, tag: str, text: str) -> None:
        if tag == "stderr":
            return
        if tag == "stray" and self._replying:
            tag = "<"  # read with poll_line, but a reply
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
        if warm and not self.warm_up():
            # The warm-up met trouble and stopped that process: the case meets the same trouble
            # and reports it, on a process asked nothing yet.
            self._engine = popen_uhp(self.command_line, timeout=self.timeout, startup_timeout=slow, log=self._log)
        return self._engine

    def warm_up(self) -> bool:
        """A short game with the start-up timeout (see :meth:`start`); False, the engine stopped,
        if it went wrong."""
        assert self._engine is not None
        ok = True
        try:
            for line in ("newgame Base+MLP", "validmoves", "play wS1", "validmoves", "newgame Base"):
                self._reply(self._engine, line, max(self.timeout, STARTUP_TIMEOUT), warming=True)
        except (EngineError, RepeatedHang):
            self.stop()  # the cases will meet the same trouble and report it
            ok = False
        self.transcript.clear()
        return ok

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

    # waiting for an ok

    def _reply(self, engine: UhpEngine, line: str, timeout: float | None, warming: bool = False) -> list[str]:
        """``engine.command(line, timeout, check=False)``, remembering a hang, and watched (see the
        module's docstring) when the command hung before or the engine is warming up."""
        kind = line.split()[0] if line.split() else line
        known = self.hangs.get(kind)
        if known is None and not warming:
            try:
                return engine.command(line, timeout, check=False)
            except EngineTimeoutError:
                self.hangs[kind] = Hang(line, self.case_name)
                raise
        return self._watched(engine, line, engine.timeout if timeout is None else timeout, known)

    def _watched(self, engine: UhpEngine, line: str, timeout: float, known: Hang | None) -> list[str]:
        """The reply to ``line``, read as :meth:`UhpEngine.command` reads it, but looking at the engine
        while the ``ok`` is missing: RepeatedHang (the engine killed) once it has sat idle for
        :data:`REPEAT_WAIT` seconds beyond the command's own time, with ``known`` (a hang of this
        command reported before), or without it when its reply lines have come."""
        while engine.poll_line() is not None:
            pass  # output between commands, dropped (logged as stray), as command() does
        engine.send(line)
        grace = min(REPEAT_WAIT, timeout / 2) + own_time(line)
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        quiet_since = time.monotonic()
        samples: collections.deque[tuple[float, float | None]] = collections.deque()
        self._replying = True
        try:
            while True:
                now = time.monotonic()
                if now >= deadline:
                    engine.kill()
                    raise EngineTimeoutError(f"no 'ok' within {timeout:g} s", line, lines)
                try:
                    text = engine.poll_line(min(POLL, deadline - now))
                except EngineTerminatedError as e:
                    raise EngineTerminatedError(str(e), line, lines, returncode=e.returncode) from None
                now = time.monotonic()
                if text is not None:
                    if text.strip() == "ok":
                        return lines
                    lines.append(text)
                    quiet_since = now
                    samples.clear()
                    continue
                samples.append((now, cpu_seconds(engine.proc.pid)))
                while len(samples) > 2 and now - samples[1][0] >= IDLE_WINDOW:
                    samples.popleft()
                if now - quiet_since < grace:
                    continue
                still = idle(samples)
                if (still is True and (known is not None or lines)) or (still is None and lines):
                    engine.kill()
                    quiet = now - quiet_since
                    how = (f"its reply came, then nothing for {quiet:.1f} s" if lines
                           else f"no reply in {quiet:.1f} s") + (", the engine idle" if still else "")
                    seen = f" again, as reported under {known.case}" if known is not None else ""
                    raise RepeatedHang(f"no 'ok' after {line!r}{seen} ({how}); killed")
        finally:
            self._replying = False

    # helpers cases use

    def ask(self, line: str, timeout: float | None = None, wait: float = 0.0) -> list[str]:
        """Send a command and return its reply (err and invalidmove included), then make
        sure nothing follows the ``ok`` within ``wait`` seconds (later stray lines are
        found before the next command: see :meth:`_run_one`)."""
        lines = self._reply(self.engine, line, timeout)
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
        if problem is not None and not (problem.startswith("Draw;") and board.is_repetition()):
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
        self.case_name = c.name
        start = time.monotonic()
        notes: list[str] = []
        try:
            out = c.run(self)
            status, message = out if isinstance(out, tuple) else (PASS, str(out))
            if isinstance(message, NoteMessage):
                notes = message.notes
        except CaseFailed as e:
            status, message = FAIL, str(e)
        except RepeatedHang as e:
            status, message = SKIP, f"not checked: {e}"
        except EngineTimeoutError as e:
            answered = f"; the reply came ({plural(len(e.lines), 'line')}), the ok did not" if e.lines else ""
            status, message = FAIL, f"hung: {e}{answered} (killed)"
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
