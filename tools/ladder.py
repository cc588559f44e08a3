#!/usr/bin/env python3
"""The strength ladder: hiveai against nokamute, one table.

    python tools/ladder.py --nokamute /path/to/nokamute [--games 20] [--time 1] [--out ladder]

Plays each rung with ``hiveai tournament`` (so every game is refereed, saved
and resumable), then prints one table. hiveai runs as a new user would run it
(default options, opening book on) at ``--time`` seconds a move; nokamute
(https://github.com/edre/nokamute, the Hive website's bots) runs on one thread
(``nokamute uhp --num-threads=1``) either at a fixed depth (the website's
"easy" bot searches depth 2, "medium" depth 4, "hard" depth 7) or at the same
time per move. Depth 7 is played in Base only: in Base+MLP mid-games nokamute
took over a minute per move at that depth on one thread.

nokamute accepts whole seconds only in ``bestmove time``, so ``--time`` must be
a whole number for the equal-time rungs. The machine should be otherwise idle:
timed games are only fair on quiet cores. ``--concurrency 2`` plays one game
per core on a 2-core machine. Rerunning the same command resumes: finished
games are kept.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

from hiveai.search.timeman import format_timespan
from hiveai.tournament.standings import tallies

# (rung name, nokamute's bestmove arguments or None for hiveai's own time, game types)
RUNGS = {
    "d2": ("depth 2", ("Base", "Base+MLP")),
    "d4": ("depth 4", ("Base", "Base+MLP")),
    "d7": ("depth 7", ("Base",)),
    "time": (None, ("Base", "Base+MLP")),
}


def rung_command(rung: str, game_type: str, args: argparse.Namespace, out: Path) -> list[str]:
    """The ``hiveai tournament`` command line of one rung."""
    nk_go, _ = RUNGS[rung]
    nk_go = nk_go or f"time {format_timespan(args.time)}"
    cmd = [sys.executable, "-m", "hiveai", "tournament",
           "--engine", "hiveai=hiveai", "--engine", f"nokamute={shlex.quote(args.nokamute)} uhp --num-threads=1",
           "--go", f"hiveai:time {format_timespan(args.time)}",
           "--go", f"nokamute:{nk_go}",
           "--game-type", game_type, "--games", str(args.games), "--random-plies", str(args.random_plies),
           "--seed", str(args.seed), "--concurrency", str(args.concurrency), "--out", str(out)]
    for opt in args.option:
        cmd += ["--option", f"hiveai:{opt}"]
    if (out / "games.jsonl").exists():
        cmd.append("--resume")
    return cmd


def summary(out: Path) -> dict | None:
    """hiveai's results in one rung's output, or None if it has no games."""
    path = out / "games.jsonl"
    if not path.exists():
        return None
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if not records:
        return None
    engines, _ = tallies(records, ["hiveai", "nokamute"])
    t = engines["hiveai"]
    elo = t.pair_elo() if sum(t.pentanomial) else t.elo()
    forfeits = {name: sum(1 for r in records if r.get("forfeit") == name) for name in ("hiveai", "nokamute")}
    repetitions = sum(1 for r in records if "repetition" in r.get("reason", "") or "declared" in r.get("reason", ""))
    return {"games": t.games, "w": t.wins, "d": t.draws, "l": t.losses, "score": t.points / t.games,
            "elo": elo, "ptnml": t.pentanomial, "forfeits": forfeits, "repetitions": repetitions}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nokamute", required=True, help="path of the nokamute binary")
    ap.add_argument("--games", type=int, default=20, help="games per rung and game type (default 20)")
    ap.add_argument("--time", type=float, default=1.0, help="hiveai's seconds per move (default 1)")
    ap.add_argument("--rungs", default="d2,d4,d7,time", help="comma-separated subset of " + ",".join(RUNGS))
    ap.add_argument("--game-types", default="Base,Base+MLP", help="comma-separated game types to play")
    ap.add_argument("--random-plies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], help="OPT=VALUE for hiveai (repeat)")
    ap.add_argument("--out", default="ladder", help="folder for the rungs' tournament output")
    ap.add_argument("--report-only", action="store_true", help="print the table of what was played")
    args = ap.parse_args()
    rungs = [r.strip() for r in args.rungs.split(",") if r.strip()]
    types = [t.strip() for t in args.game_types.split(",") if t.strip()]
    unknown = [r for r in rungs if r not in RUNGS]
    if unknown:
        ap.error(f"unknown rung {', '.join(unknown)}; the rungs are {', '.join(RUNGS)}")
    if "time" in rungs and args.time != int(args.time):
        ap.error("nokamute takes whole seconds only: give --time as a whole number for the equal-time rung")
    rows = []
    for rung in rungs:
        for game_type in types:
            if game_type not in RUNGS[rung][1]:
                continue
            out = Path(args.out) / f"{rung}-{game_type.replace('+', '')}"
            cmd = rung_command(rung, game_type, args, out)
            if not args.report_only:
                print("$", shlex.join(cmd), file=sys.stderr, flush=True)
                done = subprocess.run(cmd)
                if done.returncode != 0:
                    print(f"{rung} {game_type}: tournament exited {done.returncode}", file=sys.stderr)
            rows.append((rung, game_type, summary(out)))
    nk = {"d2": "nokamute depth 2", "d4": "nokamute depth 4", "d7": "nokamute depth 7",
          "time": f"nokamute {args.time:g} s/move"}
    print("| opponent | game type | games | + | = | - | hiveai score | Elo +- 95 % | pairs LL LD WL+DD WD WW "
          "| forfeits hiveai/nokamute | repetition draws |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | ---: |")
    for rung, game_type, s in rows:
        if s is None:
            print(f"| {nk[rung]} | {game_type} | 0 | | | | | | | | |")
            continue
        e = s["elo"]
        print(f"| {nk[rung]} | {game_type} | {s['games']} | {s['w']} | {s['d']} | {s['l']} | "
              f"{100 * s['score']:.1f} % | {e.elo:+.0f} +- {e.error:.0f} | {' '.join(map(str, s['ptnml']))} | "
              f"{s['forfeits']['hiveai']}/{s['forfeits']['nokamute']} | {s['repetitions']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
