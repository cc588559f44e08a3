"""The engine behind the board: hiveai's own search in this process, or any UHP engine.

Both speak the same small interface (:class:`EngineSide`), called from a
worker thread, never from the server's event loop: :meth:`~EngineSide.best_move`
for a move to play, :meth:`~EngineSide.analyse` for live lines. Each takes a
:class:`~hiveai.search.timeman.StopHandle`; the server stops it when a newer request
supersedes the search (an undo, a move, another game), and the search ends
within milliseconds.

In this process the board's engine is hiveai's one engine (:class:`hiveai.player.Engine`),
as a GUI gets it over UHP: the same book at level 10, the same levels, the same search.
"""

from __future__ import annotations

import shlex
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # the rules load with the engine, after the page is up
    from hiveai.player import Engine
    from hiveai.rules.board import Board
    from hiveai.search.timeman import StopHandle

__all__ = ["AnalysisLine", "EngineSide", "InProcessEngine", "Superseded", "UhpEngine", "engine_side"]

# Size of the in-process engine's transposition table (MB): a quick start, enough for seconds per move.
TT_MB = 64
# Lines an analysis shows (multipv) unless asked for another number.
ANALYSIS_LINES = 3
# Seconds per move at levels 1 to 9: their node budgets end the search long before this.
LEVEL_SECONDS = 1.0

# Seconds a UHP engine may answer late before it counts as hung (and is killed).
UHP_GRACE = 60.0
# Seconds between looks at the stop flag while a UHP engine searches (the flag is polled, as searches do).
STOP_POLL = 0.02

LOADING, READY, FAILED = "loading", "ready", "failed"


@dataclass
class AnalysisLine:
    """One line of an analysis: its score (side to move's view), and moves from the analysed position."""

    score: int
    pv: list[str]


