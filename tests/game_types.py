"""The GameTypeStrings of the game types, for tests that run in each: made from
:mod:`hiveai.rules.bug`'s list, so a game type added there is tested everywhere;
:func:`game`, a board of one of them after a scenario's moves; and
:func:`from_a_neighbour`, a MoveString that names an occupied cell as if it were empty."""

from __future__ import annotations

from hiveai.rules.board import Board
from hiveai.rules.bug import CRITTERS, game_type_string, piece_names
from hiveai.rules.bug import STANDARD_GAME_TYPES as STANDARD_BITS
from hiveai.errors import HiveError, MoveStringError
from hiveai.rules.hex_grid import CELL_MASK, neighbour
from hiveai.rules.notation import parse_move_string
from hiveai.rules.position import MOVE_PIECE_SHIFT, TOP

# Base and every mix of M, L, P (what UHP's info advertises), in hiveai.rules.bug's order.
STANDARD_GAME_TYPES = tuple(game_type_string(bits) for bits in STANDARD_BITS)
# And Critters, the variant with a game type of its own.
EVERY_GAME_TYPE = (*STANDARD_GAME_TYPES, game_type_string(CRITTERS))


def game(game_type: str, *moves: str) -> Board:
    """A board after playing ``moves`` one by one (each must be legal)."""
    board = Board(game_type)
    for i, m in enumerate(moves):
        try:
            board.play(m)
        except HiveError as e:  # pragma: no cover - a broken scenario, say which move
            raise AssertionError(f"scenario move {i} {m!r} rejected after {board.game_string()!r}: {e}") from e
    return board


# The six ways a MoveString's position names a cell beside a reference piece.
BESIDE = ("{}-", "{}/", "{}\\", "-{}", "/{}", "\\{}")


def from_a_neighbour(board: Board, code: int) -> str | None:
    """A MoveString of move int ``code`` whose position names its destination beside a neighbouring
    piece, with a separator, although a piece stands there (a separator names a ground cell, so
    Mzinga refuses it: :func:`hiveai.rules.notation.parse_move_string`'s ``occupied``); None when
    no piece touches the destination."""
    b = board.position_array
    names = piece_names(board.game_type)
    dest = code & CELL_MASK
    for d in range(6):
        top = int(b[TOP + neighbour(dest, d)])
        for form in BESIDE if top >= 0 else ():
            text = f"{names[code >> MOVE_PIECE_SHIFT]} {form.format(names[top])}"
            try:
                if parse_move_string(b, text) == (code, True):
                    return text
            except MoveStringError:
                break  # a piece name the game type does not parse
    return None
