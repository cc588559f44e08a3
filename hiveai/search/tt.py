"""Transposition table: what the search learnt about positions it has seen.

Two int64 arrays, no Python per probe: ``data[i]`` packs what was learnt and
``keys[i]`` holds the full 64-bit Zobrist hash of the position XORed with that
data word (so a probe verifies the whole key, not just the index bits):

    bits  0..15  best move + 1 (0: none); moves are < 29 * 1024, PASS included
    bits 16..47  score + 2**31 (scores are ints well inside 32 bits)
    bits 48..55  depth searched (plies)
    bits 56..57  bound: EXACT, LOWER (score >= value) or UPPER (score <= value)
    bits 58..63  generation (search number mod 64), for ageing

**Lock-free sharing.** Search threads share one table without locks (the
"lockless hashing" of Hyatt and Mann, used by Crafty and Stockfish). A slot is
two separate 64-bit stores, so another thread can read one half old and one
half new. Storing ``key ^ data`` makes such a torn pair fail the key check:
:func:`tt_probe` reads each word once, accepts the entry only if
``keys[i] ^ data[i] == key``, and hands back the data word it checked, so the
caller never re-reads a slot another thread may have rewritten meanwhile.

**Replacement.** Entries sit in buckets of two neighbouring slots.
:func:`tt_store` first looks for a slot holding the same key. If there is one,
it is overwritten, except when the old entry is from this search (same
generation), more than two plies deeper, and the new result is not EXACT: then
the store is dropped. A new entry without a best move keeps the old one's move.
If no slot holds the key, the victim is the stale slot (empty or from an older
generation) when exactly one of the two is stale; otherwise (both stale or
both fresh) the shallower one, the first slot on a tie. This is the two-tier
idea (keep the deepest, always take the newest) of the minimax crate that
nokamute uses, folded into one rule per bucket.

**Memory layout.** ``keys`` and ``data`` are two strided views of one
buffer, each slot's key word beside its data word, so a bucket (two slots,
32 bytes) lies in one 64-byte cache line and a probe costs one memory access,
not one per array. On Linux the buffer is an anonymous mapping advised to use
transparent huge pages (``MADV_HUGEPAGE``, as Stockfish's large pages): a
random probe into a table of hundreds of MB then rarely misses the TLB too.
Neither changes what the search computes, only how fast.

Mate scores are stored relative to the node, not the root (see
:func:`score_to_tt` / :func:`score_from_tt`), so a mate found at one ply
stays correct when the position is reached at another.
"""

from __future__ import annotations

import mmap

import numpy as np

from hiveai.rules.borrow import counts_free
from hiveai.search.score import MATE_BOUND, WIN

EXACT, LOWER, UPPER = 0, 1, 2

# One slot: a key word and a data word of 8 bytes each (the layout above).
ENTRY_BYTES = 16

# Scores beyond MATE_BOUND are wins or losses in some number of plies; they
# are made node-relative when stored.

_MOVE_MASK = 0xFFFF
_SCORE_OFFSET = 1 << 31


# Linux x86-64's transparent huge page; a smaller table is not worth advising.
HUGE_PAGE_BYTES = 2 * 1024 * 1024


def _zeroed_words(n: int) -> np.ndarray:
    """``n`` zeroed int64 words, 64-byte aligned, on huge pages where the OS offers them."""
    nbytes = n * 8
    if nbytes >= HUGE_PAGE_BYTES and hasattr(mmap, "MADV_HUGEPAGE") and hasattr(mmap, "MAP_PRIVATE"):
        # Private and anonymous (zero-filled, page-aligned): shared anonymous memory
        # would follow the shmem huge-page setting instead, usually "never".
        buf = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE)
        try:
            buf.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass  # the kernel refused the advice (huge pages off): plain pages still work
        return np.frombuffer(buf, dtype=np.int64)  # keeps buf alive
    raw = np.zeros(n + 8, dtype=np.int64)
    skip = (-raw.ctypes.data % 64) // 8
    return raw[skip: skip + n]


def table_entries(size_mb: int) -> int:
    """Slots for a table of ``size_mb`` MB: the largest power of two that fits.

    >>> table_entries(64) == 4 * 1024 * 1024
    True
    """
    n = max(2, (int(size_mb) * 1024 * 1024) // ENTRY_BYTES)
    return 1 << (n.bit_length() - 1)


def new_table(size_mb: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty (keys, data) arrays of ``size_mb`` MB in all: views of one buffer with
    each slot's two words side by side (see "Memory layout" above)."""
    words = _zeroed_words(2 * table_entries(size_mb))
    return words[0::2], words[1::2]


@counts_free(nogil=True)
def score_to_tt(score, ply):
    """Mate score relative to the root -> relative to this node (ply plies down)."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@counts_free(nogil=True)
def score_from_tt(score, ply):
    """Inverse of :func:`score_to_tt`."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@counts_free(nogil=True)
def tt_probe(keys, data, key):
    """The data word stored for ``key`` (see the module docstring), or 0 if
    there is none; a slot torn by a concurrent store reads as a miss."""
    i = key & (keys.shape[0] - 2)  # first slot of the bucket
    for j in range(i, i + 2):
        d = data[j]
        if d != 0 and keys[j] ^ d == key:
            return d
    return 0


@counts_free(nogil=True)
def entry_move(d):
    return (d & _MOVE_MASK) - 1


@counts_free(nogil=True)
def entry_score(d):
    return ((d >> 16) & 0xFFFFFFFF) - _SCORE_OFFSET


@counts_free(nogil=True)
def entry_depth(d):
    return (d >> 48) & 0xFF


@counts_free(nogil=True)
def entry_bound(d):
    return (d >> 56) & 3


@counts_free(nogil=True)
def entry_generation(d):
    return (d >> 58) & 63


@counts_free(nogil=True)
def _pack(move, score, depth, bound, generation):
    return ((move + 1) & _MOVE_MASK) | ((score + _SCORE_OFFSET) << 16) | (depth << 48) | (bound << 56) | (
        generation << 58)


@counts_free(nogil=True)
def tt_store(keys, data, key, move, score, depth, bound, generation):
    """Record a search result; ``score`` already node-relative (score_to_tt)."""
    i = key & (keys.shape[0] - 2)
    if depth > 255:
        depth = 255
    slot = -1
    old = 0
    for j in range(i, i + 2):
        d = data[j]
        if d != 0 and keys[j] ^ d == key:
            slot = j
            old = d
    if slot >= 0:
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
    d = _pack(move, score, depth, bound, generation)
    keys[slot] = key ^ d
    data[slot] = d
