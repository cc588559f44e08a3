"""The search kernel: negamax alpha-beta, compiled end to end (no Python per node).

Negamax alpha-beta with principal variation search (null windows after the
first move), a transposition table (:mod:`hiveai.search.tt`), mate-distance scores
(``WIN - ply``: the fastest win and the slowest loss score best, stored
node-relative in the TT), and the move ordering of :mod:`hiveai.search.movepick`.
At depth 1 (the children are leaves) placements are generated only once one
could rank first, which keeps the order and skips most of them. A leaf where
the side to move could surround the enemy queen is searched one ply deeper
(the threat extension; it won its match: docs/measurements/2026-11-29-matches.md).
Positions repeating one earlier on the search path or in the game since the
last placement score as a draw: Hive has no repetition rule, but this stops
a winning side from shuffling (placements are the only irreversible moves,
so the scan stops at the last one). With other threads on the same tree,
moves they are searching are put off (:mod:`hiveai.search.abdada`).

The recursion is cached by numba only because every recursive call passes
exactly the types of the outer call (all scalars int64, all arrays fixed);
mixing ``np.int32`` and int64 arguments makes the cached code crash on load
(numba issues 6061 and 6713). ``tests/test_search.py`` loads every kernel
from a warm cache in a fresh process.

The arrays' layout is :mod:`hiveai.search.scratch`'s; :func:`search_root` is the
entry point, one call per iteration (and per multipv line).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hiveai.search.abdada import BUSY_MIN_DEPTH, DEFERRED, busy_key, clear_busy, is_busy, mark_busy
from hiveai.rules.borrow import borrow
from hiveai.rules.bug import PIECES_PER_COLOUR
from hiveai.evaluation.linear import DRAW_SCORE
from hiveai.evaluation.network import static_score
from hiveai.rules.movegen import WS_PINNED, generate_movements, is_legal_placement, pinned_after_move
from hiveai.search.movepick import (
    ORDER_KILLER1, ORDER_KILLER2, SELECTION_PICKS, add_placements, best_key, order_keys, plausible,
    record_refutation,
)
from hiveai.rules.position import (
    DRAW, HASH, IN_PROGRESS, MOVE_PIECE_SHIFT, PASS, PLY, POS, TOP, WHITE_WINS, do_move, game_result,
    occupied_neighbours, undo_move,
)
from hiveai.search.scratch import (
    CTL_EVAL_HITS, CTL_EVALS, CTL_GENERATION, CTL_ITER_DEPTH, CTL_NODE_LIMIT, CTL_NODES, CTL_NULL_MOVE,
    CTL_RFP, CTL_ROOT_MOVE, CTL_ROOT_SCORE, CTL_ROOT_VALID, CTL_SHARED, CTL_STOP, CTL_TT_HITS, CTL_TT_PROBES,
    EVAL_CACHE_BITS, MAX_PLY, SD_EVAL, SD_KILLERS, SD_PLY_MOVE, SD_PV, SD_PVLEN,
)
from hiveai.search.score import MATE_BOUND, WIN
from hiveai.search.tt import (
    EXACT, LOWER, UPPER, entry_bound, entry_depth, entry_move, entry_score, score_from_tt, score_to_tt, tt_probe,
    tt_store,
)

INFINITY = 2 * WIN
# "No score yet" from the helpers that score a node without search (no score is this big).
NO_SCORE = 4 * WIN


@njit(cache=True, nogil=True)
def _cached_eval(b, ws, w, net, sd, ctl, key, pinned):
    """The static evaluation (hiveai.evaluation.network.static_score: the network's when
    ``net`` holds one, else the linear one's with weights ``w``), remembered
    by position hash (the hash covers the side to move);
    ``pinned``: the pinned-piece mask if known, else -1 (evaluate_pinned)."""
    slot = SD_EVAL + 2 * (key & ((1 << EVAL_CACHE_BITS) - 1))
    ctl[CTL_EVALS] += 1
    if sd[slot] == key and key != 0:
        ctl[CTL_EVAL_HITS] += 1
        return sd[slot + 1]
    score = static_score(b, ws, w, net, pinned)
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
def _leaf_score(b, ws, w, net, sd, path, ctl, ply, hp, irrev, pinned):
    """Score of a node at depth 0 for the side to move, without a search
    (settled, else the static evaluation); or NO_SCORE when the threat
    extension wants it searched one ply instead.

    Kept out of :func:`negamax` so a node whose children are leaves scores
    them without a recursive call (two thirds of all nodes are leaves).
    """
    s = _settled(b, path, ply, hp, irrev)
    if s != NO_SCORE:
        return s
    # Threat extension: if the side to move could finish the enemy queen
    # (five cells already taken), look one ply further instead of trusting
    # a static score that cannot see the win. Bounded to twice the
    # iteration depth, since threats can answer threats.
    if ply < 2 * ctl[CTL_ITER_DEPTH] and ply < MAX_PLY - 2:
        enemy_queen = b[POS + (1 - (b[PLY] & 1)) * PIECES_PER_COLOUR]
        if enemy_queen >= 0 and occupied_neighbours(b, enemy_queen) >= 5:
            return NO_SCORE
    return _cached_eval(b, ws, w, net, sd, ctl, b[HASH], pinned)


@njit(cache=True, nogil=True)
def _quiet_queens(b):
    """Neither queen is one cell from surrounded: a static score can be trusted
    to stand for a short search (no win at once for either side to miss)."""
    for colour in range(2):
        q = b[POS + colour * PIECES_PER_COLOUR]
        if q >= 0 and occupied_neighbours(b, q) >= 5:
            return False
    return True


@njit(cache=True, nogil=True)
def negamax(b, ws, w, net, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
            depth, ply, alpha, beta, start, hp, irrev, pinned):
    """Score of position ``b`` for the side to move, searched ``depth`` plies.

    ``w`` are the evaluation weights, ``net`` the network with this thread's
    scratch for it (hiveai.evaluation.network.kernel_net; no network: the linear
    evaluation). ``moves``/``keys_`` hold each ply's move list and ordering keys from
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
        s = _leaf_score(b, ws, w, net, sd, path, ctl, ply, hp, irrev, pinned)
        if s != NO_SCORE:
            return s
        depth = 1  # extended
    else:
        s = _settled(b, path, ply, hp, irrev)
        if s != NO_SCORE:
            return s
    key = b[HASH]
    if ply >= MAX_PLY - 1:
        return _cached_eval(b, ws, w, net, sd, ctl, key, pinned)

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
    # Cut-offs before any move is searched, at null-window nodes with no win
    # at once on the board (a queen one cell from surrounded) and beta not a
    # forced result. Reverse futility (switch rfp, its value the margin per
    # ply): at depth 1 to 3 a static score above beta by the margin times the
    # depth stands for the node. Null move (switch nullmove): from depth 3 the
    # side to move passes, and if the opponent, searched two or three plies
    # shallower, still cannot bring the score under beta, the node fails
    # high. Hive allows a pass only when no move is legal, but having the move
    # is almost always worth something, so the real moves would do as well.
    margin = ctl[CTL_RFP]
    if ((margin > 0 and depth <= 3) or (ctl[CTL_NULL_MOVE] != 0 and depth >= 3)) and ply > 0 \
            and beta - alpha == 1 and -MATE_BOUND < beta < MATE_BOUND and _quiet_queens(b):
        static = _cached_eval(b, ws, w, net, sd, ctl, key, pinned)
        if margin > 0 and depth <= 3 and static - margin * depth >= beta:
            return static
        if ctl[CTL_NULL_MOVE] != 0 and depth >= 3 and static >= beta and sd[SD_PLY_MOVE + ply - 1] != PASS \
                and b[POS + side * PIECES_PER_COLOUR] >= 0:
            r = 3 if depth >= 6 else 2
            token = do_move(b, PASS)
            sd[SD_PLY_MOVE + ply] = PASS
            path[hp + 1] = b[HASH]
            # The pass starts a new repetition history (hp + 1): no draw is scored through it.
            s = -negamax(b, ws, w, net, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                         depth - 1 - r, ply + 1, -beta, -beta + 1, start, hp + 1, hp + 1, pinned)
            undo_move(b, PASS, token)
            if ctl[CTL_STOP] != 0:
                return 0
            if s >= beta:
                return s if s < MATE_BOUND else beta
    if tt_move >= 0 and not plausible(b, tt_move):
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
                order_keys(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                if not pending:
                    end = add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                generated = True
                i = start
            if pending and (i >= end or i >= start + SELECTION_PICKS):
                end = add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
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
                j = best_key(keys_, i, end)
                if pending and ((-keys_[j]) >> 16) < ORDER_KILLER1:
                    # A placement may rank above it. Killer 1, if it is one,
                    # ranks above all the others: try it before generating them.
                    k1 = sd[SD_KILLERS + 2 * ply]
                    if killer_placement < 0 and k1 != tt_move and is_legal_placement(b, ws, moves, end, k1):
                        killer_placement = k1
                        from_list = False
                    else:
                        end = add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
                        pending = False
                        j = best_key(keys_, i, end)
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
        entry = busy_key(key, mv)
        if shared:
            if searched > 0 and not second_pass and is_busy(busy, entry):
                keys_[i - 1] = DEFERRED | ((1 << 16) if quiet else 0) | mv  # a young brother taken: later
                deferred += 1
                continue
            mark_busy(busy, entry)  # searching it now
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
        leaf = _leaf_score(b, ws, w, net, sd, path, ctl, ply + 1, hp + 1, child_irrev, child_pinned) if depth == 1 else NO_SCORE
        if leaf == NO_SCORE and pending:
            # An extended child is searched and may change the history the
            # placements' keys read: key them first, as a full generation would have.
            undo_move(b, mv, token)
            end = add_placements(b, ws, sd, moves, keys_, start, end, tt_move, ply, side)
            pending = False
            token = do_move(b, mv)
        if leaf != NO_SCORE:
            ctl[CTL_NODES] += 1
            sd[SD_PVLEN + ply + 1] = 0
            s = -leaf
        elif searched == 0:
            s = -negamax(b, ws, w, net, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                         depth - 1, ply + 1, -beta, -alpha, end, hp + 1, child_irrev, child_pinned)
        else:
            s = -negamax(b, ws, w, net, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                         depth - 1, ply + 1, -alpha - 1, -alpha, end, hp + 1, child_irrev, child_pinned)
            if alpha < s < beta:
                s = -negamax(b, ws, w, net, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl,
                             depth - 1, ply + 1, -beta, -alpha, end, hp + 1, child_irrev, child_pinned)
        undo_move(b, mv, token)
        if shared:
            clear_busy(busy, entry)
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
                        record_refutation(sd, ply, side, mv, depth)  # a quiet move that refuted: remember it
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
def search_root(b, ws, w, net, moves, keys_, sd, path, tt_keys, tt_data, busy, ctl, excl, depth, hp, irrev):
    """One iteration: the root searched ``depth`` plies with a full window."""
    ctl[CTL_ROOT_VALID] = 0
    net = (borrow(net[0]), borrow(net[1]), borrow(net[2]), borrow(net[3]), borrow(net[4]), borrow(net[5]))
    return negamax(borrow(b), borrow(ws), borrow(w), net, borrow(moves), borrow(keys_), borrow(sd), borrow(path),
                   borrow(tt_keys), borrow(tt_data), borrow(busy), borrow(ctl), borrow(excl),
                   depth, np.int64(0), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0), hp, irrev, np.int64(-1))

