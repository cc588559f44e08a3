"""hiveai.think, Limit, StopHandle and the score types (hiveai.player, hiveai.search.timeman, hiveai.search.score)."""

from __future__ import annotations

import threading

import pytest

from hiveai.rules.board import Board
from hiveai.rules.bug import BLACK, WHITE
from hiveai.player import Engine, think
from hiveai.search.score import WIN, Cp, PovScore, Score, Win, int_score
from hiveai.search.searcher import Searcher
from hiveai.search.timeman import Limit, StopHandle

# Black to move wins at once (found by seeded random play): the search must say
# Win(1) from Black's side and Win(-1) from White's.
BLACK_WINS_IN_ONE = (
    "Base;InProgress;Black[37];wA1;bA1 wA1\\;wQ -wA1;bQ /bA1;wS1 /wQ;bB1 bA1\\;wA2 /wS1;bB2 /bQ;wA2 -wQ;"
    "bB2 bQ;wA3 \\wQ;bA2 bB1-;wA3 bB1\\;bA2 bB1/;wB1 \\wQ;bG1 bA2/;wA2 bB2\\;bB1 wA3;wG1 wA1/;bS1 bG1/;"
    "wS2 /wA2;bA3 bS1/;wG2 -wS2;bA3 bB1\\;wB2 -wG1;bA3 bB1-;wG3 /wB1;bA3 \\wB2;wB1 wB2;bB1 bA1\\;wA3 -bA3;"
    "bS2 bS1\\;wA3 bS2-;bG2 bS1/;wA3 \\wG1;bA3 bG2/;wA3 wS1\\;bB1 wA2;wA3 wS2\\;bB2 wS1\\;wA3 bS2-;bA3 bB1-;"
    "wA3 \\wB1;bG3 bS2-;wB1 wQ;bA3 bG2/;wB1 /wA3;bB1 bQ;wB1 -wA3;bB2 bB1;wG3 wS1\\;bA3 \\bG2;wG1 wB1\\;"
    "bA3 /wS1;wA1 bA2\\;bA3 bG3/;wA1 -bS1;bA3 /wG1;wA1 wS2\\;bA3 \\bG2;wA1 -wB1;bA3 /wG3;wA1 wS2\\;"
    "bG2 bA1\\;wA2 wB2/;bA1 bG3/;wA3 wA1/;bA1 bG3\\;wA1 -wS1;bB2 wQ\\;wA3 /wG1;bA1 bS1/;wA2 /wA1"
)


def test_a_forced_win_is_a_win_score_with_every_view():
    board = Board.parse(BLACK_WINS_IN_ONE)
    result = think(board, Limit(depth=2))
    assert result.score == PovScore(Win(1), BLACK)
    assert result.score.black() == Win(1) and result.score.white() == Win(-1)
    assert result.score.relative.is_win() and result.score.white().is_loss()
    board.push(result.move)
    assert board.state == "BlackWins"


def test_evaluations_are_cp_and_views_flip():
    result = think(Board("Base"), Limit(depth=2))
    assert isinstance(result.score.relative, Cp) and result.score.turn == WHITE
    assert result.score.white() == result.score.relative == -result.score.black()
    raw = Searcher(tt_mb=16).search(Board("Base"), Limit(depth=2))
    assert result.score == raw.score and int_score(result.score) == result.score.relative.to_int()


def test_score_round_trip_and_order():
    for raw in (0, 125, -3000, WIN - 1, WIN - 40, -(WIN - 2), -(WIN - 17)):
        assert Score.from_int(raw).to_int() == raw
    ranked = [Win(-1), Win(-9), Cp(-500), Cp(0), Cp(700), Win(9), Win(1)]
    assert sorted(reversed(ranked)) == ranked
    with pytest.raises(ValueError):
        Win(0)
    with pytest.raises(ValueError):
        Cp(WIN)
    with pytest.raises(ValueError):
        PovScore(Cp(1), 2)


def test_limits_depth_nodes_and_empty():
    board = Board("Base+MLP")
    assert think(board, Limit(depth=3)).depth == 3
    assert think(board, Limit()).depth == 4  # the default depth
    capped = think(board, Limit(nodes=200))
    assert capped.nodes < think(board, Limit(depth=4)).nodes
    assert think(board, Limit(time=0)).score is None  # answer now: no search, a legal move


def test_limit_validation():
    for bad in (dict(time=-0.1), dict(depth=-1), dict(nodes=1.5), dict(depth=True), dict(time="1")):
        with pytest.raises(ValueError):
            Limit(**bad)


def test_stop_handle_from_another_thread():
    handle = StopHandle()
    started = threading.Event()

    def on_iteration(info):
        started.set()
        handle.stop()  # from the search's calling thread on the first iteration: ends the search

    result = think(Board("Base+MLP"), Limit(depth=30), stop=handle, on_iteration=on_iteration)
    assert started.is_set() and result.depth < 30 and result.move in Board("Base+MLP").legal_moves
    handle.clear()
    timer = threading.Timer(0.05, handle.stop)
    timer.start()
    result = think(Board("Base+MLP"), Limit(depth=30), stop=handle)
    timer.join()
    assert result.depth < 30


def test_multipv_and_a_kept_engine():
    engine = Engine(hash_mb=4)
    board = Board("Base+MLP")
    result = think(board, Limit(depth=2), multipv=3, engine=engine)
    assert engine.searcher is not None and engine.searcher.tt_mb == 4
    assert len(result.lines) == 3 and result.lines[0].move == result.move
    assert result.lines[0].score.relative >= result.lines[1].score.relative >= result.lines[2].score.relative
