#!/usr/bin/env python3
"""Calibrate the playing levels: each level against the one below, one table.

    python tools/levels.py [--games 40] [--nokamute PATH] [--out levels] [--concurrency 2]

Plays, with ``hiveai tournament`` (refereed, saved, resumable: rerun the same
command to continue), level L against level L-1 for L = 2..10, and, given
``--nokamute``, level 1 against nokamute at depth 1 (the floor: level 1 scores
under 25 %). The levels below 10 are limited by their node budgets alone
(``depth 30`` never binds), so these results do not depend on the machine's
speed or load. Level 10 is the plain search, whose strength depends on the
time it gets; here it searches a fixed depth (``--top-depth``, default 5,
about 0.2-0.5 s a move on one core) for the same reason. Openings: 4 random
plies, colours swapped, Base+MLP unless ``--game-type``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from hiveai.player import MAX_LEVEL, MIN_LEVEL
from hiveai.tournament.standings import tallies


def encounter(first: str, second: str, go: dict[str, str], options: dict[str, str], commands: dict[str, str],
              args: argparse.Namespace, out: Path) -> list[str]:
    """The ``hiveai tournament`` command line of one encounter."""
    cmd = [sys.executable, "-m", "hiveai", "tournament", "--game-type", args.game_type, "--games", str(args.games),
           "--random-plies", "4", "--seed", str(args.seed), "--concurrency", str(args.concurrency),
           "--out", str(out)]
    for name in (first, second):
        cmd += ["--engine", f"{name}={commands.get(name, 'hiveai')}", "--go", f"{name}:{go[name]}"]
        if name in options:
            cmd += ["--option", f"{name}:{options[name]}"]
    if (out / "games.jsonl").exists():
        cmd.append("--resume")
    return cmd


def row(out: Path, first: str, second: str) -> str:
    """A table row: ``first``'s results against ``second``."""
    path = out / "games.jsonl"
    records = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []
    if not records:
        return f"| {first} vs {second} | 0 | | | | | | |"
    t = tallies(records, [first, second])[0][first]
    e = t.pair_elo() if sum(t.pentanomial) else t.elo()
    return (f"| {first} vs {second} | {t.games} | {t.wins} | {t.draws} | {t.losses} | {100 * t.points / t.games:.1f} % "
            f"| {e.elo:+.0f} ± {e.error:.0f} | {' '.join(map(str, t.pentanomial))} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40, help="games per encounter (default 40)")
    ap.add_argument("--nokamute", help="path of the nokamute binary, for level 1 against its depth 1")
    ap.add_argument("--top-depth", type=int, default=5, help="level 10's fixed depth (default 5)")
    ap.add_argument("--levels", default=f"{MIN_LEVEL + 1}-{MAX_LEVEL}", help="the upper levels to play, as A-B")
    ap.add_argument("--game-type", default="Base+MLP")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--out", default="levels", help="folder for the encounters' tournament output")
    ap.add_argument("--report-only", action="store_true", help="print the table of what was played")
    args = ap.parse_args()
    low, _, high = args.levels.partition("-")
    levels = range(max(MIN_LEVEL + 1, int(low)), min(MAX_LEVEL, int(high or low)) + 1)

    def go(level: int) -> str:
        return f"depth {args.top_depth}" if level == MAX_LEVEL else "depth 30"

    plan = []
    for level in levels:
        hi, lo = f"L{level}", f"L{level - 1}"
        plan.append((hi, lo, {hi: go(level), lo: go(level - 1)}, {hi: f"Level={level}", lo: f"Level={level - 1}"},
                     {}))
    if args.nokamute:
        plan.append(("L1", "nk1", {"L1": "depth 30", "nk1": "depth 1"}, {"L1": f"Level={MIN_LEVEL}"},
                     {"nk1": f"{shlex.quote(args.nokamute)} uhp --num-threads=1"}))
    rows = []
    for first, second, gos, options, commands in plan:
        out = Path(args.out) / f"{first}-{second}"
        if not args.report_only:
            cmd = encounter(first, second, gos, options, commands, args, out)
            print("$", shlex.join(cmd), file=sys.stderr, flush=True)
            done = subprocess.run(cmd)
            if done.returncode != 0:
                print(f"{first} vs {second}: tournament exited {done.returncode}", file=sys.stderr)
        rows.append(row(out, first, second))
    print("| encounter | games | + | = | − | score | Elo ± 95 % | pairs LL LD WL+DD WD WW |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
