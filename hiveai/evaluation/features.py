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
trained on, and hiveai.evaluation.network refuses a file made for a set this
module does not compute. Feature set 2 (:func:`features2_into`) keeps the
layout and estimates the costly entries: the ants' moves from one flood fill
shared by all of them, no spider, ladybug or mosquito move counts (see its
block comment below).

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
    ANT,
    BEETLE,
    CRITTERS,
    GRASSHOPPER,
    LADYBUG,
    MOSQUITO,
    SPIDER,
    N_ALL_KINDS,
    N_GAME_TYPES,
    N_PIECES,
    PIECES_PER_COLOUR,
    piece_in_game,
)
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET
from hiveai.rules.movegen import (
    CRITTERS_KIND,
    DIR_STEP,
    GAME_TYPE_BITS,
    HOLE_BIT,
    KIND,
    LOWEST_BIT,
    MAX_MOVES,
    WS_LOW,
    WS_MARK,
    WS_QUEUE,
    count_placements,
    count_placements_both,
    find_pinned,
    generate_movements,
    new_stamp,
    new_workspace,
    piece_destinations,
    placeable_count,
    renew_stamps,
    slide_directions,
    throwers,
)
from hiveai.rules.position import (
    ALL_NEIGHBOURS, BIT_COUNT, GAME_TYPE, HEIGHT, LAST_MOVED, LEVEL, MOVE_PIECE_SHIFT, NBR, PLY, POS, TOP,
    some_piece_cell,
)

# Bump the id whenever the layout or a feature's meaning changes: network files
# carry it, so a network trained on other features is refused, not misread.
FEATURE_SET = 1
# Every set this hiveai computes (a network file names one): 1, and 2, the same
# layout with what costs most estimated or left out (features2_into).
FEATURE_SETS = (1, 2)

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
def features_of_set_into(b, ws, moves, out, pinned, feature_set):
    """:func:`features_into` (feature set 1) or :func:`features2_into` (2), as ``feature_set`` says."""
    if feature_set == 2:
        features2_into(b, ws, moves, out, pinned)
    else:
        features_into(b, ws, moves, out, pinned)


@counts_free(nogil=True)
def features_into(b, ws, moves, out, pinned):
    """Write the feature vector of ``b`` (feature set 1) into ``out`` (float32, N_FEATURES long).

    ``pinned``: the position's pinned-piece mask (movegen.find_pinned) when the
    caller knows it (the search does), else -1. ``ws``/``moves`` are scratch (new_scratch). ``b`` is changed while the
    other side's moves are generated and restored before returning.
    """
    pinned = _pieces_into(b, ws, out, pinned)
    gt = b[GAME_TYPE] & GAME_TYPE_BITS
    kinds = CRITTERS_KIND if gt == CRITTERS else KIND
    side = b[PLY] & 1

    # Moves of each side: the side to move's as they are, the other's as if it
    # were its turn (one ply on, nothing stunned); b is restored after.
    ours, theirs = count_placements_both(b, ws, moves)
    out[F_PLACEMENTS] = ours
    out[SIDE_FEATURES + F_PLACEMENTS] = theirs
    ply = b[PLY]
    last = b[LAST_MOVED]
    for s in range(2):
        if s == 1:
            b[PLY] = ply + 1
            b[LAST_MOVED] = -1
        colour = side if s == 0 else 1 - side
        o = s * SIDE_FEATURES
        n = generate_movements(b, ws, moves, np.int64(0), pinned)
        # The generator lists each piece's moves together: counted a run at a time.
        movers = 0
        i = 0
        while i < n:
            p = moves[i] >> MOVE_PIECE_SHIFT
            j = i + 1
            while j < n and moves[j] >> MOVE_PIECE_SHIFT == p:
                j += 1
            if (p < PIECES_PER_COLOUR) == (colour == 0):
                out[o + F_KIND + kinds[p] * PER_KIND + K_MOVES] += j - i
                movers |= 1 << p
            else:
                out[o + F_THROWS] += j - i
            i = j
        for p in range(N_PIECES):
            if (movers >> p) & 1:
                out[o + F_KIND + kinds[p] * PER_KIND + K_MOVABLE] += 1.0
    b[PLY] = ply
    b[LAST_MOVED] = last
    return out


@counts_free
def _pieces_into(b, ws, out, pinned):
    """The entries of both feature sets that need no move generation: the game
    type, pieces in hand, buried, pinned, stacks, and around each queen (``out``
    zeroed first). Returns the pinned-piece mask (computed if ``pinned`` < 0)."""
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
    return pinned


