"""The search: numba alpha-beta below, iterative deepening and time in Python above.

**Kernel** (:func:`_negamax`, compiled end to end, no Python per node):
negamax alpha-beta with principal variation search (null windows after the
first move), a transposition table (:mod:`hiveai.tt`), mate-distance scores
(``WIN - ply``: the fastest win and the slowest loss score best, stored
node-relative in the TT), and move ordering: TT move, then moves that attack
the enemy queen or free our own, then two killers per ply, then a history
table. At depth 1 (the children are leaves) placements are generated only
once one could rank first, which keeps the order and skips most of them.
Positions repeating one earlier on the search path or in the game
since the last placement score as a draw: Hive has no repetition rule, but
this stops a winning side from shuffling (placements are the only
irreversible moves, so the scan stops at the last one).

The recursion is cached by numba only because every recursive call passes
exactly the types of the outer call (all scalars int64, all arrays fixed);
mixing ``np.int32`` and int64 arguments makes the cached code crash on load
(numba issues 6061 and 6713). ``tests/test_search.py`` loads every kernel
from a warm cache in a fresh process.

**Driver** (:class:`Searcher`): one kernel call per iteration (and per
multipv line), run in a worker thread; the kernels release the GIL
(``nogil=True``). The calling thread waits, and on a stop request (SIGINT,
``Limits.stop``) or the hard deadline it sets the stop flag in the shared
``ctl`` array, which the kernel reads at every node, so the answer comes
within milliseconds: the best move of the last completed iteration, or the
current iteration's best root move if one was fully searched (it is at least
as good, having been searched deeper).

**Threads** (Lazy SMP, :class:`_Helper`): with ``threads`` > 1 the driver
starts helper threads before the main worker; each runs its own iterative
deepening on a copy of the position, with its own scratch and control
arrays, into the shared table (lock-free: :mod:`hiveai.tt`). They only fill
the table; ``stop()`` sets every thread's stop flag, and when the main
worker ends the helpers are stopped and joined. Threading lives here, in the
kernel-launch layer; the iteration and time decisions (``_iterate``) are the
main thread's alone.

Public API, python-chess style: :func:`search` (one call, fresh table) and
:class:`Searcher` (keeps its table between moves, as the UHP engine does).
"""

from __future__ import annotations

import queue
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import njit

from hiveai.board import Board, Move
from hiveai.borrow import borrow
from hiveai.bug import N_PIECES, PIECES_PER_COLOUR
from hiveai.evaluate import DRAW_SCORE, evaluate_pinned, weights_for, weights_from_env
from hiveai.hex_grid import CELL_MASK, N_CELLS
from hiveai.level import MAX_LEVEL, play_level
from hiveai.movegen import (
    DIR_STEP,
    MAX_MOVES,
    PIECE_MASK,
    WS_MARK,
    WS_PINNED,
    generate_movements,
    generate_placements,
    is_legal_placement,
    new_stamp,
    new_workspace,
    pinned_after_move,
)
from hiveai.notation import move_to_string
from hiveai.score import WIN, format_score, is_win_score  # noqa: F401 - the last two: results API
from hiveai.position import (
    DRAW,
    HASH,
    HEIGHT,
    IN_PROGRESS,
    MOVE_PIECE_SHIFT,
    PASS,
    PLY,
    POS,
    TOP,
    WHITE_WINS,
    do_move,
    game_result,
    occupied_neighbours,
    undo_move,
)
from hiveai.timeman import Limits, StopFlag, depth_limits, time_limits
from hiveai.tt import (
    DEFAULT_TT_MB,
    EXACT,
    LOWER,
    MATE_BOUND,
    UPPER,
    entry_bound,
    entry_depth,
    entry_move,
    entry_score,
    new_table,
    score_from_tt,
    score_to_tt,
    tt_probe,
    tt_store,
)

# Deepest search, in plies (also the size of the per-ply tables). Hive
# searches at a few seconds reach depth 6-10; 64 leaves room for mates.
MAX_PLY = 64
# Depth used by search() when neither depth nor time is given.
DEFAULT_DEPTH = 4
INFINITY = 2 * WIN
# "No score yet" from the helpers that score a node without search (no score is this big).
NO_SCORE = 4 * WIN

# Shared control array (int64), read and written by kernel and driver.
CTL_STOP = 0  # set to 1 by the driver: the kernel unwinds at once
CTL_NODES = 1  # nodes visited (interior and leaves)
CTL_TT_PROBES = 2
CTL_TT_HITS = 3
CTL_ROOT_MOVE = 4  # best root move of the running iteration, once fully searched
CTL_ROOT_SCORE = 5
CTL_ROOT_VALID = 6  # 1 once CTL_ROOT_MOVE holds a fully searched move
CTL_GENERATION = 7  # TT generation of this search
CTL_ITER_DEPTH = 8  # depth of the running iteration
CTL_LMR = 9  # late move reductions: 0 off, 1 the full rule, 2 the mild rule (below)
CTL_EXTEND = 10  # 1: threat extension on
CTL_EVALS = 11  # leaves evaluated
CTL_EVAL_HITS = 12  # ... of which found in the evaluation cache
CTL_NODE_LIMIT = 13  # > 0: the kernel stops itself once CTL_NODES reaches it
CTL_SHARED = 14  # 1: other threads search the same tree (defer their busy moves, below)
CTL_SIZE = 15

