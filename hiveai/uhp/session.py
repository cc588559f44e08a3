"""The UHP engine's searching state: the searcher's life cycle and how a ``bestmove`` is stopped.

A :class:`Session` belongs to one UHP server (:mod:`hiveai.uhp.server`, which parses
the commands and answers them) and holds what outlives a command but is not
the game itself:

* **The searcher** (:class:`hiveai.search.searcher.Searcher`) and its life cycle. It is
  made in a background thread right after the banner (import numba and the
  search, load every kernel, touch the table's pages: :meth:`Searcher.warm`),
  so a ``bestmove`` arriving any time after ``newgame`` searches as deep as
  later ones; it is made again, in the background, when the table size option
  changes. ``newgame`` waits for a preparation to end, and asks for the table
  to be cleared before the next search: nothing learnt carries over.
* **How a running ``bestmove`` stops**: its stop flag, which SIGINT sets
  (:meth:`interrupt`) only while a search runs, and the end of input. A bare
  ``bestmove`` (think until SIGINT) whose input has ended, before the command
  or while it thinks, thinks for EOF_THINK_SECONDS from the command and
  answers, since no SIGINT can be coming; the reader thread that sees the end
  of input and the command that starts the search may come in either order,
  and exactly one of them starts the timer.
* **The node-budget switch** for tuning matches: ``HIVEAI_NODESTIME``.

Nothing here writes to stdout; the module imports numba only when a searcher is made.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import TYPE_CHECKING

from hiveai.search import timeman
from hiveai.player.options import Options
from hiveai.switches import nodes_per_second

if TYPE_CHECKING:
    from hiveai.search.searcher import Searcher

log = logging.getLogger("hiveai.uhp")

# Thinking time of a bare ``bestmove`` whose input ends (the hive-hydra
# pattern with no limit given), counted from the command, however the end of
# input and the command interleave: long enough for a sound move, short
# enough for a per-move bot bridge.
EOF_THINK_SECONDS = 1.0

def node_budget(seconds: float) -> int | None:
    """The node limit that stands for ``bestmove time`` of ``seconds`` under
    $HIVEAI_NODESTIME (at least one node), or None when the switch is off.

    For tuning matches on a shared machine (cutechess's "nodestime"): the budget
    in nodes does not depend on the machine's speed or load. ValueError naming
    the variable when it is malformed (see :mod:`hiveai.switches`)."""
    rate = nodes_per_second()
    return max(1, int(seconds * rate)) if rate else None


class Session:
    """The searcher of one UHP engine, made and kept ready, and the stop flag of its ``bestmove``.

    ``options`` is the server's option table, read when a searcher is made or
    handed out (table size, threads).
    """

    def __init__(self, options: Options) -> None:
        self.options = options
        self.stop = timeman.StopFlag()  # the running bestmove's; SIGINT and the end of input set it
        self.searching = False  # True only while bestmove thinks: SIGINT matters then
        self.input_closed = False  # stdin reached its end (set by the reader thread)
        self.searching_infinite = False  # a bare bestmove is running: the end of input stops it
        self.command_start = time.monotonic()  # when the command being answered arrived
        self.eval_weights = None  # weights by game type set by EvalFile; None: the default evaluation
        self.eval_network = None  # a network EvalFile loaded (hiveai.evaluation.network); None: not given
        self._searcher: Searcher | None = None  # made in the background after the banner
        self._preparing: threading.Thread | None = None  # that background thread, until joined
        self._clear_pending = False  # newgame: clear the table before the next search
        self._table_mb: int | None = None  # table size asked of the last (background) preparation
        # Guards input_closed, searching_infinite and the timer that ends a bare bestmove at EOF.
        self._eof_lock = threading.Lock()
        self._eof_timer: threading.Timer | None = None

    # -- the searcher -----------------------------------------------------

    @property
    def current_searcher(self) -> Searcher | None:
        """The searcher as it stands (None until one is made): not waited for, cleared or set up."""
        return self._searcher

    def prepare(self) -> None:
        """Start making the searcher in a background thread, unless one of the
        asked-for table size exists (see the module's docstring)."""
        size = self._table_mb = self.options["TranspositionTableSizeMB"]
        self.ready()
        if self._searcher is not None and self._searcher.tt_mb == size:
            return

        def build() -> None:
            try:
                from hiveai.search.searcher import Searcher

                self._searcher = None  # free the old table before allocating the new one
                searcher = Searcher(tt_mb=size)
                searcher.warm()
                self._searcher = searcher
            except Exception:  # searcher() makes one in the foreground, and reports the error
                log.exception("background warm-up failed")

        self._preparing = threading.Thread(target=build, name="hiveai-warmup", daemon=True)
        self._preparing.start()

    def resize_if_asked(self) -> None:
        """Prepare a table of a new size (in the background) if the option changed since the last preparation."""
        if self._table_mb is not None and self._table_mb != self.options["TranspositionTableSizeMB"]:
            self.prepare()

    def ready(self) -> None:
        """Wait for a background :meth:`prepare` to finish."""
        if self._preparing is not None:
            self._preparing.join()
            self._preparing = None

    def new_game(self) -> None:
        """A new game: wait for the searcher, and clear its table before its next search."""
        self._clear_pending = True
        # The game is answered once the search is ready, so that a timed bestmove
        # sent right after it spends its whole budget searching.
        self.ready()

    def searcher(self) -> Searcher:
        """The searcher, with a table of the size the option asks for, cleared if
        a new game began since its last search, with the EvalFile weights or network and
        the NumThreads option."""
        from hiveai.search.searcher import Searcher

        self.ready()
        size = self.options["TranspositionTableSizeMB"]
        if self._searcher is None or self._searcher.tt_mb != size:
            self._searcher = None  # free the old table before allocating the new one
            self._searcher = Searcher(tt_mb=size)
        elif self._clear_pending:
            self._searcher.clear()
        self._clear_pending = False
        if self._searcher.weights_asked is not self.eval_weights:
            self._searcher.weights = self.eval_weights  # None: back to the default evaluation
        self._searcher.network = self.eval_network
        self._searcher.threads = self.options["NumThreads"]
        return self._searcher

    # -- stopping a bestmove -----------------------------------------------------

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
            self.stop.set()

    def _end_bare_search_soon(self) -> None:
        """Stop the running bare bestmove EOF_THINK_SECONDS after its command (caller holds _eof_lock)."""
        delay = max(0.0, self.command_start + EOF_THINK_SECONDS - time.monotonic())
        self._eof_timer = threading.Timer(delay, self._stop_bare_search)
        self._eof_timer.daemon = True
        self._eof_timer.start()

    def _stop_bare_search(self) -> None:
        with self._eof_lock:
            if self.searching_infinite:  # not a later command's search
                self.stop.set()
