"""Labelled positions that last: the dataset ``hiveai train`` adds to and fits from.

A **dataset** is a directory of **shards**, ``*.jsonl.gz``. A shard is a file of
gzip members (:func:`hiveai.durable.append_gzip_lines`), so ``gzip -dc SHARD``
prints its lines; each line is one JSON object, one **labelled game**::

    {"v": 1, "game_type": "Base", "result": "WhiteWins",
     "run": "selfplay/linear:5d0c6d1a37a2/d3/r4/book/s11", "game": "Base-00012",
     "engine": "hiveai 0.2.0 (c4ccb23)", "eval": "linear:5d0c6d1a37a2", "depth": 6,
     "moves": ["wS1", "bG1 wS1\\\\", ...],
     "positions": [[8, 43, 10512], [11, 24, 8803], ...]}

* ``game_type``, ``moves`` (MoveStrings from the start) and ``result``
  (``WhiteWins``, ``BlackWins`` or ``Draw``: how the game ended) are the game.
  A position is the game after ``ply`` moves: ``positions`` holds
  ``[ply, score, nodes]``, the **score** of a search of that position to
  ``depth`` plies, for the side to move, in the evaluation's units (hundredths
  of one enemy piece next to a queen), and the nodes it took (left out,
  ``[ply, score]``, by labels imported from before nodes were kept). Positions the
  search scored as a forced result are left out (they need no evaluation);
  a game may hold none and still records that it was labelled.
* ``eval`` names the evaluation that searched them, by content, not by file
  name: ``linear:`` and the first 12 hex digits of the SHA-256 of the weights
  (the little-endian int64 vector of hiveai.evaluation.linear's WEIGHT_NAMES)
  for that game type; ``network:`` and those of the network's layers, scale and
  feature set (:func:`hiveai.training.train.network_id`: its metadata left out, so a file's notes can
  change without changing what it is). ``engine`` is the program
  (``hiveai VERSION``, and the git commit when it ran from a checkout).
* ``run`` and ``game`` say where the game came from: the self-play run's
  settings (its evaluation, depth, random plies, book, seed) and the game's id
  in it. Training holds out every 10th game of each run, by id
  (:func:`split_holdout`), so adding runs never moves a game between the
  training and held-out sets of another.

**Duplicates**: a game's *key* is its game type, moves, ``eval`` and ``depth``
(the same game labelled by the same evaluation to the same depth is the same
data, whichever engine build ran it). :meth:`Dataset.add` skips a key the
dataset holds; :func:`read_dataset` keeps the first of any repeated key and
counts the others (two copies of a shard merged from two branches, say).

**Durability**: each game is appended as a member of its own in one write,
then ``fsync``: a kill loses at most the game being written. Opening a dataset
to write (:meth:`Dataset.open`) locks the directory and cuts a cut-short last
member off; :meth:`Dataset.compact` repacks a shard into one member (about
2.4 times smaller) atomically. Any other damage, or a line that is not a
labelled game, is refused naming the file and the line
(:class:`hiveai.durable.RecordLineError`).

Each shard holds one game type's games labelled by one evaluation to one depth
(:func:`shard_name`), so a later run adds a shard or appends to one, and
``git diff --stat`` shows what grew. Beside the shards, ``evals/`` keeps every
evaluation that labelled them, named by its id
(:func:`hiveai.training.train.keep_evaluation`), and ``generations.jsonl`` the
generations fitted to them (:mod:`hiveai.training.train`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from hiveai.durable import DirectoryLock, RecordLineError, append_gzip_lines, read_gzip_lines, rewrite_gzip_lines

FORMAT = 1
SHARD_SUFFIX = ".jsonl.gz"
RESULTS = ("WhiteWins", "BlackWins", "Draw")
# Every this-many-th game of a run, by id, is held out of training (as ``hiveai tune`` does).
HOLDOUT_EVERY = 10
_FIELDS = ("v", "game_type", "result", "run", "game", "engine", "eval", "depth", "moves", "positions")


@dataclass
class LabelledGame:
    """One game and the search scores of some of its positions (see the module docstring)."""

    game_type: str
    moves: list[str]
    result: str
    run: str
    game: str
    engine: str
    eval: str
    depth: int
    positions: list[tuple[int, int, int | None]] = field(default_factory=list)  # (ply, score, nodes or None)

    @property
    def key(self) -> str:
        """What makes two records the same data: game type, moves, evaluation and depth."""
        text = json.dumps([self.game_type, self.moves, self.eval, self.depth], separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]

    def to_json(self) -> str:
        """The record's line (compact JSON, fields in the documented order)."""
        return json.dumps({"v": FORMAT, "game_type": self.game_type, "result": self.result, "run": self.run,
                           "game": self.game, "engine": self.engine, "eval": self.eval, "depth": self.depth,
                           "moves": self.moves,
                           "positions": [list(p) if p[2] is not None else list(p[:2]) for p in self.positions]},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, where: tuple[Path, int] = (Path("<text>"), 1)) -> LabelledGame:
        """The record a line holds; :class:`RecordLineError` naming ``where`` (file, line) and the problem."""
        path, line = where

        def bad(reason: str) -> RecordLineError:
            return RecordLineError(path, line, reason)

        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise bad(f"not JSON ({e})") from None
        if not isinstance(obj, dict):
            raise bad("not a labelled game (a JSON object expected)")
        if obj.get("v") != FORMAT:
            raise bad(f"format version {obj.get('v')!r}, this hiveai reads version {FORMAT}")
        missing = [f for f in _FIELDS if f not in obj]
        if missing:
            raise bad(f"no {', '.join(missing)}")
        extra = sorted(set(obj) - set(_FIELDS))
        if extra:
            raise bad(f"unknown field {', '.join(extra)}")
        for name in ("game_type", "run", "game", "engine", "eval"):
            if not isinstance(obj[name], str) or not obj[name]:
                raise bad(f"{name} is not a non-empty string")
        if obj["result"] not in RESULTS:
            raise bad(f"result {obj['result']!r} is not one of {', '.join(RESULTS)}")
        depth = obj["depth"]
        if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
            raise bad(f"depth {depth!r} is not a positive whole number")
        moves = obj["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, str) and m for m in moves):
            raise bad("moves is not a list of MoveStrings")
        positions = obj["positions"]
        if not isinstance(positions, list):
            raise bad("positions is not a list")
        last = -1
        out = []
        for i, p in enumerate(positions):
            if (not isinstance(p, list) or len(p) not in (2, 3)
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in p)):
                raise bad(f"position {i + 1} is not [ply, score, nodes] or [ply, score] (whole numbers)")
            ply, score, nodes = p if len(p) == 3 else (*p, None)
            if not last < ply <= len(moves):
                raise bad(f"position {i + 1}: ply {ply} is not after the last one ({last}) and within "
                          f"the game's {len(moves)} moves")
            if nodes is not None and nodes < 0:
                raise bad(f"position {i + 1}: {nodes} nodes")
            last = ply
            out.append((ply, score, nodes))
        return cls(obj["game_type"], list(moves), obj["result"], obj["run"], obj["game"], obj["engine"],
                   obj["eval"], depth, out)


