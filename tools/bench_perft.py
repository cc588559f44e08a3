#!/usr/bin/env python3
"""Perft speed, numba compile time and start-up time, as a small table.

    python tools/bench_perft.py            # Base perft 6, Base+MLP perft 5, 32 random positions at depth 3
    python tools/bench_perft.py --quick    # Base perft 5, Base+MLP perft 4, random positions at depth 2
    python tools/bench_perft.py --compare OLD/bin/python NEW/bin/python --runs 5

``--compare`` times two (or more) installed builds against each other, each
interpreter importing its own ``hiveai``: Base perft 7 from the empty board,
and perft 4 summed over the bench's standard mid-game positions
(hiveai.search.bench), in alternating runs (A B A B ...) so that a change in the
machine's load hits both alike. It prints each build's median and range of
wall-clock and CPU seconds (CPU time is the steadier figure on a shared
machine: it leaves out the time spent waiting for a core) and stops with an
error if two builds count different leaves.

Every perft figure is single-threaded and measured after a warm-up call, so
compile time is excluded. Compile time is measured in a subprocess with
NUMBA_CACHE_DIR pointing at a fresh empty directory (``import hiveai.rules.board``
plus ``warmup()``); start-up time is a subprocess with a warm cache doing
``import hiveai.rules.board`` and a first ``perft(1)``, timed from outside (so it
includes the interpreter's own start-up).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "perft"

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # single-threaded figures

COMPILE_SNIPPET = "import hiveai.rules.board as hb; hb.warmup()"
STARTUP_SNIPPET = "from hiveai.rules.board import Board; Board('Base').perft(1)"


def _import_hiveai() -> None:
    """Use the installed hiveai, or this checkout's if none is installed."""
    try:
        import hiveai  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(ROOT))


def _read_reference() -> dict[tuple[str, int], int]:
    """Every (GameString, depth) -> leaves row of the reference tables."""
    table = {}
    for path in DATA.glob("*.tsv"):
        for line in path.read_text().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            g, d, n = line.split("\t")
            table[(g, int(d))] = int(n)
    return table


REFERENCE = _read_reference()


def reference(game_string: str, depth: int) -> int | None:
    """The reference leaf count for a GameString and depth, if the data has it."""
    return REFERENCE.get((game_string, depth))


def random_positions() -> list[str]:
    """The distinct GameStrings of random_positions.tsv, in file order."""
    return list(dict.fromkeys(g for g, _ in REFERENCE if "NotStarted" not in g))


def time_perft(boards, depth: int, repeat: int) -> tuple[int, float]:
    """Total leaves of perft(depth) over ``boards`` and the best of ``repeat`` timings.

    Best-of, not mean: on a shared machine the fastest run is the one least
    disturbed by other processes.
    """
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        leaves = sum(b.perft(depth) for b in boards)
        best = min(best, time.perf_counter() - start)
    return leaves, best


def run_subprocess(code: str, env: dict[str, str]) -> float:
    """Wall-clock seconds of ``python -c code``; raises if it fails."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=ROOT)
    return time.perf_counter() - start


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    # Import hiveai from this checkout even if it is not installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.update(extra)
    return env


# Run by each build's interpreter in --compare: perft from the empty board and
# over the given mid-game GameStrings, after a warm-up, as one JSON line.
COMPARE_SNIPPET = """
import json, sys, time
from hiveai.rules.board import Board
game_type, start_depth, mid_depth, games = json.loads(sys.argv[1])
start = Board(game_type)
mids = [Board.from_game_string(g) for g in games]
for b in [start, *mids]:
    b.perft(2)
out = {}
for name, boards, depth in (("start", [start], start_depth), ("mid", mids, mid_depth)):
    t, c = time.perf_counter(), time.process_time()
    leaves = sum(b.perft(depth) for b in boards)
    out[name] = [leaves, time.perf_counter() - t, time.process_time() - c]
