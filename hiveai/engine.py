r"""Drive any UHP engine from Python: hiveai's answer to ``chess.engine.SimpleEngine``.

:func:`popen_uhp` starts an engine that speaks the Universal Hive Protocol
(`UHP <https://github.com/jonthysell/Mzinga/wiki/UniversalHiveProtocol>`_) on
stdin/stdout (hiveai, Mzinga, nokamute, ...) and reads its start-up banner.
The :class:`UhpEngine` it returns plays and analyses :class:`hiveai.Board`
positions within a :class:`hiveai.Limit`::

    with hiveai.engine.popen_uhp(["nokamute", "uhp"]) as engine:
        engine.id                                    # 'nokamute 0.1'
        result = engine.play(board, Limit(time=1))   # result.move is a hiveai Move
        info = engine.analyse(board, Limit(depth=6))

A runnable example with hiveai itself:

>>> import sys
>>> from hiveai import Board, Limit
>>> with popen_uhp([sys.executable, "-m", "hiveai"]) as engine:
...     engine.configure({"UseBook": False})
...     result = engine.play(Board("Base"), Limit(depth=1))
>>> result.move in Board("Base").legal_moves
True

Every call waits with a deadline. What can go wrong raises a subclass of
:class:`EngineError`:

* :class:`EngineTimeoutError`: no ``ok`` in time. The engine is killed (its
  output would no longer line up with the commands).
* :class:`EngineTerminatedError`: the engine exited or closed its output.
* :class:`EngineCommandError`: it answered ``err``; :class:`EngineInvalidMoveError`:
  it answered ``invalidmove`` (UHP says both leave the engine's state unchanged,
  so the engine stays usable).
* :class:`UnsupportedLimitError`: the limit cannot be said in UHP (see
  :meth:`UhpEngine.bestmove_command`).

The process is always reaped: by :meth:`UhpEngine.quit` (``exit``, then a kill
after a grace period), by the ``with`` block, on a timeout, and by a finaliser
when the object is garbage-collected or the interpreter exits.

Limits, and what happens to the ones UHP cannot say (the protocol has
``bestmove time hh:mm:ss`` and ``bestmove depth N`` only):

* ``Limit(time=T)`` sends ``bestmove time`` with T as a TimeSpan (fractions
  included). Some engines (nokamute) take whole seconds only and answer ``err``
  to a fraction: :meth:`~UhpEngine.play` then raises
  :class:`UnsupportedLimitError` saying so. Start such an engine with
  ``popen_uhp(..., whole_seconds=True)``: the time is then rounded *down* to
  whole seconds (at least 1), before sending, and the result says which
  command was sent (:attr:`PlayResult.command`).
* ``Limit(depth=N)`` sends ``bestmove depth N``.
* ``nodes``, or time and depth together, cannot be said: UnsupportedLimitError
  before anything is sent. So does an empty Limit (a bare ``bestmove`` is a
  Mzinga extension that never ends by itself).

The lower-level calls a referee or a conformance checker needs are public
too: :meth:`~UhpEngine.send`, :meth:`~UhpEngine.read_line`,
:meth:`~UhpEngine.read_block`, :meth:`~UhpEngine.command`,
:meth:`~UhpEngine.newgame`, :meth:`~UhpEngine.validmoves`,
:meth:`~UhpEngine.play_move`, :attr:`~UhpEngine.banner`, and a ``log`` hook
that sees every line sent and received.

Importing this module is cheap (no numba); the rules are loaded when a
method needs a :class:`hiveai.Board`.
"""

from __future__ import annotations

import collections
import math
import os
import queue
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Callable, Mapping, Sequence

from hiveai.search.timeman import Limit, format_timespan

if TYPE_CHECKING:
    from hiveai.rules.board import Board, Move

__all__ = [
    "EngineCommandError",
    "EngineError",
    "EngineInvalidMoveError",
    "EngineLine",
    "EngineOption",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "PlayResult",
    "UhpEngine",
    "UnsupportedLimitError",
    "popen_uhp",
]

