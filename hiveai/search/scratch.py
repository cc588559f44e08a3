"""One search thread's arrays and their layout: what the kernel reads and writes.

Every search thread (the main one and each Lazy SMP helper) owns a
:class:`Scratch`: a move-generation workspace, the move lists and ordering
keys of every ply, the *search data* ``sd`` and the *control array* ``ctl``,
all flat int64 arrays (int32 for moves) so the numba kernels index them
directly. The offsets below are the one definition of their layout; the
kernel (:mod:`hiveai.search.negamax`), the move ordering (:mod:`hiveai.search.movepick`),
the helpers (:mod:`hiveai.search.threads`) and the driver (:mod:`hiveai.search.searcher`)
all read them from here.
"""

from __future__ import annotations

import numpy as np

from hiveai.rules.bug import N_PIECES
from hiveai.rules.hex_grid import N_CELLS
from hiveai.rules.movegen import MAX_MOVES, new_workspace
from hiveai.evaluation.network import kernel_net

# Deepest search, in plies (also the size of the per-ply tables). Hive
# searches at a few seconds reach depth 6-10; 64 leaves room for mates.
MAX_PLY = 64

# Control array (int64), read and written by kernel and driver.
CTL_STOP = 0  # set to 1 by the driver: the kernel unwinds at once
CTL_NODES = 1  # nodes visited (interior and leaves)
CTL_TT_PROBES = 2
CTL_TT_HITS = 3
CTL_ROOT_MOVE = 4  # best root move of the running iteration, once fully searched
CTL_ROOT_SCORE = 5
CTL_ROOT_VALID = 6  # 1 once CTL_ROOT_MOVE holds a fully searched move (its line: the PV row of ply 0)
CTL_GENERATION = 7  # TT generation of this search
CTL_ITER_DEPTH = 8  # depth of the running iteration
CTL_EVALS = 9  # leaves evaluated
CTL_EVAL_HITS = 10  # ... of which found in the evaluation cache
CTL_NODE_LIMIT = 11  # > 0: the kernel stops itself once CTL_NODES reaches it
CTL_SHARED = 12  # 1: other threads search the same tree (defer their busy moves: hiveai.search.abdada)
CTL_RFP = 13  # > 0: reverse futility margin per ply (hiveai.switches)
CTL_NULL_MOVE = 14  # 1: null move (a pass) at null-window nodes (hiveai.switches)
CTL_SIZE = 15

# Search data (int64): killers, history and the triangular PV table.
HISTORY_SIDE = N_PIECES * N_CELLS  # history index: side * this + move
SD_KILLERS = 0  # 2 per ply
SD_HISTORY = SD_KILLERS + 2 * MAX_PLY
SD_PV = SD_HISTORY + 2 * HISTORY_SIDE  # MAX_PLY x MAX_PLY: row ply holds the line from that ply
SD_PVLEN = SD_PV + MAX_PLY * MAX_PLY
# Evaluation cache: (hash, score) pairs, direct-mapped. Leaves repeat across
# iterations and transpositions, and a hit skips the articulation-point pass
# that dominates evaluate(). 2**15 entries (512 KB) stay in the L2 cache.
EVAL_CACHE_BITS = 15
SD_EVAL = SD_PVLEN + MAX_PLY
# The move made at each ply of the current line, and the countermove table: by
# side and the opponent's last move (PASS included), the quiet move that last
# refuted it (Uiterwijk's countermove heuristic, as nokamute orders by).
SD_PLY_MOVE = SD_EVAL + 2 * (1 << EVAL_CACHE_BITS)
COUNTER_SIDE = HISTORY_SIDE + 1
SD_COUNTER = SD_PLY_MOVE + MAX_PLY
SD_SIZE = SD_COUNTER + 2 * COUNTER_SIDE


class Scratch:
    """One search thread's private arrays: workspace, move lists and ordering
    keys, the search data (killers, history, PV, evaluation cache), its own
    control array (node counts, root move, the stop flag) and the network
    evaluation's scratch."""

    def __init__(self) -> None:
        self.ws = new_workspace()
        self.moves = np.zeros(MAX_MOVES * MAX_PLY, dtype=np.int32)
        self.order = np.zeros(MAX_MOVES * MAX_PLY, dtype=np.int64)
        self.sd = np.zeros(SD_SIZE, dtype=np.int64)
        self.ctl = np.zeros(CTL_SIZE, dtype=np.int64)
        self.network = None
        self.net = kernel_net(None)  # the network evaluation's tuple, with this thread's scratch

    def use_network(self, network) -> None:
        """Evaluate with ``network`` (a hiveai.evaluation.network.Network; None: the linear evaluation)."""
        if network is not self.network:
            self.network = network
            self.net = kernel_net(network)

    def new_search(self) -> None:
        """Killers from the last search are stale; history is still a useful
        hint, but halved (the minimax crate does the same each search)."""
        self.sd[SD_KILLERS:SD_HISTORY] = 0
        self.sd[SD_HISTORY:SD_PV] >>= 1

    def root_line(self) -> list[int]:
        """The line the kernel last recorded at the root (PV row of ply 0), as move ints."""
        return [int(m) for m in self.sd[SD_PV: SD_PV + self.sd[SD_PVLEN]]]
