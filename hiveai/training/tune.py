"""``hiveai tune``: fit the evaluation weights to the results of self-play games.

Texel's method (Peter Österlund's tuning of the Texel chess engine, described on
the Chess Programming Wiki, "Texel's Tuning Method"): a logistic model says how
likely White is to win from a position's static score ``s`` (White's view),

    P(white wins) = 1 / (1 + exp(-K s)),

and the weights are chosen to minimise the mean squared difference between that
probability and the game's result (1, 1/2, 0) over many quiet positions. ``K`` is
fitted first with the starting weights, then each weight in turn is moved up or
down by a step while the error falls, with steps halving down to one unit. The
error is computed with numpy over scores that a numba kernel produces by
replaying the games, so any weight of :mod:`hiveai.evaluation.linear` can be tuned,
whatever its role in the formula.

Pipeline (each step resumable):

1. **Self-play** (:func:`selfplay`): games of hiveai against itself at a fixed
   depth, opening with book moves and random plies so that games differ. They run
   in threads, or as Ray tasks, through :mod:`hiveai.backend` as tournaments do;
   each finished game is appended to ``games.jsonl`` at once (:mod:`hiveai.durable`),
   so an interrupted run resumes without losing a game. One run at a time writes
   a folder: a second one started on it stops at once, naming the first one's
   process (:class:`hiveai.durable.DirectoryLock`).
2. **Positions** (:func:`training_set`): every position of those games after the
   opening in which neither queen has five neighbours (no win in one is pending),
   with the game's result.
3. **Fit** (:func:`fit`) per game type, checked on held-out games; the result is a
   weights file (:func:`hiveai.evaluation.linear.write_weights_file`) that the UHP option
   ``EvalFile`` loads.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
from numba import njit

from hiveai.rules.board import Board
from hiveai.rules.bug import PIECES_PER_COLOUR
from hiveai.durable import DirectoryLock, append_json_line, read_json_lines
from hiveai.evaluation.linear import WEIGHT_NAMES, default_weights, evaluate
from hiveai.rules.movegen import new_workspace
from hiveai.rules.notation import FINISHED
from hiveai.rules.outcome import WHITE, Termination, points
from hiveai.rules.position import IN_PROGRESS, PLY, POS, do_move, game_result, occupied_neighbours
from hiveai.tournament.layout import GAMES_FILE  # the same record file name as a tournament's

# Self-play defaults. Depth 2 plays a sound game at a few milliseconds a move, so
# 1,000 games take minutes on two cores; the openings (book moves, then random
# plies) make every game different although the engine is deterministic.
SELFPLAY_DEPTH = 2
SELFPLAY_RANDOM_PLIES = 2
SELFPLAY_MAX_PLIES = 200  # then the game is a draw, as the tournament adjudicates
SELFPLAY_TT_MB = 8
# Positions before this ply are the opening (book and random plies): not sampled.
MIN_SAMPLE_PLY = 8
# Every this-many-th game is held out to check the fit, not used for it.
HOLDOUT_EVERY = 10
# Coordinate-descent steps, in weight units (hundredths of one enemy piece next to a queen).
STEPS = (32, 16, 8, 4, 2, 1)
# Range each weight may take while tuning: percentages stay within 0..100,
# the rest non-negative (a negative "danger" weight would reward danger).
PERCENT_WEIGHTS = ("hand_percent", "pre_queen_percent")
BOUNDS = {name: (0, 100) if name in PERCENT_WEIGHTS else (0, 2000) for name in WEIGHT_NAMES}
# Unused by the kernel's formula (the queen's mobility has its own weight), so not tuned.
FROZEN = ("mobile_queen",)


# --- Self-play ------------------------------------------------------------------


@dataclass(frozen=True)
class SelfPlayTask:
    """One self-play game: everything a worker needs (picklable, for Ray)."""

    id: str
    game_type: str
    seed: int
    depth: int = SELFPLAY_DEPTH
    random_plies: int = SELFPLAY_RANDOM_PLIES
    use_book: bool = True
    max_plies: int = SELFPLAY_MAX_PLIES
    weights: tuple[int, ...] | None = None  # None: the defaults
    network: bytes | None = None  # a network file's bytes: it evaluates instead of weights


def play_selfplay_game(task: SelfPlayTask) -> dict:
    """Play one game of hiveai against itself; its record (moves as MoveStrings, result, and the
    reason it ended: a :class:`~hiveai.rules.outcome.Termination` value)."""
    from hiveai.player import Engine, book
    from hiveai.search.timeman import Limit

    rng = random.Random(task.seed)
    board = Board(task.game_type)
    weights = None if task.weights is None else np.array(task.weights, dtype=np.int64)
    engine = Engine(hash_mb=SELFPLAY_TT_MB)
    engine.set_evaluation(weights=weights, network=network_of(task.network))
    reason: Termination | None = None
    in_book = task.use_book
    random_left = task.random_plies
    while not board.is_game_over():
        if board.ply >= task.max_plies:
            reason = Termination.MAX_PLIES
            break
        text = book.book_move(board, rng=rng) if in_book else None
        if text is None:
            in_book = False
            if random_left > 0:
                random_left -= 1
                move: object = rng.choice(board.legal_move_ints())
            else:
                move = engine.analyse(board, Limit(depth=task.depth)).move
        else:
            move = text
        board.push(move)
        if board.is_repetition():
            reason = Termination.REPETITION
            break
    state = board.state if board.is_game_over() else "Draw"
    if reason is None:
        reason = board.outcome().termination
    return {"id": task.id, "game_type": board.game_type_string, "seed": task.seed, "depth": task.depth,
            "moves": list(board.move_history), "result": state, "reason": reason.value}


def network_of(data: bytes | None):
    """The network whose file's bytes a task carries (None: none), read once per process and file."""
    return None if data is None else _parsed_network(data)


