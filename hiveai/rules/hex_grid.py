"""The hex plane as a 32 x 32 torus of cells, and why that is exact.

Cells use axial coordinates (q, r) with the board drawn pointy-top (rows are
horizontal, as in MzingaViewer). A cell's index is ``(q + 32*r) mod 1024``, so a
neighbour is a constant index offset and wrapping is a single ``& 1023``.

Why a torus is safe here: the index map sends two plane cells to the same
index, or makes them look adjacent, only when they differ by a vector
``(32a, r)`` with ``a + r = 0 (mod 32)`` (plus at most one step). Every such
vector has hex length >= 32. Hive never has more than 28 pieces and they always
form one connected group, so any two pieces are at most 27 steps apart, and
any cell a move generator looks at (a piece, a neighbour a piece may land on,
or a gate cell flanking such a step, two steps out) is at most 29 steps from
every piece.
Nothing a legal position or move looks at can alias, however the hive is
stretched or wherever it drifts; there is no edge to fall off.

Directions are numbered clockwise starting north-west, matching Mzinga's
reference search order (NW, NE, E, SE, SW, W). For a step in direction ``d``
the two cells flanking the edge crossed are in directions ``d-1`` and ``d+1``
(mod 6) from the start cell: the "gate" the Freedom to Move rule looks at.
"""

from __future__ import annotations

from typing import Collection, Iterable

GRID_BITS = 5
GRID = 1 << GRID_BITS  # 32: > 29 cells, the widest span a legal hive can touch
N_CELLS = GRID * GRID
CELL_MASK = N_CELLS - 1

NW, NE, E, SE, SW, W = range(6)
# (dq, dr) of each direction; pointy-top axial coordinates.
DIR_QR = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
# Index offset of each direction (wrap with & CELL_MASK).
DIR_OFFSET = tuple(dq + GRID * dr for dq, dr in DIR_QR)

# White's first piece goes here. Any cell would do on a torus; the middle keeps
# debug printouts readable.
ORIGIN = GRID // 2 + GRID * (GRID // 2)


def neighbour(cell: int, d: int) -> int:
    """Index of the neighbour of ``cell`` in direction ``d`` (plain Python)."""
    return (cell + DIR_OFFSET[d]) & CELL_MASK


def torus_offset(a: int, b: int) -> tuple[int, int]:
    """Shortest axial ``(dq, dr)`` from cell ``a`` to cell ``b`` on the torus, each in [-16, 16)."""
    dq = ((b % GRID) - (a % GRID) + GRID // 2) % GRID - GRID // 2
    # r decides the row; q's wrap into the next row is undone by subtracting dq.
    diff = (b - a - dq) % N_CELLS
    dr = (diff // GRID + GRID // 2) % GRID - GRID // 2
    return dq, dr


def unwrap(occupied: Collection[int], start: int) -> dict[int, tuple[int, int]]:
    """True axial ``(q, r)`` of every cell in ``occupied``, relative to ``start`` (0, 0).

    Walks the hive from ``start`` one neighbour step at a time, so a hive
    lying across the torus seam comes out in one piece (the walk never wraps,
    since a legal hive spans fewer than GRID cells). Should some cells be
    unreachable (a disconnected hive, which no legal position has), they are
    placed by their shortest torus offset from ``start`` rather than dropped,
    so every caller sees every piece.
    """
    occupied = set(occupied)
    coords = {start: (0, 0)}
    todo = [start]
    while todo:
        cell = todo.pop()
        q, r = coords[cell]
        for d, (dq, dr) in enumerate(DIR_QR):
            nb = neighbour(cell, d)
            if nb in occupied and nb not in coords:
                coords[nb] = (q + dq, r + dr)
                todo.append(nb)
    for cell in occupied - coords.keys():
        coords[cell] = torus_offset(start, cell)
    return coords


def hive_coordinates(piece_cells: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Unwrapped axial ``(q, r)`` of every cell a piece stands on, relative to the first one.

    ``piece_cells`` holds each piece's cell in piece order, negative for a
    piece in hand: a position's ``b[POS:POS + N_PIECES]``. The first piece on
    the board is (0, 0) (a fixed start, so the answer is deterministic); the
    rest come from :func:`unwrap`, which also says where the parts of a
    disconnected hive go. Callers shift as they like.

    >>> hive_coordinates([-1, ORIGIN, neighbour(ORIGIN, E), ORIGIN])
    {528: (0, 0), 529: (1, 0)}
    >>> hive_coordinates([-1, -1])
    {}
    """
    cells = list(dict.fromkeys(int(c) for c in piece_cells if c >= 0))
    return unwrap(cells, cells[0]) if cells else {}
