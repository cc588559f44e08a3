"""``hiveai train``: generations of labelled positions, and the evaluation fitted to them.

Pipeline, every step resumable (one run at a time per folder: the output folder
and the dataset are each locked with :class:`hiveai.durable.DirectoryLock`):

1. **Self-play** (``OUT/games.jsonl``): games of the engine against itself with
   the evaluation being improved (``--eval-file``: a network or weights file;
   default the engine's default evaluation), from book openings and random
   plies, through :func:`hiveai.training.tune.selfplay` (threads or Ray tasks,
   each finished game appended at once). Games the dataset holds labelled
   already (same run, same labeller) are not played again.
2. **Labels** (the dataset, :mod:`hiveai.training.dataset`, default
   ``OUT/data``): in each game every ``sample_every``-th position from ply
   ``MIN_SAMPLE_PLY`` on is searched to a fixed depth by an engine
   (:class:`hiveai.player.Engine`) with the same evaluation (so generation N
   labels generation N+1's data) through one function, :func:`analyse`; the score (side to move's view) is the label, the game's
   result the second one. Each game is appended to the dataset when its
   positions are all searched, so a kill loses at most the games being
   labelled; a game the dataset holds is never labelled twice.
3. **Fit**, on every game of the dataset of these game types labelled by this
   evaluation to this depth (not only this run's: the data grows across runs),
   every 10th game of each run held out (:func:`hiveai.training.dataset.split_holdout`):

   * ``fit="network"`` (default): the feature vectors
     (hiveai.evaluation.features, in ``feature_set``: 2, the shipped network's,
     by default; the file records it) of the labelled positions; target: the score
     clipped to ``+-scale`` and divided by it (the *squash*), blended with the
     result (+1, 0, -1 for the side to move) by ``result_weight``. A ridge
     regression of the same features on the same targets is the linear model;
     scikit-learn's MLPRegressor (the optional extra ``[train]``) fits what it
     leaves; the sum is exported as one plain MLP. Inputs are standardised for
     the fit, and the standardisation is folded into the first layer, so the
     exported file reads raw features.
   * ``fit="linear"``: the linear evaluation's weights of each game type, by
     ``hiveai tune``'s coordinate descent, each labelled position's target its
     score as an expected result, ``1 / (1 + exp(-K score))``, with ``K``
     Texel's constant of the starting weights (those of ``--eval-file``, else
     the shipped ones) on the training games' results, held fixed: the static
     score moves towards the deeper search's on its own scale
     (:func:`hiveai.training.tune.labelled_set`). ``tempo`` is frozen by
     default: at an odd label depth the side to move also has the last move.

4. **Export**: ``OUT/network.hnn`` (hiveai.evaluation.network's format, its
   metadata naming the command) or ``OUT/weights.ini`` (each fitted section
   headed by the command), ``OUT/fit.json`` (the fit report), and one line in
   the dataset's ``generations.jsonl`` (:data:`GENERATIONS_FILE`): the
   generation's data, its held-out fit, and the match that decides whether it
   is kept, declared before it is played; the command prints that match.
   ``hiveai data record-match`` adds the match's result to the same file.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from hiveai.rules.board import Board
from hiveai.durable import DirectoryLock, append_json_line, read_json_lines, replace_atomically
from hiveai.training.dataset import Dataset as LabelStore
from hiveai.training.dataset import LabelledGame, split_holdout
from hiveai.training.tune import GAMES_FILE, MIN_SAMPLE_PLY, FitResult, selfplay, selfplay_tasks

if TYPE_CHECKING:
    from hiveai.player import Engine

DATA_DIR = "data"  # the dataset's default place, inside the output folder
NETWORK_FILE = "network.hnn"
WEIGHTS_FILE = "weights.ini"
REPORT_FILE = "fit.json"
GENERATIONS_FILE = "generations.jsonl"  # in the dataset's directory

# Defaults. Label depth 4: deeper than the depth-3 self-play the linear weights were
# fitted on, and cheap enough for thousands of positions (about a quarter of a second
# each in Base+MLP on one core: docs/measurements/2026-12-01-network-gen1.md).
LABEL_DEPTH = 4
SAMPLE_EVERY = 3
SCALE = 2000.0  # engine units per network output unit: +-20 queen neighbours, far from a won game
# The shipped network's shape and features (kept by its match: docs/network.md):
# two hidden layers of 14 and 6 over feature set 2, the cheaper one (features.FEATURE_SET
# is the id of set 1, the layout it describes, not a default).
HIDDEN = (14, 6)
NETWORK_FEATURE_SET = 2
# L2 penalty of the network's fit: strong, since a few thousand positions are few for its
# weights (the shapes and penalties compared on the first generation's data:
# docs/measurements/2026-12-01-network-gen1.md).
L2 = 1.0
# The game result's share of the target: the depth-4 score misses what happens later in the
# game, the result does not; 0.3 is the shipped network's (its match: docs/network.md).
RESULT_WEIGHT = 0.3
LABEL_TT_MB = 16
FITS = ("network", "linear")
# Weights a linear fit leaves alone unless told otherwise: at an odd label depth the side to
# move also has the search's last move, which inflates tempo (docs/tuning.md).
FROZEN_BY_DEFAULT = ("tempo",)
# The match that decides whether a generation is kept (printed, recorded, played by hand).
MATCH_GAMES = 100
MATCH_TIME = 1.0
MATCH_RANDOM_PLIES = 4
# --against's word for the engine's default evaluation (no file); the engine's own name for it,
# EvalFile's "<built-in>" (hiveai.player.BUILTIN_WEIGHTS), is taken too, by load_evaluation.
AGAINST_DEFAULT = "default"
KEEP_RULE = ("kept if, after all {games} games, the lower end of new's 95 % Elo interval "
             "(games as samples) is above 0; otherwise rejected")

_RESULT_WHITE = {"WhiteWins": 1.0, "BlackWins": -1.0, "Draw": 0.0}


# --- What labels: the evaluation ------------------------------------------------------


def network_id(net) -> str:
    """A network's name by content: ``network:`` and 12 hex digits of the SHA-256 of its
    layers, scale and feature set (its file without the metadata)."""
    from hiveai.evaluation.network import Network

    bare = Network(net.weights, net.biases, net.scale, net.feature_set, {}).to_bytes()
    return "network:" + hashlib.sha256(bare).hexdigest()[:12]


def linear_id(weights: np.ndarray) -> str:
    """A weight vector's name by content: ``linear:`` and 12 hex digits of the SHA-256
    of its little-endian int64 values."""
    return "linear:" + hashlib.sha256(np.asarray(weights, dtype="<i8").tobytes()).hexdigest()[:12]


@dataclass(frozen=True)
class Evaluation:
    """The evaluation that self-plays and labels: the engine's default (the shipped
    network where it is the default, the shipped weights elsewhere), a network
    file's, or a weights file's. Picklable, with the file's content, not its
    path (a Ray worker on another machine has no such file)."""

    name: str = "<built-in>"  # the file it came from, for people
    network: bytes | None = None
    weights: tuple[tuple[str, tuple[int, ...]], ...] | None = None  # by game type, "*" too

    @property
    def path(self) -> str | None:
        """The file it was read from (None: the default)."""
        return None if self.network is None and self.weights is None else self.name

    def weight_sets(self) -> dict[str, np.ndarray] | None:
        return None if self.weights is None else {k: np.array(v, dtype=np.int64) for k, v in self.weights}

    def parsed_network(self):
        from hiveai.training.tune import network_of

        return network_of(self.network)

    def engine(self, tt_mb: int) -> Engine:
        """A fresh one-thread engine with a ``tt_mb`` MB table and this evaluation, no book."""
        from hiveai.player import Engine

        engine = Engine(hash_mb=tt_mb, threads=1, use_book=False)
        engine.set_evaluation(weights=self.weight_sets(), network=self.parsed_network())
        return engine

    def id_for(self, game_type: str) -> str:
        """What evaluates a ``game_type`` game, by content (see :mod:`hiveai.training.dataset`)."""
        from hiveai.evaluation.linear import weights_for, weights_from_env
        from hiveai.evaluation.network import default_network

        if self.network is not None:
            return network_id(self.parsed_network())
        if self.weights is not None:
            return linear_id(weights_for(self.weight_sets(), game_type))
        net = default_network(game_type)
        return network_id(net) if net is not None else linear_id(weights_for(weights_from_env(), game_type))

    def start_weights(self) -> dict[str, np.ndarray]:
        """The weights a linear fit starts from: this file's, else the shipped ones."""
        from hiveai.evaluation.linear import weights_from_env

        return self.weight_sets() or weights_from_env()


