"""An independent, deliberately plain model of Critters, to check hiveai's kernels against.

Critters is M. Winther's Hive variant (docs/critters.md). This model knows
nothing of hiveai: it keeps stacks of PieceStrings on axial cells, generates
moves straight from the rules as docs/critters.md states them (trial removal for the
One Hive rule, path enumeration for the spider, breadth-first distances for
the ant, trial moves for the surround rule) and reads and writes positions
only as UHP MoveStrings. Slow and obvious on purpose.

Geometry, pointy-top axial (q, r): ``R-`` is east of R, ``-R`` west, ``R/``
north-east, ``/R`` south-west, ``\\R`` north-west, ``R\\`` south-east.
"""

from __future__ import annotations

import re

Cell = tuple[int, int]
Move = tuple[str, Cell]  # (PieceString, destination); PASS for a pass

PASS: Move = ("pass", (0, 0))
DIRECTIONS = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]  # NW NE E SE SW W
_BEFORE = {"-": (-1, 0), "/": (-1, 1), "\\": (0, -1)}
_AFTER = {"-": (1, 0), "/": (1, -1), "\\": (0, 1)}
_MOVE = re.compile(r"^([wb][QAGSBD][1-3]?)(?: ([-/\\]?)([wb][QAGSBD][1-3]?)([-/\\]?))?$")

# Each side's pieces in the order bugs are numbered: Bee, 3 ants, 2 grasshoppers,
# 2 spiders, 2 beetles, the Dragonfly.
PIECES = ["Q", "A1", "A2", "A3", "G1", "G2", "S1", "S2", "B1", "B2", "D"]
ANT_STEPS = 5


def around(cell: Cell) -> list[Cell]:
    return [(cell[0] + dq, cell[1] + dr) for dq, dr in DIRECTIONS]


