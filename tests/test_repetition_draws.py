"""tools/repetition_draws.py: finding the repeated position a game ended on (no search, no engine)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hiveai.rules.board import Board

_SPEC = importlib.util.spec_from_file_location(
    "repetition_draws", Path(__file__).resolve().parents[1] / "tools" / "repetition_draws.py")
tool = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tool)

# The queens step out and back twice: the position after ply 4 occurs again after plies 8 and 12.
SHUFFLE = ("wG1", "bG1 wG1-", "wQ -wG1", "bQ bG1-") + ("wQ \\wG1", "bQ bG1\\", "wQ -wG1", "bQ bG1-") * 2


def test_the_game_is_replayed_to_the_first_occurrence_of_its_last_position():
    board = Board("Base")
    for m in SHUFFLE:
        board.play(m)
    first, count = tool.repeated_position(board.game_string())
    assert (first.ply, count) == (4, 3)
    assert first.zobrist == board.zobrist and first.move_history == list(SHUFFLE[:4])


def test_only_games_that_ended_on_a_repetition_are_studied():
    draw = {"result": "Draw", "reason": "draw declared by engine", "detail": "x declared a draw by repetition after ply 9",
            "forfeit": None, "flags": []}
    adjudicated = {**draw, "reason": "threefold repetition", "detail": "the position after ply 9 occurred for the third time"}
    queens = {**draw, "reason": "both queens surrounded", "detail": "both queens are surrounded"}
    forfeit = {"result": "WhiteWins", "reason": "engine error", "detail": "'play wQ -wG1' answered 'invalidmove'",
               "forfeit": "x", "flags": ["x declared a draw after ply 8; rejected: the position occurred 2 times"]}
    loss = {**forfeit, "reason": "queen surrounded", "forfeit": None, "flags": []}
    assert [tool.is_repetition(g) for g in (draw, adjudicated, queens, forfeit, loss)] == [True, True, False, True, False]