EVALS_DIR = "evals"  # in the dataset's directory: every evaluation that labelled it, by id


def keep_evaluation(directory: Path, evaluation: Evaluation, game_type: str) -> Path:
    """Save the evaluation that labels ``game_type`` in the dataset, as ``evals/<id>.hnn`` (a
    network file) or ``evals/<id>.ini`` (a weights file whose ``[*]`` holds exactly those
    weights), unless it is there: so the labeller of every record can be loaded again
    (``--eval-file``) after the shipped evaluation has moved on. Returns its path."""
    from hiveai.evaluation.linear import weights_for, weights_from_env, write_weights_file
    from hiveai.evaluation.network import SHIPPED_NETWORK

    eval_id = evaluation.id_for(game_type)
    kind, digest = eval_id.split(":")
    path = directory / EVALS_DIR / f"{kind}-{digest}.{'hnn' if kind == 'network' else 'ini'}"
    if path.exists():
        return path
    if kind == "network":
        from importlib.resources import files

        from hiveai.durable import replace_atomically_bytes

        # A network that is not the file's is the default: the shipped one.
        data = evaluation.network or files("hiveai.evaluation").joinpath(SHIPPED_NETWORK).read_bytes()
        replace_atomically_bytes(path, data)
    else:
        weights = weights_for(evaluation.weight_sets() or weights_from_env(), game_type)
        write_weights_file(path, {"*": weights}, f"The weights {eval_id}: they labelled the dataset's records "
                           "that name them.\nLoad with --eval-file or the UHP option EvalFile.")
    return path


