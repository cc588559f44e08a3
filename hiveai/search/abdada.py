"""The busy table of Simplified ABDADA: which moves some search thread is searching now.

Tom Kerrigan's refinement of Lazy SMP: with several threads, a thread about
to search a move other than a node's first, from :data:`BUSY_MIN_DEPTH` up,
first looks in a small shared table of (position, move) pairs that some
thread is searching right now; if it is there, the move is put off to the
end of the node's list (see :mod:`hiveai.search.negamax`), so the threads spread
over different subtrees instead of all searching the same one. Races (two
threads writing one slot) only make a hint wrong, never a score.

An entry is the position's hash XORed with the move times an odd 64-bit
constant, stored at that value's low bits; it lives only while its move is
searched, and the driver empties the table before each search.
"""

from __future__ import annotations

import numpy as np

from hiveai.rules.borrow import counts_free

BUSY_MIN_DEPTH = 3
BUSY_SIZE = 1 << 15  # Kerrigan's table size; entries live only while a move is searched
BUSY_MASK = BUSY_SIZE - 1
BUSY_MULT = -7046029254386353131  # 0x9E3779B97F4A7C15 (the 64-bit golden ratio) as int64: spreads moves
# A deferred move's ordering key is rewritten to this flag | quiet << 16 | move
# (positive, where consumed and waiting keys are <= 0).
DEFERRED = 1 << 40


def new_busy_table() -> np.ndarray:
    """An empty busy table, shared by every thread of a search."""
    return np.zeros(BUSY_SIZE, dtype=np.int64)


@counts_free(nogil=True)
def busy_key(key, mv):
    """The entry for move ``mv`` in the position of hash ``key``."""
    return key ^ (mv * BUSY_MULT)


@counts_free(nogil=True)
def is_busy(busy, entry):
    """Whether some thread marked ``entry`` (:func:`busy_key`) and has not cleared it."""
    return busy[entry & BUSY_MASK] == entry


@counts_free(nogil=True)
def mark_busy(busy, entry):
    """Mark ``entry`` as being searched."""
    busy[entry & BUSY_MASK] = entry


@counts_free(nogil=True)
def clear_busy(busy, entry):
    """Unmark ``entry``, unless another pair took its slot since."""
    if busy[entry & BUSY_MASK] == entry:
        busy[entry & BUSY_MASK] = 0
