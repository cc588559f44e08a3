"""``hiveai train``: fit a network evaluation (hiveai.evaluation.network) to hiveai's own searches.

Pipeline, every step resumable in one output folder (one run at a time: the
folder is locked with :class:`hiveai.durable.DirectoryLock`):

1. **Self-play** (``games.jsonl``): games of the current engine against
   itself, from book openings and random plies, through
   :func:`hiveai.training.tune.selfplay` (threads or Ray tasks, each finished game
   appended at once).
2. **Labels** (``labels.jsonl``): in each game, every ``sample_every``-th
   position from ply ``MIN_SAMPLE_PLY`` on is searched by the current engine
   (its default evaluation, so generation N's network labels generation N+1's
   data in the game types where it is the default) to a fixed depth; its
   score (side to move's view) is the label, the game's result the second one. One line per game, appended when its positions are
   all searched, so an interruption loses at most the games being labelled.
   Labelling runs through hiveai.backend like self-play.
3. **Fit**: the feature vectors (hiveai.evaluation.features) of the labelled positions,
   training and held-out games split as ``hiveai tune`` splits them
   (:func:`hiveai.training.tune.split_holdout`). Target: the score clipped to
   ``+-scale`` and divided by it (the *squash*), blended with the result
   (+1, 0, -1 for the side to move) by ``result_weight``. Fitted with
   scikit-learn's MLPRegressor (the optional extra ``[train]``); a ridge
   regression of the same features on the same targets is the linear
   baseline. Inputs are standardised for the fit, and the standardisation is
   folded into the first layer, so the exported file reads raw features.
4. **Export**: ``network.hnn`` (hiveai.evaluation.network's format) and ``fit.json``, the
   fit report: variance explained (R²) on the held-out games by the network
   and by the linear model.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from hiveai.rules.board import Board
from hiveai.durable import DirectoryLock, append_line, replace_atomically, trim_partial_line
from hiveai.training.tune import GAMES_FILE, HOLDOUT_EVERY, MIN_SAMPLE_PLY, load_games, selfplay, selfplay_tasks, split_holdout

LABELS_FILE = "labels.jsonl"
NETWORK_FILE = "network.hnn"
REPORT_FILE = "fit.json"

# Defaults. Label depth 4: deeper than the depth-3 self-play the linear weights were
# fitted on, and cheap enough for thousands of positions (about a quarter of a second
# each in Base+MLP on one core: docs/measurements/2026-12-01-network-gen1.md).
LABEL_DEPTH = 4
SAMPLE_EVERY = 3
SCALE = 2000.0  # engine units per network output unit: +-20 queen neighbours, far from a won game
HIDDEN = (16, 8)
# L2 penalty of the network's fit: strong, since a few thousand positions are few for its
# weights (the shapes and penalties compared on the first generation's data:
# docs/measurements/2026-12-01-network-gen1.md).
L2 = 1.0
RESULT_WEIGHT = 0.0
LABEL_TT_MB = 16

_RESULT_WHITE = {"WhiteWins": 1.0, "BlackWins": -1.0, "Draw": 0.0}


@dataclass(frozen=True)
class LabelTask:
    """One game's positions to label (picklable, for Ray)."""

    id: str
    game_type: str
    moves: tuple[str, ...]
    depth: int
    sample_every: int


def sampled_plies(n_moves: int, sample_every: int) -> list[int]:
    """Plies (positions after that many moves) a game of ``n_moves`` contributes.

    >>> sampled_plies(20, 3)
    [8, 11, 14, 17]
    """
    return list(range(MIN_SAMPLE_PLY, n_moves, sample_every))


def label_game(task: LabelTask) -> dict:
    """Search every sampled position of a game; ``{"id", "labels": [[ply, score], ...]}``.

    Positions that are over (or that the search scores as a forced result) are skipped:
    they need no evaluation."""
    from hiveai.player import Engine
    from hiveai.search.score import int_score, is_win_score
    from hiveai.search.timeman import Limit

    engine = Engine(hash_mb=LABEL_TT_MB, threads=1)
    board = Board(task.game_type)
    wanted = set(sampled_plies(len(task.moves), task.sample_every))
    labels = []
    for ply, move in enumerate(task.moves):
        if ply in wanted and not board.is_game_over():
            engine.new_game()  # every position searched from an empty table
            score = int_score(engine.analyse(board, Limit(depth=task.depth)).score)
            if score is not None and not is_win_score(score):
                labels.append([ply, score])
        board.push(move)
    return {"id": task.id, "depth": task.depth, "labels": labels}


