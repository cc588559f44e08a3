"""``hiveai puzzles build``: puzzles mined from games, proven, rated, and written as a collection.

Where the positions come from:

* **Self-play at the weaker levels** (:mod:`hiveai.player.levels`, levels 1 to
  5, drawn per side and per game): their mistakes leave forced wins on the
  board, and their games end with queens surrounded.
* **Game records** given with ``--records``: every format ``hiveai convert``
  reads (:mod:`hiveai.records`).

How a game is mined: its positions are tried from the end backwards (the
last :data:`SCAN_PLIES` plies, where the tactics are), each classified by
:func:`hiveai.puzzles.prove.find_puzzle` under a node budget (a position
whose proof needs more is skipped, never guessed). At most
:data:`PER_GAME` puzzles come from one game, of different depths, and a
position equal to one already taken up to the board's symmetries (the same
``id``) is taken once. Each puzzle gets its themes
(:mod:`hiveai.puzzles.themes`) and its starting rating
(:func:`hiveai.puzzles.rating.initial_rating`).

Resumable: every finished game is appended to ``mined.jsonl`` in the output
folder at once (:mod:`hiveai.durable`), and the collection file
``collection.txt`` there is rewritten whole after each game, so a kill loses
at most the games being mined; the same command resumes (games are seeded,
so a rerun schedules the same ones). ``-j`` mines games in that many processes.
The collection is ordered by game type, and within a type so that no two
neighbouring lines come from one game.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Iterator

from hiveai.puzzles.puzzlefile import Puzzle, format_line, parse_line, write_puzzles

__all__ = ["DEFAULT_TARGETS", "BuildReport", "GameTask", "build", "mine_game", "order_for_variety"]

#: Puzzles wanted per game type by default (the shipped collection's counts).
DEFAULT_TARGETS = {"Base": 170, "Base+M": 30, "Base+L": 30, "Base+P": 30, "Base+ML": 30, "Base+MP": 30,
                   "Base+LP": 30, "Base+MLP": 270, "Critters": 30}
SCAN_PLIES = 12  # positions tried per game, from the end backwards (a finished game's last is over)
PER_GAME = 2  # puzzles taken from one game at most
MAX_PLIES = 300  # a self-play game this long is given up
WEAK_LEVELS = (1, 5)  # the levels self-play draws from, inclusive
NODE_LIMIT = 2_000_000  # positions one proof may make while mining
POSITION_BUDGET = 4_000_000  # positions the classification of one position may make
SAVE_MOVES = 2  # threats of at most this many moves are looked for (longer ones cost far more)
RATING_DEPTH = 6  # the full-strength search looks this deep for the first move, at most
MINED = "mined.jsonl"
COLLECTION = "collection.txt"


@dataclass(frozen=True)
class GameTask:
    """One game to mine: self-play (``moves`` None) or a record's moves."""

    id: str  # the game's identity (the start of its puzzles' source)
    game_type: str
    seed: int = 0
    moves: tuple[str, ...] | None = None


@dataclass
class BuildReport:
    """What a build did: puzzles per game type, games mined, seconds."""

    counts: dict[str, int] = field(default_factory=dict)
    games: int = 0
    mined_now: int = 0
    seconds: float = 0.0
    positions: int = 0


def _selfplay(task: GameTask) -> tuple[list[str], str]:
    """A game of two weak levels (drawn from the task's seed); its moves and a label."""
    from hiveai.puzzles.thinking import level_move
    from hiveai.rules.board import Board

    rng = random.Random(task.seed)
    levels = (rng.randint(*WEAK_LEVELS), rng.randint(*WEAK_LEVELS))
    board = Board(task.game_type)
    while not board.is_game_over() and board.ply < MAX_PLIES:
        board.push(level_move(board, levels[board.turn], rng))
    return board.move_history, f"L{levels[0]}-L{levels[1]}"


def _moves_worth_trying(board) -> int:
    """How long a win to look for, by how crowded the enemy queen is: ruling out a
    long win costs most where it is least likely (a mining choice, never a proof's)."""
    from hiveai.rules.position import POS, occupied_neighbours

    b = board.position_array
    queen = int(b[POS + (1 - board.turn) * 14])
    taken = int(occupied_neighbours(b, queen)) if queen >= 0 else 0
    return 4 if taken >= 3 else 3


