"""Draw a Hive position as text: a hex picture of the hive plus the facts around it.

The picture is for people at a terminal (``hiveai analyse``), so it must read
in a plain 80-column terminal without colour: every cell is a short label
(``wQ``, ``bA1``; a stack shows its top piece and its height, ``wB1+2``), the
``w``/``b`` prefix tells the colours apart, and empty cells next to the hive
are dots so the hex grid can be seen. Rows are horizontal and each row is
shifted half a cell right of the one above, as MzingaViewer draws the
pointy-top board, so the six UHP directions read as drawn in the docs::

      \\R    R/          NW  NE
    -R    R    R-      W    R    E
      /R    R\\          SW  SE

Cells live on a 32 x 32 torus (:mod:`hiveai.rules.hex_grid`), so the raw
coordinates of a hive that straddles the wrap seam would tear the picture
apart. :func:`hiveai.rules.hex_grid.hive_coordinates` unwraps them (shared with the
SVG picture and, through :func:`hiveai.rules.hex_grid.unwrap`, the book's symmetry
keys) into coordinates relative to the hive itself.

ANSI colour is optional and only decorates labels that already read without it.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import numpy as np

from hiveai.rules.bug import COLOUR_NAMES, MAX_STACK, N_PIECES, PIECES_PER_COLOUR, colour_of, piece_in_game, piece_names
from hiveai.rules.hex_grid import DIR_QR, hive_coordinates
from hiveai.rules.position import GAME_TYPE, HEIGHT, POS, STACK, TOP

if TYPE_CHECKING:  # annotations only: Board draws itself through hiveai.svg, which imports this module
    from hiveai.rules.board import Board

# Text columns per cell. A label is at most 5 characters (``wB1+7``), so 6
# keeps at least one space between neighbours in a row; rows are offset by
# half of it. This is the widest spacing that still fits a typical mid-game
# hive (8-10 cells across) in 80 columns.
CELL_WIDTH = 6
HALF_CELL = CELL_WIDTH // 2
# Terminal width the picture aims at: a wider one drops the empty-cell dots
# (the outer ring costs a cell on each side), and text lines are wrapped to it.
TERMINAL_WIDTH = 80
# Drawn on empty cells next to the hive.
EMPTY_MARK = "."
# Joins a stack's top piece and its height in a label: ``wB1+2`` is a stack of
# two pieces with wB1 on top (ASCII, unlike a superscript, so any terminal shows it).
STACK_MARK = "+"
# ANSI SGR codes per colour: white pieces as dark text on a light tile, black
# pieces as light text on a dark tile, readable on dark and light terminals.
ANSI_PIECE = ("\x1b[30;47m", "\x1b[97;40m")
ANSI_EMPTY = "\x1b[2m"  # dim dots
ANSI_RESET = "\x1b[0m"


def stack_of(b: np.ndarray, cell: int) -> list[int]:
    """Pieces on ``cell``, bottom to top."""
    return [int(b[STACK + cell * MAX_STACK + level]) for level in range(int(b[HEIGHT + cell]))]


def cell_label(b: np.ndarray, cell: int) -> str:
    """Label of an occupied cell: top piece name, plus ``+height`` for a stack."""
    name = piece_names(int(b[GAME_TYPE]))[int(b[TOP + cell])]
    height = int(b[HEIGHT + cell])
    return f"{name}{STACK_MARK}{height}" if height > 1 else name


def hive_lines(b: np.ndarray, *, color: bool = False, empty: bool = True) -> list[str]:
    """The hex picture of position ``b``, one string per board row.

    ``empty`` draws a dot on each empty cell next to the hive. Lines carry no
    trailing spaces; the leftmost cell starts in column 0.
    """
    coords = hive_coordinates(b[POS : POS + N_PIECES])
    # (q, r) -> (label, ansi code)
    cells: dict[tuple[int, int], tuple[str, str]] = {}
    for cell, qr in coords.items():
        top = int(b[TOP + cell])
        cells[qr] = (cell_label(b, cell), ANSI_PIECE[colour_of(top)])
    if empty:
        for q, r in list(cells):
            for dq, dr in DIR_QR:
                cells.setdefault((q + dq, r + dr), (EMPTY_MARK, ANSI_EMPTY))
    if not cells:
        return []
    # Column of a cell's centre, in half cells: east is +2, south-east +1.
    def half(qr: tuple[int, int]) -> int:
        return 2 * qr[0] + qr[1]

    left = min(half(qr) * HALF_CELL - len(label) // 2 for qr, (label, _) in cells.items())
    rows = range(min(r for _, r in cells), max(r for _, r in cells) + 1)
    lines = []
    for row in rows:
        placed = sorted(
            (half(qr) * HALF_CELL - len(label) // 2 - left, label, code)
            for qr, (label, code) in cells.items()
            if qr[1] == row
        )
        out, cursor = [], 0
        for col, label, code in placed:
            out.append(" " * (col - cursor))
            out.append(f"{code}{label}{ANSI_RESET}" if color else label)
            cursor = col + len(label)
        lines.append("".join(out))
    return lines


def in_hand(board: Board, colour: int) -> list[str]:
    """Names of ``colour``'s pieces still in hand, in the game type's piece order."""
    b = board.position_array
    first = colour * PIECES_PER_COLOUR
    names = piece_names(board.game_type)
    return [
        names[p]
        for p in range(first, first + PIECES_PER_COLOUR)
        if piece_in_game(p, board.game_type) and int(b[POS + p]) < 0
    ]


def render_board(board: Board, *, color: bool = False, width: int = TERMINAL_WIDTH) -> str:
    """The whole picture of ``board`` as one string (no trailing newline).

    A header (game type, ply, state, side to move, last move), the hex
    picture, the pieces in hand per side and, when there are stacks, what
    each one holds from bottom to top. ``color`` adds ANSI colour codes.
    Empty cells next to the hive are dotted unless that makes the picture
    wider than ``width``; text lines are wrapped to ``width``.
    """
    b = board.position_array
    side = COLOUR_NAMES[board.turn]
    if board.is_game_over():
        status = f"{board.state} (would move: {side})"
    else:
        status = f"{board.state}, {side} to move (turn {board.ply // 2 + 1})"
    out = [f"{board.game_type_string}  ply {board.ply}  {status}"]
    if board.move_history:
        out.append(f"last move: {board.move_history[-1]}")
    out.append("")
    indent = "  "
    picture = hive_lines(b)
    if picture and max(map(len, picture)) + len(indent) > width:
        picture = hive_lines(b, color=color, empty=False)
    elif color:
        picture = hive_lines(b, color=True)
    out.extend(indent + line for line in picture)
    if not picture:
        out.append(indent + "(empty board)")
    out.append("")
    wrap = textwrap.TextWrapper(width=width, subsequent_indent=indent * 2, break_on_hyphens=False)
    for colour, name in enumerate(COLOUR_NAMES):
        hand = in_hand(board, colour)
        out.extend(wrap.wrap(f"{name} in hand: {' '.join(hand) if hand else '-'}"))
    stacks = [cell for cell in hive_coordinates(b[POS : POS + N_PIECES]) if int(b[HEIGHT + cell]) > 1]
    if stacks:
        parts = [f"{cell_label(b, c)} = {' '.join(piece_names(board.game_type)[p] for p in stack_of(b, c))}" for c in stacks]
        out.extend(wrap.wrap("stacks, bottom to top: " + "; ".join(parts)))
    return "\n".join(out)


__all__ = ["cell_label", "hive_lines", "in_hand", "render_board", "stack_of"]