def shard_name(game_type: str, eval_id: str, depth: int) -> str:
    """The shard of one game type's games labelled by ``eval_id`` to ``depth``.

    >>> shard_name("Base+MLP", "network:0123456789ab", 4)
    'Base+MLP-d4-network-0123456789ab.jsonl.gz'
    """
    return f"{game_type}-d{depth}-{eval_id.replace(':', '-')}{SHARD_SUFFIX}"


def shard_paths(directory: str | os.PathLike) -> list[Path]:
    """The shards of a dataset directory, by name (none if it does not exist)."""
    d = Path(directory)
    return sorted(p for p in d.glob(f"*{SHARD_SUFFIX}") if p.is_file()) if d.is_dir() else []


def read_shard(path: str | os.PathLike, *, trim: bool = False) -> list[tuple[int, LabelledGame]]:
    """The labelled games of one shard with their line numbers (a cut-short last
    member left out, and cut off with ``trim``); RecordLineError on any other damage."""
    path = Path(path)
    return [(no, LabelledGame.from_json(text, (path, no))) for no, text in read_gzip_lines(path, trim=trim)]


@dataclass
class DatasetReport:
    """What :func:`read_dataset` found besides the games."""

    shards: int = 0
    lines: int = 0
    duplicates: list[tuple[Path, int, Path, int]] = field(default_factory=list)  # (where, line, first, line)


