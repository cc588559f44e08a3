"""Cost of the network evaluation's parts, per call, on leaf-like positions.

    python tools/network_cost.py [NETWORK.hnn] PART REPEATS
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python tools/network_cost.py ... 2>&1 | grep refs

Positions: each mid-game bench position (hiveai.search.bench) followed by one to
three random legal moves, 64 in all (seed 1). PART is one of PARTS below; the
compiled loop calls it REPEATS times over every position. Instruction counts
("Collected" / "I refs" from callgrind, independent of the machine's load) of
a run with REPEATS = R minus one with REPEATS = 0, divided by 64 (R + 1) (each
run calls the part once more to load it), give the instructions per call.
numba must target a fixed CPU for this (NUMBA_CPU_NAME, NUMBA_CPU_FEATURES and
a NUMBA_CACHE_DIR of its own, the same in a native run first): valgrind shows
another CPU than the host's, and every kernel would recompile under it. Without valgrind the script prints nanoseconds per
call (wall clock: noisy on a loaded machine).
"""
import random
import sys
import time

import numpy as np
from numba import njit

from hiveai.search.bench import POSITIONS
from hiveai.rules.board import Board
from hiveai.evaluation.linear import builtin_weights, evaluate_pinned, weights_for
from hiveai.evaluation.features import N_FEATURES, features_into, new_scratch
from hiveai.rules.movegen import find_pinned, generate_movements, generate_placements
from hiveai.evaluation.network import forward, kernel_net, network_score, read_network, shipped_network
from hiveai.rules.position import PLY, some_piece_cell

PARTS = ("none", "pinned", "placements", "movements", "features", "features_pinned", "forward",
         "network_pinned", "linear_pinned", "linear")


@njit(cache=True)
def _run(part, boards, pins, reps, ws, moves, out, w, net):
    total = 0
    for _ in range(reps):
        for j in range(boards.shape[0]):
            b = boards[j]
            if part == 1:
                total += find_pinned(b, ws, some_piece_cell(b))
            elif part == 2:
                total += generate_placements(b, ws, moves, 0)
            elif part == 3:
                total += generate_movements(b, ws, moves, 0, pins[j])
            elif part == 4:
                features_into(b, ws, moves, out, -1)
                total += int(out[0])
            elif part == 5:
                features_into(b, ws, moves, out, pins[j])
                total += int(out[0])
            elif part == 6:
                total += int(forward(net[0], net[1], out, net[5]))
            elif part == 7:
                total += network_score(b, net, pins[j])
            elif part == 8:
                total += evaluate_pinned(b, ws, w, pins[j])
            elif part == 9:
                total += evaluate_pinned(b, ws, w, -1)
    return total


def positions(n=64, seed=1):
    rng = random.Random(seed)
    mids = [p.game for p in POSITIONS if p.midgame]
    out = []
    while len(out) < n:
        board = Board.parse(mids[len(out) % len(mids)])
        for _ in range(rng.randint(1, 3)):
            moves = board.legal_moves
            if board.is_game_over() or not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            out.append(board.position_array.copy())
    return np.array(out)


def main():
    args = sys.argv[1:]
    net = read_network(args.pop(0)) if args[0].endswith(".hnn") else shipped_network()
    part, reps = PARTS.index(args[0]), int(args[1])
    boards = positions()
    ws, moves = new_scratch()
    pins = np.array([find_pinned(b, ws, some_piece_cell(b)) for b in boards], dtype=np.int64)
    w = weights_for(builtin_weights(), "Base+MLP")
    knet = kernel_net(net)
    out = np.zeros(N_FEATURES, dtype=np.float32)
    features_into(boards[0], ws, moves, out, -1)
    _run(part, boards, pins, 1, ws, moves, out, w, knet)  # compile / load
    began = time.perf_counter()
    _run(part, boards, pins, reps, ws, moves, out, w, knet)
    secs = time.perf_counter() - began
    if reps:
        print(f"{PARTS[part]}: {1e9 * secs / (reps * len(boards)):.0f} ns per call ({len(boards)} positions)")


if __name__ == "__main__":
    main()
