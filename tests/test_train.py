"""``hiveai train`` (hiveai.training.train): the pipeline end to end on a tiny run, a fit
whose answer is known, resuming and the folder lock. Needs the [train] extra
(scikit-learn), which CI installs."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sklearn")

from hiveai.training import train as train_module  # noqa: E402
from hiveai.durable import DirectoryLock, LockedError  # noqa: E402
from hiveai.evaluation.features import N_FEATURES  # noqa: E402
from hiveai.evaluation.network import read_network  # noqa: E402
from hiveai.training.train import (  # noqa: E402
    LABELS_FILE,
    NETWORK_FILE,
    REPORT_FILE,
    Dataset,
    fit,
    sampled_plies,
    train,
)
from hiveai.training.tune import GAMES_FILE, load_games  # noqa: E402

TINY = dict(selfplay_depth=1, label_depth=1, sample_every=4, hidden=(8,))


def test_a_tiny_run_end_to_end(tmp_path):
    said = []
    report = train(tmp_path, ["Base"], 4, say=said.append, **TINY)
    games = load_games(tmp_path / GAMES_FILE)
    labels = load_games(tmp_path / LABELS_FILE, required=("id", "labels"))
    assert len(games) == len(labels) == 4
    by_id = {g["id"]: g for g in games}
    for rec in labels:
        plies = [ply for ply, _ in rec["labels"]]
        assert set(plies) <= set(sampled_plies(len(by_id[rec["id"]]["moves"]), 4))
    net = read_network(tmp_path / NETWORK_FILE)
    # 8 hidden units and the two that carry the linear part (train._with_linear_skip).
    assert net.shapes == [(8 + 2, N_FEATURES), (1, 8 + 2)] and net.meta["games"] == 4
    fitted = json.loads((tmp_path / REPORT_FILE).read_text())
    assert fitted["holdout_positions"] == report.holdout_positions > 0
    assert report.train_positions + report.holdout_positions == sum(len(r["labels"]) for r in labels)
    assert any("variance explained" in line for line in said)


@pytest.mark.slow  # half a minute of fitting on this 2-core machine: CI's slow step runs it
def test_the_fit_finds_a_known_nonlinear_answer():
    """Targets a product of two features make: no linear model can explain them, a network can."""
    rng = np.random.default_rng(3)

    def data(n):
        x = np.zeros((n, N_FEATURES), dtype=np.float32)
        x[:, :20] = rng.integers(0, 6, size=(n, 20))
        score = 2000 * np.tanh((x[:, 3] - 2.5) * (x[:, 7] - 2.5) / 6)
        return Dataset(x, score, np.zeros(n))

    net, report = fit(data(1500), data(300), hidden=(16,), max_iter=150)
    assert report.network_mse < 0.2 * report.baseline_mse
    assert report.network_r2 > 0.8 > report.linear_r2
    held = data(50)
    pred = np.array([net.forward_numpy(x) for x in held.x])  # the exported file reads raw features
    assert np.mean((pred - held.scores / 2000) ** 2) < 0.2 * np.var(held.scores / 2000)


def test_an_interrupted_run_resumes_without_losing_a_label(tmp_path, monkeypatch):
    train(tmp_path, ["Base"], 4, **TINY)
    games_before = (tmp_path / GAMES_FILE).read_text()
    lines = (tmp_path / LABELS_FILE).read_text().splitlines(keepends=True)
    # A kill while the third game's labels were being written: two whole lines and a cut one.
    (tmp_path / LABELS_FILE).write_text("".join(lines[:2]) + lines[2][:10])
    labelled = []
    real = train_module.label_game
    monkeypatch.setattr(train_module, "label_game", lambda task: labelled.append(task.id) or real(task))
    train(tmp_path, ["Base"], 4, **TINY)
    assert (tmp_path / GAMES_FILE).read_text() == games_before  # no game played again
    kept = {json.loads(line)["id"] for line in lines[:2]}
    assert len(labelled) == 2 and not kept & set(labelled)  # only the two unlabelled games
    after = load_games(tmp_path / LABELS_FILE, required=("id", "labels"))
    assert sorted(r["id"] for r in after) == sorted(json.loads(line)["id"] for line in lines)
    assert (tmp_path / LABELS_FILE).read_text().startswith("".join(lines[:2]))


def test_one_run_per_folder(tmp_path):
    with DirectoryLock(tmp_path):
        with pytest.raises(LockedError):
            train(tmp_path, ["Base"], 2, **TINY)
    assert not (tmp_path / GAMES_FILE).exists()
