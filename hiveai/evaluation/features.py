"""Features of a position for a learned evaluation: raw counts, both sides.

A network (hiveai.evaluation.network) reads these; a linear sum could read them too, and
the training pipeline (hiveai.training.train) fits both on the same labels to show what
the combinations are worth. The set follows bee-search's (github.com/adario7/
bee-search, ``src/features.rs``): what the queen's neighbours are, and per bug
type how many pieces can move, are pinned, are buried, how many moves they
have and how many are still in hand, for both sides, from the side to move's
point of view (its block first). Nothing is weighted or combined here:
combinations are the network's job.

Layout of the vector (``N_FEATURES`` float32 values)::

    [side to move's block | the other side's block | game type one-hot]

each block ``SIDE_FEATURES`` long, laid out by the ``F_*`` offsets below:

* ``F_QUEEN_NBR`` + 0..3: pieces next to this side's queen, friend pinned,
  friend free, enemy pinned, enemy free ("pinned": a ground piece whose
  removal would split the hive, movegen.find_pinned);
* ``F_QUEEN_COVERED``: 1 if a piece sits on this side's queen;
* per bug kind k (``N_ALL_KINDS`` of them, Dragonfly last), ``F_KIND + k *
  PER_KIND`` + ``K_MOVABLE`` (top pieces with at least one legal move),
  ``K_PINNED``, ``K_BURIED`` (under another piece), ``K_MOVES`` (their legal
  movements), ``K_HAND`` (pieces in hand, of those in the game),
  ``K_TOUCH_FRIEND`` / ``K_TOUCH_ENEMY`` (this side's / the enemy's pieces of
  kind k on top next to this side's queen);
* ``F_STACKS`` (stacks of two or more topped by this side), ``F_THROWS``
  (pillbug throws of enemy pieces it can make), ``F_PLACEMENTS`` (its legal
  placements).

The other side's moves are generated as if it were to move (ply + 1, no
piece stunned): a second move generation, the main cost of the vector.
``FEATURE_SET`` names this layout; a network file records the id it was
trained on, and hiveai.evaluation.network refuses a file made for another.

>>> from hiveai.rules.board import Board
>>> board = Board("Base")
>>> for m in ("wG1", "bA1 wG1-", "wQ -wG1", "bQ bA1-"):
...     _ = board.push(m)
>>> x, (ws, moves) = np.zeros(N_FEATURES, dtype=np.float32), new_scratch()
>>> _ = features_into(board.position_array, ws, moves, x, -1)
>>> int(x[F_KIND + 4 * PER_KIND + K_HAND]), int(x[SIDE_FEATURES + F_KIND + 4 * PER_KIND + K_HAND])
(3, 2)
"""

from __future__ import annotations

import numpy as np

from hiveai.rules.borrow import counts_free
from hiveai.rules.bug import (
    CRITTERS,
    N_ALL_KINDS,
    N_GAME_TYPES,
    N_PIECES,
    PIECES_PER_COLOUR,
    piece_in_game,
)
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET
from hiveai.rules.movegen import (
    CRITTERS_KIND,
    GAME_TYPE_BITS,
    KIND,
    MAX_MOVES,
    count_placements,
    find_pinned,
    generate_movements,
    new_workspace,
)
from hiveai.rules.position import GAME_TYPE, HEIGHT, LAST_MOVED, LEVEL, MOVE_PIECE_SHIFT, PLY, POS, TOP, some_piece_cell

# Bump the id whenever the layout or a feature's meaning changes: network files
# carry it, so a network trained on other features is refused, not misread.
FEATURE_SET = 1

F_QUEEN_NBR = 0  # friend pinned, friend free, enemy pinned, enemy free
F_QUEEN_COVERED = 4
F_KIND = 5
K_MOVABLE, K_PINNED, K_BURIED, K_MOVES, K_HAND, K_TOUCH_FRIEND, K_TOUCH_ENEMY = range(7)
PER_KIND = 7
F_STACKS = F_KIND + PER_KIND * N_ALL_KINDS
F_THROWS = F_STACKS + 1
F_PLACEMENTS = F_STACKS + 2
SIDE_FEATURES = F_STACKS + 3
F_GAME_TYPE = 2 * SIDE_FEATURES  # one-hot over hiveai.rules.bug's game types
N_FEATURES = F_GAME_TYPE + N_GAME_TYPES

