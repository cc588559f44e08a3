"""The rules of Hive, below every other layer: cells, bugs, positions, move generation, notation,
the :class:`~hiveai.rules.board.Board`, set-ups, perft, symmetry and outcomes.

The layer draws nothing (pictures belong to a front end, :mod:`hiveai.svg`), yet a board shows as
a picture in Jupyter: the board's ``_repr_svg_`` asks for :func:`board_picture`, which calls the
drawer a front end registered with :func:`set_board_drawer`. ``import hiveai`` registers
:func:`hiveai.svg.board`, loaded when the first picture is drawn.

Plain Python, no numba: ``import hiveai`` imports this package.

>>> import hiveai
>>> from hiveai.rules.board import Board
>>> board_picture(Board("Base")).startswith("<svg")
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from hiveai.rules.board import Board

__all__ = ["board_picture", "set_board_drawer"]

_drawer: Callable[[Board], str] | None = None


def set_board_drawer(draw: Callable[[Board], str] | None) -> None:
    """Make ``draw`` (a board to SVG text) the picture of every board; None: no picture."""
    global _drawer
    _drawer = draw


def board_picture(board: Board) -> str | None:
    """The registered drawer's SVG text of ``board``; None while no drawer is registered."""
    return None if _drawer is None else _drawer(board)
