"""Lazy SMP helper threads: more threads filling one shared transposition table.

With ``threads`` > 1 the driver (:mod:`hiveai.search.searcher`) starts ``threads - 1``
:class:`Helper` threads before its main worker; each runs its own iterative
deepening on a copy of the position, with its own :class:`~hiveai.search.scratch.Scratch`,
into the shared table (lock-free: :mod:`hiveai.search.tt`) and the shared busy table
(:mod:`hiveai.search.abdada`). They only fill the tables: the answer always comes
from the main thread. The kernels release the GIL (``nogil=True``), so the
threads run in parallel. A stop sets every thread's stop flag; when the main
worker ends, the driver stops and joins its helpers.
"""

from __future__ import annotations

import threading

import numpy as np

from hiveai.search.negamax import search_root
from hiveai.search.scratch import CTL_ITER_DEPTH, CTL_NODE_LIMIT, CTL_STOP, Scratch


class Helper(Scratch):
    """A Lazy SMP helper thread: iterative deepening on its own copy of the
    position, into the shared table, until the main thread stops it.

    Helpers only fill the table: their scores and moves are never answered.
    Odd-numbered helpers search one ply deeper than even ones at each step,
    so the threads do not all work on the same iteration (the usual Lazy SMP
    depth perturbation); different killers and history, and the entries the
    other threads leave in the table, make their move orders drift apart.
    """

    thread: threading.Thread | None = None

    def start(self, index: int, b, path, hp: int, irrev: int, main_ctl, tt_keys, tt_data, busy, weights,
              network, max_depth: int) -> None:
        """Start searching position ``b`` (copied) as helper number ``index`` (from 1),
        evaluating with ``weights`` or ``network`` (hiveai.evaluation.network.static_score)."""
        self.new_search()
        self.use_network(network)
        self.ctl[:] = main_ctl  # generation, switches, and a stop already requested
        self.ctl[CTL_NODE_LIMIT] = 0
        args = (index, b.copy(), path.copy(), hp, irrev, tt_keys, tt_data, busy, weights, max_depth)
        self.thread = threading.Thread(target=self._run, args=args, name=f"hiveai-helper-{index}", daemon=True)
        self.thread.start()

    def _run(self, index, b, path, hp, irrev, tt_keys, tt_data, busy, weights, max_depth) -> None:
        excl = np.zeros(0, dtype=np.int32)
        ctl = self.ctl
        for depth in range(1 + index % 2, max_depth + 1):
            ctl[CTL_ITER_DEPTH] = depth
            search_root(b, self.ws, weights, self.net, self.moves, self.order, self.sd, path, tt_keys, tt_data, busy, ctl,
                        excl, np.int64(depth), np.int64(hp), np.int64(irrev))
            if ctl[CTL_STOP]:
                break

    def stop(self) -> None:
        """Ask the thread to stop (it unwinds within a node)."""
        self.ctl[CTL_STOP] = 1

    def join(self) -> None:
        """Stop the thread and wait for it."""
        self.stop()
        if self.thread is not None:
            self.thread.join()
            self.thread = None