@functools.lru_cache(maxsize=4)
def _parsed_network(data: bytes):
    from hiveai.evaluation.network import network_from_bytes

    return network_from_bytes(data, "<the task's network>")


def selfplay_tasks(game_types: Iterable[str], games: int, seed: int, depth: int = SELFPLAY_DEPTH,
                   random_plies: int = SELFPLAY_RANDOM_PLIES, use_book: bool = True,
                   weights: np.ndarray | None = None, network: bytes | None = None) -> list[SelfPlayTask]:
    """``games`` tasks per game type, with seeds derived from ``seed`` (so a rerun
    of the same command schedules the same games, and resumes). ``weights`` or
    ``network`` (a network file's bytes): the evaluation both sides play with
    (default: the engine's default evaluation)."""
    w = None if weights is None else tuple(int(x) for x in weights)
    tasks = []
    for game_type in game_types:
        canonical = Board(game_type).game_type_string
        for i in range(games):
            tasks.append(SelfPlayTask(f"{canonical}-{i:05d}", canonical, seed * 1_000_003 + i, depth,
                                      random_plies, use_book, SELFPLAY_MAX_PLIES, w, network))
    return tasks


def load_games(path: Path, required: tuple[str, ...] = ("id", "moves")) -> list[dict]:
    """The records (with the ``required`` keys) in a JSON-lines file such as games.jsonl, ready
    for more to be appended: a last line cut short by a kill is cut off, a line that is not JSON
    is an error naming it (:func:`hiveai.durable.read_json_lines`)."""
    return [r for _, r in read_json_lines(path) if isinstance(r, dict) and all(key in r for key in required)]


