"""Time to label a position (hiveai.training.train.label_game) at each depth asked, on the
games of a `hiveai train` folder: `python tools/label_rate.py DIR 3 4 5`."""
import json
import sys
import time
from pathlib import Path

from hiveai.training.train import LabelTask, label_game

records = [json.loads(line) for line in (Path(sys.argv[1]) / "games.jsonl").read_text().splitlines()][:3]
first = records[0]
label_game(LabelTask(first["id"], first["game_type"], tuple(first["moves"][:12]), 2, 3))  # compile / load
for depth in map(int, sys.argv[2:]):
    began, n = time.perf_counter(), 0
    for r in records:
        n += len(label_game(LabelTask(r["id"], r["game_type"], tuple(r["moves"]), depth, 4))["labels"])
    dt = time.perf_counter() - began
    print(f"depth {depth}: {n} positions in {dt:.1f} s = {dt / n * 1000:.0f} ms each, "
          f"{3600 * n / dt:.0f}/h on one core", flush=True)