def load_evaluation(path: str | Path | None) -> Evaluation:
    """The evaluation of ``path`` (a network file or a weights file, told apart as EvalFile
    tells them), or the default for None or EvalFile's ``<built-in>``; ValueError naming the
    file and the problem."""
    from hiveai.evaluation.linear import read_weights_file
    from hiveai.evaluation.network import is_network_file, read_network
    from hiveai.player import names_builtin

    if path is None or names_builtin(path):
        return Evaluation()
    if is_network_file(path):
        read_network(path)  # refuses a malformed file here, not in every worker
        return Evaluation(str(path), network=Path(path).read_bytes())
    sets = read_weights_file(path)
    return Evaluation(str(path), weights=tuple((k, tuple(int(x) for x in v)) for k, v in sorted(sets.items())))


@functools.cache
def engine_id() -> str:
    """The program that labels: ``hiveai VERSION``, with the git commit (``-dirty`` if
    changed) when it runs from a checkout of its repository."""
    from hiveai import __version__

    text = f"hiveai {__version__}"
    root = Path(__file__).resolve().parents[2]
    if (root / ".git").exists():
        try:
            out = subprocess.run(["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=7"],
                                 capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                text += f" ({out.stdout.strip()})"
        except (OSError, subprocess.SubprocessError):
            pass
    return text


# --- Labels ---------------------------------------------------------------------------


def analyse(engine: Engine, board: Board, depth: int) -> tuple[int | None, int]:
    """(score for the side to move, nodes) of ``engine``'s full-strength search of
    ``board`` to ``depth`` plies with an empty table: the one place labelling searches."""
    from hiveai.search.score import int_score
    from hiveai.search.timeman import Limit

    engine.new_game()  # every position searched from an empty table
    result = engine.analyse(board, Limit(depth=depth))
    return int_score(result.score), result.nodes


@dataclass(frozen=True)
class LabelTask:
    """One game's positions to label (picklable, for Ray)."""

    run: str
    game: str
    game_type: str
    moves: tuple[str, ...]
    result: str
    depth: int
    sample_every: int
    evaluation: Evaluation = Evaluation()


def sampled_plies(n_moves: int, sample_every: int) -> list[int]:
    """Plies (positions after that many moves) a game of ``n_moves`` contributes.

    >>> sampled_plies(20, 3)
    [8, 11, 14, 17]
    """
    return list(range(MIN_SAMPLE_PLY, n_moves, sample_every))


def label_game(task: LabelTask) -> LabelledGame:
    """Search every sampled position of a game: the game as the dataset keeps it.

    Positions that are over (or that the search scores as a forced result) are
    left out: they need no evaluation."""
    from hiveai.search.score import is_win_score

    engine = task.evaluation.engine(LABEL_TT_MB)
    board = Board(task.game_type)
    wanted = set(sampled_plies(len(task.moves), task.sample_every))
    positions = []
    for ply, move in enumerate(task.moves):
        if ply in wanted and not board.is_game_over():
            score, nodes = analyse(engine, board, task.depth)
            if score is not None and not is_win_score(score):
                positions.append((ply, int(score), int(nodes)))
        board.push(move)
    return LabelledGame(task.game_type, list(task.moves), task.result, task.run, task.game, engine_id(),
                        task.evaluation.id_for(task.game_type), task.depth, positions)


def label(store: LabelStore, tasks: list[LabelTask], *, concurrency: int = 1, cluster: str | None = None,
          on_game: Callable[[LabelledGame, int, int], None] | None = None) -> int:
    """Label the tasks' games that ``store`` lacks, adding each to it as it is done;
    returns how many were added."""
    from hiveai.backend import make_backend

    done = {(g.run, g.game, g.eval, g.depth) for g in store.games}
    todo = [t for t in tasks if (t.run, t.game, t.evaluation.id_for(t.game_type), t.depth) not in done]
    added = 0
    if todo:
        with make_backend(concurrency, cluster) as backend:
            for game in backend.imap_unordered(label_game, todo):
                added += store.add(game)
                if on_game is not None:
                    on_game(game, len(tasks) - len(todo) + added, len(tasks))
    return added


def selfplay_run(evaluation_id: str, depth: int, random_plies: int, use_book: bool, seed: int) -> str:
    """The ``run`` of the dataset's records: what decides a self-play run's games.

    >>> selfplay_run("linear:0123456789ab", 3, 4, True, 11)
    'selfplay/linear:0123456789ab/d3/r4/book/s11'
    """
    return f"selfplay/{evaluation_id}/d{depth}/r{random_plies}/{'book' if use_book else 'no-book'}/s{seed}"


# --- The network's fit ------------------------------------------------------------------


@dataclass
class Dataset:
    """Feature vectors with their labels: ``scores`` (side to move's view) and
    ``results`` (+1 won, 0 drawn, -1 lost, for the side to move)."""

    x: np.ndarray
    scores: np.ndarray
    results: np.ndarray

    def __len__(self) -> int:
        return len(self.scores)


def features(games: list[LabelledGame], feature_set: int = NETWORK_FEATURE_SET) -> Dataset:
    """Replay the games and compute the features of each labelled position
    (in ``feature_set``, :data:`NETWORK_FEATURE_SET` by default)."""
    from hiveai.evaluation.features import N_FEATURES, features_of_set_into, new_scratch

    ws, buf = new_scratch()
    xs, scores, results = [], [], []
    for g in games:
        if not g.positions:
            continue
        at = {ply: score for ply, score, _ in g.positions}
        white = _RESULT_WHITE[g.result]
        board = Board(g.game_type)
        for ply in range(len(g.moves) + 1):
            if ply in at:
                x = np.zeros(N_FEATURES, dtype=np.float32)
                features_of_set_into(board.position_array, ws, buf, x, -1, feature_set)
                xs.append(x)
                scores.append(at[ply])
                results.append(white if ply % 2 == 0 else -white)
            if ply < len(g.moves):
                board.push(g.moves[ply])
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
        meta: dict | None = None, feature_set: int = NETWORK_FEATURE_SET):
    """Fit the network and the linear baseline; returns (Network, FitReport).
    ``feature_set``: the set the datasets' features are in (the file records
    it; :data:`NETWORK_FEATURE_SET` by default).

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
                                                    result_weight=result_weight),
                  feature_set=feature_set)
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


# --- The linear evaluation's fit ---------------------------------------------------------


def as_records(games: list[LabelledGame]) -> list[dict]:
    """The games as :mod:`hiveai.training.tune` reads them, with their labels."""
    return [{"id": f"{g.run}/{g.game}", "game_type": g.game_type, "moves": g.moves, "result": g.result,
             "labels": [[ply, score] for ply, score, _ in g.positions]} for g in games]


def fit_linear(train_games: list[LabelledGame], held_games: list[LabelledGame], game_type: str,
               start: np.ndarray, frozen: tuple[str, ...] = FROZEN_BY_DEFAULT,
               on_step: Callable[[str, int, float], None] | None = None) -> FitResult:
    """Fit ``game_type``'s linear weights from ``start`` to the labels (see the module docstring)."""
    from hiveai.evaluation.linear import WEIGHT_NAMES
    from hiveai.training.tune import fit as texel_fit
    from hiveai.training.tune import fit_k, labelled_set, training_set, white_scores

    unknown = sorted(set(frozen) - set(WEIGHT_NAMES))
    if unknown:
        raise ValueError(f"unknown weight {', '.join(unknown)} to freeze; the weights are {', '.join(WEIGHT_NAMES)}")
    train_records, held_records = as_records(train_games), as_records(held_games)
    # Texel's K of the starting weights on the training games' results (all their positions).
    by_result = training_set(train_records, game_type)
    if by_result.positions == 0:
        raise ValueError(f"no training positions for {game_type}: label more games")
    k = fit_k(white_scores(by_result, start), by_result.results)
    data = labelled_set(train_records, game_type, k)
    holdout = labelled_set(held_records, game_type, k)
    return texel_fit(data, start, holdout=holdout, names=[n for n in WEIGHT_NAMES if n not in frozen], k=k,
                     on_step=on_step)