# Seconds an ordinary command (newgame, play, options...) may take: replies take
# milliseconds, so this only turns a hang into an error.
COMMAND_TIMEOUT = 30.0
# Seconds to wait for the start-up banner. hiveai prints it before loading
# numba, but other engines load first, and a cold numba cache is slow.
STARTUP_TIMEOUT = 120.0
# A `bestmove time T` may overrun by max(this, half of T) before it counts as hung
# (the tournament referee's rule: well past any honest overrun).
HANG_MARGIN_MIN = 1.0
HANG_MARGIN_FRACTION = 0.5
# Seconds an engine gets to exit after `exit` before it is killed.
EXIT_GRACE = 2.0
# stderr lines kept for error messages.
STDERR_KEPT = 50


class EngineError(Exception):
    """Something went wrong talking to an engine; the base of this module's errors.

    ``command`` is the command that failed (None at start-up), ``lines`` what
    the engine answered before failing.

    >>> str(EngineError("boom", command="bestmove depth 3"))
    "boom (after 'bestmove depth 3')"
    """

    def __init__(self, message: str, command: str | None = None, lines: Sequence[str] = ()) -> None:
        super().__init__(message if command is None else f"{message} (after {command!r})")
        self.command = command
        self.lines = list(lines)


class EngineTimeoutError(EngineError, TimeoutError):
    """No ``ok`` within the deadline. The engine has been killed.

    >>> issubclass(EngineTimeoutError, TimeoutError)
    True
    """


class EngineTerminatedError(EngineError):
    """The engine exited or closed its output; ``returncode`` is its exit code if known.

    >>> EngineTerminatedError("gone", returncode=3).returncode
    3
    """

    def __init__(self, message: str, command: str | None = None, lines: Sequence[str] = (),
                 returncode: int | None = None) -> None:
        super().__init__(message, command, lines)
        self.returncode = returncode


class EngineCommandError(EngineError):
    """The engine answered ``err``; ``reply`` is that line. The engine stays usable.

    >>> EngineCommandError("err no game", reply="err no game").reply
    'err no game'
    """

    def __init__(self, message: str, command: str | None = None, lines: Sequence[str] = (),
                 reply: str = "") -> None:
        super().__init__(message, command, lines)
        self.reply = reply


class EngineInvalidMoveError(EngineCommandError):
    """The engine answered ``invalidmove`` to a ``play``/``pass``; it stays usable.

    >>> issubclass(EngineInvalidMoveError, EngineCommandError)
    True
    """


class UnsupportedLimitError(EngineError, ValueError):
    """A :class:`~hiveai.Limit` that UHP (or this engine) cannot take.

    >>> UhpEngine.bestmove_command(Limit(nodes=1000))
    Traceback (most recent call last):
    ...
    hiveai.engine.UnsupportedLimitError: UHP has no node limit (bestmove takes time or depth only)
    """


@dataclass(frozen=True)
class EngineOption:
    """One line of an engine's ``options`` reply: ``Name;Type;Value;Default[;Min;Max | ;V1;V2...]``.

    >>> opt = EngineOption.parse("TimeUsage;double;0.9;0.9;0.1;1")
    >>> opt.name, opt.type, opt.value, opt.min, opt.max
    ('TimeUsage', 'double', '0.9', '0.1', '1')
    >>> EngineOption.parse("LogLevel;enum;Warning;Warning;Debug;Info").choices
    ('Debug', 'Info')
    """

    name: str
    type: str
    value: str
    default: str
    min: str | None = None
    max: str | None = None
    choices: tuple[str, ...] = ()

    @classmethod
    def parse(cls, line: str) -> EngineOption:
        """The option a reply line describes; ValueError if it has fewer than three fields."""
        fields = line.split(";")
        if len(fields) < 3 or not fields[0]:
            raise ValueError(f"not an option line: {line!r}")
        name, kind, value = fields[:3]
        default = fields[3] if len(fields) > 3 else ""
        rest = fields[4:]
        if kind in ("int", "double") and len(rest) >= 2:
            return cls(name, kind, value, default, rest[0], rest[1])
        if kind == "enum":
            return cls(name, kind, value, default, choices=tuple(rest))
        return cls(name, kind, value, default)


