"""Move ordering: which move the search tries first (compiled, no Python per node).

Alpha-beta cuts off soonest when the best move comes first. Each move gets
a key, biggest first: the transposition table's move, then moves that
attack the enemy queen (land next to it from elsewhere) or free our own
(take a piece off a cell next to it), then two killers per ply (quiet moves
that refuted a sibling), then the countermove (the quiet move that last
refuted the opponent's last move), then the history table (quiet refutations,
weighted by depth squared). The kernel (:mod:`hiveai.search.negamax`) picks the
first :data:`SELECTION_PICKS` moves one by one and sorts the rest once.

Keys are packed with their move, ``-(key << 16 | move)``, so an ascending
sort puts the best first and the move comes back as ``(-k) & 0xFFFF``.
"""

from __future__ import annotations

from hiveai.rules.borrow import counts_free
from hiveai.rules.bug import N_PIECES, PIECES_PER_COLOUR
from hiveai.rules.hex_grid import CELL_MASK
from hiveai.rules.movegen import DIR_STEP, PIECE_MASK, WS_MARK, generate_placements, new_stamp
from hiveai.rules.position import HEIGHT, MOVE_PIECE_SHIFT, PASS, POS, TOP
from hiveai.search.scratch import COUNTER_SIDE, HISTORY_SIDE, SD_COUNTER, SD_HISTORY, SD_KILLERS, SD_PLY_MOVE

# Move ordering keys (bigger first). History is capped below the killers.
ORDER_TT = 1 << 40
ORDER_ATTACK = 1 << 32  # lands next to (or on) the enemy queen, from elsewhere
ORDER_DEFEND = 1 << 31  # takes a piece away from our own queen
ORDER_KILLER1 = 1 << 30
ORDER_KILLER2 = 1 << 29
ORDER_COUNTER = 1 << 28  # the countermove: after the killers, before any history
HISTORY_MAX = (1 << 28) - 1
# Moves picked one by one (selection: TT, attacks, defences, killers and the
# best by history); a node that has not cut off by then sorts the rest once.
# Sorting the rest by history still finds late cut-offs: generation order costs
# 11 % more bench nodes, 17 % in the Base+MLP mid-game
# (docs/measurements/2026-12-01-search-changes.md).
SELECTION_PICKS = 6


@counts_free(nogil=True)
def _mark_around(ws, cell, stamp):
    """Stamp ``cell`` and its six neighbours in the workspace's cell marks."""
    if cell < 0:
        return
    ws[WS_MARK + cell] = stamp
    for d in range(6):
        ws[WS_MARK + ((cell + DIR_STEP[d]) & CELL_MASK)] = stamp


@counts_free(nogil=True)
def order_keys(b, ws, sd, moves, keys_, start, end, tt_move, ply, side):
    """Ordering key of each move in moves[start:end], packed with the move
    into ``keys_[i]`` (see the module docstring).

    Queen neighbourhoods are stamped into the workspace marks (after move
    generation is done with them) so each test is one load.
    """
    mine = new_stamp(ws)
    _mark_around(ws, b[POS + side * PIECES_PER_COLOUR], mine)
    theirs = new_stamp(ws)
    their_queen = b[POS + (1 - side) * PIECES_PER_COLOUR]
    _mark_around(ws, their_queen, theirs)
    my_queen = b[POS + side * PIECES_PER_COLOUR]
    k1 = sd[SD_KILLERS + 2 * ply]
    k2 = sd[SD_KILLERS + 2 * ply + 1]
    counter = sd[SD_COUNTER + side * COUNTER_SIDE + sd[SD_PLY_MOVE + ply - 1]] if ply > 0 else -1
    hist = SD_HISTORY + side * HISTORY_SIDE
    for i in range(start, end):
        mv = moves[i]
        # Written without branches on the move's kind: the PASS and TT-move
        # cases are overridden at the end, and a piece in hand (src < 0) reads
        # a mark it then ignores. Masked indices skip numba's wrap-around code.
        src = b[POS + ((mv >> MOVE_PIECE_SHIFT) & PIECE_MASK)]
        on_board = src >= 0
        src_mark = ws[WS_MARK + (src & CELL_MASK)]
        dest_mark = ws[WS_MARK + (mv & CELL_MASK)]
        key = sd[hist + mv]
        # Attack: lands next to (or on) the enemy queen from elsewhere.
        if dest_mark == theirs and not (on_board and src_mark == theirs):
            key += ORDER_ATTACK
        # Defence: takes a piece off a cell next to our queen.
        if on_board and src != my_queen and src_mark == mine and dest_mark != mine:
            key += ORDER_DEFEND
        if mv == k1:
            key += ORDER_KILLER1
        elif mv == k2:
            key += ORDER_KILLER2
        elif mv == counter:
            key += ORDER_COUNTER
        if mv == tt_move:
            key = ORDER_TT
        elif mv == PASS:
            key = 0
        keys_[i] = -((key << 16) | mv)


@counts_free(nogil=True)
def best_key(keys_, i, end):
    """Index of the best (smallest) key in keys_[i:end]."""
    j = i
    for k in range(i + 1, end):
        if keys_[k] < keys_[j]:
            j = k
    return j


@counts_free(nogil=True)
def add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side):
    """Append the placements (keyed) to a node's list of movements at
    moves[start:end], or PASS if there is no move at all; returns the new end."""
    n = generate_placements(b, ws, moves, end)
    if n == start:
        moves[n] = PASS
        n += 1
    order_keys(b, ws, sd, moves, keys_, end, n, tt_move, ply, side)
    return n


@counts_free(nogil=True)
def plausible(b, mv):
    """Whether ``mv`` can be made here without corrupting the position (a
    guard against TT key collisions, not a legality test)."""
    if mv == PASS:
        return True
    piece = mv >> MOVE_PIECE_SHIFT
    dest = mv & CELL_MASK
    if piece >= N_PIECES:
        return False
    src = b[POS + piece]
    if src < 0:
        return b[HEIGHT + dest] == 0
    return b[TOP + src] == piece and dest != src


@counts_free(nogil=True)
def record_refutation(sd, ply, side, mv, depth):
    """A quiet move ``mv`` cut off at ``ply``: make it killer 1, add ``depth``
    squared to its history, and make it the countermove to the last move."""
    if sd[SD_KILLERS + 2 * ply] != mv:
        sd[SD_KILLERS + 2 * ply + 1] = sd[SD_KILLERS + 2 * ply]
        sd[SD_KILLERS + 2 * ply] = mv
    h = SD_HISTORY + side * HISTORY_SIDE + mv
    sd[h] = min(sd[h] + depth * depth, HISTORY_MAX)
    if ply > 0:
        sd[SD_COUNTER + side * COUNTER_SIDE + sd[SD_PLY_MOVE + ply - 1]] = mv