# --- Generations ------------------------------------------------------------------------------


def match_seed(generation_id: str) -> int:
    """The openings' seed of a generation's match: from its id, so each generation plays openings
    of its own, and the seed is known before the match.

    >>> match_seed("network:00000000002a")
    42
    """
    return int(generation_id.split(":")[-1], 16) % 1_000_000


def match_dir(out: Path, generation_id: str, game_type: str) -> Path:
    """Where a generation's match in ``game_type`` is played: a folder of ``out`` named by both, so
    that two generations fitted in the same ``--out`` (a run resumed with more games, say) do not
    share one.

    >>> match_dir(Path("gen"), "network:00000000002a", "Base").as_posix()
    'gen/match-Base-00000000002a'
    """
    return out / f"match-{game_type}-{generation_id.split(':')[-1]}"


def match_command(generation_id: str, new_file: Path, against: Evaluation, game_type: str, out: Path) -> str:
    """The match that decides whether a generation is kept in ``game_type``: the new
    evaluation against ``against`` (by default the one that labelled its data; see
    :func:`train`), which is the engine's default when it has no file.

    >>> print(match_command("network:00000000002a", Path("new.hnn"), Evaluation(), "Base", Path("gen")))
    ... # doctest: +NORMALIZE_WHITESPACE
    hiveai tournament --engine new=hiveai --engine old=hiveai --option new:EvalFile=new.hnn --time 1
    --game-type Base --games 100 --random-plies 4 --seed 42 --concurrency 2 --out gen/match-Base-00000000002a
    """
    old = f" --option old:EvalFile={against.path}" if against.path is not None else ""
    return (f"hiveai tournament --engine new=hiveai --engine old=hiveai --option new:EvalFile={new_file}{old} "
            f"--time {MATCH_TIME:g} --game-type {game_type} --games {MATCH_GAMES} --random-plies {MATCH_RANDOM_PLIES} "
            f"--seed {match_seed(generation_id)} --concurrency 2 --out {match_dir(out, generation_id, game_type)}")


