"""Positions an hour one core labels (hiveai.training.train.label_game), at each depth asked.

    python tools/label_rate.py SOURCE GAME_TYPE GAMES DEPTH...

SOURCE: a dataset (directory or shard: its games, relabelled) or a `hiveai train` folder's
games.jsonl. The first GAMES games of GAME_TYPE are labelled at every 3rd position from ply 8
(as `hiveai train` samples them) with the default evaluation, one process, one thread. Prints
one line per depth: wall-clock and CPU seconds (this process's; on a machine loaded by other work the
CPU time is the figure a core of its own would give), positions per hour on one core by each, and
the load average, since the machine's other work moves the wall-clock figure.
"""
import json
import os
import sys
import time
from pathlib import Path

from hiveai.durable import read_json_lines
from hiveai.training.dataset import read_dataset
from hiveai.training.train import SAMPLE_EVERY, LabelTask, label_game

source, game_type, n_games, depths = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), [int(d) for d in sys.argv[4:]]
if source.name.endswith(".jsonl") and not source.name.endswith(".jsonl.gz"):
    games = [(r["id"], r["moves"], r["result"]) for _, r in read_json_lines(source) if r["game_type"] == game_type]
else:
    games = [(g.game, g.moves, g.result) for g in read_dataset([source])[0] if g.game_type == game_type]
games = games[:n_games]
first_id, first_moves, first_result = games[0]
label_game(LabelTask("rate", first_id, game_type, tuple(first_moves[:12]), first_result, 2, 3))  # compile / load
print(f"{len(games)} games of {game_type}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores",
      flush=True)
for depth in depths:
    began, cpu, n, nodes = time.perf_counter(), time.process_time(), 0, 0
    for gid, moves, result in games:
        done = label_game(LabelTask("rate", gid, game_type, tuple(moves), result, depth, SAMPLE_EVERY))
        n += len(done.positions)
        nodes += sum(p[2] for p in done.positions)
    dt, dcpu = time.perf_counter() - began, time.process_time() - cpu
    print(json.dumps({"game_type": game_type, "depth": depth, "positions": n, "seconds": round(dt, 1),
                      "cpu_seconds": round(dcpu, 1), "cpu_ms_each": round(dcpu / n * 1000, 1),
                      "per_hour_per_core_cpu": round(3600 * n / dcpu), "per_hour_wall": round(3600 * n / dt),
                      "nodes_each": round(nodes / n), "load": round(os.getloadavg()[0], 2)}), flush=True)