# Search data (int64): killers, history and the triangular PV table.
_HISTORY_SIDE = N_PIECES * N_CELLS  # history index: side * this + move
SD_KILLERS = 0  # 2 per ply
SD_HISTORY = SD_KILLERS + 2 * MAX_PLY
SD_PV = SD_HISTORY + 2 * _HISTORY_SIDE  # MAX_PLY x MAX_PLY
SD_PVLEN = SD_PV + MAX_PLY * MAX_PLY
# Evaluation cache: (hash, score) pairs, direct-mapped. Leaves repeat across
# iterations and transpositions, and a hit skips the articulation-point pass
# that dominates evaluate(). 2**15 entries (512 KB) stay in the L2 cache.
EVAL_CACHE_BITS = 15
SD_EVAL = SD_PVLEN + MAX_PLY
# The move made at each ply of the current line, and the countermove table: by
# side and the opponent's last move (PASS included), the quiet move that last
# refuted it (Uiterwijk's countermove heuristic, as nokamute orders by).
SD_PLY_MOVE = SD_EVAL + 2 * (1 << EVAL_CACHE_BITS)
_COUNTER_SIDE = _HISTORY_SIDE + 1
SD_COUNTER = SD_PLY_MOVE + MAX_PLY
SD_SIZE = SD_COUNTER + 2 * _COUNTER_SIDE

# Move ordering keys (bigger first). History is capped below the killers.
ORDER_TT = 1 << 40
ORDER_ATTACK = 1 << 32  # lands next to (or on) the enemy queen, from elsewhere
ORDER_DEFEND = 1 << 31  # takes a piece away from our own queen
ORDER_KILLER1 = 1 << 30
ORDER_KILLER2 = 1 << 29
ORDER_COUNTER = 1 << 28  # the countermove: after the killers, before any history
HISTORY_MAX = (1 << 28) - 1
# Late move reductions (never at the root, so every root move and multipv
# line gets a full-depth score): from this depth and this many moves
# searched, quiet moves are searched one ply shallower first; two plies from LMR_DEEPER_MOVES
# moves at LMR_DEEPER_DEPTH and deeper. The usual chess-engine starting
# values (Stockfish's first LMR used 3 moves, depth 3); not tuned, since a
# match switched LMR off (SEARCH_DEFAULTS below).
LMR_MIN_DEPTH = 3
LMR_MIN_MOVES = 3
LMR_DEEPER_MOVES = 12
LMR_DEEPER_DEPTH = 5
# The mild rule (lmr=2): one ply less, only at null-window nodes, from this
# depth and this many moves searched. 18 % fewer bench nodes (24 % in the
# Base+MLP mid-game), but no stronger: 400 games at 400,000 nodes a move
# scored it 50.4 % against LMR off (README.md, "Strength"), so it is off too.
LMR_MILD_DEPTH = 4
LMR_MILD_MOVES = 12
# Search features that a tuning match can switch off, e.g.
# HIVEAI_SEARCH="lmr=0,extend=1"; the defaults are what matches kept.
SEARCH_FEATURES = {"lmr": CTL_LMR, "extend": CTL_EXTEND}
# LMR is off: at 0.1 s/move, 600 games (Base+MLP, 4 random opening plies)
# scored LMR-off +15.6 +- 27.1 Elo against LMR-on (README.md, "Strength").
SEARCH_DEFAULTS = {"lmr": 0, "extend": 1}
SEARCH_ENV = "HIVEAI_SEARCH"
# The values each switch takes.
FEATURE_VALUES = {"lmr": ("0", "1", "2"), "extend": ("0", "1")}
assert FEATURE_VALUES.keys() == SEARCH_DEFAULTS.keys() == SEARCH_FEATURES.keys()
# Moves picked one by one (selection: TT, attacks, defences, killers and the
# best by history); a node that has not cut off by then sorts the rest once.
# Leaving the rest in generation order (as before) cost 11 % more bench nodes,
# 17 % in the Base+MLP mid-game: the history order still finds late cut-offs.
SELECTION_PICKS = 6
# Simplified ABDADA (Tom Kerrigan's refinement of Lazy SMP): with several
# threads, a thread about to search a move other than a node's first, from
# this depth up, first looks in a small shared table of (position, move) pairs
# that some thread is searching right now; if it is there, the move is put off
# to the end of the node's list, so the threads spread over different
# subtrees instead of all searching the same one. Races only make a hint wrong.
BUSY_MIN_DEPTH = 3
BUSY_SIZE = 1 << 15  # Kerrigan's table size; entries live only while a move is searched
_BUSY_MASK = BUSY_SIZE - 1
_BUSY_MULT = -7046029254386353131  # 0x9E3779B97F4A7C15 (the 64-bit golden ratio) as int64: spreads moves
# A deferred move's ordering key is rewritten to this flag | quiet << 16 | move
# (positive, where consumed and waiting keys are <= 0).
_DEFERRED = 1 << 40


# --- Kernel -------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _mark_around(ws, cell, stamp):
    """Stamp ``cell`` and its six neighbours in the workspace's cell marks."""
    if cell < 0:
        return
    ws[WS_MARK + cell] = stamp
    for d in range(6):
        ws[WS_MARK + ((cell + DIR_STEP[d]) & CELL_MASK)] = stamp


@njit(cache=True, nogil=True)
def _order_keys(b, ws, sd, moves, keys_, start, end, tt_move, ply, side):
    """Ordering key of each move in moves[start:end], packed with the move.

    ``keys_[i]`` = -(key << 16 | move), so an ascending sort puts the best
    first and the move comes back as ``(-k) & 0xFFFF``. Queen neighbourhoods
    are stamped into the workspace marks (after move generation is done with
    them) so each test is one load.
    """
    mine = new_stamp(ws)
    _mark_around(ws, b[POS + side * PIECES_PER_COLOUR], mine)
    theirs = new_stamp(ws)
    their_queen = b[POS + (1 - side) * PIECES_PER_COLOUR]
    _mark_around(ws, their_queen, theirs)
    my_queen = b[POS + side * PIECES_PER_COLOUR]
    k1 = sd[SD_KILLERS + 2 * ply]
    k2 = sd[SD_KILLERS + 2 * ply + 1]
    counter = sd[SD_COUNTER + side * _COUNTER_SIDE + sd[SD_PLY_MOVE + ply - 1]] if ply > 0 else -1
    hist = SD_HISTORY + side * _HISTORY_SIDE
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


