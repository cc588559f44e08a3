"""Lazy SMP on the bench positions: what a second thread saves the main one (prints figures, asserts nothing).

    python tools/bench_threads.py [--runs N] [--threads T] [--depth-offset D]

Each bench position is searched to its bench depth by a fresh one-thread
Searcher and by a fresh T-thread one (default 2). Printed per run: the nodes
the one thread needed, the nodes the *main* thread needed with helpers
filling the shared table (the answer comes from it, so on free cores its
nodes set the time to depth), all threads' nodes, and the wall-clock time of
both. On a machine shared with other work the times say little; the
main-thread node ratio does not depend on the clock, only on how the threads
interleave.
"""

from __future__ import annotations

import argparse
import time

from hiveai.search.bench import BENCH_TT_MB, POSITIONS
from hiveai.rules.board import Board
from hiveai.search.searcher import CTL_NODES, Searcher, warmup
from hiveai.search.timeman import Limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--depth-offset", type=int, default=0, help="plies added to each bench depth (at least 1)")
    args = parser.parse_args()
    warmup()
    boards = [(Board.parse(p.game), max(1, p.depth + args.depth_offset)) for p in POSITIONS]
    for run in range(1, args.runs + 1):
        one = main_nodes = total = 0
        t_one = t_many = 0.0
        for board, depth in boards:
            single = Searcher(tt_mb=BENCH_TT_MB, threads=1)
            start = time.perf_counter()
            single.search(board, Limit(depth=depth))
            t_one += time.perf_counter() - start
            one += int(single.ctl[CTL_NODES])
            many = Searcher(tt_mb=BENCH_TT_MB, threads=args.threads)
            start = time.perf_counter()
            result = many.search(board, Limit(depth=depth))
            t_many += time.perf_counter() - start
            main_nodes += int(many.ctl[CTL_NODES])
            total += result.nodes
        print(f"run {run}: 1 thread {one:,} nodes in {t_one:.2f} s; {args.threads} threads: main thread "
              f"{main_nodes:,} nodes ({main_nodes / one:.2f}x), all threads {total:,}, in {t_many:.2f} s "
              f"({t_one / t_many:.2f}x faster)")


if __name__ == "__main__":
    main()
