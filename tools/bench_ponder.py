"""What pondering gains, and how fast commands answer while it runs (prints figures, asserts nothing).

    python tools/bench_ponder.py [--idle S] [--move-time T] [--threads N] [--positions N]

For each mid-game bench position (the first ``--positions``), two fresh engines (opening book off,
``NumThreads`` N) do the same: ``bestmove depth 3`` (our move and the PV's
predicted reply), ``play`` our move, wait ``--idle`` seconds (the opponent
thinking), ``play`` the predicted reply, then ``bestmove time T``. One has
``PonderDuringIdle`` Disabled, the other SingleThreaded or MultiThreaded
(N > 1). Printed: the depth each final search reached (from the
intermediate lines); the round trip of a ``validmoves`` sent during the idle
time (it runs beside the ponder search) against the same command idle; and,
1 s after the final search, the round trip of an ``options set``, which
stops the ponder search before it runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_uhp import start_engine

from hiveai.search.bench import POSITIONS


def depth_after(game: str, ponder: str, idle: float, move_time: str, threads: int) -> tuple[int, float, float]:
    """Depth of ``bestmove time`` after a ponder hit; round trips of a validmoves
    sent while pondering and of an options set that stops the ponder search."""
    p = start_engine()
    for option in ("UseBook False", "ReportIntermediateBestMoves True", f"PonderDuringIdle {ponder}",
                   f"NumThreads {threads}"):
        p.command(f"options set {option}")
    p.command(f"newgame {game}")
    lines = p.command("bestmove depth 3")
    move, pv = lines[-1], lines[-2].split(";")[3:]
    p.command(f"play {move}")
    time.sleep(idle / 2)
    start = time.perf_counter()
    p.command("validmoves")
    beside = time.perf_counter() - start
    time.sleep(idle / 2)
    if len(pv) > 1:
        p.command(f"play {pv[1]}")
    lines = p.command(f"bestmove time {move_time}")
    time.sleep(1.0)  # pondering the next position
    start = time.perf_counter()
    p.command("options set LogLevel Warning")
    stopping = time.perf_counter() - start
    p.close()
    return int(lines[-2].split(";")[1]) if len(lines) > 1 else 0, beside, stopping


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=float, default=2.0, help="seconds between the reply and bestmove")
    parser.add_argument("--move-time", default="00:00:00.5")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--positions", type=int, default=7, help="how many of the 7 mid-game bench positions")
    args = parser.parse_args()
    mode = "SingleThreaded" if args.threads == 1 else "MultiThreaded"
    print(f"bestmove time {args.move_time} after a ponder hit, {args.idle:g} s idle, {args.threads} thread(s)")
    print(f"{'position':<20} {'depth off':>9} {'depth on':>9}  {'validmoves idle':>15} {'while pondering':>15}"
          f" {'options set idle':>16} {'while pondering':>15}")
    gains, trips = [], {key: [] for key in ("validmoves, pondering off", "validmoves while pondering",
                                          "options set, pondering off", "options set while pondering (stops it)")}
    for position in [p for p in POSITIONS if p.midgame][:args.positions]:
        off, beside_idle, stopping_idle = depth_after(position.game, "Disabled", args.idle, args.move_time,
                                                      args.threads)
        on, beside, stopping = depth_after(position.game, mode, args.idle, args.move_time, args.threads)
        gains.append(on - off)
        for key, value in zip(trips, (beside_idle, beside, stopping_idle, stopping)):
            trips[key].append(value * 1000)
        print(f"{position.name:<20} {off:>9} {on:>9}  {beside_idle * 1000:>12.1f} ms {beside * 1000:>12.1f} ms"
              f" {stopping_idle * 1000:>13.1f} ms {stopping * 1000:>12.1f} ms")
    print(f"mean depth gain {statistics.mean(gains):+.2f} plies (min {min(gains):+d}), "
          f"{sum(g >= 1 for g in gains)} of {len(gains)} positions at least one ply deeper")
    for key, values in trips.items():
        print(f"round trip, {key}: median {statistics.median(values):.1f} ms, max {max(values):.1f} ms")


if __name__ == "__main__":
    main()
