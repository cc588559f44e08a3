"""Positions an hour one core labels (hiveai.training.train.label_game), at each depth asked.

    python tools/label_rate.py SOURCE GAME_TYPE GAMES DEPTH...

SOURCE: a dataset (directory or shard: its games, relabelled) or a `hiveai train` folder's
games.jsonl. The first GAMES games of GAME_TYPE are labelled at every 3rd position from ply 8
(as `hiveai train` samples them) with the default evaluation, one process, one thread, through
the function `hiveai train` labels with. Prints one JSON line per depth: wall-clock and CPU seconds
(this process's; on a machine loaded by other work the CPU time is the figure a core of its own
would give), positions per hour on one core by each, nodes per position, and the load average,
since the machine's other work moves the wall-clock figure. Plan long labelling runs with it
(docs/network.md, "Labelling throughput"; docs/development.md, "Tools").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a dataset directory, a shard, or a hiveai train folder's games.jsonl")
    parser.add_argument("game_type", help="the game type whose games are labelled, e.g. Base+MLP")
    parser.add_argument("games", type=int, help="how many of its games (the first ones)")
    parser.add_argument("depths", type=int, nargs="+", metavar="DEPTH", help="label depths to time")
    args = parser.parse_args()
    if args.games < 1 or min(args.depths) < 1:
        parser.error("GAMES and every DEPTH must be at least 1")
    try:
        import hiveai  # noqa: F401  (the installed hiveai, or this checkout's if none is)
    except ImportError:
        sys.path.insert(0, str(REPO))
    from hiveai.durable import read_json_lines
    from hiveai.rules.board import Board
    from hiveai.training.dataset import read_dataset
    from hiveai.training.train import SAMPLE_EVERY, LabelTask, label_game

    try:
        game_type = Board(args.game_type).game_type_string
    except ValueError as e:
        sys.exit(f"label_rate: {e}")
    try:
        if args.source.name.endswith(".jsonl"):
            games = [(r["id"], r["moves"], r["result"]) for _, r in read_json_lines(args.source)
                     if r["game_type"] == game_type]
        else:
            games = [(g.game, g.moves, g.result) for g in read_dataset([args.source])[0] if g.game_type == game_type]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"label_rate: {args.source}: {e}")
    games = games[:args.games]
    if not games:
        sys.exit(f"label_rate: no game of {game_type} in {args.source}")
    first_id, first_moves, first_result = games[0]
    label_game(LabelTask("rate", first_id, game_type, tuple(first_moves[:12]), first_result, 2, 3))  # compile / load
    print(f"{len(games)} games of {game_type}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
          flush=True)
    for depth in args.depths:
        began, cpu, n, nodes = time.perf_counter(), time.process_time(), 0, 0
        for gid, moves, result in games:
            done = label_game(LabelTask("rate", gid, game_type, tuple(moves), result, depth, SAMPLE_EVERY))
            n += len(done.positions)
            nodes += sum(p[2] for p in done.positions)
        dt, dcpu = time.perf_counter() - began, time.process_time() - cpu
        if n == 0:
            print(json.dumps({"game_type": game_type, "depth": depth, "positions": 0}), flush=True)
            continue
        print(json.dumps({"game_type": game_type, "depth": depth, "positions": n, "seconds": round(dt, 1),
                          "cpu_seconds": round(dcpu, 1), "cpu_ms_each": round(dcpu / n * 1000, 1),
                          "per_hour_per_core_cpu": round(3600 * n / max(dcpu, 1e-9)),
                          "per_hour_wall": round(3600 * n / max(dt, 1e-9)), "nodes_each": round(nodes / n),
                          "load": round(os.getloadavg()[0], 2)}), flush=True)


if __name__ == "__main__":
    main()