@njit(cache=True, nogil=True)
def _best_key(keys_, i, end):
    """Index of the best (smallest) key in keys_[i:end]."""
    j = i
    for k in range(i + 1, end):
        if keys_[k] < keys_[j]:
            j = k
    return j


@njit(cache=True, nogil=True)
def _add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side):
    """Append the placements (keyed) to a node's list of movements at
    moves[start:end], or PASS if there is no move at all; returns the new end."""
    n = generate_placements(b, ws, moves, end)
    if n == start:
        moves[n] = PASS
        n += 1
    _order_keys(b, ws, sd, moves, keys_, end, n, tt_move, ply, side)
    return n


@njit(cache=True, nogil=True)
def _plausible(b, mv):
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


@njit(cache=True, nogil=True)
def _cached_eval(b, ws, w, sd, ctl, key, pinned):
    """evaluate(), remembered by position hash (the hash covers the side to move);
    ``pinned``: the pinned-piece mask if known, else -1 (evaluate_pinned)."""
    slot = SD_EVAL + 2 * (key & ((1 << EVAL_CACHE_BITS) - 1))
    ctl[CTL_EVALS] += 1
    if sd[slot] == key and key != 0:
        ctl[CTL_EVAL_HITS] += 1
        return sd[slot + 1]
    score = evaluate_pinned(b, ws, w, pinned)
    sd[slot] = key
    sd[slot + 1] = score
    return score


@njit(cache=True, nogil=True)
def _repeats(b, path, hp, irrev, key):
    """Whether this position repeats one earlier in the game or on the search
    path (same side to move, no placement since), and may be scored a draw.

    Not when the side to move can win at once (the enemy queen has five
    neighbours): Hive has no repetition rule, so the opponent of a player who
    walks back into such a position simply wins; the draw is only a heuristic
    against shuffling in quiet positions.
    """
    i = hp - 2
    while i >= irrev:
        if path[i] == key:
            enemy_queen = b[POS + (1 - (b[PLY] & 1)) * PIECES_PER_COLOUR]
            return enemy_queen < 0 or occupied_neighbours(b, enemy_queen) < 5
        i -= 2
    return False


@njit(cache=True, nogil=True)
def _terminal_score(b, result, ply):
    """Score of a finished game for the side to move, found ``ply`` plies from the root."""
    if result == DRAW:
        return DRAW_SCORE
    white_to_move = (b[PLY] & 1) == 0
    if (result == WHITE_WINS) == white_to_move:
        return WIN - ply  # the side that just moved surrounded its own queen
    return -(WIN - ply)


@njit(cache=True, nogil=True)
def _settled(b, path, ply, hp, irrev):
    """Score of a node decided without search: a finished game or a
    repetition draw; NO_SCORE if the game goes on."""
    result = game_result(b)
    if result != IN_PROGRESS:
        return _terminal_score(b, result, ply)
    if ply > 0 and _repeats(b, path, hp, irrev, b[HASH]):
        return DRAW_SCORE
    return NO_SCORE


@njit(cache=True, nogil=True)
def _leaf_score(b, ws, w, sd, path, ctl, ply, hp, irrev, pinned):
    """Score of a node at depth 0 for the side to move, without a search
    (settled, else the static evaluation); or NO_SCORE when the threat
    extension wants it searched one ply instead.

    Kept out of :func:`_negamax` so a node whose children are leaves scores
    them without a recursive call (two thirds of all nodes are leaves).
    """
    s = _settled(b, path, ply, hp, irrev)
    if s != NO_SCORE:
        return s
    # Threat extension: if the side to move could finish the enemy queen
    # (five cells already taken), look one ply further instead of trusting
    # a static score that cannot see the win. Bounded to twice the
    # iteration depth, since threats can answer threats.
    if ctl[CTL_EXTEND] != 0 and ply < 2 * ctl[CTL_ITER_DEPTH] and ply < MAX_PLY - 2:
        enemy_queen = b[POS + (1 - (b[PLY] & 1)) * PIECES_PER_COLOUR]
        if enemy_queen >= 0 and occupied_neighbours(b, enemy_queen) >= 5:
            return NO_SCORE
    return _cached_eval(b, ws, w, sd, ctl, b[HASH], pinned)


