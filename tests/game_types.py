"""The GameTypeStrings of the game types, for tests that run in each: made from
:mod:`hiveai.rules.bug`'s list, so a game type added there is tested everywhere; and
:func:`game`, a board of one of them after a scenario's moves."""

from __future__ import annotations

from hiveai.rules.board import Board
from hiveai.rules.bug import CRITTERS, game_type_string
from hiveai.rules.bug import STANDARD_GAME_TYPES as STANDARD_BITS
from hiveai.errors import HiveError

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