# IN_GAME[game type, piece]: 1 if the piece exists in that game type (an absent
# piece also has no cell, and must not count as in hand).
IN_GAME = np.array([[int(piece_in_game(p, g)) for p in range(N_PIECES)] for g in range(N_GAME_TYPES)],
                   dtype=np.int64)


def new_scratch() -> tuple[np.ndarray, np.ndarray]:
    """The workspace and move buffer :func:`features_into` needs (reuse them across calls)."""
    return new_workspace(), np.empty(MAX_MOVES, dtype=np.int32)


@counts_free(nogil=True)
def features_into(b, ws, moves, out, pinned):
    """Write the feature vector of ``b`` into ``out`` (float32, N_FEATURES long).

    ``pinned``: the position's pinned-piece mask (movegen.find_pinned) when the
    caller knows it (the search does), else -1. ``ws``/``moves`` are scratch (new_scratch). ``b`` is changed while the
    other side's moves are generated and restored before returning.
    """
    out[:] = 0.0
    gt = b[GAME_TYPE] & GAME_TYPE_BITS
    kinds = CRITTERS_KIND if gt == CRITTERS else KIND
    out[F_GAME_TYPE + gt] = 1.0
    side = b[PLY] & 1
    root = some_piece_cell(b)
    if pinned < 0:
        pinned = find_pinned(b, ws, root) if root >= 0 else 0

    # What the pieces are: per side, in hand, buried, pinned; stacks.
    for p in range(N_PIECES):
        colour = 0 if p < PIECES_PER_COLOUR else 1
        o = (0 if colour == side else SIDE_FEATURES)
        k = kinds[p]
        c = b[POS + p]
        if c < 0:
            if IN_GAME[gt, p]:
                out[o + F_KIND + k * PER_KIND + K_HAND] += 1.0
            continue
        if b[TOP + c] != p:
            out[o + F_KIND + k * PER_KIND + K_BURIED] += 1.0
            continue
        if b[LEVEL + p] == 0 and (pinned >> p) & 1:
            out[o + F_KIND + k * PER_KIND + K_PINNED] += 1.0
        if b[HEIGHT + c] >= 2:
            out[o + F_STACKS] += 1.0

    # Around each queen.
    for colour in range(2):
        o = (0 if colour == side else SIDE_FEATURES)
        qc = b[POS + colour * PIECES_PER_COLOUR]
        if qc < 0:
            continue
        if b[TOP + qc] != colour * PIECES_PER_COLOUR:
            out[o + F_QUEEN_COVERED] = 1.0
        for d in range(6):
            q = b[TOP + ((qc + DIR_OFFSET[d]) & CELL_MASK)]
            if q < 0:
                continue
            enemy = (q >= PIECES_PER_COLOUR) != (colour == 1)
            stuck = b[LEVEL + q] == 0 and (pinned >> q) & 1
            out[o + F_QUEEN_NBR + 2 * int(enemy) + (0 if stuck else 1)] += 1.0
            out[o + F_KIND + kinds[q] * PER_KIND + (K_TOUCH_ENEMY if enemy else K_TOUCH_FRIEND)] += 1.0

    # Moves of each side: the side to move's as they are, the other's as if it
    # were its turn (one ply on, nothing stunned); b is restored after.
    ply = b[PLY]
    last = b[LAST_MOVED]
    for s in range(2):
        if s == 1:
            b[PLY] = ply + 1
            b[LAST_MOVED] = -1
        colour = side if s == 0 else 1 - side
        o = s * SIDE_FEATURES
        out[o + F_PLACEMENTS] = count_placements(b, ws, moves)
        n = generate_movements(b, ws, moves, np.int64(0), pinned)
        movers = 0
        for i in range(n):
            p = moves[i] >> MOVE_PIECE_SHIFT
            if (p < PIECES_PER_COLOUR) == (colour == 0):
                out[o + F_KIND + kinds[p] * PER_KIND + K_MOVES] += 1.0
                movers |= 1 << p
            else:
                out[o + F_THROWS] += 1.0
        for p in range(N_PIECES):
            if (movers >> p) & 1:
                out[o + F_KIND + kinds[p] * PER_KIND + K_MOVABLE] += 1.0
    b[PLY] = ply
    b[LAST_MOVED] = last
    return out