@njit(cache=True, nogil=True)
def _negamax(b, ws, w, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
             depth, ply, alpha, beta, start, hp, irrev, pinned):
    """Score of position ``b`` for the side to move, searched ``depth`` plies.

    ``w`` are the evaluation weights. ``moves``/``keys_`` hold each ply's move list and ordering keys from
    index ``start``; ``path[hp]`` is this position's hash and positions
    ``irrev..hp-1`` of ``path`` are the ones it could repeat. ``excl`` lists
    root moves to skip (multipv). ``pinned`` is the position's pinned-piece
    mask when the parent could tell (movegen.pinned_after_move), else -1.
    Returns 0 at once once ``ctl[CTL_STOP]`` is set.
    """
    ctl[CTL_NODES] += 1
    sd[SD_PVLEN + ply] = 0
    if ctl[CTL_STOP] != 0:
        return 0
    if ctl[CTL_NODE_LIMIT] > 0 and ctl[CTL_NODES] >= ctl[CTL_NODE_LIMIT]:
        ctl[CTL_STOP] = 1  # the node budget is spent: stop as the driver would
        return 0
    if depth <= 0:
        s = _leaf_score(b, ws, w, sd, path, ctl, ply, hp, irrev, pinned)
        if s != NO_SCORE:
            return s
        depth = 1  # extended
    else:
        s = _settled(b, path, ply, hp, irrev)
        if s != NO_SCORE:
            return s
    key = b[HASH]
    if ply >= MAX_PLY - 1:
        return _cached_eval(b, ws, w, sd, ctl, key, pinned)

    # Mate distance: no line from here beats a win at the next ply.
    if alpha < -(WIN - ply):
        alpha = -(WIN - ply)
    if beta > WIN - ply - 1:
        beta = WIN - ply - 1
    if alpha >= beta:
        return alpha

    tt_move = -1
    ctl[CTL_TT_PROBES] += 1
    d = tt_probe(tt_keys, tt_data, key)
    if d != 0:
        ctl[CTL_TT_HITS] += 1
        tt_move = entry_move(d)
        # Cut only at null-window nodes, so PV nodes keep their whole line.
        if ply > 0 and beta - alpha == 1 and entry_depth(d) >= depth:
            s = score_from_tt(entry_score(d), ply)
            bound = entry_bound(d)
            if bound == EXACT or (bound == LOWER and s >= beta) or (bound == UPPER and s <= alpha):
                return s

    side = b[PLY] & 1
    if tt_move >= 0 and not _plausible(b, tt_move):
        tt_move = -1  # a 64-bit key collision: never play a move that does not fit
    if ply == 0:
        for x in range(excl.shape[0]):
            if excl[x] == tt_move:
                tt_move = -1

    # The TT move is searched before any move is generated: when it refutes,
    # as it usually does at cut nodes, the node never pays for generation.
    orig_alpha = alpha
    best = -INFINITY
    best_move = -1
    searched = 0
    end = start  # end of this node's move list once generated
    i = start
    generated = False
    pending = False  # placements not generated yet (depth 1)
    killer_placement = -1  # killer 1, searched before the placements were generated
    parent_pinned = pinned  # pinned-piece mask of this position (-1 until known)
    shared = ctl[CTL_SHARED] != 0 and depth >= BUSY_MIN_DEPTH
    deferred = 0  # moves put off because another thread was searching them
    second_pass = False
    while True:
        quiet = False
        if searched == 0 and tt_move >= 0 and not generated:
            mv = tt_move
        elif second_pass:
            while i < end and keys_[i] <= 0:
                i += 1
            if i >= end:
                break
            mv = keys_[i] & 0xFFFF
            quiet = (keys_[i] >> 16) & 1 == 1
            keys_[i] = 0
            i += 1
        else:
            if not generated:
                # At depth 1 the placements wait (below) while the best move may
                # be a movement; elsewhere every move is generated at once. Not
                # when our beetle covers the enemy queen: a placement beside it
                # attacks (a stack's colour is its top piece's).
                their_base = (1 - side) * PIECES_PER_COLOUR
                their_queen = b[POS + their_base]
                pending = depth == 1 and ply > 0 and (their_queen < 0 or b[TOP + their_queen] == their_base)
                end = generate_movements(b, ws, moves, start, parent_pinned)
                parent_pinned = np.int64(ws[WS_PINNED])  # this position's, from the generation
                _order_keys(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                if not pending:
                    end = _add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                generated = True
                i = start
            if pending and (i >= end or i >= start + SELECTION_PICKS):
                end = _add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                pending = False
            if i >= end:
                if deferred == 0:
                    break
                second_pass = True  # now search the moves put off, busy or not
                i = start
                continue
            from_list = True
            if i < start + SELECTION_PICKS:
                # Pick the best remaining move: cut nodes rarely need the rest.
                j = _best_key(keys_, i, end)
                if pending and ((-keys_[j]) >> 16) < ORDER_KILLER1:
                    # A placement may rank above it. Killer 1, if it is one,
                    # ranks above all the others: try it before generating them.
                    k1 = sd[SD_KILLERS + 2 * ply]
                    if killer_placement < 0 and k1 != tt_move and is_legal_placement(b, ws, moves, end, k1):
                        killer_placement = k1
                        from_list = False
                    else:
                        end = _add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                        pending = False
                        j = _best_key(keys_, i, end)
                if from_list:
                    t = keys_[i]
                    keys_[i] = keys_[j]
                    keys_[j] = t
            elif i == start + SELECTION_PICKS:
                # Still no cut-off: sort the rest once, by history (the
                # keys are unique, so the order is the same as picking on).
                keys_[i:end].sort()
            if not from_list:
                mv = killer_placement  # a killer: not quiet, like any killer
            else:
                mv = (-keys_[i]) & 0xFFFF
                quiet = ((-keys_[i]) >> 16) < ORDER_KILLER2
                i += 1
                if mv == tt_move or mv == killer_placement:
                    continue  # searched first, before generation
            if ply == 0:
                skip = False
                for x in range(excl.shape[0]):
                    if excl[x] == mv:
                        skip = True
                if skip:
                    continue
        busy_key = key ^ (mv * _BUSY_MULT)
        if shared:
            if searched > 0 and not second_pass and busy[busy_key & _BUSY_MASK] == busy_key:
                keys_[i - 1] = _DEFERRED | ((1 << 16) if quiet else 0) | mv  # a young brother taken: later
                deferred += 1
                continue
            busy[busy_key & _BUSY_MASK] = busy_key  # searching it now
        placement = mv != PASS and b[POS + (mv >> MOVE_PIECE_SHIFT)] < 0
        # The child's pins often follow from this position's
        # (movegen.pinned_after_move): one Tarjan pass saved there.
        child_pinned = pinned_after_move(b, parent_pinned, mv) if parent_pinned >= 0 else -1
        token = do_move(b, mv)
        sd[SD_PLY_MOVE + ply] = mv
        path[hp + 1] = b[HASH]
        child_irrev = hp + 1 if placement else irrev
        # A leaf child is scored here without a call; its score is exact
        # whatever the window, so it needs no re-search either.
        leaf = _leaf_score(b, ws, w, sd, path, ctl, ply + 1, hp + 1, child_irrev, child_pinned) if depth == 1 else NO_SCORE
        if leaf == NO_SCORE and pending:
            # An extended child is searched and may change the history the
            # placements' keys read: key them first, as a full generation would have.
            undo_move(b, mv, token)
            end = _add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
            pending = False
            token = do_move(b, mv)
        if leaf != NO_SCORE:
            ctl[CTL_NODES] += 1
            sd[SD_PVLEN + ply + 1] = 0
            s = -leaf
        elif searched == 0:
            s = -_negamax(b, ws, w, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                          depth - 1, ply + 1, -beta, -alpha, end, hp + 1, child_irrev, child_pinned)
        else:
            # Late move reduction: a quiet move far down the ordered list is
            # first searched shallower, and again at full depth only if it
            # looks better than the best so far.
            reduce = 0
            if ctl[CTL_LMR] == 1 and ply > 0 and depth >= LMR_MIN_DEPTH and searched >= LMR_MIN_MOVES and quiet:
                reduce = 1 if searched < LMR_DEEPER_MOVES or depth < LMR_DEEPER_DEPTH else 2
            elif (ctl[CTL_LMR] == 2 and ply > 0 and beta - alpha == 1 and depth >= LMR_MILD_DEPTH
                  and searched >= LMR_MILD_MOVES and quiet):
                reduce = 1
            s = -_negamax(b, ws, w, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                          depth - 1 - reduce, ply + 1, -alpha - 1, -alpha, end, hp + 1, child_irrev, child_pinned)
            if reduce > 0 and s > alpha:
                s = -_negamax(b, ws, w, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                              depth - 1, ply + 1, -alpha - 1, -alpha, end, hp + 1, child_irrev, child_pinned)
            if alpha < s < beta:
                s = -_negamax(b, ws, w, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                              depth - 1, ply + 1, -beta, -alpha, end, hp + 1, child_irrev, child_pinned)
        undo_move(b, mv, token)
        if shared and busy[busy_key & _BUSY_MASK] == busy_key:
            busy[busy_key & _BUSY_MASK] = 0
        searched += 1
        if ctl[CTL_STOP] != 0:
            return 0
        if s > best:
            best = s
            best_move = mv
            if s > alpha:
                alpha = s
                # PV: this move, then the child's line.
                row = SD_PV + ply * MAX_PLY
                child = SD_PV + (ply + 1) * MAX_PLY
                sd[row] = mv
                n = sd[SD_PVLEN + ply + 1]
                for x in range(n):
                    sd[row + 1 + x] = sd[child + x]
                sd[SD_PVLEN + ply] = n + 1
                if ply == 0:
                    ctl[CTL_ROOT_MOVE] = mv
                    ctl[CTL_ROOT_SCORE] = s
                    ctl[CTL_ROOT_VALID] = 1
                if s >= beta:
                    if mv != PASS and quiet:
                        # A quiet move that refuted: remember it.
                        if sd[SD_KILLERS + 2 * ply] != mv:
                            sd[SD_KILLERS + 2 * ply + 1] = sd[SD_KILLERS + 2 * ply]
                            sd[SD_KILLERS + 2 * ply] = mv
                        h = SD_HISTORY + side * _HISTORY_SIDE + mv
                        sd[h] = min(sd[h] + depth * depth, HISTORY_MAX)
                        if ply > 0:
                            sd[SD_COUNTER + side * _COUNTER_SIDE + sd[SD_PLY_MOVE + ply - 1]] = mv
                    break
    if searched == 0:
        return -INFINITY  # every root move excluded (multipv asked for more lines than moves)
    if ply > 0 or excl.shape[0] == 0:
        if best <= orig_alpha:
            bound = UPPER
        elif best >= beta:
            bound = LOWER
        else:
            bound = EXACT
        tt_store(tt_keys, tt_data, key, best_move, score_to_tt(best, ply), depth, bound, ctl[CTL_GENERATION])
    return best


@njit(cache=True, nogil=True)
def _search_root(b, ws, w, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl, depth, hp, irrev):
    """One iteration: the root searched ``depth`` plies with a full window."""
    ctl[CTL_ROOT_VALID] = 0
    return _negamax(borrow(b), borrow(ws), borrow(w), borrow(moves), borrow(keys_), borrow(sd), borrow(path),
                    borrow(tt_keys), borrow(tt_data), borrow(busy), borrow(ctl), borrow(excl),
                    depth, np.int64(0), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0), hp, irrev, np.int64(-1))