# --- Feature set 2 -------------------------------------------------------------------
# Feature set 1's layout, with what costs most estimated or left out, so that
# a position's vector costs no move generation but for a few pieces:
#
# * Ants: the empty cells next to the hive are labelled once into the groups a
#   piece sliding along the hive can reach from one another (one flood fill of
#   each, shared by every ant and ant-copying mosquito of both sides), where
#   feature set 1 floods the hive once per ant. An ant's moves are the sizes of
#   the groups its first steps enter, less the cells that touch the hive only
#   through it, measured with the ant in place (taking it away may also open a
#   gate: rare, and not counted). A mosquito on the ground next to an ant is
#   counted as an ant (its other bugs' moves left out).
# * Spiders, ladybugs and the other mosquitoes: moves not counted (their
#   entries stay 0); movable if free, for a spider if it can take a sliding
#   step, for a mosquito if on the hive or next to another bug, or if its side
#   can throw it (feature set 1's movable counts nearly always agree).
# * Queens, pillbugs and grasshoppers: their moves counted directly (one step
#   per open direction, one jump per neighbouring stack: the generator's
#   count); beetles, and any piece its own side can throw, generated one piece
#   at a time (movegen.piece_destinations). Throws of enemy pieces as in set 1,
#   for the pieces next to a thrower only.
# * Placements: exact, from the same walk as the ants' groups, which classes
#   every empty cell next to the hive by the colours around it.
#
# In Critters (ants of at most five steps, no standard throws) feature set 2
# is feature set 1.

# Where the group sizes are kept: at the end of the features' move buffer,
# group g at moves[_GROUP_SIZE - g] (the per-piece generation writes from 0 up).
_GROUP_SIZE = MAX_MOVES - 1


@counts_free
def _border_groups(b, ws, moves):
    """Label the empty cells next to the hive with their slide group: the
    cell's group times four in ws[WS_LOW + cell] (free scratch outside
    find_pinned; the low two bits: the colours of the stacks around it), each
    group's size at moves[_GROUP_SIZE - group]. Returns (White's placement
    cells, Black's): the cells whose neighbours are all of that colour.

    Each stack's empty neighbours not labelled yet start a group, flooded by
    sliding steps (nothing lifted). The colours come from the same walk over
    the stacks: every empty neighbour of a stack takes its colour's bit, so
    that no cell's neighbours are read twice.
    """
    renew_stamps(ws)
    seen = new_stamp(ws)
    groups = 0
    tail = 0  # the queue keeps every group's cells, one group after another
    for p in range(N_PIECES):
        c = b[POS + p]
        if c < 0 or b[TOP + c] != p:
            continue
        colour = 2 if p >= PIECES_PER_COLOUR else 1  # bit 0: a White stack next to the cell, bit 1: a Black one
        empty = ~b[NBR + c] & ALL_NEIGHBOURS
        while empty != 0:
            e = (c + DIR_STEP[LOWEST_BIT[empty]]) & CELL_MASK
            empty &= empty - 1
            if ws[WS_MARK + e] == seen:
                ws[WS_LOW + e] |= colour
                continue
            ws[WS_MARK + e] = seen
            ws[WS_LOW + e] = (groups << 2) | colour
            ws[WS_QUEUE + tail] = e
            start = tail
            head = tail
            tail += 1
            while head < tail:
                x = ws[WS_QUEUE + head]
                head += 1
                steps = slide_directions(b, x, x)
                while steps != 0:
                    y = (x + DIR_STEP[LOWEST_BIT[steps]]) & CELL_MASK
                    steps &= steps - 1
                    if ws[WS_MARK + y] != seen:
                        ws[WS_MARK + y] = seen
                        ws[WS_LOW + y] = groups << 2  # its colours come when its stacks are walked
                        ws[WS_QUEUE + tail] = y
                        tail += 1
            moves[_GROUP_SIZE - groups] = tail - start
            groups += 1
    white_cells = 0
    black_cells = 0
    for i in range(tail):
        colours = ws[WS_LOW + ws[WS_QUEUE + i]] & 3
        if colours == 1:
            white_cells += 1
        elif colours == 2:
            black_cells += 1
    return white_cells, black_cells


@counts_free
def _slide_reach(b, ws, moves, c):
    """Cells an ant on cell ``c`` reaches, estimated: the sizes of the groups
    (_border_groups) its first sliding steps enter, each group once."""
    steps = slide_directions(b, c, c)
    total = 0
    g0 = -1  # the groups counted (a cell has six neighbours: at most three groups)
    g1 = -1
    while steps != 0:
        y = (c + DIR_STEP[LOWEST_BIT[steps]]) & CELL_MASK
        steps &= steps - 1
        g = ws[WS_LOW + y] >> 2
        if g == g0 or g == g1:
            continue
        if g0 < 0:
            g0 = g
        elif g1 < 0:
            g1 = g
        total += moves[_GROUP_SIZE - g]
    # Less the empty cells that touch the hive only through the ant: out of
    # touch once it leaves (their group was counted: they are its neighbours).
    if total > 0:
        empty = ~b[NBR + c] & ALL_NEIGHBOURS
        while empty != 0:
            d = LOWEST_BIT[empty]
            empty &= empty - 1
            y = (c + DIR_STEP[d]) & CELL_MASK
            if BIT_COUNT[b[NBR + y] & ALL_NEIGHBOURS] == 1:
                total -= 1
    return total


@counts_free
def _beside_thrower(c, t0, t1):
    """Whether cell ``c`` is next to a thrower's cell (throwers(); -1: none)."""
    return (t0 >= 0 and HOLE_BIT[(t0 - c) & CELL_MASK] != 0) or (t1 >= 0 and HOLE_BIT[(t1 - c) & CELL_MASK] != 0)