def load_labels(path: Path) -> dict[str, dict]:
    """Label records by game id (lines cut short by a kill are ignored)."""
    return {r["id"]: r for r in load_games(path, required=("id", "labels"))}


def label(out: Path, records: list[dict], depth: int, sample_every: int, *, concurrency: int = 1,
          cluster: str | None = None, on_game: Callable[[dict, int, int], None] | None = None) -> dict[str, dict]:
    """Label the games not yet in ``out``/labels.jsonl; returns every label record of ``records``."""
    from hiveai.backend import make_backend

    path = out / LABELS_FILE
    trim_partial_line(path)
    done = {k: v for k, v in load_labels(path).items() if v.get("depth") == depth}
    todo = [LabelTask(r["id"], r["game_type"], tuple(r["moves"]), depth, sample_every)
            for r in records if r["id"] not in done]
    if todo:
        with make_backend(concurrency, cluster) as backend:
            for rec in backend.imap_unordered(label_game, todo):
                append_line(path, json.dumps(rec))
                done[rec["id"]] = rec
                if on_game is not None:
                    on_game(rec, len(done), len(records))
    ids = {r["id"] for r in records}
    return {k: v for k, v in done.items() if k in ids}


@dataclass
class Dataset:
    """Feature vectors with their labels: ``scores`` (side to move's view) and
    ``results`` (+1 won, 0 drawn, -1 lost, for the side to move)."""

    x: np.ndarray
    scores: np.ndarray
    results: np.ndarray

    def __len__(self) -> int:
        return len(self.scores)


def dataset(records: list[dict], labels: dict[str, dict]) -> Dataset:
    """Replay the games and compute the features of each labelled position."""
    from hiveai.evaluation.features import N_FEATURES, features_into, new_scratch

    ws, buf = new_scratch()
    xs, scores, results = [], [], []
    for r in records:
        lab = labels.get(r["id"])
        if not lab or not lab["labels"]:
            continue
        at = dict((int(p), int(s)) for p, s in lab["labels"])
        white = _RESULT_WHITE.get(r["result"], 0.0)
        board = Board(r["game_type"])
        for ply, move in enumerate(r["moves"]):
            if ply in at:
                x = np.zeros(N_FEATURES, dtype=np.float32)
                features_into(board.position_array, ws, buf, x, -1)
                xs.append(x)
                scores.append(at[ply])
                results.append(white if ply % 2 == 0 else -white)
            board.push(move)
    n = len(scores)
    return Dataset(np.array(xs, dtype=np.float32).reshape(n, N_FEATURES), np.array(scores, dtype=np.float64),
                   np.array(results, dtype=np.float64))


def squash(scores: np.ndarray, scale: float = SCALE) -> np.ndarray:
    """Scores clipped to +-scale, in units of scale: the network's output range.

    >>> squash(np.array([-5000, 0, 1000]), 2000).tolist()
    [-1.0, 0.0, 0.5]
    """
    return np.clip(np.asarray(scores, dtype=np.float64) / scale, -1.0, 1.0)


def targets(data: Dataset, scale: float = SCALE, result_weight: float = RESULT_WEIGHT) -> np.ndarray:
    """What the network is fitted to: the squashed score, blended with the result."""
    return (1.0 - result_weight) * squash(data.scores, scale) + result_weight * data.results


@dataclass
class FitReport:
    """How well the network and the linear baseline explain held-out targets."""

    train_positions: int
    holdout_positions: int
    network_r2: float
    linear_r2: float
    network_mse: float
    linear_mse: float
    baseline_mse: float  # predicting the training mean
    seconds: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    """Variance of ``y`` explained by ``pred`` (1 - residual / total)."""
    total = float(np.sum((y - y.mean()) ** 2))
    return 1.0 - float(np.sum((y - pred) ** 2)) / total if total > 0 else float("nan")


