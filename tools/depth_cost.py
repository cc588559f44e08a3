"""Instructions per node of a fixed-depth search, and where they go (callgrind).

    python tools/depth_cost.py [--eval default|linear|FILE.hnn] [--position NAME] [--depth 6] [--none]
        [--symbols FILE]

Searches one bench position (hiveai.search.bench; default the Base+MLP mid-game)
to a depth with a fresh 64 MB table, as ``bestmove depth D`` over UHP does,
iterating 1..D by calling the search kernel directly from this thread (the
Searcher's driver polls a clock from a second thread every 2 ms, instructions
that depend on the wall time). Prints the nodes, the static evaluations and
the evaluation cache hits. ``--none`` does everything but the search.

Under callgrind, the first count minus the ``--none`` count, divided by the
nodes, is the instructions per node; numba must target a fixed CPU (valgrind
shows another CPU than the host's, and every kernel would recompile under it;
it does not run AVX-512 either), with a cache directory of its own filled by a
native run first::

    export NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,\\
+lzcnt,+mmx,+movbe,+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3,+xsave NUMBA_CACHE_DIR=/tmp/numba-haswell
    python tools/depth_cost.py --depth 2
    valgrind --tool=callgrind --callgrind-out-file=cg.out python tools/depth_cost.py --symbols syms.txt
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python tools/depth_cost.py --none

``--symbols FILE`` writes the address and name of every function of the
search kernel's compiled library (callgrind knows no names for numba's JIT
code): ``python tools/depth_cost.py --annotate cg.out syms.txt`` then prints the
instructions per node of each function (self cost), names instead of addresses.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

import numpy as np


def _search(args: argparse.Namespace) -> None:
    from hiveai.evaluation.linear import builtin_weights, weights_for
    from hiveai.evaluation.network import read_network
    from hiveai.rules.board import Board
    from hiveai.search.bench import POSITIONS
    from hiveai.search.negamax import search_root
    from hiveai.search.scratch import CTL_EVAL_HITS, CTL_EVALS, CTL_ITER_DEPTH, CTL_NODES, MAX_PLY
    from hiveai.search.searcher import SWITCH_SLOTS, Searcher
    from hiveai.search.timeman import Limit

    names = {p.name: p for p in POSITIONS}
    board = Board.parse(names[args.position].game)
    if args.eval == "linear":
        searcher = Searcher(tt_mb=64, weights=builtin_weights())
    elif args.eval == "default":
        searcher = Searcher(tt_mb=64)
    else:
        searcher = Searcher(tt_mb=64, network=read_network(args.eval))
    searcher.search(board, Limit(depth=2))  # loads the kernels
    if args.symbols:
        _write_symbols(search_root, args.symbols)
    if args.none:
        return
    # What Searcher.search sets up before its iterations, for one thread.
    searcher.clear()
    main = searcher._main
    main.new_search()
    ctl = searcher.ctl
    ctl[:] = 0
    network = searcher.network_for(board.game_type_string)
    switches = searcher.switches if network is None else searcher.network_switches
    for name, slot in SWITCH_SLOTS.items():
        ctl[slot] = switches[name]
    main.use_network(network)
    b = board.position_array.copy()
    game = np.array(board.position_hashes(), dtype=np.uint64).view(np.int64)
    path = np.zeros(len(game) + MAX_PLY + 2, dtype=np.int64)
    path[: len(game)] = game
    hp = len(game) - 1
    irrev = hp - board.plies_since_placement()
    weights = weights_for(searcher.weights, board.game_type_string)
    excl = np.zeros(0, dtype=np.int32)
    began = time.perf_counter()
    for depth in range(1, args.depth + 1):
        ctl[CTL_ITER_DEPTH] = depth
        score = search_root(b, main.ws, weights, main.net, main.moves, main.order, main.sd, path, searcher._keys,
                            searcher._data, searcher._busy, ctl, excl, np.int64(depth), np.int64(hp),
                            np.int64(irrev))
    print(f"{args.position} depth {args.depth} ({'network' if network is not None else 'linear'}): "
          f"nodes {ctl[CTL_NODES]} evals {ctl[CTL_EVALS]} eval-cache hits {ctl[CTL_EVAL_HITS]} score {score} "
          f"({time.perf_counter() - began:.3f} s)")


def _write_symbols(dispatcher, path: str) -> None:
    with open(path, "w") as out:
        for cres in dispatcher.overloads.values():
            engine = cres.library._codegen._engine
            for name in sorted(engine._defined_symbols):
                if name.startswith((".", "_ZN08NumbaEnv")):
                    continue
                try:
                    address = engine.get_function_address(name)
                except Exception:
                    continue
                if address:
                    out.write(f"{address:x} {name}\n")


def _short(name: str) -> str:
    """hiveai.rules.movegen._ant (and its literal arguments) from a mangled numba name."""
    m = re.match(r"(?:cfunc\.)?_ZN(?:7cpython)?", name)
    if not m:
        return name[:60]
    parts, s = [], name[m.end():]
    while s and s[0].isdigit():
        n = re.match(r"\d+", s).group(0)
        s = s[len(n):]
        parts.append(s[: int(n)])
        s = s[int(n):]
    lit = re.findall(r"Literal_5b(?:int|bool)_5d_28(\w+?)_29", name)
    return ".".join(parts) + (f"[{','.join(lit)}]" if lit else "")


def _annotate(cg_file: str, symbols: str, nodes: int, inclusive: bool = False) -> None:
    starts = []
    for line in open(symbols):
        a, n = line.split(maxsplit=1)
        starts.append((int(a, 16), n.strip()))
    starts.sort()
    text = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=99.9", cg_file],
                          capture_output=True, text=True, check=True).stdout
    costs: dict[str, int] = {}
    total = 0
    import bisect

    keys = [a for a, _ in starts]
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:\?\?\?:)?(\S.*)$", line)
        if not m:
            continue
        cost = int(m.group(1).replace(",", ""))
        what = m.group(2).strip()
        a = re.match(r"0x([0-9a-f]+)", what)
        if a:
            i = bisect.bisect_right(keys, int(a.group(1), 16)) - 1
            what = _short(starts[i][1]) if i >= 0 else what
        elif "[" in what:
            what = what.split(" [")[0]
        costs[what] = costs.get(what, 0) + cost
        total += cost
    for what, cost in sorted(costs.items(), key=lambda kv: -kv[1])[:40]:
        print(f"{cost / nodes:10.1f}  {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", default="default", help="default, linear or a network file")
    parser.add_argument("--position", default="Base+MLP mid-game")
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--none", action="store_true", help="everything but the search")
    parser.add_argument("--symbols", help="write the kernel's function addresses here")
    parser.add_argument("--annotate", nargs=3, metavar=("CALLGRIND_OUT", "SYMBOLS", "NODES"),
                        help="per-function instructions per node of a callgrind run")
    parser.add_argument("--inclusive", action="store_true", help="with --annotate: costs with callees")
    args = parser.parse_args()
    if args.annotate:
        _annotate(args.annotate[0], args.annotate[1], int(args.annotate[2]), args.inclusive)
        sys.exit(0)
    _search(args)


if __name__ == "__main__":
    main()
