"""``hiveai train`` (hiveai.training.train): the pipeline end to end on tiny runs (a network
and the linear weights), labels from the evaluation of ``--eval-file``, resuming after a kill,
generations and their matches, and a fit whose answer is known. The network's fit needs the
[train] extra (scikit-learn), which CI installs."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from hiveai.cli import main
from hiveai.durable import (
    DirectoryLock, LockedError, append_gzip_lines, read_gzip_lines, read_json_lines, rewrite_gzip_lines,
)
from hiveai.evaluation.features import N_FEATURES
from hiveai.evaluation.linear import WEIGHT_NAMES, read_weights_file
from hiveai.evaluation.network import Network, read_network, write_network
from hiveai.player import Engine
from hiveai.rules.board import Board
from hiveai.search.score import int_score
from hiveai.search.timeman import Limit
from hiveai.training import train as train_module
from hiveai.training.dataset import read_dataset, read_shard, shard_paths, split_holdout
from hiveai.training.train import (
    GENERATIONS_FILE,
    NETWORK_FILE,
    REPORT_FILE,
    WEIGHTS_FILE,
    Dataset,
    features,
    find_generation,
    fit,
    generations_table,
    load_evaluation,
    match_seed,
    network_id,
    read_generations,
    record_match,
    sampled_plies,
    train,
)
from hiveai.training.tune import GAMES_FILE, load_games

TINY = dict(selfplay_depth=1, label_depth=1, sample_every=4, hidden=(8,))
REPO = Path(__file__).resolve().parents[1]
# Labelling names the engine by its git commit (a git process): every test here may start one.
pytestmark = pytest.mark.integration

needs_sklearn = pytest.mark.skipif(not __import__("importlib").util.find_spec("sklearn"),
                                   reason="the network's fit needs scikit-learn (the [train] extra)")


@needs_sklearn
def test_a_tiny_run_end_to_end(tmp_path):
    said = []
    result = train(tmp_path, ["Base"], 4, say=said.append, command="hiveai train --games 4", **TINY)
    report = result.report
    games = load_games(tmp_path / GAMES_FILE)
    labelled, _ = read_dataset([tmp_path / "data"])
    assert len(games) == len(labelled) == 4
    by_id = {g["id"]: g for g in games}
    for g in labelled:
        assert g.moves == by_id[g.game]["moves"] and g.depth == 1 and g.eval == load_evaluation(None).id_for("Base")
        assert {ply for ply, _, _ in g.positions} <= set(sampled_plies(len(g.moves), 4))
        assert all(nodes > 0 for _, _, nodes in g.positions)
    net = read_network(tmp_path / NETWORK_FILE)
    # 8 hidden units and the two that carry the linear part (train._with_linear_skip).
    assert net.shapes == [(8 + 2, N_FEATURES), (1, 8 + 2)] and net.meta["command"] == "hiveai train --games 4"
    fitted = json.loads((tmp_path / REPORT_FILE).read_text())
    assert fitted["holdout_positions"] == report.holdout_positions > 0
    assert report.train_positions + report.holdout_positions == sum(len(g.positions) for g in labelled)
    (gen,) = read_generations(tmp_path / "data")
    assert gen["id"] == network_id(net) and gen["kind"] == "network" and gen["matches"] == []
    assert gen["fit"]["network_r2"] == report.network_r2 and gen["games"] == {"train": 2, "held": 2}
    command = gen["match"]["Base"]["command"]
    assert f"--seed {match_seed(gen['id'])} " in command and f"new:EvalFile={tmp_path / NETWORK_FILE}" in command
    assert command in said[-2] and "variance explained" in " ".join(said)
    # The same command again: nothing played or labelled, the same network, recorded once.
    said.clear()
    again = train(tmp_path, ["Base"], 4, say=said.append, command="hiveai train --games 4", **TINY)
    assert not any(line.startswith(("Self-play", "Labels")) for line in said)
    assert network_id(read_network(tmp_path / NETWORK_FILE)) == gen["id"] == again.generation["id"]
    assert len(read_json_lines(tmp_path / "data" / GENERATIONS_FILE)) == 1


@needs_sklearn
def test_an_interrupted_run_resumes_without_losing_or_repeating_a_label(tmp_path, monkeypatch):
    train(tmp_path, ["Base"], 4, **TINY)
    games_before = (tmp_path / GAMES_FILE).read_text()
    (shard,) = shard_paths(tmp_path / "data")
    kept = [g for _, g in read_shard(shard)]
    # A kill while the third game's labels were being appended: two games whole, a cut member.
    rewrite_gzip_lines(shard, [g.to_json() for g in kept[:2]])
    append_gzip_lines(shard, [kept[2].to_json()])
    shard.write_bytes(shard.read_bytes()[:-15])
    labelled = []
    real = train_module.label_game
    monkeypatch.setattr(train_module, "label_game", lambda task: labelled.append(task.game) or real(task))
    train(tmp_path, ["Base"], 4, **TINY)
    assert (tmp_path / GAMES_FILE).read_text() == games_before  # no game played again
    assert sorted(labelled) == sorted(g.game for g in kept[2:])  # only the two unlabelled games
    after = [g for _, g in read_shard(shard)]
    assert sorted(g.key for g in after) == sorted(g.key for g in kept)  # each once, as labelled before
    assert {g.key: g.positions for g in after} == {g.key: g.positions for g in kept}


def test_eval_file_labels_come_from_that_networks_search(tmp_path):
    """Self-play and labels with a network file: every label is what that network's search
    scores, not the default evaluation's, and the records name the network."""
    rng = np.random.default_rng(5)
    net = Network([rng.normal(scale=0.05, size=(6, N_FEATURES)), rng.normal(scale=0.3, size=(1, 6))],
                  [np.zeros(6), np.zeros(1)], scale=1000.0)
    path = tmp_path / "gen.hnn"
    write_network(path, net)
    store = tmp_path / "data"
    with pytest.raises(ValueError, match="holds no game"):  # --games 0 on an empty dataset: nothing to fit
        train(tmp_path / "out0", ["Base"], 0, data=store, eval_file=path, fit_kind="linear", **TINY)
    train(tmp_path / "out", ["Base"], 2, data=store, eval_file=path, fit_kind="linear",
          **dict(TINY, label_depth=2))
    games, _ = read_dataset([store])
    assert len(games) == 2 and all(g.eval == network_id(net) for g in games)
    # Its match plays the labelling network unless told to play another (--against).
    first = read_generations(store)[-1]["match"]["Base"]
    assert f"old:EvalFile={path} " in first["command"] and first["against"] == network_id(net)
    refit = train(tmp_path / "out2", ["Base"], 0, data=store, eval_file=path, fit_kind="linear",
                  against="default", **dict(TINY, label_depth=2)).generation["match"]["Base"]
    assert "old:EvalFile" not in refit["command"] and refit["against"] == load_evaluation(None).id_for("Base")
    builtin = train(tmp_path / "out4", ["Base"], 0, data=store, eval_file=path, fit_kind="linear",
                    against="<Built-In>", **dict(TINY, label_depth=2)).generation["match"]["Base"]
    assert builtin["against"] == refit["against"]  # EvalFile's name for the default, any case
    assert load_evaluation(" <built-in>") == load_evaluation(None)  # --eval-file takes it too: no file read
    with pytest.raises(ValueError, match=f"'{tmp_path / 'nowhere.ini'}'"):
        train(tmp_path / "out3", ["Base"], 0, data=store, eval_file=path, fit_kind="linear",
              against=tmp_path / "nowhere.ini", **dict(TINY, label_depth=2))
    assert not (tmp_path / "out3").exists()  # refused before anything was fitted
    assert all(g.run.startswith(f"selfplay/{network_id(net)}/d1/") for g in games)
    with_file, default = Engine(hash_mb=16, use_book=False, eval_file=path), Engine(hash_mb=16, use_book=False)
    differ = 0
    for g in games:
        board = Board("Base")
        at = {ply: score for ply, score, _ in g.positions}
        assert at
        for ply, move in enumerate(g.moves):
            if ply in at:
                with_file.new_game()
                assert int_score(with_file.analyse(board, Limit(depth=2)).score) == at[ply]
                default.new_game()
                differ += int_score(default.analyse(board, Limit(depth=2)).score) != at[ply]
            board.push(move)
    assert differ > 0  # the default evaluation would have given other labels