def read_generations(directory: str | Path) -> list[dict]:
    """The generations of a dataset (:data:`GENERATIONS_FILE`), each with its further declared
    matches (``"declared"``: the ``declare-match`` lines) and the matches played (``"matches"``: the
    ``record-match`` lines), oldest first."""
    gens: dict[str, dict] = {}
    for no, rec in read_json_lines(Path(directory) / GENERATIONS_FILE):
        if not isinstance(rec, dict) or rec.get("event") not in ("fitted", "declared", "match") or "id" not in rec:
            raise ValueError(f"{Path(directory) / GENERATIONS_FILE}:{no}: not a generation, declaration or match line")
        if rec["event"] == "fitted":
            gens.setdefault(rec["id"], dict(rec, declared=[], matches=[]))
        elif rec["id"] in gens:
            gens[rec["id"]]["declared" if rec["event"] == "declared" else "matches"].append(rec)
        else:
            raise ValueError(f"{Path(directory) / GENERATIONS_FILE}:{no}: a match of {rec['id']}, "
                             "which has no line before it")
    return list(gens.values())


def find_generation(directory: str | Path, prefix: str) -> dict:
    """The generation whose id is or starts with ``prefix``; ValueError if none or several."""
    gens = [g for g in read_generations(directory) if g["id"] == prefix or g["id"].startswith(prefix)]
    if len(gens) != 1:
        raise ValueError(f"{len(gens)} generations in {Path(directory) / GENERATIONS_FILE} match {prefix!r}")
    return gens[0]


def _declarations(gen: dict) -> list[dict]:
    """Every match declared for a generation, as ``game_type``, ``games``, ``seed`` and ``command``:
    per game type the one ``hiveai train`` declared with it (:data:`MATCH_GAMES` games, its id's
    seed), then those :func:`declare_match` added, in order."""
    first = [{"game_type": t, "games": MATCH_GAMES, "seed": match_seed(gen["id"]), "command": m["command"]}
             for t, m in gen["match"].items()]
    return first + gen["declared"]


def declare_match(directory: str | Path, prefix: str, game_type: str, games: int, seed: int) -> dict:
    """Declare a further match of a generation before it is played: a new trial with openings of its
    own (``seed``) and ``games`` games, its result read on its own games and decided by the same rule.
    Appends the declaration to the generations file and returns it; :func:`record_match` then accepts
    that match too. A second trial of the same generation makes a false acceptance more likely: say so
    where the result is reported."""
    import re

    gen = find_generation(directory, prefix)
    if game_type not in gen["match"]:
        raise ValueError(f"generation {gen['id']} declared matches in {', '.join(gen['match'])}, not {game_type}")
    if games < 2 or games % 2:
        raise ValueError(f"{games} games: a match plays each opening with both colours, so an even number")
    if seed in {d["seed"] for d in _declarations(gen)}:
        raise ValueError(f"seed {seed} is declared for {gen['id']} already: a new trial needs openings of its own")
    command = gen["match"][game_type]["command"]
    for option, value in (("games", games), ("seed", seed)):
        command = re.sub(rf"--{option} \d+", f"--{option} {value}", command)
    command = re.sub(r"(--out \S+)", rf"\1-seed{seed}", command)
    line = {"event": "declared", "id": gen["id"], "game_type": game_type, "games": games, "seed": seed,
            "command": command, "keep_rule": KEEP_RULE.format(games=games), "declared": _now()}
    append_json_line(Path(directory) / GENERATIONS_FILE, line)
    return line


