"""The one-ply search (hiveai.search), in-process: wins when it can, avoids
moves that lose at once, and always answers a legal move within its limits."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hiveai.board import Board
from hiveai.search import best_move
from hiveai.timeman import StopFlag, depth_limits, time_limits

POSITIONS = {}
for line in (Path(__file__).parent / "data" / "uhp" / "positions.tsv").read_text().splitlines():
    if line and not line.startswith("#"):
        name, _, gs = line.split("\t")
        POSITIONS[name] = gs


def rewind(gs: str, plies: int) -> Board:
    fields = gs.split(";")
    return Board.from_game_string(";".join(fields[:3] + fields[3:len(fields) - plies]))


def wins_at_once(board: Board, move: int) -> bool:
    me = board.turn
    board.push(move)
    won = board.state == ("WhiteWins", "BlackWins")[me]
    board.pop()
    return won


def loses_next(board: Board, move: int) -> bool:
    """After ``move``, can the opponent win at once (or have we lost already)?"""
    me = board.turn
    board.push(move)
    try:
        if board.is_game_over():
            return board.state != ("WhiteWins", "BlackWins")[me]
        return any(wins_at_once(board, reply) for reply in board.legal_moves())
    finally:
        board.pop()


@pytest.mark.parametrize("name", ["end_WhiteWins", "end_BlackWins", "end_draw"])
def test_takes_an_immediate_win(name):
    board = rewind(POSITIONS[name], 1)
    winning = [m for m in board.legal_moves() if wins_at_once(board, m)]
    assert winning, "the position should offer a winning move"
    assert best_move(board, depth_limits(1, StopFlag())).move in winning


@pytest.mark.parametrize("name", ["end_WhiteWins", "end_BlackWins", "end_draw"])
def test_avoids_losing_at_once(name):
    board = rewind(POSITIONS[name], 2)
    safe = [m for m in board.legal_moves() if not loses_next(board, m)]
    assert 0 < len(safe) < len(board.legal_moves()), "the position should offer safe and losing moves"
    assert best_move(board, depth_limits(1, StopFlag())).move in safe


def test_limits_are_respected():
    board = rewind(POSITIONS["end_BlackWins"], 6)
    first = board.legal_moves()[0]
    assert best_move(board, depth_limits(0, StopFlag())).move == first
    start = time.monotonic()
    assert best_move(board, time_limits(0.0, StopFlag())).move == first
    stop = StopFlag()
    stop.set()
    assert best_move(board, time_limits(60.0, stop)).move == first
    assert time.monotonic() - start < 1.0
    result = best_move(board, time_limits(5.0, StopFlag()))
    assert result.move in board.legal_moves() and result.depth == 1
    assert board.game_string() == rewind(POSITIONS["end_BlackWins"], 6).game_string()  # untouched
