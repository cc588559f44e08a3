"""An independent, deliberately simple model of a Hive board for the UHP tests.

It replays MoveStrings on axial coordinates and knows nothing of hiveai's
internals, so the tests can check the engine against it rather than against
itself: where each move lands, queen surround (the game result), alternative
spellings of a move, and the exact destination sets of a few bug rules that
docs/protocol-notes.md checklist item 16 spot-checks (beetle, ladybug, pillbug throws, mosquito on top).

Geometry (docs/protocol-notes.md, "MoveStrings"; pointy-top): ``R-`` is east of R, ``-R`` west, ``R/``
north-east, ``/R`` south-west, ``\\R`` north-west, ``R\\`` south-east.
"""

from __future__ import annotations

import re
from collections import defaultdict

Cell = tuple[int, int]

# Direction -> (dq, dr), clockwise from north-west.
DIRS = {"NW": (0, -1), "NE": (1, -1), "E": (1, 0), "SE": (0, 1), "SW": (-1, 1), "W": (-1, 0)}
DIR_ORDER = ["NW", "NE", "E", "SE", "SW", "W"]
# Direction from the reference piece to the destination, per notation.
PREFIX = {"-": "W", "/": "SW", "\\": "NW"}
SUFFIX = {"-": "E", "/": "NE", "\\": "SE"}
SPELL = {d: (p, "") for p, d in PREFIX.items()} | {d: ("", s) for s, d in SUFFIX.items()}

PIECE = r"[wb](?:Q|M|L|P|S[12]|B[12]|G[1-3]|A[1-3])"
CANONICAL_MOVE = re.compile(rf"^(pass|{PIECE}( ([-/\\]?{PIECE}[-/\\]?))?)$")
_MOVE = re.compile(rf"^\s*({PIECE})(?:\s+([-/\\]?)({PIECE})([-/\\]?))?\s*$", re.IGNORECASE)


def norm_piece(name: str) -> str:
    return name[0].lower() + name[1].upper() + name[2:]


def step(cell: Cell, d: str) -> Cell:
    dq, dr = DIRS[d]
    return (cell[0] + dq, cell[1] + dr)


def neighbours(cell: Cell) -> list[Cell]:
    return [step(cell, d) for d in DIR_ORDER]


def flanks(a: Cell, b: Cell) -> tuple[Cell, Cell]:
    """The two cells adjacent to both a and b (the gate of the edge a-b)."""
    common = [c for c in neighbours(a) if c in set(neighbours(b))]
    assert len(common) == 2, (a, b)
    return common[0], common[1]