@counts_free
def _touches_other_bug(b, c):
    """Whether a stack next to cell ``c`` has a bug other than a mosquito on top
    (one a mosquito there could copy)."""
    around = b[NBR + c] & ALL_NEIGHBOURS
    while around != 0:
        q = b[TOP + ((c + DIR_STEP[LOWEST_BIT[around]]) & CELL_MASK)]
        around &= around - 1
        if KIND[q] != MOSQUITO:
            return True
    return False


@counts_free
def _touches_ant(b, c):
    """Whether a stack next to cell ``c`` has an ant on top."""
    around = b[NBR + c] & ALL_NEIGHBOURS
    while around != 0:
        q = b[TOP + ((c + DIR_STEP[LOWEST_BIT[around]]) & CELL_MASK)]
        around &= around - 1
        if KIND[q] == ANT:
            return True
    return False


@counts_free(nogil=True)
def features2_into(b, ws, moves, out, pinned):
    """Write the feature vector of ``b`` in feature set 2 (the block comment
    above) into ``out``; arguments as :func:`features_into`."""
    gt = b[GAME_TYPE] & GAME_TYPE_BITS
    if gt == CRITTERS:
        features_into(b, ws, moves, out, pinned)
        return out
    pinned = _pieces_into(b, ws, out, pinned)
    side = b[PLY] & 1
    ply = b[PLY]
    last = b[LAST_MOVED]
    white_cells = 0
    black_cells = 0
    if some_piece_cell(b) >= 0:
        white_cells, black_cells = _border_groups(b, ws, moves)
    for s in range(2):
        colour = side if s == 0 else 1 - side
        o = s * SIDE_FEATURES
        base = colour * PIECES_PER_COLOUR
        b[PLY] = ply + s  # the other side as if it were to move: one ply on
        out[o + F_PLACEMENTS] = count_placements(b, ws, moves) if ply + s < 2 else \
            placeable_count(b, ws, colour) * (white_cells if colour == 0 else black_cells)
        b[PLY] = ply
        if b[POS + base] < 0:
            continue  # no movement before the queen is down
        stunned = last if s == 0 else -1
        t0, t1 = throwers(b, base, stunned)
        for x in range(base, base + PIECES_PER_COLOUR):
            xc = b[POS + x]
            if xc < 0 or b[TOP + xc] != x or x == stunned or (b[LEVEL + x] == 0 and (pinned >> x) & 1):
                continue
            k = KIND[x]
            thrown = b[HEIGHT + xc] == 1 and _beside_thrower(xc, t0, t1)  # its own side may throw it
            ant = k == ANT or (k == MOSQUITO and b[LEVEL + x] == 0 and _touches_ant(b, xc))
            if ant:
                n = _slide_reach(b, ws, moves, xc)
                if n == 0:
                    n = piece_destinations(b, ws, moves, x, True, t0, t1)  # stuck as an ant: the rest, as they are
                elif thrown:
                    n += piece_destinations(b, ws, moves, x, False, t0, t1)  # its throws (some may repeat a walk)
            elif k == SPIDER or k == LADYBUG or k == MOSQUITO:
                # Moves not counted; movable estimated (see above).
                if k == SPIDER:
                    movable = slide_directions(b, xc, xc) != 0 or thrown
                elif k == LADYBUG:
                    movable = True
                else:
                    movable = b[LEVEL + x] > 0 or _touches_other_bug(b, xc) or thrown
                if movable:
                    out[o + F_KIND + k * PER_KIND + K_MOVABLE] += 1.0
                continue
            elif thrown or k == BEETLE:
                n = piece_destinations(b, ws, moves, x, True, t0, t1)  # a throw may repeat a step: generated
            elif k == GRASSHOPPER:
                n = BIT_COUNT[b[NBR + xc] & ALL_NEIGHBOURS]  # one jump over each neighbouring stack
            else:  # queen, pillbug
                n = BIT_COUNT[slide_directions(b, xc, xc)]  # one sliding step: no cell twice
            if n > 0:
                out[o + F_KIND + k * PER_KIND + K_MOVES] += n
                out[o + F_KIND + k * PER_KIND + K_MOVABLE] += 1.0
        # The enemy pieces it can throw: those beside a thrower (each once).
        for i in range(2):
            t = t0 if i == 0 else t1
            if t < 0:
                continue
            around = b[NBR + t] & ALL_NEIGHBOURS
            while around != 0:
                xc = (t + DIR_STEP[LOWEST_BIT[around]]) & CELL_MASK
                around &= around - 1
                x = b[TOP + xc]
                if (x >= base and x < base + PIECES_PER_COLOUR) or x == stunned or b[HEIGHT + xc] != 1 \
                        or (pinned >> x) & 1 or (i == 1 and HOLE_BIT[(t0 - xc) & CELL_MASK] != 0):
                    continue
                out[o + F_THROWS] += piece_destinations(b, ws, moves, x, False, t0, t1)
    return out
