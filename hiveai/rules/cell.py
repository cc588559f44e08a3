r"""Cells of the hex plane: :class:`Cell` (axial coordinates) and the six :class:`Direction`\ s.

Hive has no board edge and no fixed frame, so a cell is named by axial
coordinates ``(q, r)`` with White's first piece at ``(0, 0)``, drawn pointy-top
as MzingaViewer draws it: ``q`` grows to the east, ``r`` to the south-east
(one step SE is ``(0, +1)``, one step NE is ``(+1, -1)``).

>>> Cell(0, 0).neighbour(Direction.E), Cell(0, 0).neighbour(Direction.NW)
(Cell(1, 0), Cell(0, -1))
>>> len(Cell(2, -1).neighbours()), Cell(0, 0).distance(Cell(2, -1))
(6, 2)

The directions run clockwise from north-west, in Mzinga's order for choosing
the reference piece of a MoveString, and each knows its UHP symbol: a move to
the east of ``wS1`` is written ``wS1-``, to its south-west ``/wS1``:

>>> [d.name for d in Direction]
['NW', 'NE', 'E', 'SE', 'SW', 'W']
>>> Direction.E.notation("wS1"), Direction.SW.notation("wS1"), Direction.NW.notation("wS1")
('wS1-', '/wS1', '\\wS1')

Plain Python (no numba). :meth:`hiveai.rules.board.Board.piece_at` and the other
position queries take and give these cells.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from hiveai.rules.hex_grid import CELL_MASK, DIR_QR, GRID, ORIGIN

__all__ = ["Cell", "Direction"]

# UHP's symbol for each direction and whether it stands before the reference
# piece (docs/protocol-notes.md, "MoveStrings"): NW \ref, NE ref/, E ref-,
# SE ref\, SW /ref, W -ref.
_SYMBOLS = ("\\", "/", "-", "\\", "/", "-")
_BEFORE = (True, False, False, False, True, True)


class Direction(enum.IntEnum):
    """One of the six directions between neighbouring cells, clockwise from north-west.

    >>> Direction.E, Direction.E.dq, Direction.E.dr, Direction.E.symbol
    (<Direction.E: 2>, 1, 0, '-')
    """

    NW = 0
    NE = 1
    E = 2
    SE = 3
    SW = 4
    W = 5

    @property
    def dq(self) -> int:
        """Change of ``q`` for one step (``Direction.E.dq == 1``)."""
        return DIR_QR[self][0]

    @property
    def dr(self) -> int:
        """Change of ``r`` for one step (``Direction.SE.dr == 1``)."""
        return DIR_QR[self][1]

    @property
    def symbol(self) -> str:
        r"""The UHP MoveString symbol: ``-`` (E, W), ``/`` (NE, SW) or ``\`` (NW, SE).

        >>> Direction.NE.symbol, Direction.W.symbol
        ('/', '-')
        """
        return _SYMBOLS[self]

    @property
    def symbol_before(self) -> bool:
        """Whether the symbol stands before the reference piece (W, SW, NW) or after it."""
        return _BEFORE[self]

    def opposite(self) -> Direction:
        """The direction back (``E.opposite() is W``).

        >>> Direction.E.opposite(), Direction.NW.opposite()
        (<Direction.W: 5>, <Direction.SE: 3>)
        """
        return Direction((self + 3) % 6)

    def notation(self, reference: str) -> str:
        """The destination part of a MoveString: this side of ``reference`` (a PieceString)."""
        return self.symbol + reference if self.symbol_before else reference + self.symbol


class Cell(NamedTuple):
    """A cell in axial coordinates, White's first piece at ``(0, 0)``. Hashable, ordered.

    >>> Cell(1, -1) + Direction.SW
    Cell(0, 0)
    """

    q: int
    r: int

    def neighbour(self, direction: Direction | int) -> Cell:
        """The next cell in ``direction``."""
        dq, dr = DIR_QR[direction]
        return Cell(self.q + dq, self.r + dr)

    def neighbours(self) -> tuple[Cell, ...]:
        """The six neighbours, in :class:`Direction` order (NW first)."""
        return tuple(Cell(self.q + dq, self.r + dr) for dq, dr in DIR_QR)

    def direction_to(self, other: Cell) -> Direction | None:
        """The direction of ``other`` if it is a neighbour, else None.

        >>> Cell(0, 0).direction_to(Cell(-1, 1)), Cell(0, 0).direction_to(Cell(2, 0))
        (<Direction.SW: 4>, None)
        """
        step = (other.q - self.q, other.r - self.r)
        return Direction(DIR_QR.index(step)) if step in DIR_QR else None

    def distance(self, other: Cell) -> int:
        """Steps between two cells on the plane."""
        dq, dr = other.q - self.q, other.r - self.r
        return max(abs(dq), abs(dr), abs(dq + dr))

    def __add__(self, direction: object) -> Cell:
        if not isinstance(direction, Direction):
            return NotImplemented
        return self.neighbour(direction)

    def __repr__(self) -> str:
        return f"Cell({self.q}, {self.r})"


def cell_index(cell: Cell) -> int:
    """The kernels' index of ``cell`` (hiveai.rules.hex_grid: a 32 x 32 torus)."""
    return (ORIGIN + cell.q + GRID * cell.r) & CELL_MASK