def selfplay(out: str | Path, tasks: list[SelfPlayTask], *, concurrency: int = 1, cluster: str | None = None,
             on_game: Callable[[dict, int, int], None] | None = None, locked: bool = False) -> list[dict]:
    """Play the tasks not yet in ``out``/games.jsonl; returns every record there.

    ``on_game(record, done, total)`` is called after each game is saved. The
    folder is locked meanwhile: :class:`hiveai.durable.LockedError` if another
    run holds it. ``locked``: the caller holds the folder's lock already (a
    lock is per open file, so this process taking it again would fail).
    """
    if locked:
        return _selfplay(Path(out), tasks, concurrency, cluster, on_game)
    with DirectoryLock(out):
        return _selfplay(Path(out), tasks, concurrency, cluster, on_game)


def _selfplay(out: Path, tasks: list[SelfPlayTask], concurrency: int, cluster: str | None,
              on_game: Callable[[dict, int, int], None] | None) -> list[dict]:
    """:func:`selfplay` in a folder this process has locked."""
    from hiveai.backend import make_backend

    path = out / GAMES_FILE
    records = load_games(path)
    done = {r["id"] for r in records}
    todo = [t for t in tasks if t.id not in done]
    if todo:
        with make_backend(concurrency, cluster) as backend:
            for record in backend.imap_unordered(play_selfplay_game, todo):
                append_json_line(path, record)
                records.append(record)
                if on_game is not None:
                    on_game(record, len(records), len(tasks))
    wanted = {t.id for t in tasks}
    return [r for r in records if r["id"] in wanted]


# --- Training positions -----------------------------------------------------------


@dataclass
class TrainingSet:
    """The games of one game type, as the scoring kernel replays them.

    ``moves[offsets[g]:offsets[g+1]]`` are game g's moves; ``sample[i]`` marks the
    position after move i as a training position; ``results`` holds White's result
    (1, 0.5, 0) for each training position, in replay order.
    """

    game_type: str
    template: np.ndarray  # the empty position of the game type
    moves: np.ndarray  # int32 move codes, all games end to end
    offsets: np.ndarray  # int64, one more than the number of games
    sample: np.ndarray  # uint8, one per move
    results: np.ndarray  # float64, one per training position

    @property
    def positions(self) -> int:
        return int(self.results.shape[0])

    @property
    def games(self) -> int:
        return int(self.offsets.shape[0] - 1)


@njit(cache=True, nogil=True)
def _replay(template, moves, offsets, min_ply, sample, ws, w, out, mark):
    """Replay the games. With ``mark``: mark the positions to learn from (after
    the opening, game in progress, neither queen with five or six neighbours: a
    win in one may be pending there, which the static score cannot see).
    Without: write the static score, from White's view, of every marked
    position to ``out``. Returns how many positions are marked."""
    b = template.copy()
    n = 0
    for g in range(offsets.shape[0] - 1):
        b[:] = template
        for i in range(offsets[g], offsets[g + 1]):
            do_move(b, moves[i])
            if mark:
                sample[i] = 0
                if b[PLY] < min_ply or game_result(b) != IN_PROGRESS:
                    continue
                for colour in range(2):
                    q = b[POS + colour * PIECES_PER_COLOUR]
                    if q >= 0 and occupied_neighbours(b, q) >= 5:
                        break
                else:
                    sample[i] = 1
                    n += 1
            elif sample[i]:
                s = evaluate(b, ws, w)
                out[n] = s if (b[PLY] & 1) == 0 else -s
                n += 1
    return n


