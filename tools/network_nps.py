"""Nodes/s of the linear and the network evaluation on the bench's mid-game positions,
alternating runs: `python tools/network_nps.py NETWORK.hnn [DEPTH]` (default depth 4)."""
import sys, time
from hiveai.search.bench import POSITIONS
from hiveai.rules.board import Board
from hiveai.evaluation.network import read_network
from hiveai.search.searcher import Searcher
from hiveai.search.timeman import Limit

net = read_network(sys.argv[1])
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 4
boards = [Board.parse(p.game) for p in POSITIONS if p.midgame]
searchers = {"linear": Searcher(tt_mb=64), "network": Searcher(tt_mb=64, network=net)}
for s in searchers.values():
    s.search(boards[0], Limit(depth=2))  # compile / load
best = {name: 0.0 for name in searchers}
nodes_at = {}
for rnd in range(3):
    for name, s in searchers.items():
        nodes = secs = 0
        for b in boards:
            s.clear()
            r = s.search(b, Limit(depth=depth))
            nodes += r.nodes; secs += r.seconds
        best[name] = max(best[name], nodes / secs)
        nodes_at[name] = nodes
        print(f"round {rnd} {name}: {nodes} nodes in {secs:.2f} s = {nodes/secs:,.0f} nodes/s", flush=True)
print(f"best nodes/s: linear {best['linear']:,.0f}, network {best['network']:,.0f}, ratio {best['network']/best['linear']:.3f}")
