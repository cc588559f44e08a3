"""The twelve symmetries of the hex plane, and the canonical frame of a position.

A Hive position moved across the board, turned by a multiple of 60 degrees or
mirrored is the same position: same moves, same value. The opening book keys
positions so that all of these share one entry. This module finds, for a
position array, the *canonical frame*: the symmetry and translation that bring
the hive to one fixed normal form, plus a key naming that form; and it maps
cells between the real board and that frame, so a move stored in the frame
comes back as the matching move on any board that reaches the position.

How (the book format in ``openings/README.md`` states the same rules):

1. Unwrap the torus (:func:`hiveai.rules.hex_grid.unwrap`): walk the connected hive
   from the first piece on the board (lowest id), one neighbour step at a
   time, giving every occupied cell true axial coordinates relative to that piece.
2. For each of the 12 symmetries, transform every piece's (q, r), translate so
   the smallest (r, q) among the pieces becomes (0, 0), and list
   (q, r, level) for the pieces on the board in piece-id order.
3. The canonical form is the smallest of those 12 lists; the first symmetry
   (lowest index) giving it defines the frame. Pieces keep their identity
   (``wS1`` is not ``wS2``): numbering follows placement order, so swapping
   them is not a symmetry of the game.
4. The key text is ``GameType;side;stunned;piece:q,r,level ...`` and the key
   is its 64-bit BLAKE2b digest in hex. Side to move is part of it, and so is
   the piece that moved last in pillbug games (it cannot be thrown), exactly as
   the Zobrist hash treats it.

The empty board's frame is the origin cell: White's first piece goes there.
This module is plain Python over the position array (no kernels).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from hiveai.rules.bug import COLOUR_LETTERS, EXP_PILLBUG, N_PIECES, PIECE_NAMES, game_type_string, piece_names
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET, DIR_QR, GRID, ORIGIN, torus_offset, unwrap
from hiveai.rules.position import GAME_TYPE, LAST_MOVED, LEVEL, PLY, POS

__all__ = ["SYMMETRIES", "Frame", "frame_of", "transform"]

# Axial (q, r) -> cube (x, y, z) with x = q, z = r, y = -q - r.
# A 60-degree turn clockwise is (x, y, z) -> (-z, -x, -y), i.e. (q, r) -> (-r, q + r)
# (east goes to south-east); the mirror (x, y, z) -> (x, z, y) is (q, r) -> (q, -q - r).
# Symmetry k < 6 turns k times; symmetry 6 + k mirrors first, then turns k times.
# Each is an integer matrix ((a, b), (c, d)): (q, r) -> (a q + b r, c q + d r).
_TURN = ((0, -1), (1, 1))
_MIRROR = ((1, 0), (-1, -1))
_IDENTITY = ((1, 0), (0, 1))


def _mul(m: tuple, n: tuple) -> tuple:
    """Matrix product m @ n (apply n first)."""
    return tuple(
        tuple(sum(m[i][k] * n[k][j] for k in range(2)) for j in range(2)) for i in range(2)
    )


def _build_symmetries() -> tuple:
    turns = [_IDENTITY]
    for _ in range(5):
        turns.append(_mul(_TURN, turns[-1]))
    return tuple(turns + [_mul(t, _MIRROR) for t in turns])


SYMMETRIES = _build_symmetries()


def _inverse(m: tuple) -> tuple:
    (a, b), (c, d) = m
    det = a * d - b * c  # +1 for turns, -1 for mirrors
    return ((d * det, -b * det), (-c * det, a * det))


_INVERSES = tuple(_inverse(m) for m in SYMMETRIES)


def transform(sym: int, q: int, r: int) -> tuple[int, int]:
    """(q, r) moved by symmetry ``sym`` (0..11) about the origin."""
    (a, b), (c, d) = SYMMETRIES[sym]
    return a * q + b * r, c * q + d * r


def _untransform(sym: int, q: int, r: int) -> tuple[int, int]:
    (a, b), (c, d) = _INVERSES[sym]
    return a * q + b * r, c * q + d * r


def _cell_offset(q: int, r: int) -> int:
    return q + GRID * r


@dataclass(frozen=True)
class Frame:
    """The canonical frame of one position.

    ``key`` names the position up to symmetry (16 hex digits); ``text`` is
    the canonical form it hashes, for debugging. ``to_canonical`` and
    ``to_cell`` convert cells between the real board and the frame.
    """

    key: str
    text: str
    sym: int  # the symmetry taking real (relative) coordinates to the frame
    root: int  # real cell of relative (0, 0): the first piece on the board
    shift: tuple[int, int]  # subtracted after the symmetry (canonical origin)
    coords: dict[int, tuple[int, int]]  # real occupied cell -> relative (q, r)

    def to_canonical(self, cell: int) -> tuple[int, int]:
        """Canonical (q, r) of a real cell next to or inside the hive."""
        q, r = self._relative(cell)
        tq, tr = transform(self.sym, q, r)
        return tq - self.shift[0], tr - self.shift[1]

    def to_cell(self, q: int, r: int) -> int:
        """Real cell of canonical (q, r)."""
        rq, rr = _untransform(self.sym, q + self.shift[0], r + self.shift[1])
        return (self.root + _cell_offset(rq, rr)) & CELL_MASK

    def _relative(self, cell: int) -> tuple[int, int]:
        if cell in self.coords:
            return self.coords[cell]
        # An empty cell: a move destination, which always touches the hive
        # (or is the origin on the empty board). Find it from a neighbour.
        for d, (dq, dr) in enumerate(DIR_QR):
            nb = (cell - DIR_OFFSET[d]) & CELL_MASK  # cell is nb's neighbour in direction d
            if nb in self.coords:
                q, r = self.coords[nb]
                return q + dq, r + dr
        if not self.coords:
            return torus_offset(self.root, cell)
        raise ValueError(f"cell {cell} is not next to the hive")


def frame_of(b: np.ndarray) -> Frame:
    """The canonical frame and key of position ``b``.

    A disconnected hive (no legal position has one) gets a key too, its parts
    placed as :func:`hiveai.rules.hex_grid.unwrap` places them.
    """
    pos = b[POS : POS + N_PIECES].tolist()
    level = b[LEVEL : LEVEL + N_PIECES].tolist()
    pieces = [p for p in range(N_PIECES) if pos[p] >= 0]
    if pieces:
        root = pos[pieces[0]]
        coords = unwrap({pos[p] for p in pieces}, root)
    else:
        root, coords = ORIGIN, {}

    best = None
    for sym in range(len(SYMMETRIES)):
        pts = [transform(sym, *coords[pos[p]]) for p in pieces]
        if pts:
            sr, sq = min((r, q) for q, r in pts)
        else:
            sq = sr = 0
        form = tuple((q - sq, r - sr, level[p]) for (q, r), p in zip(pts, pieces))
        if best is None or form < best[0]:
            best = (form, sym, (sq, sr))
    form, sym, shift = best

    gt = int(b[GAME_TYPE])
    stunned = int(b[LAST_MOVED])
    stun = PIECE_NAMES[stunned] if stunned >= 0 and gt & EXP_PILLBUG else "-"
    side = COLOUR_LETTERS[int(b[PLY]) & 1]
    names = piece_names(gt)
    body = " ".join(f"{names[p]}:{q},{r},{lv}" for p, (q, r, lv) in zip(pieces, form))
    text = f"{game_type_string(gt)};{side};{stun};{body}"
    key = hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()
    return Frame(key, text, sym, root, shift, coords)