@dataclass
class EngineLine:
    """One intermediate best-move line (Mzinga's ``move;depth;score;pv1;pv2...``).

    ``depth`` and ``score`` are None where the engine leaves them out or
    writes something else; ``score`` is in the engine's own units; ``pv`` holds
    MoveStrings as the engine wrote them.

    >>> EngineLine.parse("wS1;3;25;wS1;bS1 wS1-")
    EngineLine(move='wS1', depth=3, score=25.0, pv=['wS1', 'bS1 wS1-'])
    """

    move: str
    depth: int | None = None
    score: float | None = None
    pv: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, line: str) -> EngineLine:
        """The fields of one ``;``-separated best-move line."""
        fields = [f.strip() for f in line.split(";")]
        depth: int | None
        score: float | None
        try:
            depth = int(fields[1]) if len(fields) > 1 else None
        except ValueError:
            depth = None
        try:
            score = float(fields[2].replace(",", ".")) if len(fields) > 2 else None
        except ValueError:
            score = None
        return cls(fields[0], depth, score, [f for f in fields[3:] if f])


@dataclass
class PlayResult:
    """What :meth:`UhpEngine.play` and :meth:`UhpEngine.analyse` return.

    ``move`` is the engine's answer as a legal :class:`hiveai.Move` of the board,
    ``info`` the intermediate lines it printed first (deepest last; empty if it
    prints none), ``command`` the ``bestmove`` line sent and ``seconds`` the
    time from sending it to its ``ok``.

    >>> from hiveai import Board
    >>> move = Board("Base").parse_move("wS1")
    >>> result = PlayResult(move, [EngineLine("wS1", 1, 0.0, ["wS1"])], "bestmove depth 1", 0.01)
    >>> result.depth, result.pv
    (1, ['wS1'])
    """

    move: Move
    info: list[EngineLine]
    command: str
    seconds: float

    @property
    def depth(self) -> int | None:
        """Depth of the deepest intermediate line, None if there is none."""
        return self.info[-1].depth if self.info else None

    @property
    def score(self) -> float | None:
        """Score of the deepest intermediate line (engine's units, side to move), None if none."""
        return self.info[-1].score if self.info else None

    @property
    def pv(self) -> list[str]:
        """Principal variation of the deepest intermediate line (MoveStrings), else just the move."""
        if self.info and self.info[-1].pv:
            return list(self.info[-1].pv)
        return [str(self.move)]


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` if it still runs and wait for it (the finaliser's job)."""
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except (OSError, ValueError):
            pass


def _pump_stdout(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    """Reader thread: stdout lines into the queue, then None at EOF."""
    for raw in iter(stream.readline, b""):
        lines.put(raw)
    lines.put(None)


def _pump_stderr(stream: IO[bytes], kept: collections.deque[str],
                 log: list[Callable[[str, str], None] | None]) -> None:
    """Reader thread: keep the last stderr lines (and show them to ``log[0]``, which the
    engine's owner may replace, as a referee does for each game)."""
    for raw in iter(stream.readline, b""):
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        kept.append(text)
        sink = log[0]
        if sink is not None:
            sink("stderr", text)


class UhpEngine:
    """A running UHP engine process. Make one with :func:`popen_uhp`.

    ``banner`` holds the lines of its start-up block (without ``ok``), ``id`` the
    text of its ``id`` line, ``capabilities`` its expansion line split on ``;``.

    >>> import sys
    >>> engine = popen_uhp([sys.executable, "-m", "hiveai"])
    >>> engine.id.startswith("hiveai"), engine.capabilities
    (True, ('Mosquito', 'Ladybug', 'Pillbug'))
    >>> engine.command("validmoves")
    Traceback (most recent call last):
    ...
    hiveai.engine.EngineCommandError: err No game in progress. Try 'newgame' to start a new game. (after 'validmoves')
    >>> engine.newgame("Base")
    'Base;NotStarted;White[1]'
    >>> engine.quit(grace=30.0)  # exit, killed only if it has not exited after 30 s
    0
    """

    def __init__(self, command: Sequence[str], *, timeout: float = COMMAND_TIMEOUT,
                 startup_timeout: float = STARTUP_TIMEOUT, whole_seconds: bool = False,
                 cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None,
                 log: Callable[[str, str], None] | None = None, read_banner: bool = True,
                 stderr_kept: int | None = STDERR_KEPT) -> None:
        """Start ``command`` and (unless ``read_banner`` is False) read its banner; see :func:`popen_uhp`."""
        self.command_line = list(command)
        self.timeout = timeout
        self.whole_seconds = whole_seconds
        self._log: list[Callable[[str, str], None] | None] = [log]
        self.stderr_lines: collections.deque[str] = collections.deque(maxlen=stderr_kept)
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._options: dict[str, EngineOption] | None = None
        self.banner: list[str] = []
        try:
            self.proc = subprocess.Popen(self.command_line, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, cwd=cwd,
                                         env=None if env is None else dict(env))
        except OSError as e:
            raise EngineTerminatedError(f"cannot start {' '.join(self.command_line)}: {e}") from None
        self._finalizer = weakref.finalize(self, _reap, self.proc)
        # The reader threads get the streams, not self, so the finaliser can run while they wait.
        self._readers = (
            threading.Thread(target=_pump_stdout, args=(self.proc.stdout, self._lines), daemon=True),
            threading.Thread(target=_pump_stderr, args=(self.proc.stderr, self.stderr_lines, self._log),
                             daemon=True),
        )
        for reader in self._readers:
            reader.start()
        if read_banner:
            try:
                self.banner = self.read_block(startup_timeout, "start-up")
            except BaseException:
                self.kill()
                raise

    @property
    def log(self) -> Callable[[str, str], None] | None:
        """The ``log(tag, text)`` hook (see :func:`popen_uhp`); may be replaced at any time."""
        return self._log[0]

    @log.setter
    def log(self, hook: Callable[[str, str], None] | None) -> None:
        self._log[0] = hook

    # -- what the banner says --------------------------------------------------------------

    @property
    def id(self) -> str:
        """The engine's name and version from its ``id`` line (``hiveai v0.2.0``), '' if none."""
        line = next((ln for ln in self.banner if ln.lower().startswith("id ")), "")
        return line[3:].strip()

    @property
    def capabilities(self) -> tuple[str, ...]:
        """The expansions the banner's capability line lists (``Mosquito``, ...)."""
        rest = [ln for ln in self.banner if ln and not ln.lower().startswith("id ")]
        return tuple(p for p in rest[0].split(";") if p) if rest else ()

    # -- raw I/O ---------------------------------------------------------------------------

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has ended, else None."""
        return self.proc.poll()

    def stderr_text(self) -> str:
        """The last lines the engine wrote to stderr (for error messages)."""
        return "\n".join(self.stderr_lines)

    def send(self, line: str, end: str = "\n") -> None:
        """Write ``line`` + ``end`` to the engine; EngineTerminatedError if it is gone."""
        if self.log is not None:
            self.log(">", line)
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((line + end).encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._terminated(line, []) from None

    def _take(self, timeout: float, what: str | None, lines: list[str]) -> bytes | None:
        """The next raw stdout line within ``timeout`` seconds (``math.inf``: no
        deadline), None if none came (nothing is killed); EngineTerminatedError,
        carrying ``lines``, at EOF."""
        try:
            if timeout == math.inf:
                raw = self._lines.get()
            elif timeout > 0:
                raw = self._lines.get(timeout=timeout)
            else:
                raw = self._lines.get_nowait()
        except queue.Empty:
            return None
        if raw is None:
            self._lines.put(None)  # later reads see the end too
            raise self._terminated(what, lines)
        return raw

    def _text(self, raw: bytes, tag: str = "<") -> str:
        text = raw.decode("utf-8", "replace").rstrip("\r\n")
        if self.log is not None:
            self.log(tag, text)
        return text

    def read_raw_line(self, timeout: float | None = None, what: str | None = None) -> bytes:
        """The next stdout line as bytes, line ending included (a conformance
        check looks at it). EngineTimeoutError (the engine is killed) after
        ``timeout`` seconds (default :attr:`timeout`, ``math.inf``: no deadline);
        EngineTerminatedError at EOF."""
        timeout = self.timeout if timeout is None else timeout
        raw = self._take(timeout, what, [])
        if raw is None:
            self.kill()
            raise EngineTimeoutError(f"no output within {timeout:g} s", what)
        return raw

    def read_line(self, timeout: float | None = None, what: str | None = None) -> str:
        """The next stdout line, without its line ending (see :meth:`read_raw_line`)."""
        raw = self.read_raw_line(timeout, what)
        return self._text(raw)

    def pending_lines(self) -> int:
        """How many stdout lines have arrived and not been read yet."""
        return self._lines.qsize()

    def poll_line(self, timeout: float = 0.0) -> str | None:
        """A line the engine has written unasked within ``timeout`` seconds, else None
        (nothing is killed). EngineTerminatedError at EOF."""
        raw = self._take(timeout, None, [])
        return None if raw is None else self._text(raw, "stray")

    def read_block(self, timeout: float | None = None, what: str | None = None, *,
                   notice: tuple[float, Callable[[], None]] | None = None) -> list[str]:
        """The lines up to the next ``ok`` (not included), within ``timeout`` seconds in all.

        ``notice=(seconds, call)``: ``call()`` once, from this thread, if the ``ok``
        has not come after ``seconds`` (to tell a user what a long wait is for);
        the wait then goes on to its deadline.

        >>> import sys
        >>> engine = popen_uhp([sys.executable, "-c", "import time; time.sleep(0.3); print('id x'); print('ok')"],
        ...                    read_banner=False)
        >>> engine.read_block(30, "start-up", notice=(0.05, lambda: print("still waiting")))
        still waiting
        ['id x']
        >>> engine.quit()
        0
        """
        timeout = self.timeout if timeout is None else timeout
        start = time.monotonic()
        deadline = start + timeout
        notice_at = None if notice is None else start + notice[0]
        lines: list[str] = []
        while True:
            now = time.monotonic()
            if notice is not None and notice_at is not None and now >= notice_at:
                notice_at = None
                notice[1]()
            wait = deadline - now if notice_at is None else min(deadline, notice_at) - now
            raw = self._take(max(0.0, wait), what, lines)
            if raw is None:
                if time.monotonic() < deadline:
                    continue  # the notice is due, not the deadline
                self.kill()
                raise EngineTimeoutError(f"no 'ok' within {timeout:g} s", what, lines)
            line = self._text(raw)
            if line.strip() == "ok":
                return lines
            lines.append(line)

    def command(self, line: str, timeout: float | None = None, *, check: bool = True,
                notice: tuple[float, Callable[[], None]] | None = None) -> list[str]:
        """Send one command and return its reply lines (before ``ok``).

        Output the engine wrote between commands is dropped first (it would be
        taken for this reply). With ``check`` (the default) a reply whose first
        line is ``err`` or ``invalidmove`` raises EngineCommandError or
        EngineInvalidMoveError; the engine stays usable. ``notice`` is as in
        :meth:`read_block`.
        """
        while self.poll_line() is not None:
            pass
        self.send(line)
        lines = self.read_block(timeout, line, notice=notice)
        first = lines[0].strip() if lines else ""
        if check and first.startswith("invalidmove"):
            raise EngineInvalidMoveError(first, line, lines, reply=first)
        if check and first.startswith("err"):
            raise EngineCommandError(first, line, lines, reply=first)
        return lines

    def _one_line(self, line: str, timeout: float | None = None) -> str:
        lines = self.command(line, timeout)
        if not lines:
            raise EngineError("empty reply", line)
        return lines[0]

    # -- UHP commands ----------------------------------------------------------------------

    def newgame(self, game: str | Board = "Base") -> str:
        """``newgame`` with a GameTypeString, a GameString or a Board's game; returns the
        engine's GameString."""
        text = game if isinstance(game, str) else (game.game_string() if game.ply else game.game_type_string)
        return self._one_line(f"newgame {text}")

    def validmoves(self) -> list[str]:
        """The MoveStrings of ``validmoves`` (``['pass']`` when only a pass is legal)."""
        return self._one_line("validmoves").split(";")

    def play_move(self, move: str | Move) -> str:
        """``play`` one move (``pass`` for a pass); returns the engine's GameString.
        EngineInvalidMoveError if the engine rejects it."""
        text = str(move)
        return self._one_line("pass" if text.strip().lower() == "pass" else f"play {text}")

    def undo(self, count: int = 1) -> str:
        """``undo`` ``count`` plies; returns the engine's GameString."""
        return self._one_line("undo" if count == 1 else f"undo {count}")

    @property
    def options(self) -> dict[str, EngineOption]:
        """The engine's options by name (asked with ``options`` the first time; empty
        if the engine answers ``err``)."""
        if self._options is None:
            try:
                lines = self.command("options")
            except EngineCommandError:
                lines = []
            self._options = {}
            for line in lines:
                try:
                    opt = EngineOption.parse(line)
                except ValueError:
                    continue
                self._options[opt.name] = opt
        return self._options

    def configure(self, options: Mapping[str, object]) -> None:
        """``options set`` each name to its value (True/False for bools); raises
        EngineCommandError on the first one the engine rejects.

        >>> import sys
        >>> with popen_uhp([sys.executable, "-m", "hiveai"]) as engine:
        ...     engine.configure({"UseBook": False, "TimeUsage": 0.5})
        ...     engine.options["UseBook"].value, engine.options["TimeUsage"].value
        ('False', '0.5')
        """
        for name, value in options.items():
            text = ("True" if value else "False") if isinstance(value, bool) else str(value)
            lines = self.command(f"options set {name} {text}")
            opt = next((EngineOption.parse(ln) for ln in lines if ln.split(";")[0].lower() == name.lower()), None)
            if opt is not None and self._options is not None:
                self._options[opt.name] = opt

    @staticmethod
    def bestmove_command(limit: Limit, whole_seconds: bool = False) -> str:
        """The ``bestmove`` line for ``limit``; UnsupportedLimitError if UHP cannot say it.

        With ``whole_seconds`` (engines such as nokamute) a time is rounded down
        to whole seconds, at least one.

        >>> UhpEngine.bestmove_command(Limit(time=2.5)), UhpEngine.bestmove_command(Limit(depth=3))
        ('bestmove time 00:00:02.5000000', 'bestmove depth 3')
        >>> UhpEngine.bestmove_command(Limit(time=2.5), whole_seconds=True)
        'bestmove time 00:00:02'
        """
        if limit.nodes is not None:
            raise UnsupportedLimitError("UHP has no node limit (bestmove takes time or depth only)")
        if limit.time is not None and limit.depth is not None:
            raise UnsupportedLimitError("UHP's bestmove takes a time or a depth, not both")
        if limit.time is not None:
            seconds = max(1, int(limit.time)) if whole_seconds else limit.time
            return f"bestmove time {format_timespan(seconds)}"
        if limit.depth is not None:
            return f"bestmove depth {limit.depth}"
        raise UnsupportedLimitError("an empty Limit: give a time or a depth")

    @staticmethod
    def search_timeout(limit: Limit) -> float | None:
        """How long a ``bestmove`` for ``limit`` may take before it counts as hung:
        the budget plus max(1 s, half the budget) for a time; None (no deadline)
        for a depth, whose time nobody can know.

        >>> UhpEngine.search_timeout(Limit(time=4)), UhpEngine.search_timeout(Limit(depth=9))
        (6.0, None)
        """
        if limit.time is None:
            return None
        return limit.time + max(HANG_MARGIN_MIN, HANG_MARGIN_FRACTION * limit.time)

    def bestmove(self, limit: Limit, timeout: float | None = None) -> tuple[list[str], str, float]:
        """Send ``bestmove`` for ``limit`` in the engine's current game; return the reply
        lines, the command sent and the seconds until its ``ok``. ``timeout`` (default
        :meth:`search_timeout`) bounds the wait."""
        line = self.bestmove_command(limit, self.whole_seconds)
        if timeout is None:
            timeout = self.search_timeout(limit)
        start = time.monotonic()
        try:
            lines = self.command(line, math.inf if timeout is None else timeout)
        except EngineCommandError as e:
            if limit.time is not None and not self.whole_seconds and limit.time != int(limit.time):
                raise UnsupportedLimitError(
                    f"the engine rejected a time with a fraction of a second ({e.reply}); "
                    "engines such as nokamute take whole seconds only: start it with "
                    "popen_uhp(..., whole_seconds=True) or give a whole number", line, e.lines) from None
            raise
        return lines, line, time.monotonic() - start

    def play(self, board: Board, limit: Limit, timeout: float | None = None) -> PlayResult:
        """The engine's move in ``board``'s position (left unchanged) within ``limit``.

        Sends ``newgame`` with the board's GameString, then ``bestmove``. Raises
        EngineError if the answer is not a legal move of the board, ValueError
        (before sending anything) if the game is over.
        """
        if board.is_game_over():
            raise ValueError(f"the game is over ({board.state}): there is no move to ask for")
        self.newgame(board)
        lines, line, seconds = self.bestmove(limit, timeout)
        answer = next((ln for ln in reversed(lines) if ln.strip()), "")
        info = [EngineLine.parse(ln) for ln in lines[:-1] if ln.strip()]
        text = answer.split(";")[0].strip()
        try:
            move = board.parse_move(text)
        except Exception as e:  # MoveStringError, IllegalMoveError: the engine's fault
            raise EngineError(f"the engine answered {answer!r}, not a legal move: {e}", line, lines) from None
        return PlayResult(move, info, line, seconds)

    def analyse(self, board: Board, limit: Limit, timeout: float | None = None) -> PlayResult:
        """Like :meth:`play`, with the engine's intermediate lines: an engine that has
        the option ``ReportIntermediateBestMoves`` (Mzinga, hiveai) has it switched on
        for this search and back afterwards; others give what they print anyway.

        >>> import sys
        >>> from hiveai import Board
        >>> with popen_uhp([sys.executable, "-m", "hiveai"]) as engine:
        ...     engine.configure({"UseBook": False})
        ...     info = engine.analyse(Board("Base"), Limit(depth=2))
        >>> [line.depth for line in info.info], info.depth
        ([1, 2], 2)
        """
        report = self.options.get("ReportIntermediateBestMoves")
        if report is not None and report.value.lower() != "true":
            self.configure({report.name: True})
            try:
                return self.play(board, limit, timeout)
            finally:
                if self.alive():
                    self.configure({report.name: report.value})
        return self.play(board, limit, timeout)

    # -- ending ----------------------------------------------------------------------------

    def send_signal(self, sig: int = signal.SIGINT) -> None:
        """Send a signal (SIGINT: Mzinga and hiveai answer a running bestmove at once)."""
        if self.alive():
            self.proc.send_signal(sig)

    def quit(self, grace: float = EXIT_GRACE, send_exit: bool = True) -> int | None:
        """Send ``exit`` (unless ``send_exit`` is False: then only end of input), close
        stdin, wait up to ``grace`` seconds, kill if need be; return the exit code
        (negative: killed by that signal, so a test can tell a clean exit from a kill)."""
        if self.alive():
            if send_exit:
                try:
                    self.send("exit")
                except EngineTerminatedError:
                    pass
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        for reader in self._readers:  # the process is gone: they reach EOF at once
            reader.join(1.0)
        return self.proc.returncode

    close = quit

    def kill(self) -> None:
        """Kill the process (if it runs) and reap it."""
        self._finalizer()

    def _terminated(self, what: str | None, lines: list[str]) -> EngineTerminatedError:
        try:
            code: int | None = self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        how = f"exited with code {code}" if code is not None else "closed its output"
        tail = self.stderr_text()[-500:]
        return EngineTerminatedError(f"the engine {how}" + (f"; stderr: {tail}" if tail else ""), what, lines,
                                     returncode=code)

    def __enter__(self) -> UhpEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        state = "running" if self.alive() else f"exited {self.proc.returncode}"
        return f"<UhpEngine {self.id or ' '.join(self.command_line)!r} pid={self.proc.pid} {state}>"


def popen_uhp(command: str | Sequence[str], *, timeout: float = COMMAND_TIMEOUT,
              startup_timeout: float = STARTUP_TIMEOUT, whole_seconds: bool = False,
              cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None,
              log: Callable[[str, str], None] | None = None, read_banner: bool = True,
              stderr_kept: int | None = STDERR_KEPT) -> UhpEngine:
    """Start a UHP engine and read its banner: ``popen_uhp(["nokamute", "uhp"])``.

    ``command`` is the program and its arguments (a string is one program
    name without arguments). ``timeout`` bounds every ordinary command,
    ``startup_timeout`` the banner. ``whole_seconds`` rounds time limits down to
    whole seconds (for nokamute; see the module docstring). ``env`` replaces
    the environment. ``log(tag, text)`` sees every line: ``>`` sent, ``<``
    received, ``stray`` (output between commands, dropped), ``stderr``.
    ``read_banner=False`` leaves the banner unread (a conformance check reads it
    itself with :meth:`UhpEngine.read_block`); ``stderr_kept`` is how many stderr
    lines :meth:`UhpEngine.stderr_text` keeps (None: all).

    >>> import sys
    >>> with popen_uhp([sys.executable, "-m", "hiveai"]) as engine:
    ...     engine.newgame("Base+MLP")
    'Base+MLP;NotStarted;White[1]'
    """
    argv = [command] if isinstance(command, str) else list(command)
    return UhpEngine(argv, timeout=timeout, startup_timeout=startup_timeout, whole_seconds=whole_seconds,
                     cwd=cwd, env=env, log=log, read_banner=read_banner, stderr_kept=stderr_kept)
