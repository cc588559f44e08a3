"""Start-up and responsiveness figures of the UHP engine (prints figures, asserts nothing).

    python tools/bench_uhp.py [--runs N] [--positions N]

* banner: time from spawning ``python -m hiveai`` to the ``ok`` of its info block.
* bot bridge (hive-hydra's pattern, docs/protocol-notes.md "Bot bridges"): spawn, write
  ``newgame <GameString>`` and ``bestmove depth 1``, close stdin, wait for the
  exit. Measured after a warm-up run, so numba's cache is warm.
* validmoves: round trip of ``validmoves`` over the pipe on mid-game Base+MLP
  positions reached by seeded random play, plus ``bestmove depth 1``.
* timed moves: one engine plays a whole game against itself with
  ``bestmove time 00:00:01`` (the hive-hydra sample budget) for N consecutive
  moves (default 100), opening book off; each reply is timed at the client,
  from writing the command to reading its ``ok``. The bound: none over
  1.05 s.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from hiveai.engine import UhpEngine, popen_uhp

REPO = Path(__file__).resolve().parent.parent
ENGINE = [sys.executable, "-m", "hiveai"]
SEED = 12345
BRIDGE_GAME = ("Base+MLP;InProgress;White[5];wL;bS1 /wL;wQ wL-;bM /bS1;wA1 wQ/;bQ bM\\;"
               "wA1 bQ-;bA1 \\bM")


def start_engine(command: list[str] | None = None) -> UhpEngine:
    """``command`` (default: this repository's hiveai) as a UHP engine, its banner read.
    Replies have no deadline: a benchmark waits for whatever it measures."""
    return popen_uhp(command or ENGINE, cwd=REPO, timeout=math.inf)


def banner_latency(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        p = start_engine()  # returns once the banner's ok is read
        times.append(time.perf_counter() - start)
        p.quit()
    return times


def bot_bridge(runs: int) -> list[float]:
    times = []
    for _ in range(runs + 1):  # the first run warms the cache and is dropped
        start = time.perf_counter()
        proc = subprocess.run(ENGINE, input=f"newgame {BRIDGE_GAME}\nbestmove depth 1\n", cwd=REPO,
                              capture_output=True, text=True, timeout=600)
        times.append(time.perf_counter() - start)
        lines = proc.stdout.splitlines()
        assert proc.returncode == 0 and lines[-1] == "ok", proc.stdout
    return times[1:]


def midgame_latency(positions: int) -> tuple[list[float], list[float], list[int]]:
    rng = random.Random(SEED)
    p = start_engine()
    vm_times, bm_times, counts = [], [], []
    while len(vm_times) < positions:
        p.command("newgame Base+MLP")
        target = rng.randint(16, 40)  # mid-game: every piece type out, queens down
        ply, over = 0, False
        while ply < target:
            moves = p.command("validmoves")[0].split(";")
            state = p.command(f"play {rng.choice(moves)}")[0].split(";")[1]
            ply += 1
            if state not in ("InProgress", "NotStarted"):
                over = True
                break
        if over:
            continue
        # The last command was a play, so this validmoves is computed afresh.
        start = time.perf_counter()
        line = p.command("validmoves")[0]
        vm_times.append(time.perf_counter() - start)
        counts.append(len(line.split(";")))
        start = time.perf_counter()
        p.command("bestmove depth 1")
        bm_times.append(time.perf_counter() - start)
    p.quit()
    return vm_times, bm_times, counts


def timed_moves(moves: int, budget: str = "00:00:01") -> list[float]:
    """Client-side seconds of ``moves`` consecutive ``bestmove time`` replies in self-play."""
    p = start_engine()
    p.command("options set UseBook False")
    p.command("newgame Base+MLP")
    times: list[float] = []
    while len(times) < moves:
        start = time.perf_counter()
        reply = p.command(f"bestmove time {budget}")
        times.append(time.perf_counter() - start)
        state = p.command(f"play {reply[-1]}")[0].split(";")[1]
        if state not in ("InProgress", "NotStarted"):
            p.command("newgame Base+MLP")  # game over: go on in a new game
    p.quit()
    return times


def show(name: str, times: list[float], unit: str = "ms", scale: float = 1000.0) -> None:
    print(f"{name:<42} median {statistics.median(times) * scale:8.1f} {unit}   "
          f"mean {statistics.mean(times) * scale:8.1f} {unit}   max {max(times) * scale:8.1f} {unit}   "
          f"(n={len(times)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="process launches per start-up figure")
    ap.add_argument("--positions", type=int, default=30, help="mid-game positions for validmoves")
    ap.add_argument("--timed-moves", type=int, default=100, help="consecutive 'bestmove time 00:00:01' replies")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}; engine: {' '.join(ENGINE)}")
    show("banner (spawn -> ok of info block)", banner_latency(args.runs))
    show("bot bridge (newgame, bestmove depth 1, EOF)", bot_bridge(args.runs))
    vm, bm, counts = midgame_latency(args.positions)
    show("validmoves, mid-game Base+MLP (round trip)", vm)
    show("bestmove depth 1, same positions", bm)
    print(f"{'moves per position':<42} mean {statistics.mean(counts):8.1f}      max {max(counts)}")
    if args.timed_moves:
        timed = timed_moves(args.timed_moves)
        show("bestmove time 00:00:01 (client side)", timed, "s", 1.0)
        print(f"{'  replies over 1.05 s':<42} {sum(t > 1.05 for t in timed)}")


if __name__ == "__main__":
    main()
