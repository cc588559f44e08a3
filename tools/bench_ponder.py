"""What pondering gains, and how fast a command stops it (prints figures, asserts nothing).

    python tools/bench_ponder.py [--idle S] [--move-time T] [--threads N]

For each mid-game bench position, two fresh engines (opening book off,
``NumThreads`` N) do the same: ``bestmove depth 3`` (our move and the PV's
predicted reply), ``play`` both moves, wait ``--idle`` seconds (the opponent
thinking), then ``bestmove time T``. One has ``PonderDuringIdle`` Disabled,
the other SingleThreaded or MultiThreaded (N > 1). Printed: the depth each
final search reached (from the intermediate lines) and, while pondering, the
round trip of ``validmoves`` (the command stops the ponder search first)
against the same command idle.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_uhp import Pipe

from hiveai.bench import POSITIONS


def depth_after(game: str, ponder: str, idle: float, move_time: str, threads: int) -> tuple[int, float]:
    """Depth of ``bestmove time`` after a ponder hit; round trip of a validmoves sent while pondering."""
    p = Pipe()
    p.reply()
    for option in ("UseBook False", "ReportIntermediateBestMoves True", f"PonderDuringIdle {ponder}",
                   f"NumThreads {threads}"):
        p.cmd(f"options set {option}")
    p.cmd(f"newgame {game}")
    lines = p.cmd("bestmove depth 3")
    move, pv = lines[-1], lines[-2].split(";")[3:]
    p.cmd(f"play {move}")
    if len(pv) > 1:
        p.cmd(f"play {pv[1]}")
    time.sleep(idle)
    start = time.perf_counter()
    p.cmd("validmoves")
    round_trip = time.perf_counter() - start
    time.sleep(0.2)  # pondering again after validmoves
    lines = p.cmd(f"bestmove time {move_time}")
    p.close()
    return int(lines[-2].split(";")[1]) if len(lines) > 1 else 0, round_trip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--idle", type=float, default=2.0, help="seconds between the reply and bestmove")
    parser.add_argument("--move-time", default="00:00:00.5")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    mode = "SingleThreaded" if args.threads == 1 else "MultiThreaded"
    print(f"bestmove time {args.move_time} after a ponder hit, {args.idle:g} s idle, {args.threads} thread(s)")
    print(f"{'position':<20} {'depth off':>9} {'depth on':>9}  {'validmoves idle':>15} {'while pondering':>15}")
    gains, idle_trips, ponder_trips = [], [], []
    for position in POSITIONS:
        if not position.midgame:
            continue
        off, t_off = depth_after(position.game, "Disabled", args.idle, args.move_time, args.threads)
        on, t_on = depth_after(position.game, mode, args.idle, args.move_time, args.threads)
        gains.append(on - off)
        idle_trips.append(t_off)
        ponder_trips.append(t_on)
        print(f"{position.name:<20} {off:>9} {on:>9}  {t_off * 1000:>12.1f} ms {t_on * 1000:>12.1f} ms")
    print(f"mean depth gain {statistics.mean(gains):+.2f} plies (min {min(gains):+d}); validmoves round trip "
          f"median {statistics.median(idle_trips) * 1000:.1f} ms idle, "
          f"{statistics.median(ponder_trips) * 1000:.1f} ms while pondering (max {max(ponder_trips) * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
