"""Playing levels (hiveai.level): level 10 is the plain search, weaker levels
vary their moves, every level takes a win in one, level 4 and up blocks one,
and a weak level still takes a moment to answer."""

from __future__ import annotations

import random

import pytest
from tactics import POSITIONS, safe_and_losing, winning_moves

from hiveai.board import Board
from hiveai.level import BLOCK_FROM_LEVEL, LEVELS, THINK_SHARE, allows_win
from hiveai.options import MAX_LEVEL, MIN_LEVEL
from hiveai.search import search

ALL_LEVELS = range(MIN_LEVEL, MAX_LEVEL + 1)
OPENING = "Base+MLP;InProgress;White[4];wL;bS1 /wL;wQ wL-;bM /bS1;wA1 wQ/;bQ bM\\"


def test_the_table_covers_every_level_below_full_strength():
    assert sorted(LEVELS) == list(range(MIN_LEVEL, MAX_LEVEL))
    budgets = [LEVELS[level].nodes for level in sorted(LEVELS)]
    assert budgets == sorted(budgets)  # more thought at every level


def test_level_10_is_the_plain_search_and_deterministic():
    board = Board.parse(OPENING)
    plain = search(board, depth=4)
    for seed in range(3):
        r = search(board, depth=4, level=MAX_LEVEL, rng=random.Random(seed))
        assert (r.move, r.score, r.nodes, r.pv) == (plain.move, plain.score, plain.nodes, plain.pv)


@pytest.mark.parametrize("level", [1, 3, 6])
def test_a_weak_level_varies_its_moves(level):
    board = Board.parse(OPENING)
    moves = [search(board, depth=30, level=level, rng=random.Random(seed)).move for seed in range(30)]
    assert len(set(moves)) >= 2, moves
    assert set(moves) <= set(board.legal_moves)


def test_a_weak_level_is_reproducible_with_the_same_rng():
    board = Board.parse(OPENING)
    a = [search(board, depth=30, level=2, rng=random.Random(7)).move for _ in range(3)]
    assert len(set(a)) == 1


@pytest.mark.parametrize("gs", [gs for (cat, _), rows in POSITIONS.items() if cat == "win1" for _, gs in rows][:12])
def test_every_level_takes_a_win_in_one(gs):
    board = Board.parse(gs)
    wins = winning_moves(board.position_array.copy())
    for level in ALL_LEVELS:
        for seed in range(2):
            r = search(board, depth=2 if level == MAX_LEVEL else 30, level=level, rng=random.Random(seed))
            assert r.move.code in wins, (level, r.move_string)


@pytest.mark.parametrize("gs", [gs for (cat, _), rows in POSITIONS.items() if cat == "block" for _, gs in rows][:12])
def test_levels_from_4_block_a_win_in_one(gs):
    board = Board.parse(gs)
    b = board.position_array.copy()
    safe, losing = safe_and_losing(b)
    assert safe and losing
    for level in range(BLOCK_FROM_LEVEL, MAX_LEVEL):
        for seed in range(3):
            r = search(board, depth=30, level=level, rng=random.Random(seed))
            assert r.move.code in safe and not allows_win(b, *_scratch(), r.move.code), (level, r.move_string)


def _scratch():
    import numpy as np

    from hiveai.movegen import MAX_MOVES, new_workspace

    return new_workspace(), np.zeros(2 * MAX_MOVES, dtype=np.int32)


def test_a_weak_level_takes_a_natural_time():
    board = Board.parse(OPENING)
    r = search(board, time=1.0, level=1, rng=random.Random(1))
    assert THINK_SHARE * 0.9 <= r.seconds < 1.0, r.seconds


def test_a_bad_level_is_refused():
    with pytest.raises(ValueError, match="level"):
        search(Board("Base"), depth=1, level=11)
