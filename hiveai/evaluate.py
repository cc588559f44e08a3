"""Static evaluation: how good a position is for one colour.

The idea is queen mobility, the heart of Hive strategy: the game is won by
filling the six cells around the enemy queen, so every occupied cell next to
the enemy queen is good and every one next to our own queen is bad. A small
mobility term prefers positions where the opponent has fewer moves (pinned
and blocked pieces). Finished games score ``WIN``/``-WIN``/``DRAW``.

Scores are ints in "queen-cell" hundredths. All weights live here.
"""

from __future__ import annotations

import numpy as np

from hiveai.bug import PIECES_PER_COLOUR
from hiveai.position import BLACK_WINS, DRAW, POS, WHITE_WINS, occupied_neighbours

# A won game; larger than any static score.
WIN = 1_000_000
# A drawn game (both queens surrounded at once): neutral.
DRAW_SCORE = 0
# Per occupied cell around a queen: + around the enemy queen, - around ours.
QUEEN_NEIGHBOUR = 100
# Per legal move the opponent has after our move (fewer is better for us).
# Small: a typical opponent has 30-150 moves, worth about one queen cell.
OPPONENT_MOBILITY = 1


def queen_neighbours(b: np.ndarray, colour: int) -> int:
    """Occupied cells around ``colour``'s queen (0 while it is in hand)."""
    cell = int(b[POS + colour * PIECES_PER_COLOUR])
    if cell < 0:
        return 0
    return int(occupied_neighbours(b, cell))


def result_score(result: int, colour: int) -> int:
    """Score of a finished game for ``colour`` (result from position.game_result)."""
    if result == DRAW:
        return DRAW_SCORE
    won = (result == WHITE_WINS and colour == 0) or (result == BLACK_WINS and colour == 1)
    return WIN if won else -WIN


def static_score(b: np.ndarray, colour: int, opponent_moves: int) -> int:
    """Score of an unfinished position for ``colour``; ``opponent_moves`` is the
    number of legal moves the other side has in it."""
    pressure = queen_neighbours(b, 1 - colour) - queen_neighbours(b, colour)
    return QUEEN_NEIGHBOUR * pressure - OPPONENT_MOBILITY * opponent_moves