def training_set(records: list[dict], game_type: str, min_ply: int = MIN_SAMPLE_PLY) -> TrainingSet:
    """The training positions of ``records``' games of ``game_type``."""
    board0 = Board(game_type)
    canonical = board0.game_type_string
    moves: list[int] = []
    offsets = [0]
    results: list[float] = []
    for r in records:
        if r["game_type"] != canonical or r["result"] not in FINISHED:
            continue
        board = Board(canonical)
        for text in r["moves"]:
            moves.append(board.push(text).code)
        offsets.append(len(moves))
        results.append(points(r["result"], WHITE))
    template = board0.position_array
    mv = np.array(moves, dtype=np.int32)
    off = np.array(offsets, dtype=np.int64)
    sample = np.zeros(len(moves), dtype=np.uint8)
    _replay(template, mv, off, np.int64(min_ply), sample, new_workspace(), default_weights(), np.zeros(0, np.int64),
            True)
    marked = np.concatenate(([0], np.cumsum(sample, dtype=np.int64)))
    per_game = marked[off[1:]] - marked[off[:-1]]  # training positions of each game
    per_position = np.repeat(np.array(results, dtype=np.float64), per_game)
    return TrainingSet(canonical, template, mv, off, sample, per_position)


def labelled_set(records: list[dict], game_type: str, k: float, min_ply: int = MIN_SAMPLE_PLY) -> TrainingSet:
    """:func:`training_set` of ``records`` (each with ``labels``: ``[[ply, score], ...]``,
    the search's score of the position after ``ply`` moves for the side to move)
    narrowed to the labelled positions, each position's target its label as an
    expected result for White, ``1 / (1 + exp(-k * score))`` (White's view).

    :func:`fit` with ``k`` held fixed then moves the static score towards the
    search's, on the scale Texel's constant gives it. Every record must be a
    finished game of ``game_type``."""
    wrong = [r.get("id", i) for i, r in enumerate(records)
             if r["game_type"] != game_type or r["result"] not in FINISHED]
    if wrong:
        raise ValueError(f"not finished games of {game_type}: {wrong[:5]}")
    data = training_set(records, game_type, min_ply)
    sample = data.sample.copy()
    targets = []
    for g, r in enumerate(records):
        at = {int(p): int(s) for p, s in r["labels"]}
        for i in range(int(data.offsets[g]), int(data.offsets[g + 1])):
            ply = i - int(data.offsets[g]) + 1  # the position after move i
            if not sample[i]:
                continue
            if ply not in at:
                sample[i] = 0
                continue
            white = at[ply] if ply % 2 == 0 else -at[ply]
            targets.append(1.0 / (1.0 + math.exp(-k * white)))
    return TrainingSet(data.game_type, data.template, data.moves, data.offsets, sample,
                       np.array(targets, dtype=np.float64))


def split_holdout(records: list[dict], every: int = HOLDOUT_EVERY) -> tuple[list[dict], list[dict]]:
    """(training games, held-out games): every ``every``-th game, by its place in id order, is held out."""
    ordered = sorted(records, key=lambda r: r["id"])
    held = [r for i, r in enumerate(ordered) if every > 0 and i % every == every - 1]
    held_ids = {r["id"] for r in held}
    return [r for r in ordered if r["id"] not in held_ids], held


# --- The fit ------------------------------------------------------------------------


def white_scores(data: TrainingSet, weights: np.ndarray) -> np.ndarray:
    """Static scores (White's view) of the training positions under ``weights``."""
    out = np.zeros(data.positions, dtype=np.int64)
    _replay(data.template, data.moves, data.offsets, np.int64(0), data.sample, new_workspace(),
            np.ascontiguousarray(weights, dtype=np.int64), out, False)
    return out


def mean_error(scores: np.ndarray, results: np.ndarray, k: float) -> float:
    """Texel's error: mean squared difference of result and predicted score."""
    if scores.shape[0] == 0:
        return math.nan
    predicted = 1.0 / (1.0 + np.exp(-k * scores.astype(np.float64)))
    return float(np.mean((results - predicted) ** 2))


