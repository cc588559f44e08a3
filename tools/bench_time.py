"""How much of a ``bestmove time`` budget the engine spends, and how deep its first move goes
(prints figures, asserts nothing).

    python tools/bench_time.py [--budgets 1,5] [--rounds 2] [--positions N]

* time use: a warm engine (book off) answers ``bestmove time T`` on each of the
  bench's mid-game positions (``hiveai bench``), after a ``newgame`` with that
  position; each reply is timed at the client, from writing the command to
  reading its ``ok``. Targets: at least 0.85 T on average, never more than
  T + 50 ms.
* first move: a fresh process is sent ``newgame <position>`` and
  ``bestmove time 00:00:01`` at once (the Hive website's bridge starts one process
  per move); the depth it reaches (``ReportIntermediateBestMoves``) is set
  against the same command later in the process, after another ``newgame``.
  Target: at most one ply less.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_uhp import start_engine  # tools/ is the script's own folder

from hiveai.search.bench import POSITIONS
from hiveai.engine import UhpEngine
from hiveai.search.timeman import format_timespan


def timed(p: UhpEngine, command: str) -> tuple[float, list[str]]:
    start = time.perf_counter()
    reply = p.command(command)
    return time.perf_counter() - start, reply


def depth_of(reply: list[str]) -> int:
    """Depth of the last intermediate ``move;depth;score;pv`` line (0 if none)."""
    depths = [int(line.split(";")[1]) for line in reply if line.count(";") >= 2]
    return max(depths, default=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budgets", default="1,5", help="seconds per move, comma-separated")
    ap.add_argument("--rounds", type=int, default=1, help="passes over the positions per budget")
    ap.add_argument("--positions", type=int, default=7, help="how many of the 7 mid-game bench positions")
    args = ap.parse_args()
    midgame = [pos for pos in POSITIONS if pos.midgame][:args.positions]
    print(f"python {sys.version.split()[0]}; {len(midgame)} mid-game positions of hiveai bench")

    p = start_engine()
    p.command("options set UseBook False")
    p.command("options set ReportIntermediateBestMoves True")
    p.command(f"newgame {midgame[0].game}")
    p.command("bestmove depth 1")  # warm
    for budget in (float(b) for b in args.budgets.split(",")):
        times, depths = [], []
        for _ in range(args.rounds):
            for pos in midgame:
                p.command(f"newgame {pos.game}")
                took, reply = timed(p, f"bestmove time {format_timespan(budget)}")
                times.append(took)
                depths.append(depth_of(reply))
        print(f"bestmove time {budget:g} s: mean {statistics.mean(times):.3f} s "
              f"({statistics.mean(times) / budget:.0%} of the budget), min {min(times):.3f} s, "
              f"max {max(times):.3f} s, depths {depths}")
    p.close()

    first, later = [], []
    for pos in midgame:
        q = start_engine()
        q.command("options set UseBook False")
        q.command("options set ReportIntermediateBestMoves True")
        q.command(f"newgame {pos.game}")
        first.append(depth_of(q.command("bestmove time 00:00:01")))
        q.command(f"newgame {pos.game}")
        later.append(depth_of(q.command("bestmove time 00:00:01")))
        q.close()
    print(f"first move of a process, bestmove time 1 s: depths {first}; later in the process: {later}; "
          f"largest shortfall {max(b - a for a, b in zip(first, later))} ply")


if __name__ == "__main__":
    main()
