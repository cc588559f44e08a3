"""How a running UHP ``bestmove`` is stopped: SIGINT, and the end of input.

What only the UHP server needs; the searching itself is the engine's
(:class:`hiveai.player.Engine`). An :class:`Interrupts` belongs to one UHP server
(:mod:`hiveai.uhp.server`) and holds the stop handle of its ``bestmove``, which
SIGINT sets (:meth:`Interrupts.interrupt`) only while a search runs, and the end of
input. A bare ``bestmove`` (think until SIGINT) whose input has ended, before the
command or while it thinks, thinks for EOF_THINK_SECONDS from the command and
answers, since no SIGINT can be coming; the reader thread that sees the end of
input and the command that starts the search may come in either order, and
exactly one of them starts the timer.

Nothing here writes to stdout or imports numba.
"""

from __future__ import annotations

import threading
import time

from hiveai.search.timeman import StopHandle

# Thinking time of a bare ``bestmove`` whose input ends (the hive-hydra
# pattern with no limit given), counted from the command, however the end of
# input and the command interleave: long enough for a sound move, short
# enough for a per-move bot bridge.
EOF_THINK_SECONDS = 1.0


class Interrupts:
    """The stop handle of one UHP server's ``bestmove``, and what sets it: SIGINT and the end of input."""

    def __init__(self) -> None:
        self.stop = StopHandle()  # the running bestmove's; SIGINT and the end of input set it
        self.searching = False  # True only while bestmove thinks: SIGINT matters then
        self.input_closed = False  # stdin reached its end (set by the reader thread)
        self.searching_infinite = False  # a bare bestmove is running: the end of input stops it
        self.command_start = time.monotonic()  # when the command being answered arrived
        # Guards input_closed, searching_infinite and the timer that ends a bare bestmove at EOF.
        self._eof_lock = threading.Lock()
        self._eof_timer: threading.Timer | None = None

    def begin_bestmove(self, infinite: bool) -> None:
        """A ``bestmove`` starts searching; ``infinite``: a bare one, which the end of input stops."""
        self.stop.clear()
        self.searching = True
        # Under the lock the reader thread takes to mark the end of input, so
        # exactly one of the two starts the timer, and the same one either way.
        with self._eof_lock:
            self.searching_infinite = infinite
            if infinite and self.input_closed:
                self._end_bare_search_soon()

    def end_bestmove(self) -> None:
        """The ``bestmove`` has its answer (or failed): SIGINT and the end of input no longer stop anything."""
        with self._eof_lock:
            self.searching = self.searching_infinite = False
            if self._eof_timer is not None:
                self._eof_timer.cancel()
                self._eof_timer = None

    def input_ended(self) -> None:
        """The reader thread saw the end of input: a bare ``bestmove`` waits for a SIGINT that cannot come now."""
        with self._eof_lock:
            self.input_closed = True
            if self.searching_infinite:
                self._end_bare_search_soon()

    def interrupt(self) -> None:
        """SIGINT: stop a running bestmove, otherwise do nothing (safe in a signal handler: no lock)."""
        if self.searching:
            self.stop.stop()

    def _end_bare_search_soon(self) -> None:
        """Stop the running bare bestmove EOF_THINK_SECONDS after its command (caller holds _eof_lock)."""
        delay = max(0.0, self.command_start + EOF_THINK_SECONDS - time.monotonic())
        self._eof_timer = threading.Timer(delay, self._stop_bare_search)
        self._eof_timer.daemon = True
        self._eof_timer.start()

    def _stop_bare_search(self) -> None:
        with self._eof_lock:
            if self.searching_infinite:  # not a later command's search
                self.stop.stop()