def record_match(directory: str | Path, prefix: str, tournament_dir: str | Path) -> dict:
    """Add a finished match's result to a generation, checked against one of its declarations (the
    match ``hiveai train`` declared, or one :func:`declare_match` added: game type, games, seed, the
    engines new and old); returns the line added."""
    from hiveai.tournament.layout import CONFIG_FILE
    from hiveai.tournament.layout import GAMES_FILE as MATCH_GAMES_FILE
    from hiveai.tournament.standings import tallies

    gen = find_generation(directory, prefix)
    tdir = Path(tournament_dir)
    try:
        config = json.loads((tdir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{tdir / CONFIG_FILE}: not a tournament's configuration ({e})") from None
    game_type = config.get("game_type")
    choices = [d for d in _declarations(gen) if d["game_type"] == game_type]
    if not choices:
        raise ValueError(f"the tournament is in {game_type}; generation {gen['id']} declared matches in "
                         f"{', '.join(gen['match'])}")
    source = config.get("opening_source", "")
    chosen = [d for d in choices if f"(seed {d['seed']})" in source]
    declared = (chosen or choices)[0]
    games, seed = declared["games"], declared["seed"]
    names = sorted(e["name"] for e in config.get("engines", []))
    problems = []
    if names != ["new", "old"]:
        problems.append(f"engines {names}, not new and old")
    if config.get("games") != games:
        problems.append(f"{config.get('games')} games, not {games}")
    if not chosen:
        problems.append(f"openings {source!r}, not seed {' or '.join(str(d['seed']) for d in choices)}")
    if problems:
        raise ValueError(f"{tdir} is not the declared match ({declared['command']}): {'; '.join(problems)}")
    records = [r for _, r in read_json_lines(tdir / MATCH_GAMES_FILE)]
    if len(records) < games:
        raise ValueError(f"{tdir}: {len(records)} of {games} games played; record the match when it has "
                         "finished (resume it with --resume)")
    engines, _ = tallies(records, ["new", "old"])
    t = engines["new"]
    e, pairs = t.elo(), t.pair_elo()
    line = {"event": "match", "id": gen["id"], "game_type": game_type, "games": t.games, "wins": t.wins,
            "draws": t.draws, "losses": t.losses, "score": round(e.score, 4), "elo": round(e.elo, 1),
            "elo95": [round(e.lower, 1), round(e.upper, 1)], "pairs": t.pentanomial,
            "pair_elo95": [round(pairs.lower, 1), round(pairs.upper, 1)], "kept": bool(e.lower > 0),
            "seed": seed, "recorded": _now()}
    append_json_line(Path(directory) / GENERATIONS_FILE, line)
    return line


def generations_table(gens: list[dict]) -> str:
    """The generations as a Markdown table (the docs' record is made from the file)."""
    rows = ["| generation | fit | game types | labelled by, depth | games | positions (held out) | held-out fit | "
            "match | kept |", "|---|---|---|---|---|---|---|---|---|"]
    for g in gens:
        if g["kind"] == "network":
            fit = f"R² {g['fit']['network_r2']:.3f} (linear model {g['fit']['linear_r2']:.3f})"
            if g.get("feature_set", 1) != 1:  # a line that names none is set 1's
                fit += f", feature set {g['feature_set']}"
        else:
            fit = "; ".join(f"{gt}: error {f['holdout_before']:.5f} → {f['holdout_after']:.5f}"
                            for gt, f in g["fit"].items())
        matches = "; ".join(f"{m['game_type']}: {100 * m['score']:.1f} %, {m['elo']:+.1f} "
                            f"[{m['elo95'][0]:+.1f}, {m['elo95'][1]:+.1f}] over {m['games']}" for m in g["matches"])
        kept = ", ".join(f"{m['game_type']} {'yes' if m['kept'] else 'no'}" for m in g["matches"]) or "not played"
        labellers = ", ".join(sorted(set(g["labelled_by"].values())))
        rows.append(f"| `{g['id']}` | {g['kind']} | {', '.join(g['game_types'])} | {labellers}, {g['label_depth']} | "
                    f"{g['games']['train'] + g['games']['held']} | {g['positions']['train'] + g['positions']['held']:,} "
                    f"({g['positions']['held']:,}) | {fit} | {matches or '-'} | {kept} |")
    return "\n".join(rows)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- The whole pipeline -------------------------------------------------------------------------


@dataclass
class TrainResult:
    """What :func:`train` made: the generation's line (as in generations.jsonl), the file written,
    and the fit's report (the network's) or results (the linear fit's, one per game type)."""

    generation: dict
    path: Path
    report: FitReport | None = None
    linear: list[FitResult] = field(default_factory=list)


def train(out: str | Path, game_types: list[str], games: int, *, data: str | Path | None = None,
          eval_file: str | Path | None = None, fit_kind: str = "network", selfplay_depth: int = 2,
          label_depth: int = LABEL_DEPTH, sample_every: int = SAMPLE_EVERY, random_plies: int = 2,
          use_book: bool = True, seed: int = 1, hidden: tuple[int, ...] = HIDDEN, scale: float = SCALE,
          result_weight: float = RESULT_WEIGHT, frozen: tuple[str, ...] = FROZEN_BY_DEFAULT,
          feature_set: int | None = None, concurrency: int = 1, cluster: str | None = None,
          output_file: str | Path | None = None, against: str | Path | None = None, command: str = "",
          say: Callable[[str], None] = lambda text: None) -> TrainResult:
    """The whole pipeline into ``out`` and the dataset ``data`` (default ``out/data``),
    resuming what is there; ``games`` new self-play games per game type (0: fit on the
    dataset only). ``feature_set``: the features a network is fitted on (None:
    :data:`NETWORK_FEATURE_SET`; a linear fit has its own and takes none).
    ``against``: what the declared match plays the new evaluation against: None for the
    evaluation that labelled the data, :data:`AGAINST_DEFAULT` (or ``<built-in>``) for the engine's default
    evaluation (a refit of older labels then plays what it would replace), or a network
    or weights file. ``command``: the command line, recorded with what it makes."""
    from hiveai.evaluation.features import FEATURE_SETS

    if fit_kind not in FITS:
        raise ValueError(f"unknown fit {fit_kind!r}: {' or '.join(FITS)}")
    if feature_set is not None and fit_kind != "network":
        raise ValueError("a feature set is chosen for a network's fit; the linear weights have terms of their own")
    feature_set = NETWORK_FEATURE_SET if feature_set is None else feature_set
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"feature set {feature_set}: this hiveai computes {', '.join(map(str, FEATURE_SETS))}")
    out = Path(out)
    data_dir = Path(data) if data is not None else out / DATA_DIR
    if data_dir.resolve() == out.resolve():
        raise ValueError("the dataset needs a folder of its own, not the output folder")
    evaluation = load_evaluation(eval_file)
    if against is None:
        opponent = evaluation
    else:
        opponent = Evaluation() if str(against).strip().lower() == AGAINST_DEFAULT else load_evaluation(against)
    with DirectoryLock(out), LabelStore.open(data_dir) as store:
        return _train(out, store, [Board(t).game_type_string for t in game_types], games, evaluation, fit_kind,
                      selfplay_depth, label_depth, sample_every, random_plies, use_book, seed, hidden, scale,
                      result_weight, frozen, feature_set, concurrency, cluster, output_file, opponent, command, say)


def _train(out: Path, store: LabelStore, canonical: list[str], games: int, evaluation: Evaluation, fit_kind: str,
           selfplay_depth: int, label_depth: int, sample_every: int, random_plies: int, use_book: bool, seed: int,
           hidden: tuple[int, ...], scale: float, result_weight: float, frozen: tuple[str, ...], feature_set: int,
           concurrency: int, cluster: str | None, output_file: str | Path | None, opponent: Evaluation,
           command: str, say: Callable[[str], None]) -> TrainResult:
    from hiveai.evaluation.linear import weights_for

    began = time.monotonic()
    ids = {t: evaluation.id_for(t) for t in canonical}
    say(f"Evaluation: {evaluation.name} ({', '.join(f'{t}: {i}' for t, i in ids.items())}); "
        f"dataset {store.directory} ({len(store.games)} games)")
    for t in canonical:
        keep_evaluation(store.directory, evaluation, t)
    # 1. Self-play, but not the games the dataset holds labelled already.
    labelled = {(g.run, g.game) for g in store.games if g.depth == label_depth and g.eval == ids.get(g.game_type)}
    runs = {t: selfplay_run(ids[t], selfplay_depth, random_plies, use_book, seed) for t in canonical}
    tasks = []
    weights = evaluation.weight_sets()
    for t in canonical:
        tasks += [task for task in selfplay_tasks([t], games, seed, selfplay_depth, random_plies, use_book,
                                                  None if weights is None else weights_for(weights, t),
                                                  evaluation.network)
                  if (runs[t], task.id) not in labelled]
    if tasks:
        say(f"Self-play: {len(tasks)} games to play or resume (of {games} per game type, depth {selfplay_depth}) "
            f"in {out}/{GAMES_FILE}")
        records = selfplay(out, tasks, concurrency=concurrency, cluster=cluster, on_game=_progress(say, "games"),
                           locked=True)
        # 2. Labels.
        say(f"Labels: positions every {sample_every} plies from ply {MIN_SAMPLE_PLY}, searched to depth "
            f"{label_depth}, into {store.directory}")
        label_began = time.monotonic()
        label_tasks = [LabelTask(runs[r["game_type"]], r["id"], r["game_type"], tuple(r["moves"]),
                                 r["result"] if r["result"] in _RESULT_WHITE else "Draw", label_depth, sample_every,
                                 evaluation) for r in records]
        before = sum(len(g.positions) for g in store.games)
        added = label(store, label_tasks, concurrency=concurrency, cluster=cluster,
                      on_game=_progress(say, "games labelled"))
        store.compact()
        n_new = sum(len(g.positions) for g in store.games) - before
        say(f"Labels done: {n_new} positions from {added} games in {time.monotonic() - label_began:.0f} s")
    # 3. The fit, on every game of the dataset that this evaluation labelled to this depth.
    chosen = [g for g in store.games if g.game_type in ids and g.eval == ids[g.game_type] and g.depth == label_depth]
    if not chosen:
        raise ValueError(f"the dataset {store.directory} holds no game of {', '.join(canonical)} labelled by "
                         f"{evaluation.name} to depth {label_depth}: play and label some (--games)")
    every = max(2, min(10, len(chosen) // 2))  # at least one game held out of a tiny run
    train_games, held_games = split_holdout(chosen, every)
    meta = {"game_types": canonical, "labelled_by": ids, "label_depth": label_depth,
            "games": {"train": len(train_games), "held": len(held_games)},
            "positions": {"train": sum(len(g.positions) for g in train_games),
                          "held": sum(len(g.positions) for g in held_games)},
            "engines": sorted({g.engine for g in chosen}), "command": command}
    if fit_kind == "network":
        result = _fit_network(out, train_games, held_games, meta, hidden, scale, result_weight, seed, feature_set,
                              output_file, say)
    else:
        result = _fit_weights(out, train_games, held_games, meta, evaluation, frozen, output_file, say)
    # 4. The generation, and the match that decides it, declared now.
    gen = result.generation
    gen["match"] = {t: {"command": match_command(gen["id"], result.path, opponent, t, out),
                        "against": opponent.id_for(t), "keep_rule": KEEP_RULE.format(games=MATCH_GAMES)}
                    for t in canonical}
    known = {g["id"] for g in read_generations(store.directory)}
    if gen["id"] in known:  # the same fit of the same data again (a rerun): recorded once
        say(f"Generation {gen['id']} is in {store.directory / GENERATIONS_FILE} already (the same fit again).")
    else:
        append_json_line(store.directory / GENERATIONS_FILE, gen)
    say(f"Generation {gen['id']} recorded in {store.directory / GENERATIONS_FILE}; {time.monotonic() - began:.0f} s "
        "in all. It is kept only by the match declared there, on a quiet machine:")
    for t in canonical:
        say(f"  {gen['match'][t]['command']}")
    say(f"  ({gen['match'][canonical[0]]['keep_rule']}); then: hiveai data record-match --data {store.directory} "
        f"{gen['id']} {match_dir(out, gen['id'], canonical[0])}")
    return result


def _fit_network(out: Path, train_games: list[LabelledGame], held_games: list[LabelledGame], meta: dict,
                 hidden: tuple[int, ...], scale: float, result_weight: float, seed: int, feature_set: int,
                 output_file: str | Path | None, say: Callable[[str], None]) -> TrainResult:
    from hiveai.evaluation.network import write_network

    say(f"Features (set {feature_set}) ...")
    train_set, held_set = features(train_games, feature_set), features(held_games, feature_set)
    say(f"Fit: {len(train_set)} training positions ({len(train_games)} games), {len(held_set)} held out "
        f"({len(held_games)} games), hidden layers {hidden}")
    net, report = fit(train_set, held_set, hidden=hidden, scale=scale, result_weight=result_weight, seed=seed,
                      meta=dict(meta, seed=seed), feature_set=feature_set)
    path = Path(output_file) if output_file is not None else out / NETWORK_FILE
    write_network(path, net)
    replace_atomically(out / REPORT_FILE, json.dumps(dict(report.as_dict(), **meta, feature_set=feature_set),
                                                     indent=2) + "\n")
    say(f"Held out: variance explained {report.network_r2:.3f} by the network, {report.linear_r2:.3f} by a "
        f"linear model of the same features (squared error {report.network_mse:.4f} vs {report.linear_mse:.4f}; "
        f"the mean alone {report.baseline_mse:.4f})")
    say(f"Network written to {path}. Load it with: options set EvalFile {path}")
    fitted = {k: v for k, v in report.as_dict().items() if k != "seconds"}
    gen = dict({"event": "fitted", "id": network_id(net), "kind": "network", "made": _now()}, **meta,
               fit=fitted, hidden=list(hidden), feature_set=feature_set)
    return TrainResult(gen, path, report=report)


def _fit_weights(out: Path, train_games: list[LabelledGame], held_games: list[LabelledGame], meta: dict,
                 evaluation: Evaluation, frozen: tuple[str, ...], output_file: str | Path | None,
                 say: Callable[[str], None]) -> TrainResult:
    from hiveai.evaluation.linear import weights_for, write_weights_file

    start = evaluation.start_weights()
    sets = dict(start)
    results, notes, fits = [], {}, {}
    for t in meta["game_types"]:
        tr = [g for g in train_games if g.game_type == t]
        he = [g for g in held_games if g.game_type == t]
        began = time.monotonic()
        r = fit_linear(tr, he, t, weights_for(start, t), frozen)
        r.game_type = t
        results.append(r)
        sets[t] = r.weights
        say(f"[{t}] {r.positions} labelled training positions from {len(tr)} games ({r.holdout_positions} held out "
            f"from {len(he)}), K = {r.k:.5f}: error {r.error_before:.5f} -> {r.error_after:.5f}, held out "
            f"{r.holdout_before:.5f} -> {r.holdout_after:.5f}, {r.evaluations} evaluations in "
            f"{time.monotonic() - began:.0f} s")
        for name, (a, b) in r.changed.items():
            say(f"    {name}: {a} -> {b}")
        notes[t] = (f"[{t}]: {meta['command'] or 'hiveai train --fit linear'}\n"
                    f"  fitted to {r.positions:,} positions labelled at depth {meta['label_depth']} by "
                    f"{meta['labelled_by'][t]} (K = {r.k:.5f}), from {linear_id(weights_for(start, t))}")
        fits[t] = {"k": r.k, "positions": r.positions, "holdout_positions": r.holdout_positions,
                   "error_before": r.error_before, "error_after": r.error_after,
                   "holdout_before": r.holdout_before, "holdout_after": r.holdout_after,
                   "changed": r.changed, "weights": linear_id(r.weights)}
    path = Path(output_file) if output_file is not None else out / WEIGHTS_FILE
    write_weights_file(path, sets, "hiveai evaluation weights; the sections fitted by `hiveai train --fit linear` "
                       "say so above them.\nLoad with the UHP option: options set EvalFile <this file>", notes)
    replace_atomically(out / REPORT_FILE, json.dumps(dict(meta, fit=fits), indent=2) + "\n")
    say(f"Weights written to {path}. Load them with: options set EvalFile {path}")
    gen_id = linear_id(np.concatenate([np.asarray(weights_for(sets, t)) for t in meta["game_types"]]))
    gen = dict({"event": "fitted", "id": gen_id, "kind": "linear", "made": _now()}, **meta, fit=fits)
    return TrainResult(gen, path, linear=results)


def _progress(say: Callable[[str], None], what: str) -> Callable[[object, int, int], None]:
    began = time.monotonic()
    last = [0.0]

    def progress(record: object, done: int, total: int) -> None:
        if time.monotonic() - last[0] > 5 or done == total:
            last[0] = time.monotonic()
            say(f"  {done}/{total} {what}, {time.monotonic() - began:.0f} s")

    return progress