class Oracle:
    """Stacks of pieces on axial cells, updated by replaying MoveStrings."""

    def __init__(self, game_type: str = "Base", gates: bool = True) -> None:
        self.game_type = game_type
        self.gates = gates  # False: ignore the climbing gate, to show that a test position needs it
        self.stacks: dict[Cell, list[str]] = defaultdict(list)
        self.where: dict[str, Cell] = {}
        self.ply = 0
        self.last_moved: str | None = None  # moved (not placed) on the last ply

    @classmethod
    def from_game_string(cls, gs: str, gates: bool = True) -> "Oracle":
        fields = gs.split(";")
        o = cls(fields[0], gates)
        for mv in fields[3:]:
            o.apply(mv)
        return o

    # -- queries -----------------------------------------------------------

    def height(self, cell: Cell) -> int:
        return len(self.stacks.get(cell, ()))

    def top(self, cell: Cell) -> str | None:
        s = self.stacks.get(cell)
        return s[-1] if s else None

    def occupied(self) -> list[Cell]:
        return [c for c, s in self.stacks.items() if s]

    def to_move(self) -> str:
        return "wb"[self.ply % 2]

    def surrounded(self, colour: str) -> bool:
        cell = self.where.get(colour + "Q")
        return cell is not None and all(self.height(n) for n in neighbours(cell))

    def state(self) -> str:
        w, b = self.surrounded("w"), self.surrounded("b")
        if w and b:
            return "Draw"
        if w:
            return "BlackWins"
        if b:
            return "WhiteWins"
        return "NotStarted" if self.ply == 0 else "InProgress"

    def turn_string(self) -> str:
        return f"{('White', 'Black')[self.ply % 2]}[{self.ply // 2 + 1}]"

    # -- moves -------------------------------------------------------------

    def destination(self, move: str) -> tuple[str, Cell] | None:
        """(piece, destination cell) a MoveString names; None for pass."""
        if move.strip().lower() == "pass":
            return None
        m = _MOVE.match(move)
        assert m, f"unparseable move {move!r}"
        piece = norm_piece(m[1])
        if not m[3]:
            assert not self.where, f"bare move {move!r} after the first"
            return piece, (0, 0)
        ref = self.where[norm_piece(m[3])]
        if m[2]:
            return piece, step(ref, PREFIX[m[2]])
        if m[4]:
            return piece, step(ref, SUFFIX[m[4]])
        return piece, ref  # climbing onto the stack the reference tops

    def apply(self, move: str) -> None:
        dest = self.destination(move)
        self.ply += 1
        if dest is None:
            self.last_moved = None
            return
        piece, cell = dest
        src = self.where.get(piece)
        if src is not None:
            assert self.stacks[src][-1] == piece, f"{piece} is covered"
            self.stacks[src].pop()
            if not self.stacks[src]:
                del self.stacks[src]
        self.last_moved = piece if src is not None else None
        self.stacks[cell].append(piece)
        self.where[piece] = cell

    def spellings(self, move: str, allow_self: bool = False) -> list[str]:
        """Every MoveString naming the same (piece, destination), canonical or not.

        A reference must be the top piece of a neighbouring stack (after the mover
        lifts off); with ``allow_self`` the mover itself may be the reference
        (nokamute writes those) when it sits next to its destination.
        """
        dest = self.destination(move)
        if dest is None:
            return ["pass"]
        piece, cell = dest
        src = self.where.get(piece)
        if src is None and not self.where:
            return [piece]
        out = []
        under = [p for p in self.stacks.get(cell, ()) if p != piece]
        if under:
            return [f"{piece} {under[-1]}"]  # a climb has only one spelling
        for d in DIR_ORDER:
            ref_cell = step(cell, d)  # reference sits in direction d from the destination
            stack = [p for p in self.stacks.get(ref_cell, ())]
            refs = [stack[-1]] if stack else []
            if stack and stack[-1] == piece:
                refs = ([piece] if allow_self else []) + ([stack[-2]] if len(stack) > 1 else [])
            back = {"NW": "SE", "NE": "SW", "E": "W", "SE": "NW", "SW": "NE", "W": "E"}[d]
            pre, suf = SPELL[back]
            out += [f"{piece} {pre}{ref}{suf}" for ref in refs]
        return out

    # -- rules for spot checks ---------------------------------------------

    def _lifted(self, piece: str):
        """Context manager-free helper: heights with ``piece`` lifted off."""
        src = self.where[piece]
        def h(c: Cell) -> int:
            return self.height(c) - (1 if c == src else 0)
        return src, h

    def connected_without(self, piece: str) -> bool:
        """Whether the hive stays one group when ``piece`` is lifted."""
        src, h = self._lifted(piece)
        cells = [c for c in self.occupied() if h(c) > 0]
        if not cells:
            return True
        seen, todo = {cells[0]}, [cells[0]]
        while todo:
            c = todo.pop()
            for n in neighbours(c):
                if h(n) > 0 and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen) == len(cells)

    def _gated(self, h, a: Cell, b: Cell, h_src: int, h_dst: int) -> bool:
        """Climbing gate (docs/protocol-notes.md, "Movement"): both flanks taller than both ends; or no contact."""
        l, r = flanks(a, b)
        if h_src == 0 and h_dst == 0 and h(l) == 0 and h(r) == 0:
            return True
        return self.gates and min(h(l), h(r)) > max(h_src, h_dst)

    def beetle_moves(self, piece: str) -> set[Cell]:
        """Destinations of ``piece`` moving one climbing step (beetle rules)."""
        src, h = self._lifted(piece)
        if h(src) == 0 and not self.connected_without(piece):
            return set()
        return {n for n in neighbours(src) if not self._gated(h, src, n, h(src), h(n))}

    def ladybug_moves(self, piece: str) -> set[Cell]:
        """Destinations of a ground ladybug: up, along the top, down to a new cell."""
        src, h = self._lifted(piece)
        if not self.connected_without(piece):
            return set()
        out = set()
        for a in neighbours(src):
            if h(a) == 0 or self._gated(h, src, a, h(src), h(a)):
                continue
            for b in neighbours(a):
                if b == src or h(b) == 0 or self._gated(h, a, b, h(a), h(b)):
                    continue
                for c in neighbours(b):
                    if c != src and h(c) == 0 and not self._gated(h, b, c, h(b), 0):
                        out.add(c)
        return out

    def throws_of(self, piece: str) -> set[Cell]:
        """Cells the side to move can throw ``piece`` to with a pillbug power."""
        side = self.to_move()
        src = self.where.get(piece)
        if (src is None or self.height(src) != 1 or piece == self.last_moved
                or "P" not in self.game_type.partition("+")[2]
                or side + "Q" not in self.where or not self.connected_without(piece)):
            return set()
        out = set()
        for t in neighbours(src):
            thrower = self.top(t)
            if (thrower is None or thrower[0] != side or self.height(t) != 1
                    or thrower == self.last_moved or not self._can_throw(thrower)):
                continue
            _, h = self._lifted(piece)
            if self._gated(h, src, t, 0, h(t)):
                continue
            for d in neighbours(t):
                if d != src and h(d) == 0 and not self._gated(h, t, d, h(t), 0):
                    out.add(d)
        return out

    def _can_throw(self, thrower: str) -> bool:
        if thrower[1] == "P":
            return True
        if thrower[1] != "M":
            return False
        return any((self.top(n) or "  ")[1] == "P" for n in neighbours(self.where[thrower]))


def parse_validmoves(line: str) -> list[str]:
    """Entries of a validmoves line (``pass`` is one entry)."""
    return line.split(";")
