"""Time ``hiveai convert`` on a folder of real games (the 1,000-game floor in docs/records.md).

Fills a temporary folder with COUNT boardspace SGF files, the real games of
tests/data/records/boardspace (from Mzinga's test assets) copied over and over,
then runs the command as a user would (a fresh process: start-up and numba's
cache load included) and prints games, plies and seconds.

    python tools/bench_convert.py [--count 1000] [--to pgn] [--repeat 3]

The floor: 1,000 games in under 30 s. Wall-clock, so on a shared machine run
it when it is quiet, or say how loaded it was.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted((REPO / "tests" / "data" / "records" / "boardspace").glob("*.sgf"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="games in the folder")
    parser.add_argument("--to", default="pgn", choices=["pgn", "hivegame", "gamestring", "sgf"])
    parser.add_argument("--repeat", type=int, default=3, help="runs (the best and every time are printed)")
    args = parser.parse_args()
    try:
        import hiveai  # noqa: F401  (the installed hiveai, or this checkout's if none is)
    except ImportError:
        sys.path.insert(0, str(REPO))
    from hiveai.records import read_game

    plies = {p: len(read_game(p).moves) for p in SOURCES}
    with tempfile.TemporaryDirectory(prefix="hiveai-convert-") as tmp:
        games, out = Path(tmp) / "games", Path(tmp) / "out"
        games.mkdir()
        total = 0
        for i in range(args.count):
            src = SOURCES[i % len(SOURCES)]
            shutil.copy(src, games / f"{i:05d}-{src.name}")
            total += plies[src]
        times = []
        for _ in range(args.repeat):
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            start = time.perf_counter()
            run = subprocess.run([sys.executable, "-m", "hiveai", "convert", str(games), "--to", args.to,
                                  "-o", str(out)], capture_output=True, text=True, cwd=REPO)
            times.append(time.perf_counter() - start)
            if run.returncode != 0:
                sys.exit(f"hiveai convert failed ({run.returncode}):\n{run.stderr}")
        written = len(list(out.iterdir()))
    print(f"{args.count} games ({total} plies, {total / args.count:.1f} a game) -> {written} {args.to} files")
    print(f"best {min(times):.2f} s, runs {', '.join(f'{t:.2f}' for t in times)} s "
          f"({args.count / min(times):.0f} games/s); load average {os.getloadavg()[0]:.2f}")
    print(run.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
