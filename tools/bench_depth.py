"""Time to a fixed depth over UHP, hiveai against nokamute, runs alternating
(prints figures, asserts nothing).

    python tools/bench_depth.py --nokamute PATH [--position "Base+MLP mid-game"] [--depth 6] [--runs 5]
        [--eval-file FILE]

Each run starts a fresh process of each engine (hiveai: book off, one thread,
64 MB table; nokamute: ``uhp --num-threads=1``), waits for its banner, sends
``newgame`` with a bench position (``hiveai bench``), pauses a second so
hiveai's background warm-up is done, then times ``bestmove depth D`` at the
client, from writing the command to reading its ``ok``. The engines take turns,
so both see the same machine. nokamute's times here vary run to run more than
hiveai's, so compare the medians as well as the ranges.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_uhp import start_engine  # tools/ is the script's own folder

from hiveai.search.bench import POSITIONS

HIVEAI_OPTIONS = ["UseBook False", "NumThreads 1", "TranspositionTableSizeMB 64"]


def timed_depth(command: list[str] | None, options: list[str], game: str, depth: int) -> tuple[float, str]:
    """Seconds for ``bestmove depth`` in a fresh engine, and the move it gave."""
    engine = start_engine(command)
    try:
        for option in options:
            engine.command(f"options set {option}")
        engine.command(f"newgame {game}")
        time.sleep(1.0)
        start = time.perf_counter()
        reply = engine.command(f"bestmove depth {depth}")
        return time.perf_counter() - start, reply[-1]
    finally:
        engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nokamute", required=True, help="path of the nokamute binary")
    parser.add_argument("--position", default="Base+MLP mid-game", help="a bench position's name")
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--eval-file", help="hiveai's EvalFile (default: its built-in evaluation)")
    args = parser.parse_args()
    names = {p.name: p for p in POSITIONS}
    if args.position not in names:
        parser.error(f"no bench position '{args.position}'; one of: {', '.join(names)}")
    game = names[args.position].game
    options = HIVEAI_OPTIONS + ([f"EvalFile {args.eval_file}"] if args.eval_file else [])
    ours, theirs = [], []
    for run in range(1, args.runs + 1):
        a, move_a = timed_depth(None, options, game, args.depth)
        b, move_b = timed_depth([args.nokamute, "uhp", "--num-threads=1"], [], game, args.depth)
        ours.append(a)
        theirs.append(b)
        print(f"run {run}: hiveai {a:.3f} s ({move_a})  nokamute {b:.3f} s ({move_b})", flush=True)
    for name, times in (("hiveai", ours), ("nokamute", theirs)):
        print(f"{name}: {min(times):.3f}-{max(times):.3f} s, median {statistics.median(times):.3f} s")
    faster = sum(a < b for a, b in zip(ours, theirs))
    print(f"{args.position} to depth {args.depth}: hiveai faster in {faster} of {args.runs} runs")


if __name__ == "__main__":
    main()