def fit(train: Dataset, holdout: Dataset, *, hidden: tuple[int, ...] = HIDDEN, scale: float = SCALE,
        result_weight: float = RESULT_WEIGHT, seed: int = 1, max_iter: int = 300,
        meta: dict | None = None):
    """Fit the network and the linear baseline; returns (Network, FitReport).

    Needs scikit-learn (``pip install 'hiveai[train]'``)."""
    try:
        from sklearn.linear_model import Ridge
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise RuntimeError("hiveai train needs scikit-learn: pip install 'hiveai[train]'") from None
    from hiveai.evaluation.network import Network

    began = time.monotonic()
    if len(train) < 10 or len(holdout) < 2:
        raise ValueError(f"too few labelled positions to fit ({len(train)} for training, "
                         f"{len(holdout)} held out): play or label more games")
    # Standardised inputs, but never divided by less than one count: a feature
    # rare in the training set (a covered queen) must not become a huge input
    # where it does occur, which a ReLU network extrapolates wildly.
    mu = train.x.mean(axis=0)
    sigma = np.maximum(train.x.std(axis=0), 1.0)
    y, y_held = targets(train, scale, result_weight), targets(holdout, scale, result_weight)
    z, z_held = (train.x - mu) / sigma, (holdout.x - mu) / sigma
    linear = Ridge(alpha=1.0).fit(z, y)
    # The network learns what the linear model leaves (a residual fit): on a
    # few thousand positions a plain MLP fitted alone explains less than the
    # linear model does (docs/measurements/2026-12-01-network-gen1.md), and the
    # sum can only add to it.
    mlp = MLPRegressor(hidden_layer_sizes=hidden, activation="relu", solver="adam", alpha=L2,
                       batch_size=min(256, len(train)), learning_rate_init=1e-3, max_iter=max_iter,
                       early_stopping=len(train) >= 100, validation_fraction=0.1, n_iter_no_change=15,
                       random_state=seed)
    mlp.fit(z, y - linear.predict(z))
    weights, biases = _with_linear_skip([w.T.astype(np.float64) for w in mlp.coefs_],
                                        [b.astype(np.float64) for b in mlp.intercepts_],
                                        linear.coef_.astype(np.float64), float(linear.intercept_))
    # Fold the standardisation into the first layer: W (x - mu) / sigma + b.
    biases[0] = biases[0] - weights[0] @ (mu / sigma)
    weights[0] = weights[0] / sigma
    net = Network(weights, biases, scale, meta=dict(meta or {}, hidden=list(hidden), scale=scale,
                                                    result_weight=result_weight))
    pred_net = np.array([net.forward_numpy(x) for x in holdout.x])
    pred_lin = linear.predict(z_held)
    report = FitReport(len(train), len(holdout), r2(y_held, pred_net), r2(y_held, pred_lin),
                       float(np.mean((y_held - pred_net) ** 2)), float(np.mean((y_held - pred_lin) ** 2)),
                       float(np.mean((y_held - y.mean()) ** 2)), time.monotonic() - began)
    return net, report