def rate(board, proof, engine, seed: int) -> int:
    """The starting rating of a proven puzzle (:func:`hiveai.puzzles.rating.initial_rating`)."""
    from hiveai.puzzles.rating import initial_rating
    from hiveai.puzzles.thinking import analyse, level_move

    key = proof.line[0]
    level = 10
    for candidate in range(1, 10):
        if level_move(board, candidate, random.Random(seed + candidate)) == key:
            level = candidate
            break
    nodes = 0
    for depth in range(1, RATING_DEPTH + 1):
        found = analyse(board, depth, engine)
        nodes = found.nodes
        if found.move == key and (proof.kind == "save" or found.win_plies is not None):
            break
    return initial_rating(level, nodes)


def mine_game(task: GameTask) -> dict:
    """Mine one game: its record for ``mined.jsonl`` (the puzzle lines found in it).

    A game that fails (an engine error while it is played) is recorded with its
    ``error`` and no puzzles, so one bad game neither stops the build nor is
    played again on resuming."""
    try:
        return _mine_game(task)
    except Exception as e:  # noqa: BLE001 - recorded, and reported by the build's progress
        return {"task": task.id, "game_type": task.game_type, "lines": [], "plies": 0, "positions": 0,
                "seconds": 0.0, "error": f"{type(e).__name__}: {e}"}


def _mine_game(task: GameTask) -> dict:
    from hiveai.puzzles.prove import ProofLimitError, find_puzzle, make_prover
    from hiveai.puzzles.thinking import new_engine
    from hiveai.puzzles.themes import themes
    from hiveai.rules.board import Board
    from hiveai.rules.symmetry import frame_of

    start = time.monotonic()
    engine = new_engine()
    if task.moves is None:
        moves, label = _selfplay(task)
        game = f"{task.id}:{label}"
    else:
        moves, game = list(task.moves), task.id
    finished = Board(task.game_type)
    for mv in moves:
        finished.push(mv)
    if task.moves is None and not finished.is_game_over():  # a self-play game drawn out: no tactics at its end
        return {"task": task.id, "game_type": task.game_type, "lines": [], "plies": len(moves), "positions": 0,
                "seconds": round(time.monotonic() - start, 2)}
    prover = make_prover(NODE_LIMIT)
    lines: list[str] = []
    depths: set[tuple[str, int]] = set()
    tried = 0
    board = Board(task.game_type)
    positions = []
    for mv in moves:
        board.push(mv)
        positions.append(board.copy())
    for pos in reversed(positions[-SCAN_PLIES:]):
        if len(lines) >= PER_GAME:
            break
        if pos.is_game_over() or pos.ply < 6:
            continue
        tried += 1
        try:
            proof = find_puzzle(pos, prover, max_moves=_moves_worth_trying(pos), save_moves=SAVE_MOVES,
                                budget=POSITION_BUDGET)
        except ProofLimitError:
            continue
        if proof is None or (proof.kind, proof.depth) in depths:
            continue
        depths.add((proof.kind, proof.depth))
        pid = frame_of(pos.position_array).key
        rating = rate(pos, proof, engine, int(pid[:8], 16))
        puzzle = Puzzle(pid, pos.game_string(), proof.line, proof.kind, themes(pos, proof), proof.depth,
                        proof.nodes, rating, f"{game}:{pos.ply}")
        lines.append(format_line(puzzle))
    return {"task": task.id, "game_type": task.game_type, "lines": lines, "plies": len(moves),
            "positions": tried, "seconds": round(time.monotonic() - start, 2)}


def order_for_variety(puzzles: list[Puzzle]) -> list[Puzzle]:
    """``puzzles`` grouped by game type (in :data:`DEFAULT_TARGETS`' order, then any
    other), and within a type ordered so that no two neighbours come from one game
    (when the type has more than one game), otherwise keeping their order."""
    order = {gt: i for i, gt in enumerate(DEFAULT_TARGETS)}
    by_type: dict[str, list[Puzzle]] = {}
    for p in puzzles:
        by_type.setdefault(p.game_type, []).append(p)
    out: list[Puzzle] = []
    for gt in sorted(by_type, key=lambda g: (order.get(g, len(order)), g)):
        games: dict[str, list[Puzzle]] = {}
        for p in by_type[gt]:
            games.setdefault(p.game_id, []).append(p)
        last = None
        while games:
            # The game with the most puzzles left goes next (not the last one's game, if
            # another is left): no game is left alone at the end with several puzzles.
            choices = [g for g in games if g != last] or list(games)
            game = max(choices, key=lambda g: len(games[g]))
            out.append(games[game].pop(0))
            if not games[game]:
                del games[game]
            last = game
    return out