def test_a_linear_fit_writes_weights_headed_by_the_command(tmp_path):
    said = []
    result = train(tmp_path, ["Base"], 6, fit_kind="linear", command="hiveai train --fit linear --games 6",
                   say=said.append, **TINY)
    text = (tmp_path / WEIGHTS_FILE).read_text()
    assert "# [Base]: hiveai train --fit linear --games 6\n" in text
    assert text.index("# [Base]: hiveai train") < text.index("\n[Base]\n")
    sets = read_weights_file(tmp_path / WEIGHTS_FILE)
    (fitted,) = result.linear
    assert np.array_equal(sets["Base"], fitted.weights) and fitted.k > 0
    tempo = WEIGHT_NAMES.index("tempo")  # frozen by default
    assert fitted.weights[tempo] == load_evaluation(None).start_weights()["Base"][tempo] and "tempo" not in fitted.changed
    (gen,) = read_generations(tmp_path / "data")
    assert gen["kind"] == "linear" and gen["fit"]["Base"]["positions"] == fitted.positions
    assert f"new:EvalFile={tmp_path / WEIGHTS_FILE}" in gen["match"]["Base"]["command"]


@needs_sklearn
def test_feature_set_2_refits_the_same_labels_on_set_2s_features(tmp_path, monkeypatch):
    """`hiveai train --games 0 --feature-set 2` fits the dataset's labels as they are: the file is set 2's, its
    metadata names the command, and it is the network `fit` makes of set 2's vectors of the same split."""
    train(tmp_path, ["Base"], 4, feature_set=1, **TINY)
    set1 = read_network(tmp_path / NETWORK_FILE)
    args = ["train", "--game-type", "Base", "--games", "0", "--data", str(tmp_path / "data"), "--label-depth", "1",
            "--hidden", "8", "--feature-set", "2", "--out", str(tmp_path / "set2")]
    monkeypatch.setattr(sys, "argv", ["hiveai", *args])  # what the command records: the line as typed
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Self-play" not in result.output and "Labels" not in result.output and "Features (set 2)" in result.output
    net = read_network(tmp_path / "set2" / NETWORK_FILE)
    assert (net.feature_set, set1.feature_set) == (2, 1) and net.meta["command"] == "hiveai " + shlex.join(args)
    train_games, held_games = split_holdout(read_dataset([tmp_path / "data"])[0], 2)  # 4 games: every 2nd held out
    direct, _ = fit(features(train_games, 2), features(held_games, 2), hidden=(8,), seed=1, feature_set=2)
    assert network_id(direct) == network_id(net) != network_id(set1)
    gen = find_generation(tmp_path / "data", network_id(net))
    assert gen["feature_set"] == 2 and json.loads((tmp_path / "set2" / REPORT_FILE).read_text())["feature_set"] == 2
    assert "feature set 2" in generations_table([gen]) and "feature set" not in generations_table(
        [find_generation(tmp_path / "data", network_id(set1))])


