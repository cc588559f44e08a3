"""Transposition table: what the search learnt about positions it has seen.

Two preallocated int64 arrays, no Python per probe: ``keys[i]`` holds the full
64-bit Zobrist hash of the entry (so a probe verifies the whole key, not just
the index bits) and ``data[i]`` packs the rest:

    bits  0..15  best move + 1 (0: none); moves are < 29 * 1024, PASS included
    bits 16..47  score + 2**31 (scores are ints well inside 32 bits)
    bits 48..55  depth searched (plies)
    bits 56..57  bound: EXACT, LOWER (score >= value) or UPPER (score <= value)
    bits 58..63  generation (search number mod 64), for ageing

Entries sit in buckets of two neighbouring slots. Replacement keeps deep
entries and fresh ones: a hit on the same key is overwritten unless the old
entry is deeper and from this search; otherwise the victim is the slot that is
stale (older generation) or, if both are fresh, the shallower one. This is the
two-tier idea of the minimax crate that nokamute uses (engine-notes.md 2),
folded into one rule per bucket.

Mate scores are stored relative to the node, not the root (see
:func:`score_to_tt` / :func:`score_from_tt`), so a mate found at one ply
stays correct when the position is reached at another.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hiveai.options import DEFAULT_TT_MB

EXACT, LOWER, UPPER = 0, 1, 2

ENTRY_BYTES = 16

# Scores beyond this are wins or losses in some number of plies (see
# hiveai.evaluate.WIN); they are made node-relative when stored.
WIN = 1_000_000
MATE_BOUND = WIN - 1000

_MOVE_MASK = 0xFFFF
_SCORE_OFFSET = 1 << 31


def table_entries(size_mb: int) -> int:
    """Slots for a table of ``size_mb`` MB: the largest power of two that fits."""
    n = max(2, (int(size_mb) * 1024 * 1024) // ENTRY_BYTES)
    return 1 << (n.bit_length() - 1)


def new_table(size_mb: int = DEFAULT_TT_MB) -> tuple[np.ndarray, np.ndarray]:
    """Empty (keys, data) arrays of ``size_mb`` MB in all."""
    n = table_entries(size_mb)
    return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)


@njit(cache=True, nogil=True)
def score_to_tt(score, ply):
    """Mate score relative to the root -> relative to this node (ply plies down)."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True, nogil=True)
def score_from_tt(score, ply):
    """Inverse of :func:`score_to_tt`."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True, nogil=True)
def tt_probe(keys, data, key):
    """Index of the entry for ``key``, or -1."""
    i = key & (keys.shape[0] - 2)  # first slot of the bucket
    if keys[i] == key and data[i] != 0:
        return i
    if keys[i + 1] == key and data[i + 1] != 0:
        return i + 1
    return -1


@njit(cache=True, nogil=True)
def entry_move(d):
    return (d & _MOVE_MASK) - 1


@njit(cache=True, nogil=True)
def entry_score(d):
    return ((d >> 16) & 0xFFFFFFFF) - _SCORE_OFFSET


@njit(cache=True, nogil=True)
def entry_depth(d):
    return (d >> 48) & 0xFF


@njit(cache=True, nogil=True)
def entry_bound(d):
    return (d >> 56) & 3


@njit(cache=True, nogil=True)
def entry_generation(d):
    return (d >> 58) & 63


@njit(cache=True, nogil=True)
def _pack(move, score, depth, bound, generation):
    return ((move + 1) & _MOVE_MASK) | ((score + _SCORE_OFFSET) << 16) | (depth << 48) | (bound << 56) | (
        generation << 58)


@njit(cache=True, nogil=True)
def tt_store(keys, data, key, move, score, depth, bound, generation):
    """Record a search result; ``score`` already node-relative (score_to_tt)."""
    i = key & (keys.shape[0] - 2)
    if depth > 255:
        depth = 255
    slot = -1
    for j in range(i, i + 2):
        if keys[j] == key and data[j] != 0:
            slot = j
    if slot >= 0:
        old = data[slot]
        if (entry_generation(old) == generation and entry_depth(old) > depth + 2 and bound != EXACT):
            return  # keep the much deeper result of this search
        if move < 0:
            move = entry_move(old)  # keep the old best move for ordering
    else:
        a, bb = data[i], data[i + 1]
        stale_a = a == 0 or entry_generation(a) != generation
        stale_b = bb == 0 or entry_generation(bb) != generation
        if stale_a != stale_b:
            slot = i if stale_a else i + 1
        else:
            slot = i if entry_depth(a) <= entry_depth(bb) else i + 1
    keys[slot] = key
    data[slot] = _pack(move, score, depth, bound, generation)