print(json.dumps(out))
"""


def compare(pythons: list[str], runs: int, start_depth: int, mid_depth: int) -> int:
    """Alternating runs of COMPARE_SNIPPET under each interpreter; prints medians and ranges."""
    import json
    import statistics

    _import_hiveai()
    from hiveai.search.bench import POSITIONS

    games = [p.game for p in POSITIONS if p.midgame and "Critters" not in p.game]
    arg = json.dumps(["Base", start_depth, mid_depth, games])
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    leaves: dict[str, set[int]] = {"start": set(), "mid": set()}
    for run in range(runs):
        for python in pythons:
            done = subprocess.run([python, "-c", COMPARE_SNIPPET, arg], capture_output=True, text=True,
                                  cwd=tempfile.gettempdir())  # not ROOT: each build imports its own hiveai
            if done.returncode != 0:
                sys.exit(f"{python} failed:\n{done.stderr}")
            for name, (n, wall, cpu) in json.loads(done.stdout).items():
                leaves[name].add(n)
                times.setdefault((python, name), []).append((wall, cpu))
            print(f"run {run + 1}/{runs} {python}: " + "  ".join(
                f"{name} {w:.3f} s wall {c:.3f} s cpu" for (py, name), v in times.items() if py == python
                for w, c in v[-1:]), flush=True)
    for name, counts in leaves.items():
        if len(counts) != 1:
            print(f"builds disagree on the {name} leaf count: {sorted(counts)}")
            return 1
    print(f"\nBase perft {start_depth} from the empty board: {leaves['start'].pop():,} leaves; "
          f"perft {mid_depth} over {len(games)} mid-game positions: {leaves['mid'].pop():,} leaves")
    for name in ("start", "mid"):
        for python in pythons:
            wall = [w for w, _ in times[(python, name)]]
            cpu = [c for _, c in times[(python, name)]]
            print(f"{name:5}  {python}: wall median {statistics.median(wall):.3f} s "
                  f"({min(wall):.3f}-{max(wall):.3f}), cpu median {statistics.median(cpu):.3f} s "
                  f"({min(cpu):.3f}-{max(cpu):.3f})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller depths (seconds instead of a minute)")
    parser.add_argument("--no-compile", action="store_true", help="skip the compile and start-up subprocesses")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per benchmark; the best is shown")
    parser.add_argument("--compare", nargs="+", metavar="PYTHON",
                        help="time these interpreters' installed hiveai against each other, alternating")
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds for --compare")
    parser.add_argument("--start-depth", type=int, default=7, help="--compare: Base perft depth from the empty board")
    parser.add_argument("--mid-depth", type=int, default=4, help="--compare: perft depth on the mid-game positions")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args.compare, max(1, args.runs), args.start_depth, args.mid_depth)

    _import_hiveai()
    from hiveai.rules.board import Board

    base_depth, mlp_depth, random_depth = (5, 4, 2) if args.quick else (6, 5, 3)

    # Warm-up: load or compile every kernel before timing anything.
    t0 = time.perf_counter()
    Board("Base+MLP").perft(3)
    warm = time.perf_counter() - t0

    rows: list[tuple[str, str, str, str, str]] = []

    def perft_row(label: str, boards, depth: int, expected: int | None) -> None:
        leaves, seconds = time_perft(boards, depth, max(1, args.repeat))
        check = "" if expected is None else ("ok" if leaves == expected else f"WRONG (expected {expected:,})")
        rows.append((label, f"{leaves:,}", f"{seconds:.3f}", f"{leaves / seconds:,.0f}" if seconds else "-", check))

    for game_type, depth in (("Base", base_depth), ("Base+MLP", mlp_depth)):
        start = f"{game_type};NotStarted;White[1]"
        perft_row(f"{game_type} perft {depth}", [Board(game_type)], depth, reference(start, depth))

    strings = random_positions()
    boards = [Board.from_game_string(g) for g in strings]
    expected = [reference(g, random_depth) for g in strings]
    perft_row(
        f"{len(boards)} random positions, perft {random_depth}",
        boards,
        random_depth,
        None if None in expected else sum(expected),
    )

    extra: list[tuple[str, str]] = [("warm-up call in this process (cache load)", f"{warm:.2f} s")]
    if not args.no_compile:
        with tempfile.TemporaryDirectory(prefix="hiveai-numba-cache-") as cache:
            env = subprocess_env(NUMBA_CACHE_DIR=cache)
            compile_s = run_subprocess(COMPILE_SNIPPET, env)
            extra.append(("numba compile, empty cache (import + warmup)", f"{compile_s:.1f} s"))
            # Same fresh cache, now filled: start-up with a warm cache.
            run_subprocess(STARTUP_SNIPPET, env)  # fill anything warmup did not touch
            startup = min(run_subprocess(STARTUP_SNIPPET, env) for _ in range(3))
            extra.append(("start-up, warm cache (python + import + perft(1))", f"{startup:.2f} s"))

    import platform

    import numba

    print(f"hiveai perft benchmark  python {platform.python_version()}  numba {numba.__version__}  "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS')}{'  (quick)' if args.quick else ''}")
    header = ("benchmark", "leaves", "seconds", "leaves/s", "check")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.rjust(w) if 0 < i < 4 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    print()
    width = max(len(k) for k, _ in extra)
    for k, v in extra:
        print(f"{k.ljust(width)}  {v}")
    return 0 if all("WRONG" not in r[4] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