def fit_k(scores: np.ndarray, results: np.ndarray, lo: float = 1e-5, hi: float = 0.1) -> float:
    """The ``K`` that minimises the error for fixed scores (golden-section search on log K)."""
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = mean_error(scores, results, math.exp(c)), mean_error(scores, results, math.exp(d))
    for _ in range(60):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = mean_error(scores, results, math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = mean_error(scores, results, math.exp(d))
    return math.exp((a + b) / 2)


@dataclass
class FitResult:
    """What :func:`fit` found."""

    game_type: str
    weights: np.ndarray
    start: np.ndarray
    k: float
    positions: int
    games: int
    error_before: float
    error_after: float
    holdout_positions: int = 0
    holdout_before: float = math.nan
    holdout_after: float = math.nan
    evaluations: int = 0
    changed: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> (before, after)


def fit(data: TrainingSet | list[TrainingSet], start: np.ndarray | None = None, *,
        holdout: TrainingSet | list[TrainingSet] | None = None, names: Iterable[str] | None = None,
        steps: Iterable[int] = STEPS, max_rounds: int = 20, k: float | None = None,
        on_step: Callable[[str, int, float], None] | None = None) -> FitResult:
    """Texel-tune ``names`` (default: every weight but FROZEN) from ``start``
    (default: the built-in weights) on ``data`` (one game type's training set, or
    several fitted together); ``holdout`` only reports.

    ``k`` fixes Texel's scale constant (default: the one that best fits the
    starting weights). Fixed, it ties the scores' scale to the targets': with
    targets that are squashed search scores, ``1 / (1 + exp(-k * score))``,
    the fit moves the static score towards the search's.

    ``on_step(name, value, error)`` is called after each accepted change.
    """
    parts = [data] if isinstance(data, TrainingSet) else list(data)
    held = [] if holdout is None else [holdout] if isinstance(holdout, TrainingSet) else list(holdout)
    start = default_weights() if start is None else np.array(start, dtype=np.int64)
    tune = [n for n in (names or WEIGHT_NAMES) if n not in FROZEN]
    unknown = [n for n in tune if n not in WEIGHT_NAMES]
    if unknown:
        raise ValueError(f"unknown weight {', '.join(unknown)}; the weights are {', '.join(WEIGHT_NAMES)}")
    results = np.concatenate([p.results for p in parts])
    game_type = "+".join(p.game_type for p in parts)
    if results.shape[0] == 0:
        raise ValueError(f"no training positions for {game_type}: play more games")

    def error(w: np.ndarray, sets: list[TrainingSet], res: np.ndarray, k: float) -> float:
        return mean_error(np.concatenate([white_scores(p, w) for p in sets]), res, k)

    w = start.copy()
    if k is None:
        k = fit_k(np.concatenate([white_scores(p, w) for p in parts]), results)
    best = before = error(w, parts, results, k)
    evaluations = 2
    for step in steps:
        for _ in range(max_rounds):
            improved = False
            for name in tune:
                i = WEIGHT_NAMES.index(name)
                lo, hi = BOUNDS[name]
                for direction in (1, -1):
                    value = int(w[i]) + direction * step
                    if value < lo or value > hi:
                        continue
                    trial = w.copy()
                    trial[i] = value
                    e = error(trial, parts, results, k)
                    evaluations += 1
                    if e < best - 1e-12:
                        w, best, improved = trial, e, True
                        if on_step is not None:
                            on_step(name, value, e)
                        break
            if not improved:
                break
    result = FitResult(game_type, w, start, k, int(results.shape[0]), sum(p.games for p in parts), before, best,
                       evaluations=evaluations)
    result.changed = {n: (int(start[i]), int(w[i])) for i, n in enumerate(WEIGHT_NAMES) if start[i] != w[i]}
    held_results = np.concatenate([p.results for p in held]) if held else np.zeros(0)
    if held_results.shape[0]:
        result.holdout_positions = int(held_results.shape[0])
        result.holdout_before = error(start, held, held_results, k)
        result.holdout_after = error(w, held, held_results, k)
    return result


# --- The whole pipeline -----------------------------------------------------------------


def tune(out: str | Path, game_types: list[str], games: int, *, depth: int = SELFPLAY_DEPTH,
         random_plies: int = SELFPLAY_RANDOM_PLIES, use_book: bool = True, seed: int = 1,
         start: dict[str, np.ndarray] | None = None, common: bool = False, concurrency: int = 1,
         cluster: str | None = None, weights_file: str | Path | None = None,
         say: Callable[[str], None] = lambda text: None) -> list[FitResult]:
    """Self-play ``games`` games per game type into ``out`` (resuming what is there),
    fit each game type's weights (and, with ``common``, one set for all of them
    under ``[*]``), and write the weights file (default ``out``/weights.ini).
    ``out`` is locked from start to end (:class:`hiveai.durable.LockedError` if
    another run holds it).

    ``start`` gives starting weights by game type (what
    :func:`hiveai.evaluation.linear.read_weights_file` returns; default: the shipped
    ones); self-play uses them too, and the weights file holds them with the
    fitted sections over them.
    """
    out = Path(out)
    with DirectoryLock(out):
        return _tune(out, game_types, games, depth, random_plies, use_book, seed, start, common, concurrency,
                     cluster, weights_file, say)


def _tune(out: Path, game_types: list[str], games: int, depth: int, random_plies: int, use_book: bool, seed: int,
          start: dict[str, np.ndarray] | None, common: bool, concurrency: int, cluster: str | None,
          weights_file: str | Path | None, say: Callable[[str], None]) -> list[FitResult]:
    """:func:`tune` in a folder this process has locked."""
    import time

    from hiveai.evaluation.linear import ALL_GAME_TYPES, builtin_weights, weights_for, write_weights_file

    canonical = [Board(t).game_type_string for t in game_types]
    start = start or builtin_weights()
    tasks = []
    for t in canonical:
        tasks += selfplay_tasks([t], games, seed, depth, random_plies, use_book, weights_for(start, t))
    began = time.monotonic()
    say(f"Self-play: {len(tasks)} games ({games} per game type, depth {depth}) in {out}/{GAMES_FILE}")
    last = [0.0]

    def progress(record: dict, done: int, total: int) -> None:
        if time.monotonic() - last[0] > 5 or done == total:
            last[0] = time.monotonic()
            say(f"  {done}/{total} games, {time.monotonic() - began:.0f} s")

    records = _selfplay(out, tasks, concurrency, cluster, progress)
    say(f"Self-play done: {len(records)} games in {time.monotonic() - began:.0f} s")
    results = []
    groups = [(t, [t]) for t in canonical] + ([(ALL_GAME_TYPES, canonical)] if common else [])
    for key, types in groups:
        fit_began = time.monotonic()
        train, held = split_holdout([r for r in records if r["game_type"] in types])
        data = [training_set(train, t) for t in types]
        holdout = [training_set(held, t) for t in types]
        result = fit(data, weights_for(start, key), holdout=holdout)
        result.game_type = key  # "*" for the common fit
        results.append(result)
        say(f"[{key}] {result.positions} positions from {result.games} games, K = {result.k:.5f}: "
            f"error {result.error_before:.5f} -> {result.error_after:.5f}, held out "
            f"({result.holdout_positions} positions) {result.holdout_before:.5f} -> {result.holdout_after:.5f}, "
            f"{result.evaluations} evaluations in {time.monotonic() - fit_began:.0f} s")
        for name, (a, b) in result.changed.items():
            say(f"    {name}: {a} -> {b}")
    path = Path(weights_file) if weights_file is not None else out / "weights.ini"
    sets = dict(start)
    for r in results:
        sets[r.game_type] = r.weights
    header = (f"hiveai evaluation weights, fitted by `hiveai tune` (Texel's method) to {len(records)} "
              f"self-play games at depth {depth} of {', '.join(canonical)}.\n"
              "Load with the UHP option: options set EvalFile <this file>")
    write_weights_file(path, sets, header)
    say(f"Weights written to {path}")
    return results