def test_a_feature_set_is_one_this_hiveai_computes_and_only_a_networks(tmp_path):
    with pytest.raises(ValueError, match=r"^feature set 3: this hiveai computes 1, 2$"):
        train(tmp_path, ["Base"], 0, feature_set=3)
    with pytest.raises(ValueError, match="a feature set is chosen for a network's fit"):
        train(tmp_path, ["Base"], 0, fit_kind="linear", feature_set=1)
    result = CliRunner().invoke(main, ["train", "--games", "0", "--feature-set", "0", "--out", str(tmp_path)])
    assert result.exit_code == 1 and "Error: feature set 0: this hiveai computes 1, 2" in result.output
    assert not any(tmp_path.iterdir())  # refused before anything was opened


def _fake_match(folder, seed: int, results: list[str], games: int = 100) -> None:
    """A tournament folder as `hiveai tournament` leaves it: its configuration and game records."""
    folder.mkdir()
    config = {"engines": [{"name": "new"}, {"name": "old"}], "game_type": "Base", "games": games,
              "opening_source": f"4 random plies for each of {games // 2} game pairs (seed {seed})"}
    (folder / "tournament.json").write_text(json.dumps(config))
    lines = []
    for i, result in enumerate(results):
        white, black = ("new", "old") if i % 2 == 0 else ("old", "new")
        lines.append(json.dumps({"id": f"g{i:05d}", "white": white, "black": black, "pairing": ["new", "old"],
                                 "pair": i // 2, "result": result}))
    (folder / "games.jsonl").write_text("".join(line + "\n" for line in lines))


def test_a_generations_match_is_checked_against_its_declaration_and_decides_it(tmp_path):
    store = tmp_path / "data"
    store.mkdir()
    gen = {"event": "fitted", "id": "linear:00000000abcd", "kind": "linear", "game_types": ["Base"],
           "match": {"Base": {"command": "hiveai tournament ...", "keep_rule": "..."}}}
    (store / GENERATIONS_FILE).write_text(json.dumps(gen) + "\n")
    seed = match_seed(gen["id"])
    # new wins every game it plays as White and draws as Black: 75 %.
    _fake_match(tmp_path / "wrong-seed", seed + 1, ["WhiteWins", "Draw"] * 50)
    with pytest.raises(ValueError, match=rf"not the declared match .*not seed {seed}"):
        record_match(store, "linear:0000", tmp_path / "wrong-seed")
    _fake_match(tmp_path / "half", seed, ["WhiteWins", "Draw"] * 20)
    with pytest.raises(ValueError, match="40 of 100 games played"):
        record_match(store, "linear:0000", tmp_path / "half")
    _fake_match(tmp_path / "m", seed, ["WhiteWins", "Draw"] * 50)
    line = record_match(store, "linear:0000", tmp_path / "m")
    assert (line["wins"], line["draws"], line["losses"], line["score"]) == (50, 50, 0, 0.75)
    assert line["kept"] and line["elo95"][0] > 0
    (back,) = read_generations(store)
    assert back["matches"] == [line]
    _fake_match(tmp_path / "lost", seed, ["BlackWins", "WhiteWins"] * 50)  # new loses every game
    assert not record_match(store, "linear:0000", tmp_path / "lost")["kept"]


def test_a_further_match_is_declared_before_it_is_played_and_read_on_its_own_games(tmp_path):
    """`hiveai data declare-match` adds a new trial of a generation (its own seed and game count) to the
    generations file; `record-match` then accepts that match, checked against that declaration, and the
    first declaration's match stays what it was."""
    store = tmp_path / "data"
    store.mkdir()
    gen = {"event": "fitted", "id": "linear:00000000abcd", "kind": "linear", "game_types": ["Base"],
           "match": {"Base": {"command": "hiveai tournament --engine new=hiveai --engine old=hiveai --time 1 "
                                         "--game-type Base --games 100 --random-plies 4 --seed 43981 "
                                         "--concurrency 2 --out gen/match-Base", "keep_rule": "..."}}}
    (store / GENERATIONS_FILE).write_text(json.dumps(gen) + "\n")
    first = match_seed(gen["id"])
    args = ["data", "declare-match", "--data", str(store), "--game-type", "Base", "--games", "150", "--seed"]
    refused = CliRunner().invoke(main, [*args, str(first), "linear:0000"])
    assert refused.exit_code == 1 and f"seed {first} is declared for linear:00000000abcd already" in refused.output
    for wrong, why in ((["--game-type", "Base+MLP"], "declared matches in Base, not Base+MLP"),
                       (["--games", "7"], "7 games: a match plays each opening with both colours")):
        result = CliRunner().invoke(main, [*args, "5", "linear:0000", *wrong])
        assert result.exit_code == 1 and why in result.output
    assert len(read_json_lines(store / GENERATIONS_FILE)) == 1  # nothing written by a refusal
    result = CliRunner().invoke(main, [*args, "5", "linear:0000"])
    assert result.exit_code == 0, result.output
    assert "--games 150 --random-plies 4 --seed 5 --concurrency 2 --out gen/match-Base-seed5" in result.output
    assert "kept if, after all 150 games" in result.output
    (back,) = read_generations(store)
    assert [(d["games"], d["seed"]) for d in back["declared"]] == [(150, 5)] and back["matches"] == []
    again = CliRunner().invoke(main, [*args, "5", "linear:0000"])
    assert again.exit_code == 1 and "seed 5 is declared" in again.output
    # The new trial's folder must have its seed and its game count; the first declaration still holds.
    _fake_match(tmp_path / "short", 5, ["WhiteWins", "Draw"] * 50)
    with pytest.raises(ValueError, match="100 games, not 150"):
        record_match(store, "linear:0000", tmp_path / "short")
    _fake_match(tmp_path / "other", 6, ["WhiteWins", "Draw"] * 75, games=150)
    with pytest.raises(ValueError, match=f"not seed {first} or 5$"):
        record_match(store, "linear:0000", tmp_path / "other")
    _fake_match(tmp_path / "second", 5, ["BlackWins", "WhiteWins"] * 75, games=150)  # new loses every game
    line = record_match(store, "linear:0000", tmp_path / "second")
    assert (line["games"], line["seed"], line["kept"]) == (150, 5, False)
    _fake_match(tmp_path / "first", first, ["WhiteWins", "Draw"] * 50)
    assert record_match(store, "linear:0000", tmp_path / "first")["seed"] == first
    assert [m["seed"] for m in read_generations(store)[0]["matches"]] == [5, first]


def test_one_run_per_folder(tmp_path):
    with DirectoryLock(tmp_path):
        with pytest.raises(LockedError):
            train(tmp_path, ["Base"], 2, **TINY)
    assert not (tmp_path / GAMES_FILE).exists()
    with DirectoryLock(tmp_path / "data"):  # the dataset is locked too: one writer at a time
        with pytest.raises(LockedError):
            train(tmp_path / "other", ["Base"], 2, data=tmp_path / "data", **TINY)


@needs_sklearn
@pytest.mark.slow  # half a minute of fitting on this 2-core machine: CI's slow step runs it
def test_the_fit_finds_a_known_nonlinear_answer():
    """Targets a product of two features make: no linear model can explain them, a network can."""
    from hiveai.training.train import fit

    rng = np.random.default_rng(3)

    def data(n):
        x = np.zeros((n, N_FEATURES), dtype=np.float32)
        x[:, :20] = rng.integers(0, 6, size=(n, 20))
        score = 2000 * np.tanh((x[:, 3] - 2.5) * (x[:, 7] - 2.5) / 6)
        return Dataset(x, score, np.zeros(n))

    net, report = fit(data(1500), data(300), hidden=(16,), max_iter=150, result_weight=0.0)  # scores alone
    assert report.network_mse < 0.2 * report.baseline_mse
    assert report.network_r2 > 0.8 > report.linear_r2
    held = data(50)
    pred = np.array([net.forward_numpy(x) for x in held.x])  # the exported file reads raw features
    assert np.mean((pred - held.scores / 2000) ** 2) < 0.2 * np.var(held.scores / 2000)


@pytest.fixture
def kept_data(tmp_path, monkeypatch) -> Path:
    """A copy of the repository's data/ (without its generations) in ``tmp_path``, the working directory: where
    a command recorded with ``--data data`` runs again without touching the repository."""
    if not (REPO / "data").is_dir():
        pytest.skip("the repository's data/ folder is not here")
    shutil.copytree(REPO / "data", tmp_path / "data", ignore=shutil.ignore_patterns(".lock", GENERATIONS_FILE))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "data"


def test_the_shipped_base_weights_are_what_their_recorded_command_makes_from_the_kept_data(kept_data):
    """hiveai/evaluation/weights.ini names, above [Base], the product command that fitted it; run
    on a copy of the repository's data/ it gives exactly the shipped section (and labels nothing)."""
    from hiveai.evaluation.linear import SHIPPED_WEIGHTS_FILE, builtin_weights

    (command,) = [line[len("# [Base]: "):] for line in SHIPPED_WEIGHTS_FILE.read_text().splitlines()
                  if line.startswith("# [Base]: ")]
    assert command.startswith("hiveai train --fit linear ") and "--data data " in command
    result = CliRunner().invoke(main, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert "Self-play" not in result.output and "Labels" not in result.output
    out = Path(shlex.split(command)[shlex.split(command).index("--out") + 1])
    assert np.array_equal(read_weights_file(out / WEIGHTS_FILE)["Base"], builtin_weights()["Base"])


@needs_sklearn
def test_the_built_in_network_is_what_its_recorded_command_makes_from_the_kept_data(kept_data, tmp_path):
    """The built-in network names in its metadata the product command that fitted it; run on a copy of
    data/ as it was then, with the network that labelled it, that command makes the same layers bit for
    bit and plays and labels nothing. data/generations.jsonl records it with a match that kept it."""
    from hiveai.evaluation.network import shipped_network

    net = shipped_network()
    args = shlex.split(net.meta["command"])
    assert args[:2] == ["hiveai", "train"] and {"--games", "0", "--data", "data"} <= set(args)
    args[args.index("--output") + 1] = str(tmp_path / "refit.hnn")
    generation = find_generation(REPO / "data", network_id(net))
    assert any(m["kept"] and m["game_type"] == "Base+MLP" for m in generation["matches"])
    # The network that labelled the data, by its kept file (the built-in one is the fit, not the labeller).
    kind, digest = generation["labelled_by"]["Base+MLP"].split(":")
    args += ["--eval-file", str(REPO / "data" / "evals" / f"{kind}-{digest}.hnn")]
    # The data as it was then: the games of the engines the generation names (labels added since are left out).
    for shard in shard_paths(kept_data):
        rewrite_gzip_lines(shard, [text for _, text in read_gzip_lines(shard)
                                   if json.loads(text)["engine"] in generation["engines"]])
    result = CliRunner().invoke(main, args[1:])
    assert result.exit_code == 0, result.output
    assert "Self-play" not in result.output and "Labels" not in result.output
    made = read_network(tmp_path / "refit.hnn")
    assert made.feature_set == net.feature_set and made.shapes == net.shapes
    if network_id(made) != network_id(net):
        # Bit for bit where numpy's BLAS runs the kernels of the machine that made it (an AVX-512 one);
        # another processor's kernels (OpenBLAS picks them by CPU) add the fit's sums in another order,
        # and a few hundred epochs carry the last bits apart. The fit is still the same: the same
        # held-out R² for the network and the linear model, and scores a few units apart.
        def held_out_fit(directory: Path, gen_id: str) -> dict:
            fits = find_generation(directory, gen_id)["fit"]
            return fits.get("Base+MLP", fits)

        was, now = held_out_fit(REPO / "data", network_id(net)), held_out_fit(kept_data, network_id(made))
        for r2 in ("network_r2", "linear_r2"):
            assert abs(now[r2] - was[r2]) < 0.002, (r2, now[r2], was[r2])
        games, _ = read_dataset(shard_paths(kept_data))
        _, held = split_holdout([g for g in games if g.game_type == "Base+MLP"])
        x = features(held).x
        assert len(x) > 5000

        def scores(n: Network) -> np.ndarray:
            return np.clip([n.forward_numpy(v) for v in x], -1, 1) * n.scale

        apart = np.abs(scores(made) - scores(net))
        assert apart.mean() < 25, f"held-out scores {apart.mean():.1f} apart on average (of {net.scale:g})"
    # The kept match played this very network: the file its declared command loads is the built-in one.
    declared = shlex.split(generation["match"]["Base+MLP"]["command"])
    (played,) = [a.split("=", 1)[1] for a in declared if a.startswith("new:EvalFile=")]
    assert network_id(read_network(REPO / played)) == network_id(net)
