"""How big the transposition table is: its default size and its slots per MB.

Kept apart from :mod:`hiveai.search.tt` (the table itself, numba kernels) so that
modules which must not load numba, such as the UHP option table
(:mod:`hiveai.player.options`, imported before the banner), can name the default.
"""

from __future__ import annotations

# One slot: a key word and a data word of 8 bytes each (hiveai.search.tt's layout).
ENTRY_BYTES = 16

# Default size in MB (UHP option TranspositionTableSizeMB). 64 MB = 4 M slots.
# At ~1 M nodes/s a 5-second move (MzingaViewer's default budget) visits ~5 M
# nodes, of which the interior nodes worth storing are a small fraction, so
# 4 M slots hold a whole search; and it keeps the engine within "TT + 300 MB"
# on any machine that runs a GUI. Mzinga ships 32 MB, nokamute 100 MiB
# (docs/protocol-notes.md, "options"). Pages are touched lazily (a fresh
# anonymous mapping is zero-filled on first touch), so a short search does
# not pay for all of it.
DEFAULT_TT_MB = 64


def table_entries(size_mb: int) -> int:
    """Slots for a table of ``size_mb`` MB: the largest power of two that fits.

    >>> table_entries(DEFAULT_TT_MB) == 4 * 1024 * 1024
    True
    """
    n = max(2, (int(size_mb) * 1024 * 1024) // ENTRY_BYTES)
    return 1 << (n.bit_length() - 1)
