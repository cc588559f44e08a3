"""Instructions per search node, linear or network evaluation (the shipped network):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python tools/network_search_cost.py network 1
    valgrind ... python tools/network_search_cost.py network 0     # the same process without the searches

The first count minus the second, divided by the nodes printed: the depth-4
searches of the bench's 7 mid-game positions, a fresh table each. numba must
target a fixed CPU (see tools/network_cost.py).
"""
import sys
from hiveai.search.bench import POSITIONS
from hiveai.rules.board import Board
from hiveai.evaluation.network import shipped_network
from hiveai.search.searcher import Searcher
from hiveai.search.timeman import Limit
which, reps = sys.argv[1], int(sys.argv[2])
s = Searcher(tt_mb=64, network=shipped_network() if which == "network" else None)
boards = [Board.parse(p.game) for p in POSITIONS if p.midgame]
s.search(boards[0], Limit(depth=2))
nodes = 0
for _ in range(reps):
    for b in boards:
        s.clear()
        nodes += s.search(b, Limit(depth=4)).nodes
print("nodes", nodes)