# --- Results ------------------------------------------------------------------


@dataclass
class Line:
    """One principal variation: a root move, its score and the line it leads to."""

    move: Move
    score: int
    pv: list[Move]  # from the searched position; pv[0] is move

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``)."""
        return str(self.move)


@dataclass
class SearchInfo:
    """A completed iteration (one per multipv line), for progress output."""

    depth: int
    multipv: int  # 1-based line number
    score: int
    nodes: int
    seconds: float
    nps: float
    pv: list[Move]  # from the searched position
    tt_hits: int = 0
    tt_probes: int = 0


@dataclass
class SearchResult:
    """What a search found: the move to play and how it got there.

    >>> from hiveai import Board
    >>> result = search(Board("Base"), depth=2)
    >>> result.move in Board("Base").legal_moves, result.pv[0] == result.move
    (True, True)
    """

    move: Move
    score: int | None  # side to move's view; None when nothing was searched
    depth: int  # last completed iteration (0: no search, the fallback move)
    nodes: int
    seconds: float
    pv: list[Move] = field(default_factory=list)  # from the searched position; pv[0] is move
    lines: list[Line] = field(default_factory=list)  # multipv, best first
    tt_hits: int = 0
    tt_probes: int = 0

    @property
    def move_string(self) -> str:
        """The move's canonical MoveString (``str(move)``), what UHP's ``bestmove`` answers."""
        return str(self.move)

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


# --- Driver -------------------------------------------------------------------

# What warm() searches to depth 2 with two lines: a small Base+MLP position, so
# every kernel of the search is called (multipv exclusions included).
WARM_GAME = "Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-"
# How often the waiting thread checks the clock and the stop flag (seconds).
POLL_INTERVAL = 0.002


class _Scratch:
    """One search thread's private arrays: workspace, move lists, killers and
    history, PV, evaluation cache, and its own control array (node counts,
    root move, the stop flag)."""

    def __init__(self) -> None:
        self.ws = new_workspace()
        self.moves = np.zeros(MAX_MOVES * MAX_PLY, dtype=np.int32)
        self.order = np.zeros(MAX_MOVES * MAX_PLY, dtype=np.int64)
        self.sd = np.zeros(SD_SIZE, dtype=np.int64)
        self.ctl = np.zeros(CTL_SIZE, dtype=np.int64)

    def new_search(self) -> None:
        """Killers from the last search are stale; history is still a useful
        hint, but halved (the minimax crate does the same each search)."""
        self.sd[SD_KILLERS:SD_HISTORY] = 0
        self.sd[SD_HISTORY:SD_PV] >>= 1


class _Helper(_Scratch):
    """A Lazy SMP helper thread: iterative deepening on its own copy of the
    position, into the shared table, until the main thread stops it.

    Helpers only fill the table: their scores and moves are never answered.
    Odd-numbered helpers search one ply deeper than even ones at each step,
    so the threads do not all work on the same iteration (the usual Lazy SMP
    depth perturbation); different killers and history, and the entries the
    other threads leave in the table, make their move orders drift apart.
    """

    thread: threading.Thread | None = None

    def start(self, index: int, b, path, hp: int, irrev: int, main_ctl, tt_keys, tt_data, busy, weights,
              max_depth: int) -> None:
        self.new_search()
        self.ctl[:] = main_ctl  # generation, features, and a stop already requested
        self.ctl[CTL_NODE_LIMIT] = 0
        args = (index, b.copy(), path.copy(), hp, irrev, tt_keys, tt_data, busy, weights, max_depth)
        self.thread = threading.Thread(target=self._run, args=args, name=f"hiveai-helper-{index}", daemon=True)
        self.thread.start()

    def _run(self, index, b, path, hp, irrev, tt_keys, tt_data, busy, weights, max_depth) -> None:
        excl = np.zeros(0, dtype=np.int32)
        ctl = self.ctl
        for depth in range(1 + index % 2, max_depth + 1):
            ctl[CTL_ITER_DEPTH] = depth
            _search_root(b, self.ws, weights, self.moves, self.order, self.sd, path, tt_keys, tt_data, busy, ctl,
                         excl, np.int64(depth), np.int64(hp), np.int64(irrev))
            if ctl[CTL_STOP]:
                break

    def join(self) -> None:
        self.ctl[CTL_STOP] = 1
        if self.thread is not None:
            self.thread.join()
            self.thread = None


class Searcher:
    """A search engine with its own transposition table, reused between moves.

    ``threads`` > 1 runs Lazy SMP: helper threads search the same position into
    the shared table (see README.md, "Threads", for why Lazy SMP and what it
    gains); the answer always comes from the main thread's deepest completed
    iteration. One thread is deterministic: the same search gives the same
    nodes and moves every time.

    >>> from hiveai import Board
    >>> s = Searcher(tt_mb=16)
    >>> s.search(Board("Base"), depth_limits(2, StopFlag())).depth
    2
    """

    def __init__(self, tt_mb: int = DEFAULT_TT_MB, weights: np.ndarray | dict[str, np.ndarray] | None = None,
                 threads: int = 1) -> None:
        """A searcher with a ``tt_mb`` MB table, evaluation ``weights`` (one
        array for every game type, or arrays by game type as
        :func:`hiveai.evaluate.read_weights_file` returns them; default:
        hiveai.evaluate's, with $HIVEAI_WEIGHTS overrides) and ``threads``
        search threads (the calling thread only waits)."""
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        self.tt_mb = tt_mb
        self.threads = threads
        self.weights = weights_from_env() if weights is None else weights
        self.features = features_from_env()
        self._keys, self._data = new_table(tt_mb)
        self._busy = np.zeros(BUSY_SIZE, dtype=np.int64)  # shared by the threads (Simplified ABDADA)
        self._generation = 0
        self._main = _Scratch()
        self._ws, self._moves, self._order, self._sd = self._main.ws, self._main.moves, self._main.order, self._main.sd
        self.ctl = self._main.ctl
        self._helpers: list[_Helper] = []  # grown on demand, kept for their history tables
        self._stop_requested = False

    def clear(self) -> None:
        """Forget everything learnt (new game): empty table, history, killers."""
        # Zeroed in place, not mapped anew: a fresh table's pages fault in one by
        # one during the next search (0.06 s per 64 MB here, 0.28 s for 256 MB,
        # out of that move's budget), while rewriting resident pages costs 2 ms
        # per 64 MB.
        self._keys.fill(0)
        self._data.fill(0)
        for scratch in [self._main, *self._helpers]:
            scratch.sd[:] = 0

    def warm(self) -> None:
        """Make the first real search as fast as the later ones: load every search
        kernel from numba's cache (or compile it) with a tiny search, and touch
        every page of the table (:meth:`clear`). The UHP engine does this in the
        background after its banner."""
        self.search(Board.parse(WARM_GAME), depth_limits(2, StopFlag()), multipv=2)
        self.clear()

    def stop(self) -> None:
        """Stop the running search now, or the next one if none is running
        (safe from any thread; each request ends one search)."""
        # Request first, then the flags: search() clears the flags as it
        # starts and then looks at the request, so one of the two always sees it.
        self._stop_requested = True
        self.ctl[CTL_STOP] = 1
        for helper in self._helpers:
            helper.ctl[CTL_STOP] = 1

    def forget_stop(self) -> None:
        """Drop a stop request no search has taken (call only with no search
        running): one that came after its search had ended would stop the next."""
        self._stop_requested = False

    def _total(self, slot: int) -> int:
        """A counter (CTL_NODES, ...) summed over the main thread and the helpers of this search."""
        return int(self.ctl[slot]) + sum(int(h.ctl[slot]) for h in self._helpers[: self.threads - 1])

    def search(self, board: Board, limits: Limits, multipv: int = 1,
               on_iteration: Callable[[SearchInfo], None] | None = None, *,
               nodes: int | None = None, level: int = MAX_LEVEL,
               rng: random.Random | None = None) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limits``; blocks until done.

        ``on_iteration`` is called in this thread after every completed
        iteration, once per multipv line. ``nodes`` caps the main thread's
        nodes (deterministic, unlike time). ``level`` below MAX_LEVEL plays
        weaker, choosing at random (``rng``) among near-best moves; see
        :mod:`hiveai.level`. Raises ValueError on a finished game.
        """
        if level != MAX_LEVEL:
            return play_level(self, board, limits, level, rng or random.Random())
        start = time.monotonic()
        legal = board.legal_move_ints()
        if not legal:
            raise ValueError("the game is over: there is no move to search")
        first = board.legal_moves[0]
        fallback = SearchResult(first, None, 0, 0, 0.0, [first])
        if limits.depth == 0 or limits.out_of_time():
            self._stop_requested = False
            return fallback
        max_depth = MAX_PLY - 2 if limits.depth is None else min(limits.depth, MAX_PLY - 2)
        if len(legal) == 1 and limits.depth is None and not limits.infinite:
            max_depth = 1  # a forced move: one ply to score it is enough
        multipv = max(1, min(multipv, len(legal)))

        self._generation = (self._generation + 1) & 63
        self.ctl[:] = 0
        if self._stop_requested:  # asked before the flag was cleared
            self.ctl[CTL_STOP] = 1
        self.ctl[CTL_GENERATION] = self._generation
        self.ctl[CTL_NODE_LIMIT] = 0 if nodes is None else max(1, nodes)
        self.ctl[CTL_SHARED] = int(self.threads > 1)
        self._busy.fill(0)  # a race can leave an entry behind; it must not outlive its search
        for name, slot in SEARCH_FEATURES.items():
            self.ctl[slot] = self.features[name]
        self._main.new_search()

        b = board.position_array.copy()
        game = _game_hashes(board)
        path = np.zeros(len(game) + MAX_PLY + 2, dtype=np.int64)
        path[: len(game)] = game
        hp = len(game) - 1
        irrev = _last_placement_index(board)

        infos: queue.Queue = queue.Queue()
        state = _IterationState()

        weights = weights_for(self.weights, board.game_type_string)

        def work() -> None:
            try:
                self._iterate(board, b, path, hp, irrev, limits, max_depth, multipv, start, infos, state, weights)
            except BaseException as e:  # surfaced in the calling thread
                state.error = e
            finally:
                infos.put(None)

        helpers = self._start_helpers(b, path, hp, irrev, max_depth, weights)
        worker = threading.Thread(target=work, name="hiveai-search", daemon=True)
        worker.start()
        try:
            while True:
                try:
                    item = infos.get(timeout=POLL_INTERVAL)
                except queue.Empty:
                    item = False
                if item is None:
                    break
                if item and on_iteration is not None:
                    on_iteration(item)
                if limits.stopped():
                    self.stop()
        except BaseException:
            self.stop()
            self._join(worker, helpers)
            self._stop_requested = False
            raise
        self._join(worker, helpers)
        if state.error is not None:
            self._stop_requested = False
            raise state.error
        # A bare "bestmove" answers only when told to stop, even after the search is exhausted.
        while limits.infinite and not limits.stop.is_set() and not self._stop_requested:
            time.sleep(POLL_INTERVAL * 5)
        self._stop_requested = False
        return self._result(board, state, fallback, start)

    @staticmethod
    def _join(worker: threading.Thread, helpers: list[_Helper]) -> None:
        worker.join()
        for helper in helpers:  # the main thread is done: the helpers stop with it
            helper.join()

    def _start_helpers(self, b, path, hp: int, irrev: int, max_depth: int, weights) -> list[_Helper]:
        """Start ``threads - 1`` helper threads on this search; returns them."""
        while len(self._helpers) < self.threads - 1:
            self._helpers.append(_Helper())
        helpers = self._helpers[: self.threads - 1]
        for index, helper in enumerate(helpers, 1):
            helper.start(index, b, path, hp, irrev, self.ctl, self._keys, self._data, self._busy, weights, max_depth)
        return helpers

    def _iterate(self, board, b, path, hp, irrev, limits, max_depth, multipv, start, infos, state, weights) -> None:
        """Iterative deepening, in the worker thread."""
        ctl = self.ctl
        excl_all = np.zeros(multipv, dtype=np.int32)
        for depth in range(1, max_depth + 1):
            # A new iteration starts whenever the soft deadline has not passed, even
            # if it cannot finish: its first root move is the last best (the TT
            # move), and any root move it proves better is kept (state.partial), so
            # the time up to the hard deadline is spent improving the answer, never
            # thrown away. A per-move budget cannot be saved for later.
            if depth > 1 and limits.soft is not None and time.monotonic() >= limits.soft:
                break
            ctl[CTL_ITER_DEPTH] = depth
            lines: list[tuple[int, int, list[int]]] = []
            for k in range(multipv):
                excl = np.ascontiguousarray(excl_all[:k])
                score = int(_search_root(b, self._ws, weights, self._moves, self._order, self._sd, path,
                                         self._keys, self._data, self._busy, ctl, excl, np.int64(depth),
                                         np.int64(hp), np.int64(irrev)))
                if ctl[CTL_STOP]:
                    if k == 0 and ctl[CTL_ROOT_VALID]:
                        state.partial = (int(ctl[CTL_ROOT_MOVE]), int(ctl[CTL_ROOT_SCORE]))
                    break
                pv = [int(m) for m in self._sd[SD_PV: SD_PV + self._sd[SD_PVLEN]]]
                if not pv:  # cannot happen with a full window, but never answer nothing
                    break
                excl_all[k] = pv[0]
                lines.append((pv[0], score, pv))
                elapsed = time.monotonic() - start
                nodes = self._total(CTL_NODES)
                infos.put(SearchInfo(depth, k + 1, score, nodes, elapsed, nodes / elapsed if elapsed > 0 else 0.0,
                                     _pv_moves(board, pv), self._total(CTL_TT_HITS),
                                     self._total(CTL_TT_PROBES)))
            if ctl[CTL_STOP] or len(lines) < multipv:
                break
            state.depth = depth
            state.lines = lines
            state.partial = None
            if limits.depth is None and is_win_score(lines[0][1]) and WIN - abs(lines[0][1]) <= depth:
                break  # a forced result, proven within the horizon: deeper adds nothing

    def _result(self, board: Board, state: _IterationState, fallback: SearchResult, start: float) -> SearchResult:
        seconds = time.monotonic() - start
        nodes, hits, probes = self._total(CTL_NODES), self._total(CTL_TT_HITS), self._total(CTL_TT_PROBES)
        lines = []
        for _, s, pv in state.lines:
            moves = _pv_moves(board, pv)
            lines.append(Line(moves[0], s, moves))
        if state.partial is not None and (not lines or state.partial[0] != lines[0].move.code):
            # The unfinished iteration fully searched a move that beat the old best.
            code, score = state.partial
            mv = Move(code, board.move_to_string(code))
            return SearchResult(mv, score, state.depth, nodes, seconds, [mv],
                                [Line(mv, score, [mv])] + [x for x in lines if x.move != mv],
                                hits, probes)
        if not lines:
            fallback.nodes, fallback.seconds = nodes, seconds
            return fallback
        best = lines[0]
        return SearchResult(best.move, best.score, state.depth, nodes, seconds,
                            best.pv, lines, hits, probes)


@dataclass
class _IterationState:
    depth: int = 0
    lines: list = field(default_factory=list)  # (move, score, pv ints) of the last full iteration
    partial: tuple[int, int] | None = None  # (move, score) fully searched in an unfinished one
    error: BaseException | None = None


def features_from_env() -> dict[str, int]:
    """Search feature switches: the defaults with $HIVEAI_SEARCH overrides (tuning matches)."""
    import os

    features = dict(SEARCH_DEFAULTS)
    for item in filter(None, (part.strip() for part in os.environ.get(SEARCH_ENV, "").split(","))):
        name, eq, value = (part.strip() for part in item.partition("="))
        if not eq or value not in FEATURE_VALUES.get(name, ()):
            choices = "; ".join(f"{key}={'|'.join(values)}" for key, values in FEATURE_VALUES.items())
            raise ValueError(f"{SEARCH_ENV}: '{item}' is not one of {choices}")
        features[name] = int(value)
    return features


def _game_hashes(board: Board) -> np.ndarray:
    """Hash of every position of the game so far, oldest first, current last."""
    b = board.position_array.copy()
    history = board.move_history_ints()
    hashes = np.empty(len(history) + 1, dtype=np.int64)
    hashes[len(history)] = b[HASH]
    for i in range(len(history) - 1, -1, -1):
        mv, token = history[i]
        undo_move(b, mv, token)
        hashes[i] = b[HASH]
    return hashes


def _last_placement_index(board: Board) -> int:
    """Index (in the game's position list) of the position after the last placement."""
    b = board.position_array.copy()
    history = board.move_history_ints()
    for i in range(len(history) - 1, -1, -1):
        mv, token = history[i]
        undo_move(b, mv, token)
        if mv != PASS and b[POS + (mv >> MOVE_PIECE_SHIFT)] < 0:
            return i + 1
    return 0


def _pv_moves(board: Board, pv: list[int]) -> list[Move]:
    """A line of move ints played from ``board`` as :class:`Move` values, each
    named as MoveStrings name it in the position it is played in."""
    b = board.position_array.copy()
    out = []
    for mv in pv:
        out.append(Move(mv, move_to_string(b, mv)))
        do_move(b, mv)
    return out


def search(board: Board, *, depth: int | None = None, time: float | None = None, multipv: int = 1,
           on_iteration: Callable[[SearchInfo], None] | None = None,
           searcher: Searcher | None = None, stop: StopFlag | None = None, threads: int = 1,
           nodes: int | None = None, level: int = MAX_LEVEL, rng: random.Random | None = None) -> SearchResult:
    """Search ``board`` to ``depth`` plies or for ``time`` seconds (neither: DEFAULT_DEPTH).

    Uses a fresh :class:`Searcher` with ``threads`` threads (one thread: the
    result is reproducible) unless one is given. ``multipv`` > 1 also ranks
    the next best moves (``result.lines``). ``stop`` lets another thread end
    the search early; ``nodes`` caps the nodes searched. ``level`` 1 to 9
    plays weaker (:mod:`hiveai.level`; ``rng`` makes its choice reproducible).

    >>> from hiveai import Board
    >>> search(Board("Base"), depth=1).depth
    1
    """
    stop = stop or StopFlag()
    if time is not None:
        limits = time_limits(time, stop)
    else:
        limits = depth_limits(DEFAULT_DEPTH if depth is None else depth, stop)
    if time is not None and depth is not None:
        limits.depth = depth
    if searcher is None:
        searcher = Searcher(tt_mb=16, threads=threads)
    return searcher.search(board, limits, multipv, on_iteration, nodes=nodes, level=level, rng=rng)


def warmup() -> None:
    """Compile (or load from numba's cache) every kernel the engine uses."""
    from hiveai.board import warmup as board_warmup

    board_warmup()
    Searcher(tt_mb=1).warm()