class EngineSide:
    """What the board needs from an engine. ``status`` is ``loading``, ``ready`` or ``failed``.

    :meth:`start` loads the engine in a background thread (a subclass's
    :meth:`_open`); the searches wait for it, one at a time.
    """

    name = "engine"
    status = LOADING
    error = ""
    #: Called (from any thread) when ``status`` changes; the server sets it to tell the pages.
    on_status: Callable[[], None] = staticmethod(lambda: None)

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._lock = threading.Lock()  # one search at a time
        self._backend = None

    def _open(self):
        """Load the engine (in the loading thread); what the searches use."""
        raise NotImplementedError

    def start(self) -> None:
        """Begin loading in the background (the board shows "engine is loading" meanwhile)."""
        threading.Thread(target=self._load, name=f"{type(self).__name__}-load", daemon=True).start()

    def _load(self) -> None:
        try:
            self._backend = self._open()
            self.status = READY
        except Exception as e:  # shown on the board instead of a frozen page
            self.error = f"{type(e).__name__}: {e}"
            self.status = FAILED
        finally:
            self._ready.set()
            self.on_status()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Whether the engine loaded, waiting up to ``timeout`` seconds for it."""
        return self._ready.wait(timeout) and self.status == READY

    def _backend_or_raise(self):
        self._ready.wait()
        if self._backend is None:
            raise RuntimeError(f"{self.name} failed to load: {self.error}")
        return self._backend

    def best_move(self, board: Board, *, level: int, seconds: float, stop: StopHandle) -> str:
        """The MoveString to play on ``board``."""
        raise NotImplementedError

    def analyse(self, board: Board, *, multipv: int, stop: StopHandle,
                on_lines: Callable[[int, list[AnalysisLine]], None], seconds: float | None = None) -> None:
        """Search ``board`` until ``stop`` (or ``seconds``), calling ``on_lines(depth, lines)`` as it deepens."""
        raise NotImplementedError

    def close(self) -> None:
        """Let go of the engine (a process: end it)."""


class InProcessEngine(EngineSide):
    """hiveai's engine (:class:`hiveai.player.Engine`), in this process: the kernels load in a
    background thread. ``engine``: the one to use (default: one with ``threads`` threads and a
    ``TT_MB`` table); the board sets its level for each move."""

    name = "hiveai"

    def __init__(self, threads: int = 1, engine: Engine | None = None) -> None:
        super().__init__()
        self.threads = threads
        self.engine = engine

    def _open(self):
        from hiveai.player import Engine

        if self.engine is None:
            self.engine = Engine(threads=self.threads, hash_mb=TT_MB)
        self.engine.warm()
        return self.engine

    def best_move(self, board: Board, *, level: int, seconds: float, stop: StopHandle) -> str:
        from hiveai.search.timeman import Limit

        engine = self._backend_or_raise()
        with self._lock:
            engine.configure({"Level": level})
            result = engine.play(board, Limit(time=seconds), stop=stop)
        return result.move_string

    def analyse(self, board, *, multipv, stop, on_lines, seconds=None) -> None:
        from hiveai.search.timeman import Limit

        engine = self._backend_or_raise()
        lines: dict[int, AnalysisLine] = {}
        count = min(multipv, len(board.legal_moves))

        def on_iteration(info) -> None:
            lines[info.multipv] = AnalysisLine(info.score, [str(m) for m in info.pv])
            if info.multipv == count:  # a whole iteration: every line at this depth
                on_lines(info.depth, [lines[k] for k in sorted(lines) if k <= count])

        with self._lock:  # no time: until stopped
            engine.analyse(board, Limit() if seconds is None else Limit(time=seconds), multipv=count,
                           on_iteration=on_iteration, stop=stop)


class Superseded(Exception):
    """A search (or a review) ended early because a newer request superseded it: it has no answer."""


class UhpEngine(EngineSide):
    """Another engine over the Universal Hive Protocol (``hiveai play --engine "nokamute uhp"``),
    through hiveai's UHP client (:func:`hiveai.engine.popen_uhp`, the one tournaments use).

    UHP has no command to stop a ``bestmove`` (some engines answer SIGINT, nokamute
    does not), so a superseded search is stopped the one way every engine
    obeys: its process is killed, and a fresh one is started for the next
    request (the board says the engine is loading meanwhile). The killed
    search raises :class:`Superseded`; it never gives an answer. Analysis is a
    series of timed searches, each twice as long as the last, until stopped.
    """

    def __init__(self, command: str, *, log: Callable[[str, str], None] | None = None) -> None:
        """``log`` sees every line sent to (``">"``) and read from each engine process started,
        as :func:`hiveai.engine.popen_uhp`'s ``log`` does."""
        self.argv = shlex.split(command)
        self.log = log
        if not self.argv:
            raise ValueError("--engine needs a command, e.g. --engine \"nokamute uhp\"")
        super().__init__()
        self.command = command
        self.name = self.argv[0].rsplit("/", 1)[-1]

    def _open(self):
        from hiveai.engine import popen_uhp  # the UHP client tournaments use

        engine = popen_uhp(self.argv, log=self.log)
        self.name = (engine.id or self.name).strip()
        return engine

    #: Processes started so far (1 at load, one more after each superseded search was killed).
    started = 0
    #: The engine takes whole seconds only (found on the first fraction it refused).
    whole_seconds = False

    def _restart(self) -> None:
        """A fresh engine process in place of a killed one (under the search lock)."""
        self.status = LOADING
        self.on_status()
        try:
            self._backend = self._open()
            self.started += 1
            self.status = READY
        except Exception as e:
            self._backend, self.error, self.status = None, f"{type(e).__name__}: {e}", FAILED
        self.on_status()

    def _load(self) -> None:
        super()._load()
        self.started += self._backend is not None

    def _search(self, board: Board, seconds: float, analyse: bool, stop: StopHandle):
        """One timed search (under the lock); :class:`Superseded` if ``stop`` was set before it answered,
        the engine's process then killed and a new one started."""
        from hiveai.engine import EngineError, UnsupportedLimitError
        from hiveai.search.timeman import Limit

        if board.setup:
            raise ValueError("a set-up position cannot be given to a UHP engine: UHP's newgame takes a move "
                             "list from the empty board")
        if stop.is_set():
            raise Superseded
        engine = self._engine()
        call = engine.analyse if analyse else engine.play
        # Room for an engine that loads its search on the first bestmove (hiveai compiles or reads its kernels).
        timeout = seconds + UHP_GRACE
        answered = threading.Event()
        killed = threading.Event()

        def watch() -> None:
            while not answered.wait(STOP_POLL):
                if stop.is_set():
                    killed.set()
                    engine.kill()  # its read of the answer ends at once (the output closes)
                    return

        watcher = threading.Thread(target=watch, name="hiveai-uhp-stop", daemon=True)
        watcher.start()
        try:
            try:
                result = call(board, Limit(time=seconds), timeout)
            except UnsupportedLimitError:  # an engine that takes whole seconds only (nokamute)
                engine.whole_seconds = self.whole_seconds = True
                result = call(board, Limit(time=max(1.0, seconds)), timeout)
        except EngineError:
            if killed.is_set():
                raise Superseded from None
            raise
        finally:
            answered.set()
            watcher.join()
            if killed.is_set():
                self._restart()
        if killed.is_set():  # the answer came as the process was killed: it is stale all the same
            raise Superseded
        return result

    def _engine(self):
        """The running engine process, told whether it takes whole seconds only (a fresh one forgets)."""
        engine = self._backend_or_raise()
        engine.whole_seconds = engine.whole_seconds or self.whole_seconds
        return engine

    def best_move(self, board: Board, *, level: int, seconds: float, stop: StopHandle) -> str:
        with self._lock:
            engine = self._engine()
            level_option = engine.options.get("Level")
            if level_option is not None:
                engine.configure({level_option.name: level})
            return str(self._search(board, seconds, analyse=False, stop=stop).move)

    def analyse(self, board, *, multipv, stop, on_lines, seconds=None) -> None:
        step = seconds or 1.0
        while True:
            with self._lock:
                try:
                    result = self._search(board, step, analyse=True, stop=stop)
                except Superseded:
                    return  # stopped: the lines shown so far stand
            score = int(result.score) if result.score is not None else 0
            on_lines(result.depth or 0, [AnalysisLine(score, result.pv or [str(result.move)])])
            if seconds is not None or stop.is_set():
                return
            step *= 2

    def close(self) -> None:
        if self._backend is not None:
            self._backend.quit()


def engine_side(command: str | None) -> EngineSide:
    """The in-process engine (``None``) or the UHP engine ``command`` starts."""
    return InProcessEngine() if not command else UhpEngine(command)