def read_dataset(paths: Iterable[str | os.PathLike], *, trim: bool = False) -> tuple[list[LabelledGame], DatasetReport]:
    """Every labelled game of the given shards and dataset directories, each key once (the
    first seen), and a report counting the lines and naming the repeated ones."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += shard_paths(p)
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"no dataset or shard at {p}")
    report = DatasetReport(shards=len(files))
    games: list[LabelledGame] = []
    first: dict[str, tuple[Path, int]] = {}
    for path in files:
        for no, game in read_shard(path, trim=trim):
            report.lines += 1
            key = game.key
            if key in first:
                report.duplicates.append((path, no, *first[key]))
                continue
            first[key] = (path, no)
            games.append(game)
    return games, report


class Dataset:
    """A dataset directory open for adding: locked (one writer at a time,
    :class:`hiveai.durable.DirectoryLock`), its shards' cut-short last members
    cut off, its keys known.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d, Dataset.open(d) as data:
    ...     g = LabelledGame("Base", ["wS1", "bS1 wS1-"], "Draw", "example", "g1", "hiveai", "linear:0", 2,
    ...                      [(2, 13, 40)])
    ...     data.add(g), data.add(g), len(read_dataset([d])[0])
    (True, False, 1)
    """

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self._lock = DirectoryLock(self.directory)
        self.games: list[LabelledGame] = []
        self.report = DatasetReport()
        self._keys: set[str] = set()
        self._grown: set[Path] = set()

    @classmethod
    def open(cls, directory: str | os.PathLike) -> Dataset:
        """Lock ``directory`` (created if missing) and read it; LockedError if another process writes it."""
        data = cls(directory)
        data._lock.acquire()
        try:
            data.games, data.report = read_dataset([data.directory], trim=True)
        except BaseException:
            data._lock.release()
            raise
        data._keys = {g.key for g in data.games}
        return data

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def add(self, game: LabelledGame) -> bool:
        """Append ``game`` to its shard, durably; False (and nothing written) if its key is here already."""
        key = game.key
        if key in self._keys:
            return False
        path = self.directory / shard_name(game.game_type, game.eval, game.depth)
        append_gzip_lines(path, [game.to_json()])
        self._keys.add(key)
        self.games.append(game)
        self._grown.add(path)
        return True

    def compact(self, every_shard: bool = False) -> list[Path]:
        """Repack every shard this object appended to (``every_shard``: every shard of
        the directory) into one gzip member, its repeated keys dropped, atomically;
        returns the shards repacked."""
        done = []
        for path in shard_paths(self.directory) if every_shard else sorted(self._grown):
            seen: set[str] = set()
            lines = []
            for _, game in read_shard(path):
                if game.key not in seen:
                    seen.add(game.key)
                    lines.append(game.to_json())
            rewrite_gzip_lines(path, lines)
            done.append(path)
        self._grown.clear()
        return done

    def close(self) -> None:
        self._lock.release()

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def split_holdout(games: list[LabelledGame], every: int = HOLDOUT_EVERY) -> tuple[list[LabelledGame], list[LabelledGame]]:
    """(training games, held-out games): in each run, every ``every``-th game by id is held out.

    >>> gs = [LabelledGame("Base", [], "Draw", run, f"g{i:02d}", "e", "linear:0", 1) for run in "ab" for i in range(20)]
    >>> train, held = split_holdout(gs)
    >>> [(g.run, g.game) for g in held]
    [('a', 'g09'), ('a', 'g19'), ('b', 'g09'), ('b', 'g19')]
    """
    by_run: dict[str, list[LabelledGame]] = {}
    for g in games:
        by_run.setdefault(g.run, []).append(g)
    train, held = [], []
    for run in sorted(by_run):
        for i, g in enumerate(sorted(by_run[run], key=lambda g: g.game)):
            (held if every > 0 and i % every == every - 1 else train).append(g)
    return train, held


def check_moves(games: Iterable[tuple[Path, int, LabelledGame]]) -> None:
    """Replay every game; RecordLineError naming the file and line of the first that is not
    a legal game of its game type ending as its result says."""
    from hiveai.errors import HiveError
    from hiveai.rules.board import Board

    for path, no, g in games:
        try:
            board = Board(g.game_type)
        except (ValueError, HiveError) as e:
            raise RecordLineError(path, no, f"game type {g.game_type!r}: {e}") from None
        if board.game_type_string != g.game_type:
            raise RecordLineError(path, no, f"game type {g.game_type!r} is not canonical ({board.game_type_string})")
        for i, move in enumerate(g.moves):
            try:
                board.push(move)
            except (ValueError, HiveError) as e:
                raise RecordLineError(path, no, f"move {i + 1} ({move}): {e}") from None
        if board.is_game_over() and board.state != g.result:
            raise RecordLineError(path, no, f"the moves end the game as {board.state}, the record says {g.result}")


def summary(games: list[LabelledGame]) -> list[dict]:
    """Games and positions by game type, evaluation and depth (the shards' content), for ``hiveai data stats``."""
    games_by: Counter = Counter()
    positions_by: Counter = Counter()
    nodes_by: Counter = Counter()
    counted_by: Counter = Counter()
    engines: dict[tuple, set] = {}
    for g in games:
        k = (g.game_type, g.eval, g.depth)
        games_by[k] += 1
        positions_by[k] += len(g.positions)
        nodes_by[k] += sum(n for _, _, n in g.positions if n is not None)
        counted_by[k] += sum(1 for _, _, n in g.positions if n is not None)
        engines.setdefault(k, set()).add(g.engine)
    return [{"game_type": k[0], "eval": k[1], "depth": k[2], "games": games_by[k], "positions": positions_by[k],
             "mean_nodes": round(nodes_by[k] / counted_by[k]) if counted_by[k] else None,
             "engines": sorted(engines[k])} for k in sorted(games_by)]


def import_train_folder(folder: str | os.PathLike, engine: str, eval_for: Callable[[str], str],
                        run_for: Callable[[str], str], seed: int | None = None) -> list[LabelledGame]:
    """The labelled games of a folder that ``hiveai train`` wrote before the dataset existed
    (``games.jsonl``, and ``labels.jsonl``: ``{"id", "depth", "labels": [[ply, score], ...]}``),
    for an engine, evaluation (``eval_for(game_type)``) and run (``run_for(eval_id)``) the
    caller knows (the old files do not say). With ``seed``, each game's own seed must be the
    one ``hiveai train --seed SEED`` gives it."""
    from hiveai.durable import read_json_lines

    folder = Path(folder)
    games = {}
    for no, r in read_json_lines(folder / "games.jsonl"):
        if not isinstance(r, dict) or not {"id", "game_type", "moves", "result"} <= set(r):
            raise RecordLineError(folder / "games.jsonl", no, "not a self-play game")
        if seed is not None and "seed" in r:
            index = int(str(r["id"]).rsplit("-", 1)[-1])
            if r["seed"] != seed * 1_000_003 + index:
                raise RecordLineError(folder / "games.jsonl", no,
                                      f"game seed {r['seed']} is not that of game {index} of --seed {seed}")
        games[r["id"]] = (no, r)
    out = []
    for no, rec in read_json_lines(folder / "labels.jsonl"):
        if not isinstance(rec, dict) or not {"id", "depth", "labels"} <= set(rec) or rec["id"] not in games:
            raise RecordLineError(folder / "labels.jsonl", no, "not the labels of a game of games.jsonl")
        _, g = games[rec["id"]]
        eval_id = eval_for(g["game_type"])
        line = json.dumps({"v": FORMAT, "game_type": g["game_type"], "result": g["result"], "run": run_for(eval_id),
                           "game": g["id"], "engine": engine, "eval": eval_id, "depth": rec["depth"],
                           "moves": g["moves"], "positions": rec["labels"]})
        out.append(LabelledGame.from_json(line, (folder / "labels.jsonl", no)))
    return out