def _collect(records: list[dict]) -> list[Puzzle]:
    """The puzzles of the mined records, each position once (first found wins)."""
    seen: set[str] = set()
    out = []
    for record in records:
        for line in record.get("lines", []):
            puzzle = parse_line(line, replay=False)
            if puzzle.id not in seen:
                seen.add(puzzle.id)
                out.append(puzzle)
    return out


def record_tasks(sources: list[str]) -> list[GameTask]:
    """One task per game in the record files (HiveError names a file that cannot be read)."""
    from hiveai.records import read_all

    tasks = []
    for i, read in enumerate(read_all(sources)):
        if read.record is None:
            continue
        name = os.path.basename(read.source or "records").replace("\t", " ").replace(":", "_")
        tasks.append(GameTask(f"records:{name}#{i}", read.record.game_type, 0, tuple(read.record.moves)))
    return tasks


def _selfplay_tasks(game_type: str, seed: int) -> Iterator[GameTask]:
    i = 0
    while True:
        yield GameTask(f"selfplay:{game_type}:{seed}#{i}", game_type, seed * 1_000_003 + i * 7919
                       + sum(map(ord, game_type)))
        i += 1


def build(out: str | os.PathLike, targets: dict[str, int] | None = None, records: list[str] = (), *,
          seed: int = 1, concurrency: int = 1, on_game: Callable[[dict, BuildReport], None] | None = None,
          max_games: int | None = None) -> BuildReport:
    """Mine games into ``out`` until each game type in ``targets`` has its count.

    The record files' games are mined first (all of them), then self-play
    games of each type still short of its target. Resumes what ``out``
    holds (module docstring). ``max_games`` stops after that many games mined
    in this run.
    """
    from hiveai.durable import DirectoryLock, append_json_line, read_json_lines

    targets = dict(DEFAULT_TARGETS if targets is None else targets)
    out = Path(out)
    report = BuildReport()
    start = time.monotonic()
    with DirectoryLock(out):
        mined = [r for _, r in read_json_lines(out / MINED) if isinstance(r, dict) and "task" in r]
        done = {r["task"] for r in mined}
        puzzles = _collect(mined)

        def counts() -> dict[str, int]:
            c = {gt: 0 for gt in targets}
            for p in puzzles:
                c[p.game_type] = c.get(p.game_type, 0) + 1
            return c

        pending_records = [t for t in record_tasks(list(records)) if t.id not in done]
        generators = {gt: _selfplay_tasks(gt, seed) for gt in targets}
        in_flight: dict[Future, GameTask] = {}
        flying_per_type: dict[str, int] = {gt: 0 for gt in targets}

        def next_task() -> GameTask | None:
            if pending_records:
                return pending_records.pop(0)
            have = counts()
            short = [gt for gt in targets if have.get(gt, 0) + flying_per_type.get(gt, 0) < targets[gt]]
            if not short:
                return None
            gt = min(short, key=lambda g: have.get(g, 0) / max(1, targets[g]))
            for task in generators[gt]:
                if task.id not in done:
                    return task
            return None

        context = get_context("spawn")
        with ProcessPoolExecutor(max_workers=concurrency, mp_context=context) as pool:
            while True:
                while len(in_flight) < concurrency and (max_games is None or report.mined_now + len(in_flight)
                                                        < max_games):
                    task = next_task()
                    if task is None:
                        break
                    in_flight[pool.submit(mine_game, task)] = task
                    flying_per_type[task.game_type] = flying_per_type.get(task.game_type, 0) + 1
                if not in_flight:
                    break
                finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in finished:
                    task = in_flight.pop(future)
                    flying_per_type[task.game_type] -= 1
                    record = future.result()
                    append_json_line(out / MINED, record)
                    done.add(task.id)
                    mined.append(record)
                    puzzles = _collect(mined)
                    write_puzzles(out / COLLECTION, order_for_variety(puzzles))
                    report.mined_now += 1
                    report.positions += record["positions"]
                    if on_game is not None:
                        report.counts, report.games = counts(), len(mined)
                        report.seconds = time.monotonic() - start
                        on_game(record, report)
        report.counts, report.games = counts(), len(mined)
        write_puzzles(out / COLLECTION, order_for_variety(puzzles))
    report.seconds = time.monotonic() - start
    return report