def distance(a: Cell, b: Cell) -> int:
    dq, dr = b[0] - a[0], b[1] - a[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def common_neighbours(a: Cell, b: Cell) -> list[Cell]:
    return [c for c in around(a) if c in around(b)]


class Critters:
    """A Critters position: stacks, whose turn, and the moves played."""

    def __init__(self) -> None:
        self.stacks: dict[Cell, list[str]] = {}
        self.ply = 0

    def copy(self) -> Critters:
        other = Critters()
        other.stacks = {c: list(s) for c, s in self.stacks.items()}
        other.ply = self.ply
        return other

    # -- reading the position ------------------------------------------------

    def colour(self) -> str:
        return "wb"[self.ply % 2]

    def cell_of(self, piece: str) -> Cell | None:
        for cell, stack in self.stacks.items():
            if piece in stack:
                return cell
        return None

    def height(self, cell: Cell) -> int:
        return len(self.stacks.get(cell, []))

    def top(self, cell: Cell) -> str | None:
        stack = self.stacks.get(cell)
        return stack[-1] if stack else None

    def surrounded(self, colour: str) -> bool:
        cell = self.cell_of(colour + "Q")
        return cell is not None and all(self.height(n) > 0 for n in around(cell))

    def result(self) -> str:
        outcome = {(False, False): "InProgress", (True, True): "Draw", (True, False): "BlackWins",
                   (False, True): "WhiteWins"}
        return outcome[self.surrounded("w"), self.surrounded("b")]

    # -- MoveStrings ---------------------------------------------------------

    def parse(self, text: str) -> Move:
        """The (piece, destination) a canonical MoveString names here."""
        if text == "pass":
            return PASS
        m = _MOVE.match(text)
        assert m, text
        piece, before, ref, after = m.groups()
        if ref is None:
            return piece, (0, 0)
        rq, rr = self.cell_of(ref)
        dq, dr = _BEFORE[before] if before else _AFTER[after] if after else (0, 0)
        return piece, (rq + dq, rr + dr)

    def play(self, text: str) -> None:
        self.apply(self.parse(text))

    def apply(self, move: Move) -> None:
        if move != PASS:
            piece, dest = move
            src = self.cell_of(piece)
            if src is not None:
                self.stacks[src].pop()
                if not self.stacks[src]:
                    del self.stacks[src]
            self.stacks.setdefault(dest, []).append(piece)
        self.ply += 1

    # -- the rules -----------------------------------------------------------

    def hive_connected(self) -> bool:
        cells = set(self.stacks)
        if not cells:
            return True
        start = next(iter(cells))
        seen = {start}
        todo = [start]
        while todo:
            for n in around(todo.pop()):
                if n in cells and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen == cells

    def slide_steps(self, cell: Cell) -> list[Cell]:
        """Cells one slide from ``cell``: empty, and exactly one of the two
        cells flanking the step occupied (none: it would lose the hive; both: a gate)."""
        out = []
        for n in around(cell):
            if self.height(n) == 0:
                flanks = sum(self.height(f) > 0 for f in common_neighbours(cell, n))
                if flanks == 1:
                    out.append(n)
        return out

    def placements(self) -> list[Move]:
        colour = self.colour()
        turn = self.ply // 2 + 1
        in_hand = [colour + p for p in PIECES if self.cell_of(colour + p) is None]
        queen = colour + "Q"
        if turn == 1:
            in_hand = [p for p in in_hand if p != queen]
        if turn == 4 and queen in in_hand:
            in_hand = [queen]
        # Only the lowest-numbered piece of each bug.
        pieces = [p for p in in_hand if not (p[-1] in "23" and p[:-1] + str(int(p[-1]) - 1) in in_hand)]
        if self.ply == 0:
            cells = [(0, 0)]
        elif self.ply == 1:
            cells = around(next(iter(self.stacks)))
        else:
            cells = set()
            for cell in self.stacks:
                for n in around(cell):
                    if self.height(n) == 0:
                        tops = [self.top(x)[0] for x in around(n) if self.height(x) > 0]
                        if all(t == colour for t in tops):
                            cells.add(n)
        return [(p, c) for p in pieces for c in cells]

    def destinations(self, piece: str) -> set[Cell]:
        """Where ``piece`` (on top of its stack, own, queen down) may go, before
        the surround rule; the piece is lifted while its moves are worked out."""
        src = self.cell_of(piece)
        bug = piece[1]
        lifted = self.copy()
        lifted.stacks[src].pop()
        if not lifted.stacks[src]:
            del lifted.stacks[src]
            if not lifted.hive_connected():
                return set()  # One Hive
        out: set[Cell] = set()
        if bug == "Q":
            out = set(lifted.slide_steps(src))
        elif bug == "A":
            dist = {src: 0}
            frontier = [src]
            for step in range(1, ANT_STEPS + 1):
                nxt = []
                for c in frontier:
                    for n in lifted.slide_steps(c):
                        if n not in dist:
                            dist[n] = step
                            nxt.append(n)
                frontier = nxt
            out = {c for c, d in dist.items() if d >= 1}
        elif bug == "S":
            def walk(path: list[Cell]) -> None:
                onward = [n for n in lifted.slide_steps(path[-1]) if n not in path]
                if len(path) == 4 or (len(path) > 1 and not onward):
                    out.add(path[-1])
                    return
                for n in onward:
                    walk(path + [n])

            walk([src])
        elif bug == "G":
            for dq, dr in DIRECTIONS:
                c = (src[0] + dq, src[1] + dr)
                if lifted.height(c) == 0:
                    continue
                while lifted.height(c) > 0:
                    c = (c[0] + dq, c[1] + dr)
                out.add(c)
        elif bug == "B":
            h_src = lifted.height(src)
            for n in around(src):
                h_dst = lifted.height(n)
                if h_dst > 0 and lifted.top(n)[1] == "B":
                    continue  # never onto a beetle
                hl, hr = (lifted.height(f) for f in common_neighbours(src, n))
                if h_src == 0 and h_dst == 0:
                    ok = (hl > 0) != (hr > 0)  # a slide on the ground
                else:
                    ok = min(hl, hr) <= max(h_src, h_dst)  # Hive's freedom to move at height
                if ok:
                    out.add(n)
        elif bug == "D":
            for cell in lifted.stacks:
                for n in around(cell):
                    if lifted.height(n) == 0 and distance(src, n) >= 2:
                        out.add(n)
        out.discard(src)
        return out

    def moves(self) -> set[Move]:
        """Every legal move, {PASS} when there is none; empty once the game is over."""
        if self.result() != "InProgress":
            return set()
        colour = self.colour()
        candidates = self.placements()
        if self.cell_of(colour + "Q") is not None:
            for cell, stack in self.stacks.items():
                if stack[-1][0] == colour:
                    candidates += [(stack[-1], d) for d in self.destinations(stack[-1])]
        enemy = "wb"[1 - self.ply % 2]
        legal = set()
        for move in candidates:
            after = self.copy()
            after.apply(move)
            assert after.hive_connected(), move
            if after.surrounded(colour) and not after.surrounded(enemy):
                continue  # surrounding your own Bee alone is forbidden
            legal.add(move)
        return legal or {PASS}

    def perft(self, depth: int) -> int:
        if depth == 0:
            return 1
        moves = self.moves()
        if depth == 1:
            return len(moves)
        total = 0
        for move in moves:
            child = self.copy()
            child.apply(move)
            total += child.perft(depth - 1)
        return total
