"""``hiveai tune``: self-play records, training positions, the Texel fit, weights files."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from tactics import crowd

from hiveai.rules.board import Board
from hiveai.evaluation.linear import (
    WEIGHT_NAMES,
    default_weights,
    evaluate,
    read_weights_file,
    weights_for,
    write_weights_file,
)
from hiveai.rules.movegen import new_workspace
from hiveai.rules.outcome import Termination
from hiveai.training.tune import (
    GAMES_FILE,
    SelfPlayTask,
    fit,
    fit_k,
    mean_error,
    play_selfplay_game,
    selfplay,
    selfplay_tasks,
    split_holdout,
    training_set,
    tune,
    white_scores,
)

TEMPO = WEIGHT_NAMES.index("tempo")


def test_a_selfplay_game_is_legal_and_reproducible():
    task = SelfPlayTask("g", "Base+MLP", seed=5, depth=1, random_plies=2, max_plies=60)
    record = play_selfplay_game(task)
    assert record == play_selfplay_game(task)  # same seed, same game
    board = Board("Base+MLP")
    for move in record["moves"]:
        board.play(move)  # raises if illegal
    assert record["result"] == (board.state if board.is_game_over() else "Draw")
    assert len(record["moves"]) <= 60
    ended = Termination(record["reason"])
    assert ended == (board.outcome().termination if board.is_game_over() else
                     Termination.REPETITION if board.is_repetition() else Termination.MAX_PLIES)


def test_selfplay_resumes_without_replaying_or_losing_games(tmp_path):
    tasks = selfplay_tasks(["Base"], 4, seed=3, depth=1)
    assert len({t.seed for t in tasks}) == 4
    first = selfplay(tmp_path, tasks[:2], concurrency=2)
    assert len(first) == 2
    path = tmp_path / GAMES_FILE
    with open(path, "a") as f:
        f.write('{"id": "Base-00003", "mov')  # a line cut short by a kill
    seen = []
    records = selfplay(tmp_path, tasks, concurrency=2, on_game=lambda r, done, total: seen.append(r["id"]))
    assert sorted(r["id"] for r in records) == sorted(t.id for t in tasks)
    assert sorted(seen) == ["Base-00002", "Base-00003"]  # only the missing ones were played
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()].count("Base-00003") == 1
    assert len(path.read_text().splitlines()) == 4  # the cut-short line is gone
    path.write_text(path.read_text() + "not json\n")  # anything else is named, not skipped
    with pytest.raises(ValueError, match=rf"{GAMES_FILE}:5: not JSON"):
        selfplay(tmp_path, tasks)


def test_a_second_run_on_the_same_out_stops_at_once_naming_the_first(tmp_path):
    """Two runs on one folder would interleave their appends: the second is refused before it plays."""
    from click.testing import CliRunner

    from hiveai.cli import main
    from hiveai.durable import DirectoryLock, LockedError

    tasks = selfplay_tasks(["Base"], 1, seed=3, depth=1)
    with DirectoryLock(tmp_path):  # what a running tune holds
        for call in (lambda: selfplay(tmp_path, tasks), lambda: tune(tmp_path, ["Base"], 1, depth=1)):
            with pytest.raises(LockedError, match=rf"in use by another process \(pid {os.getpid()}\)"):
                call()
        result = CliRunner().invoke(main, ["tune", "--game-type", "Base", "--games", "1", "--out", str(tmp_path)])
        assert result.exit_code == 1 and "another tune run is writing its games there" in result.output
    assert not (tmp_path / GAMES_FILE).exists()
    assert len(selfplay(tmp_path, tasks)) == 1  # once the other run is gone


def _random_games(game_type: str, count: int, plies: int, seed: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        board = Board(game_type)
        while board.ply < plies and not board.is_game_over():
            moves = board.legal_move_ints()
            board.push(moves[int(rng.integers(len(moves)))])
        games.append(list(board.move_history))
    return games


def test_training_positions_are_quiet_positions_after_the_opening():
    games = _random_games("Base", 6, 30, seed=1)
    records = [{"id": f"g{i}", "game_type": "Base", "moves": m, "result": "WhiteWins"} for i, m in enumerate(games)]
    data = training_set(records, "Base", min_ply=8)
    assert data.games == 6 and data.positions == int(data.sample.sum()) > 0
    assert np.all(data.results == 1.0)
    # Replaying by hand: the marked positions are exactly those after ply 8 with calm queens.
    board_scores = []
    for moves in games:
        board = Board("Base")
        for text in moves:
            board.play(text)
            b = board.position_array
            calm = crowd(b, 0) < 5 and crowd(b, 1) < 5
            if board.ply >= 8 and not board.is_game_over() and calm:
                s = int(evaluate(b, new_workspace(), default_weights()))
                board_scores.append(s if board.ply % 2 == 0 else -s)
    assert list(white_scores(data, default_weights())) == board_scores


def test_fit_k_and_error():
    scores = np.array([-400, -100, 0, 100, 400], dtype=np.int64)
    k_true = 0.004
    results = 1 / (1 + np.exp(-k_true * scores))
    assert fit_k(scores, results) == pytest.approx(k_true, rel=1e-3)
    assert mean_error(scores, results, k_true) == pytest.approx(0.0, abs=1e-12)


def test_the_fit_recovers_a_weight_from_results_it_generated():
    """Results drawn from the logistic model with tempo = 150 instead of 10: the fit
    must move tempo up, towards 150, and lower the error on held-out games too."""
    games = _random_games("Base+MLP", 160, 24, seed=2)
    truth = default_weights()
    truth[TEMPO] = 150
    rng = np.random.default_rng(3)
    records = []
    for i, moves in enumerate(games):
        # The one training position of each game is its last (ply 24); its result
        # is drawn from the model under the true weights.
        one = training_set([{"id": "x", "game_type": "Base+MLP", "moves": moves, "result": "Draw"}], "Base+MLP",
                           min_ply=24)
        if one.positions != 1:
            continue  # ended early, or a queen in danger
        p = 1 / (1 + np.exp(-0.01 * float(white_scores(one, truth)[0])))
        result = "WhiteWins" if rng.random() < p else "BlackWins"
        records.append({"id": f"g{i:03d}", "game_type": "Base+MLP", "moves": moves, "result": result})
    train, held = split_holdout(records, every=4)
    data = training_set(train, "Base+MLP", min_ply=24)
    holdout = training_set(held, "Base+MLP", min_ply=24)
    assert data.positions == len(train) > 60
    result = fit(data, holdout=holdout, names=["tempo"], steps=(32, 16, 8))
    assert result.weights[TEMPO] > 60, result.weights[TEMPO]
    assert result.error_after < result.error_before
    assert result.holdout_after < result.holdout_before
    assert set(result.changed) == {"tempo"}


def test_a_fixed_k_fits_the_static_score_to_squashed_search_scores():
    """Targets that are scores squashed with a known K (as `hiveai train --fit linear`
    makes them from search labels): with K held fixed, the fit finds the weight that
    made the scores, on their scale, and reports that K."""
    games = _random_games("Base+MLP", 40, 24, seed=4)
    records = [{"id": f"g{i:03d}", "game_type": "Base+MLP", "moves": m, "result": "Draw"} for i, m in enumerate(games)]
    data = training_set(records, "Base+MLP", min_ply=8)
    assert data.positions > 100
    truth = default_weights()
    truth[TEMPO] = 150
    k = 0.004
    data.results[:] = 1 / (1 + np.exp(-k * white_scores(data, truth).astype(np.float64)))
    result = fit(data, names=["tempo"], k=k)
    assert result.k == k
    assert result.weights[TEMPO] == 150
    assert result.error_after < 1e-12 < result.error_before


def test_weights_files_round_trip_and_layer_by_game_type(tmp_path):
    w = default_weights()
    w[TEMPO] = 33
    mlp = w.copy()
    mlp[0] = 140
    path = tmp_path / "w.ini"
    write_weights_file(path, {"*": w, "Base+MLP": mlp}, header="test")
    sets = read_weights_file(path)
    assert np.array_equal(sets["*"], w) and np.array_equal(sets["Base+MLP"], mlp)
    assert np.array_equal(weights_for(sets, "Base"), w)
    assert np.array_equal(weights_for(sets, "Base+MLP"), mlp)
    # A partial file: the built-in values, then [*], then the game type's own section.
    path.write_text("[*]\ntempo = 7\n[Base+LM]\nqueen_enemy = 90\n")
    sets = read_weights_file(path)
    assert sets["*"][TEMPO] == 7 and sets["Base+ML"][TEMPO] == 7 and sets["Base+ML"][0] == 90
    assert sets["*"][0] == default_weights()[0]


@pytest.mark.parametrize("text, problem", [
    (None, "cannot read"),
    ("tempo = 3\n", "is not a weights file"),
    ("[Base+X]\ntempo = 3\n", "is not a game type"),
    ("[*]\ntempi = 3\n", "'tempi' in [*] is not a weight"),
    ("[*]\ntempo = three\n", "tempo = three in [*] is not a whole number"),
    ("", "has no [*] or game type section"),
])
def test_bad_weights_files_are_named_with_the_problem(tmp_path, text, problem):
    path = tmp_path / "bad.ini"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ValueError, match="bad.ini") as e:
        read_weights_file(path)
    assert problem in str(e.value)


def test_tune_writes_a_weights_file_that_loads(tmp_path):
    results = tune(tmp_path, ["Base"], 6, depth=1, concurrency=2)
    assert len(results) == 1 and results[0].game_type == "Base" and results[0].positions > 0
    sets = read_weights_file(tmp_path / "weights.ini")
    assert np.array_equal(sets["Base"], results[0].weights)
    again = tune(tmp_path, ["Base"], 6, depth=1)  # resumes: no new games, same fit
    assert np.array_equal(again[0].weights, results[0].weights)


def test_a_searcher_uses_the_weights_of_the_board_game_type():
    from hiveai.search.searcher import Searcher
    from hiveai.search.timeman import Limit

    heavy = default_weights()
    heavy[TEMPO] = 500
    by_type = {"*": default_weights(), "Base": heavy}
    for game_type, changed in (("Base", True), ("Base+MLP", False)):
        board = Board(game_type)
        board.play("wG1")
        plain = Searcher(tt_mb=1, weights=default_weights()).search(board, Limit(depth=1)).score
        tuned = Searcher(tt_mb=1, weights=by_type).search(board, Limit(depth=1)).score
        assert (plain != tuned) == changed


def test_the_shipped_weights_file_loads_and_layers_over_the_table():
    from hiveai.evaluation.linear import SHIPPED_WEIGHTS_FILE, builtin_weights

    sets = builtin_weights()
    assert SHIPPED_WEIGHTS_FILE.exists() and "Base+MLP" in sets
    assert np.array_equal(weights_for(sets, "Base+ML"), default_weights())  # no section: the table
