"""Perft: count the leaf nodes of the legal-move tree, to test and time movegen.

The last ply is bulk-counted (the moves at depth 1 are counted, not made),
exactly as the reference tables in tests/data/perft were produced. A position
whose game is over has no moves; a stuck side has exactly one move, ``pass``.
"""

import numpy as np
from numba import njit

from hiveai.rules.borrow import borrow
from hiveai.rules.movegen import MAX_MOVES, legal_moves
from hiveai.rules.position import IN_PROGRESS, do_move, game_result, undo_move


@njit(cache=True)
def perft_kernel(b, ws, moves, depth):
    """Leaves of the tree of the given depth below position ``b``.

    Iterative with explicit per-ply stacks. (A recursive kernel would also
    cache, provided every recursive call passes exactly the argument types of
    the outer call: with mixed types, such as an ``np.int32`` depth against an
    int64, numba's cached copy crashes on load, numba issues 6061 and 6713.
    hiveai.search.searcher recurses that way, and its test loads it from the cache.)
    """
    if depth == 0:
        return 1
    b, ws, moves = borrow(b), borrow(ws), borrow(moves)  # no atomic reference counts (hiveai.rules.borrow)
    if game_result(b) != IN_PROGRESS:
        return 0
    lo = np.empty(depth + 1, dtype=np.int64)  # first move of each ply's list
    hi = np.empty(depth + 1, dtype=np.int64)  # one past its last
    cur = np.empty(depth + 1, dtype=np.int64)  # move being searched
    tok = np.empty(depth + 1, dtype=np.int64)  # its undo token
    total = 0
    ply = 0
    lo[0] = 0
    hi[0] = legal_moves(b, ws, moves, np.int64(0))
    cur[0] = -1
    if depth == 1:
        return hi[0]
    while ply >= 0:
        if cur[ply] >= 0:
            undo_move(b, moves[cur[ply]], tok[ply])
            cur[ply] += 1
        else:
            cur[ply] = lo[ply]
        if cur[ply] >= hi[ply]:
            ply -= 1
            continue
        mv = moves[cur[ply]]
        tok[ply] = do_move(b, mv)
        if game_result(b) != IN_PROGRESS:
            continue  # a finished game has no moves below it
        n = legal_moves(b, ws, moves, hi[ply])
        if ply + 2 == depth:
            total += n - hi[ply]  # bulk-count the last ply
            continue
        ply += 1
        lo[ply] = hi[ply - 1]
        hi[ply] = n
        cur[ply] = -1
    return total


def move_buffer(depth: int) -> np.ndarray:
    """A move stack big enough for a search or perft of ``depth`` plies."""
    return np.empty(MAX_MOVES * (depth + 1), dtype=np.int32)