def _with_linear_skip(weights: list[np.ndarray], biases: list[np.ndarray], coef: np.ndarray,
                      intercept: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A plain MLP computing ``mlp(z) + coef . z + intercept``: two more units per
    hidden layer carry ``relu(l)`` and ``relu(-l)`` of the linear part ``l``
    (whose difference is ``l``), passed on unchanged, and summed at the output.

    >>> w, b = _with_linear_skip([np.ones((2, 3)), np.ones((1, 2))], [np.zeros(2), np.zeros(1)],
    ...                          np.array([1.0, -2.0, 0.5]), 0.25)
    >>> [m.shape for m in w]
    [(4, 3), (1, 4)]
    """
    w_out, b_out = [], []
    last = len(weights) - 1
    for i, (w, b) in enumerate(zip(weights, biases)):
        if i == 0:
            w = np.vstack([w, coef, -coef])
            b = np.concatenate([b, [intercept, -intercept]])
        else:
            n_out, n_in = w.shape
            if i < last:
                grown = np.zeros((n_out + 2, n_in + 2))
                grown[:n_out, :n_in] = w
                grown[n_out, n_in] = grown[n_out + 1, n_in + 1] = 1.0
                w, b = grown, np.concatenate([b, [0.0, 0.0]])
            else:
                w = np.hstack([w, [[1.0, -1.0]]])
        if i == 0 and last == 0:  # no hidden layer: the output takes the linear part directly
            w, b = w[:1] + w[1:2] - w[2:3], b[:1] + b[1:2] - b[2:3]
        w_out.append(w)
        b_out.append(b)
    return w_out, b_out


def train(out: str | Path, game_types: list[str], games: int, *, selfplay_depth: int = 2, label_depth: int = LABEL_DEPTH,
          sample_every: int = SAMPLE_EVERY, random_plies: int = 2, use_book: bool = True, seed: int = 1,
          hidden: tuple[int, ...] = HIDDEN, scale: float = SCALE, result_weight: float = RESULT_WEIGHT,
          concurrency: int = 1, cluster: str | None = None, network_file: str | Path | None = None,
          say: Callable[[str], None] = lambda text: None) -> FitReport:
    """The whole pipeline into ``out`` (resuming what is there); returns the fit report."""
    from hiveai.evaluation.network import write_network

    out = Path(out)
    with DirectoryLock(out):
        began = time.monotonic()
        canonical = [Board(t).game_type_string for t in game_types]
        tasks = selfplay_tasks(canonical, games, seed, selfplay_depth, random_plies, use_book)
        say(f"Self-play: {len(tasks)} games ({games} per game type, depth {selfplay_depth}) in {out}/{GAMES_FILE}")
        records = selfplay(out, tasks, concurrency=concurrency, cluster=cluster, on_game=_progress(say, "games"),
                           locked=True)
        say(f"Labels: positions every {sample_every} plies from ply {MIN_SAMPLE_PLY}, searched to depth "
            f"{label_depth}, in {out}/{LABELS_FILE}")
        label_began = time.monotonic()
        labels = label(out, records, label_depth, sample_every, concurrency=concurrency, cluster=cluster,
                       on_game=_progress(say, "games labelled"))
        n_labels = sum(len(v["labels"]) for v in labels.values())
        say(f"Labels done: {n_labels} positions from {len(labels)} games in {time.monotonic() - label_began:.0f} s")
        # Every HOLDOUT_EVERY-th game held out, as tune does; at least one of a tiny run.
        train_games, held_games = split_holdout(records, max(2, min(HOLDOUT_EVERY, len(records) // 2)))
        say("Features ...")
        train_set, held_set = dataset(train_games, labels), dataset(held_games, labels)
        say(f"Fit: {len(train_set)} training positions ({len(train_games)} games), {len(held_set)} held out "
            f"({len(held_games)} games), hidden layers {hidden}")
        meta = {"game_types": canonical, "games": len(records), "positions": len(train_set) + len(held_set),
                "label_depth": label_depth, "selfplay_depth": selfplay_depth, "seed": seed}
        net, report = fit(train_set, held_set, hidden=hidden, scale=scale, result_weight=result_weight,
                          seed=seed, meta=meta)
        path = Path(network_file) if network_file is not None else out / NETWORK_FILE
        write_network(path, net)
        replace_atomically(out / REPORT_FILE, json.dumps(dict(report.as_dict(), **meta), indent=2) + "\n")
        say(f"Held out: variance explained {report.network_r2:.3f} by the network, {report.linear_r2:.3f} by a "
            f"linear model of the same features (squared error {report.network_mse:.4f} vs {report.linear_mse:.4f}; "
            f"the mean alone {report.baseline_mse:.4f})")
        say(f"Network written to {path}; {time.monotonic() - began:.0f} s in all. "
            f"Load it with: options set EvalFile {path}")
        return report


def _progress(say: Callable[[str], None], what: str) -> Callable[[dict, int, int], None]:
    began = time.monotonic()
    last = [0.0]

    def progress(record: dict, done: int, total: int) -> None:
        if time.monotonic() - last[0] > 5 or done == total:
            last[0] = time.monotonic()
            say(f"  {done}/{total} {what}, {time.monotonic() - began:.0f} s")

    return progress
