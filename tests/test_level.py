"""Playing levels (hiveai.player.levels, through the engine): level 10 is the plain search, weaker levels
vary their moves, every level takes a win in one, level 4 and up blocks one,
and a weak level still takes a moment to answer."""

from __future__ import annotations

import random

import pytest
from tactics import POSITIONS, safe_and_losing, winning_moves

from hiveai.rules.board import Board
from hiveai.player import MAX_LEVEL, MIN_LEVEL, Engine, think
from hiveai.player.levels import BLOCK_FROM_LEVEL, LEVELS, THINK_SHARE, allows_win, play_level
from hiveai.search.searcher import Searcher, SearchResult
from hiveai.search.timeman import Budget, Limit, StopHandle

ALL_LEVELS = range(MIN_LEVEL, MAX_LEVEL + 1)
OPENING = "Base+MLP;InProgress;White[4];wL;bS1 /wL;wQ wL-;bM /bS1;wA1 wQ/;bQ bM\\"


def play(board: Board, limit: Limit, level: int, seed: int | None = None, **kw) -> SearchResult:
    """The engine's move at ``level`` from a fresh 16 MB table, the book off (level 10 would play from it)."""
    return Engine(hash_mb=16, level=level, use_book=False, seed=seed).play(board, limit, **kw)


def test_the_table_covers_every_level_below_full_strength():
    assert sorted(LEVELS) == list(range(MIN_LEVEL, MAX_LEVEL))
    budgets = [LEVELS[level].nodes for level in sorted(LEVELS)]
    assert budgets == sorted(budgets)  # more thought at every level


def test_level_10_is_the_plain_search_and_deterministic():
    board = Board.parse(OPENING)
    plain = think(board, Limit(depth=4))
    for seed in range(3):
        r = play(board, Limit(depth=4), MAX_LEVEL, seed)
        assert (r.move, r.score, r.nodes, r.pv) == (plain.move, plain.score, plain.nodes, plain.pv)


@pytest.mark.parametrize("level", [1, 3, 6])
def test_a_weak_level_varies_its_moves(level):
    board = Board.parse(OPENING)
    moves = [play(board, Limit(depth=30), level, seed).move for seed in range(30)]
    assert len(set(moves)) >= 2, moves
    assert set(moves) <= set(board.legal_moves)


def test_a_weak_level_is_reproducible_with_the_same_rng():
    board = Board.parse(OPENING)
    a = [play(board, Limit(depth=30), 2, 7).move for _ in range(3)]
    assert len(set(a)) == 1


@pytest.mark.parametrize("gs", [gs for (cat, _), rows in POSITIONS.items() if cat == "win1" for _, gs in rows][:12])
def test_every_level_takes_a_win_in_one(gs):
    board = Board.parse(gs)
    wins = winning_moves(board.position_array.copy())
    for level in ALL_LEVELS:
        for seed in range(2):
            r = play(board, Limit(depth=2 if level == MAX_LEVEL else 30), level, seed)
            assert r.move.code in wins, (level, r.move_string)


def first_fast(positions: list[str], fast: int) -> list:
    """The positions as parameters, those after the first ``fast`` in the slow step: the same check
    on more positions (the fast suite keeps the first ones)."""
    return [gs if i < fast else pytest.param(gs, marks=pytest.mark.slow) for i, gs in enumerate(positions)]


# Six levels, three seeds, a search to the level's node budget each: about 2 s a position on a 2-core
# machine, so the fast suite blocks the first four and the slow step the other eight.
@pytest.mark.parametrize("gs", first_fast([gs for (cat, _), rows in POSITIONS.items() if cat == "block"
                                           for _, gs in rows][:12], 4))
def test_levels_from_4_block_a_win_in_one(gs):
    board = Board.parse(gs)
    b = board.position_array.copy()
    safe, losing = safe_and_losing(b)
    assert safe and losing
    for level in range(BLOCK_FROM_LEVEL, MAX_LEVEL):
        for seed in range(3):
            r = play(board, Limit(depth=30), level, seed)
            assert r.move.code in safe and not allows_win(b, *_scratch(), r.move.code), (level, r.move_string)


def _scratch():
    import numpy as np

    from hiveai.rules.movegen import MAX_MOVES, new_workspace

    return new_workspace(), np.zeros(2 * MAX_MOVES, dtype=np.int32)


@pytest.mark.timing
def test_a_weak_level_takes_a_natural_time():
    board = Board.parse(OPENING)
    r = play(board, Limit(time=1.0), 1, 1)
    assert THINK_SHARE * 0.9 <= r.seconds < 1.0, r.seconds


def test_a_bad_level_is_refused():
    with pytest.raises(ValueError, match="Level"):
        Engine(level=11)
    engine = Engine(hash_mb=1)
    with pytest.raises(ValueError, match="Level"):
        engine.configure({"Level": 0})
    assert engine.options["Level"] == MAX_LEVEL


def test_a_weak_level_keeps_to_a_node_limit_below_its_own_budget():
    board = Board.parse(OPENING)
    own = play(board, Limit(depth=30), 9, 3)
    capped = play(board, Limit(depth=30, nodes=5_000), 9, 3)
    assert own.nodes > 50_000  # level 9's budget is 300,000 nodes after the depth-1 ranking
    # The kernel checks the budget at each node it enters and counts a node's
    # leaf children without entering them, so it may end a move list past it.
    assert capped.nodes < 2 * 5_000 and capped.move in board.legal_moves
    tiny = play(board, Limit(depth=30, nodes=1), 9, 3)
    assert tiny.depth == 1  # below the depth-1 ranking's nodes: that ranking alone, in full


def test_a_weak_level_reports_every_iteration():
    board = Board.parse(OPENING)
    infos = []
    result = play(board, Limit(depth=30), 5, 1, on_iteration=infos.append)
    assert result.source == "level"
    depths = [i.depth for i in infos if i.multipv == 1]
    assert depths[0] == 1 and max(depths) == result.depth >= 2  # the ranking, then the budgeted search
    nodes = [i.nodes for i in infos]
    assert nodes == sorted(nodes) and nodes[-1] <= result.nodes  # counted from the start of the move


def test_a_weak_level_searches_on_one_thread_and_leaves_the_searcher_alone():
    board = Board.parse(OPENING)
    searcher = Searcher(tt_mb=16, threads=2)
    seen = []
    limits = Budget.of(Limit(depth=30), StopHandle())
    two = play_level(searcher, board, limits, 6, random.Random(4), on_iteration=lambda i: seen.append(searcher.threads))
    assert seen and set(seen) == {2} and searcher.threads == 2
    one = play_level(Searcher(tt_mb=16), board, limits, 6, random.Random(4))
    assert (two.move, two.nodes, two.depth) == (one.move, one.nodes, one.depth)  # one thread: deterministic


def test_the_choice_counts_from_the_highest_score_whatever_line_heads_the_list():
    """A move an unfinished iteration proved better heads the lines with a score below a later
    line's (here a forced win): the choice stays within the margin of the highest score, and the
    weights do not overflow."""
    from hiveai.player.levels import choose
    from hiveai.search.score import WIN, PovScore, Score
    from hiveai.search.searcher import Line

    board = Board("Base")
    moves = board.legal_moves[:3]
    lines = [Line(m, PovScore(Score.from_int(s), board.turn), [m]) for m, s in zip(moves, (10, WIN - 3, 5))]
    settings = LEVELS[2]
    picks = {choose(lines, settings, random.Random(seed)).move for seed in range(20)}
    assert picks == {moves[1]}
