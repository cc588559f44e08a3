"""Exact proofs of forced queen surrounds: the search behind :mod:`hiveai.puzzles`.

One question, answered exactly: can ``attacker`` force the enemy queen to be
surrounded (and not its own as well: both at once is a draw) within ``r``
plies from this position, whatever the other side plays? It is an AND/OR
search over the rules kernels alone (``legal_moves``, ``do_move``,
``game_result``): at the attacker's nodes one move that wins is enough, at
the defender's every move is tried, passes included (a side with no legal
move passes). Nothing is pruned on a guess: no evaluation, no null move,
no reverse futility, no reductions, no book, no repetition draw (Hive's rules
have none). A win can come on the attacker's ply or on the defender's: a
defender whose every move surrounds its own queen loses too.

What saves time without losing a defence:

* **The last ply.** A move changes how many cells around a queen are taken
  only where it leaves (one fewer) and where it lands (one more), unless it
  moves that queen. So with one ply left the attacker can win only if the
  enemy queen has five neighbours, or if a pillbug power of the attacker's
  could move the queen (a pillbug or mosquito of its colour touches it):
  otherwise the answer is "no" without generating a move. The same holds for
  a defender who would have to surround its own queen. Only the moves that
  land next to the queen, or move it, are then played.
  ``tests/test_search_tactics.py`` checks this shortcut against playing every move.
* **Two and three plies.** The same count, carried one or two plies further:
  with two plies left and at most three cells around the enemy queen taken,
  the attacker's move brings it to four at most and the defender always has
  a move that does not surround its own queen (a pass, a move of another
  piece, which takes one cell at most, or a queen step, which leaves the cell
  it came from empty beside it), so the answer is "no", provided no pillbug
  power can move the queen: no pillbug or mosquito of either colour within
  three cells of it (one move carries a piece two cells at most). With three
  plies left, at most two cells taken and no pillbugs in the game, the answer
  is "no" too when the defender has a piece in hand and at least eight cells
  to place it on: one move of the attacker spoils seven at most (the cell it
  lands on and its six neighbours), so a placement is left that takes one
  cell at most, and the queen never reaches five neighbours before the
  attacker's last move.
* **A quiet placement.** With one or two plies left, a defender who can place
  a piece away from its own queen has a move that takes no cell around it:
  with one ply left that move is not a self-surround, and with two, if at
  most four cells are taken and no pillbug or mosquito is within two cells of
  the queen, the attacker's last move cannot take the two cells still free.
* **Move order.** The table's move, then the move that last decided a node at
  the same ply (a killer), then the likely ones: for the attacker, moves next
  to the enemy queen; for the defender, moves of its queen and moves away from
  it. Order changes the time, never the answer: every move is still tried
  until one decides the node.
* **The table**, exact entries only. A node's answer depends on the position
  alone: the stacks, the side to move, the stunned piece in pillbug games,
  the turn while a queen may still be in hand (the fourth-turn rule); never on
  the path. An entry records the shallowest ``r`` proven a win and the
  deepest proven not a win, each a whole subtree searched without a cut-off
  that could hide a defence, so "a win within 5" answers any query of 5 or
  more and "no win within 5" any query of 5 or less. An entry is matched on
  two independent 64-bit keys (the Zobrist hash and :func:`_check_key`, a
  second hash of every piece's cell and level), so a collision of one key
  cannot answer for another position.

The kernels are compiled with numba (``cache=True``); :class:`Prover` holds
the arrays and is the Python entry point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hiveai.rules.borrow import borrow
from hiveai.rules.bug import EXP_PILLBUG, KIND_FIRST, MOSQUITO, N_PIECES, PIECES_PER_COLOUR, PILLBUG
from hiveai.rules.hex_grid import CELL_MASK
from hiveai.rules.hex_grid import GRID, GRID_BITS
from hiveai.rules.movegen import (
    HOLE_BIT, MAX_MOVES, WS_QUEUE, legal_moves, new_workspace, placeable_count, placement_cell_count,
)
from hiveai.rules.position import (
    BLACK_WINS, GAME_TYPE, HASH, IN_PROGRESS, LAST_MOVED, LEVEL, MOVE_PIECE_SHIFT, PASS, PLY, POS, WHITE_WINS,
    do_move, game_result, occupied_neighbours, undo_move,
)

# The deepest proof, in plies (the puzzles go to 4 moves of the solver; a
# uniqueness check looks one move further: 10 leaves room).
MAX_PROOF_PLIES = 12

# Control array (int64).
P_NODES = 0  # positions made (do_move calls)
P_LIMIT = 1  # > 0: stop once P_NODES passes it
P_STOP = 2  # 1: the limit was reached (or the caller stopped): the answer is void
P_TT_HITS = 3  # answers taken from the table
P_BEST = 4  # the move that decided the root: a winning move, or a defender's refutation (-1: none)
P_SIZE = 8

# Table entry (int64 data word): shallowest win, deepest non-win, deciding move + 1.
_WIN_BITS = 0
_NOWIN_BITS = 5
_MOVE_BITS = 10
_R_MASK = 31
_MOVE_MASK = 0xFFFF
# Salt XORed into the key when Black attacks: the answer is about one attacker.
_BLACK_SALT = 0x5DEECE66D1234567
# Second key: a polynomial hash of every piece's cell and level.
_CHECK_MUL = 1099511628211
# The fourth-turn queen rule can matter until both sides have had four turns.
_TURN_RULE_PLIES = 8

_PILLBUG_SLOT = KIND_FIRST[PILLBUG]
_MOSQUITO_SLOT = KIND_FIRST[MOSQUITO]

# Move classes (higher is tried first).
_CLASS_TT = 4
_CLASS_KILLER = 3


@njit(cache=True, nogil=True)
def _check_key(b):
    """A second key of the position, independent of the Zobrist hash."""
    h = b[GAME_TYPE] * 131 + (b[PLY] & 1) + 2 * min(b[PLY], _TURN_RULE_PLIES)
    for p in range(N_PIECES):
        h = h * _CHECK_MUL + (b[POS + p] + 1) * 16 + b[LEVEL + p]
    if b[GAME_TYPE] & EXP_PILLBUG:
        h = h * _CHECK_MUL + b[LAST_MOVED] + 1
    return h


@njit(cache=True, nogil=True)
def _adjacent(a, c):
    return HOLE_BIT[(a - c) & CELL_MASK] != 0


@njit(cache=True, nogil=True)
def _thrower_near(b, side, cell):
    """Whether a pillbug power of ``side`` might move the piece on ``cell``: its
    pillbug touches it, or its mosquito does with a pillbug of either colour in
    a hand or within two cells of the mosquito (a cheap superset of the real
    condition, also after the other side places a piece)."""
    if (b[GAME_TYPE] & EXP_PILLBUG) == 0:
        return False
    base = side * PIECES_PER_COLOUR
    c = b[POS + base + _PILLBUG_SLOT]
    if c >= 0 and _adjacent(c, cell):
        return True
    m = b[POS + base + _MOSQUITO_SLOT]
    if m >= 0 and _adjacent(m, cell):
        for colour in range(2):
            pc = b[POS + colour * PIECES_PER_COLOUR + _PILLBUG_SLOT]
            if pc < 0 or _distance(pc, m) <= 2:
                return True
    return False


@njit(cache=True, nogil=True)
def _distance(a, c):
    """Hex distance between cells ``a`` and ``c`` (on the torus: the short way)."""
    diff = (a - c) & CELL_MASK
    dq = diff & (GRID - 1)
    if dq >= GRID // 2:
        dq -= GRID
    dr = ((diff - dq) >> GRID_BITS) & (GRID - 1)
    if dr >= GRID // 2:
        dr -= GRID
    return max(abs(dq), abs(dr), abs(dq + dr))


@njit(cache=True, nogil=True)
def _powers_near(b, cell, radius):
    """Whether a pillbug or mosquito of either colour is on the board within ``radius`` of ``cell``."""
    if (b[GAME_TYPE] & EXP_PILLBUG) == 0:
        return False
    for colour in range(2):
        for slot in (_PILLBUG_SLOT, _MOSQUITO_SLOT):
            c = b[POS + colour * PIECES_PER_COLOUR + slot]
            if c >= 0 and _distance(c, cell) <= radius:
                return True
    return False


@njit(cache=True, nogil=True)
def _placements_to_spare(b, ws, side):
    """Whether ``side`` has a piece to place and at least eight cells for it, so that
    one move of the other side cannot take every cell (module docstring)."""
    return placeable_count(b, ws, side) > 0 and placement_cell_count(b, ws, side) >= 8


@njit(cache=True, nogil=True)
def _cannot_win(b, ws, r, attacker):
    """The shortcuts of two and three plies (module docstring): True when the
    attacker, to move with ``r`` plies left, certainly cannot win."""
    defender = 1 - attacker
    queen = b[POS + defender * PIECES_PER_COLOUR]
    if queen < 0:
        return True
    taken = occupied_neighbours(b, queen)
    if r == 2:
        if taken > 3 or _thrower_near(b, attacker, queen):
            return False
        if not _powers_near(b, queen, 3):
            return True
        return _placements_to_spare(b, ws, defender)
    if r == 3 and taken <= 2:
        if b[GAME_TYPE] & EXP_PILLBUG:
            base = attacker * PIECES_PER_COLOUR
            pillbug = b[POS + base + _PILLBUG_SLOT]
            if b[POS + base + _MOSQUITO_SLOT] >= 0 or (pillbug >= 0 and _distance(pillbug, queen) <= 2):
                return False
        return _placements_to_spare(b, ws, defender)
    return False


@njit(cache=True, nogil=True)
def _quiet_placement(b, ws, side, queen):
    """Whether ``side`` can place a piece on a cell that does not touch ``queen``."""
    if placeable_count(b, ws, side) == 0:
        return False
    n = placement_cell_count(b, ws, side)
    for i in range(n):
        if not _adjacent(ws[WS_QUEUE + i], queen):
            return True
    return False


@njit(cache=True, nogil=True)
def _defender_escapes(b, ws, r, attacker):
    """The quiet-placement shortcut (module docstring): True when the defender, to
    move with ``r`` plies left (1 or 2), certainly escapes."""
    defender = 1 - attacker
    queen = b[POS + defender * PIECES_PER_COLOUR]
    if queen < 0:
        return True
    if r == 2 and (occupied_neighbours(b, queen) > 4 or _thrower_near(b, attacker, queen)):
        return False
    return _quiet_placement(b, ws, defender, queen)


@njit(cache=True, nogil=True)
def _winner_code(side):
    return WHITE_WINS if side == 0 else BLACK_WINS


@njit(cache=True, nogil=True)
def _last_ply(b, ws, moves, start, ctl, attacker):
    """With one ply left: (1, the winning move) if the attacker to move can
    surround the enemy queen, or (1, -1) if every move of the defender to move
    surrounds its own; else (0, -1)."""
    defender = 1 - attacker
    queen = b[POS + defender * PIECES_PER_COLOUR]
    if queen < 0:
        return 0, -1
    mover = b[PLY] & 1
    if occupied_neighbours(b, queen) < 5 and not _thrower_near(b, mover, queen):
        return 0, -1  # no move can take the sixth cell (module docstring)
    attacking = mover == attacker
    if not attacking and _defender_escapes(b, ws, 1, attacker):
        return 0, -1
    win = _winner_code(attacker)
    queen_piece = defender * PIECES_PER_COLOUR
    end = legal_moves(b, ws, moves, start)
    for i in range(start, end):
        mv = moves[i]
        if mv == PASS:
            if attacking:
                continue
            return 0, -1
        p = mv >> MOVE_PIECE_SHIFT
        dest = mv & CELL_MASK
        if p != queen_piece and not _adjacent(dest, queen):
            if attacking:
                continue
            return 0, -1  # a defender's move that cannot take the sixth cell
        token = do_move(b, mv)
        ctl[P_NODES] += 1
        result = game_result(b)
        undo_move(b, mv, token)
        if attacking and result == win:
            return 1, mv
        if not attacking and result != win:
            return 0, -1
    return (0, -1) if attacking else (1, -1)


@njit(cache=True, nogil=True)
def _classify(b, moves, order, start, end, tt_move, killer, attacking, attacker):
    """Write each move's class (try order, highest first) into ``order``."""
    defender = 1 - attacker
    enemy_queen = defender * PIECES_PER_COLOUR
    qcell = b[POS + enemy_queen]
    for i in range(start, end):
        mv = moves[i]
        if mv == tt_move:
            order[i] = _CLASS_TT
        elif mv == killer:
            order[i] = _CLASS_KILLER
        elif mv == PASS or qcell < 0:
            order[i] = 1
        else:
            p = mv >> MOVE_PIECE_SHIFT
            dest = mv & CELL_MASK
            src = b[POS + p]
            if attacking:
                # Next to the enemy queen, or moving it (a throw): the likely winners.
                order[i] = 2 if (p == enemy_queen or _adjacent(dest, qcell)) else 1
            elif p == enemy_queen or (src >= 0 and _adjacent(src, qcell) and not _adjacent(dest, qcell)):
                order[i] = 2  # the queen runs, or a piece leaves its side
            elif _adjacent(dest, qcell):
                order[i] = 0  # one more cell around its own queen taken
            else:
                order[i] = 1


@njit(cache=True, nogil=True)
def _prove(b, ws, moves, order, tt_keys, tt_check, tt_data, killers, ctl, r, ply, start, attacker):
    """1 if ``attacker`` wins within ``r`` plies (r >= 1) from ``b``, whoever is to move; else 0.

    ``moves``/``order`` hold each ply's move list from index ``start``. Returns
    0 at once when ``ctl[P_STOP]`` is set (the answer is then void).
    """
    if ctl[P_LIMIT] > 0 and ctl[P_NODES] > ctl[P_LIMIT]:
        ctl[P_STOP] = 1
    if ctl[P_STOP] != 0:
        return 0
    if r == 1:
        result, decided = _last_ply(b, ws, moves, start, ctl, attacker)
        if ply == 0:
            ctl[P_BEST] = decided
        return result
    attacking = (b[PLY] & 1) == attacker
    if r <= 3 and ((attacking and _cannot_win(b, ws, r, attacker))
                   or (not attacking and r == 2 and _defender_escapes(b, ws, r, attacker))):
        if ply == 0:
            ctl[P_BEST] = -1
        return 0
    key = b[HASH] ^ (_BLACK_SALT if attacker == 1 else 0)
    check = _check_key(b)
    slot = key & (tt_keys.shape[0] - 1)
    tt_move = -1
    entry_win = 0
    entry_nowin = 0
    if tt_keys[slot] == key and tt_check[slot] == check:
        d = tt_data[slot]
        entry_win = (d >> _WIN_BITS) & _R_MASK
        entry_nowin = (d >> _NOWIN_BITS) & _R_MASK
        tt_move = ((d >> _MOVE_BITS) & _MOVE_MASK) - 1
        # The root is always searched, so that it names its deciding move.
        if ply > 0 and entry_win > 0 and entry_win <= r:
            ctl[P_TT_HITS] += 1
            return 1
        if ply > 0 and entry_nowin >= r:
            ctl[P_TT_HITS] += 1
            return 0
    end = legal_moves(b, ws, moves, start)
    _classify(b, moves, order, start, end, tt_move, killers[ply], attacking, attacker)
    win = _winner_code(attacker)
    result = 0 if attacking else 1
    decided = -1
    done = False
    for cls in range(_CLASS_TT, -1, -1):
        for i in range(start, end):
            if order[i] != cls:
                continue
            mv = moves[i]
            token = do_move(b, mv)
            ctl[P_NODES] += 1
            outcome = game_result(b)
            if outcome == IN_PROGRESS:
                v = _prove(b, ws, moves, order, tt_keys, tt_check, tt_data, killers, ctl, r - 1, ply + 1, end,
                           attacker)
            elif outcome == win:
                v = 1
            else:
                v = 0  # a draw, or the attacker's own queen surrounded
            undo_move(b, mv, token)
            if ctl[P_STOP] != 0:
                return 0
            if attacking and v == 1:
                result = 1
                decided = mv
                done = True
                break
            if not attacking and v == 0:
                result = 0
                decided = mv
                done = True
                break
        if done:
            break
    if decided >= 0:
        killers[ply] = decided
    if ply == 0:
        ctl[P_BEST] = decided
    if result == 1:
        entry_win = r if entry_win == 0 or r < entry_win else entry_win
    else:
        entry_nowin = r if r > entry_nowin else entry_nowin
    tt_keys[slot] = key
    tt_check[slot] = check
    kept = decided if decided >= 0 else tt_move  # a node no move decided keeps the move it had
    tt_data[slot] = (entry_win << _WIN_BITS) | (entry_nowin << _NOWIN_BITS) | ((kept + 1) << _MOVE_BITS)
    return result


@njit(cache=True, nogil=True)
def prove_kernel(b, ws, moves, order, tt_keys, tt_check, tt_data, killers, ctl, r, attacker):
    """The root call of :func:`_prove` (ply 0); ``ctl[P_BEST]`` is left holding the deciding move."""
    ctl[P_STOP] = 0
    ctl[P_BEST] = -1
    if game_result(b) != IN_PROGRESS:
        return 0
    return _prove(borrow(b), borrow(ws), borrow(moves), borrow(order), borrow(tt_keys), borrow(tt_check),
                  borrow(tt_data), borrow(killers), borrow(ctl), r, np.int64(0), np.int64(0), attacker)


class Prover:
    """The arrays of :func:`prove_kernel` and a Python face for it.

    ``table_bits``: the table holds ``2**table_bits`` entries (24 bytes each).
    ``node_limit``: a proof that would make more positions than this stops
    with :attr:`stopped` set and its answer void (0: no limit).

    >>> from hiveai.rules.board import Board
    >>> board = Board("Base;InProgress;White[8];wA1;bA1 wA1-;wA2 /wA1;bA2 bA1\\\\;wA3 -wA1;bQ bA2/;wQ wA2\\\\;"
    ...               "bA2 \\\\wA3;wQ wA1\\\\;bA2 bA1\\\\;wQ /bA2;bA3 \\\\bQ;wA3 bA3/;bS1 bQ-")
    >>> prover = Prover()
    >>> prover.wins(board.position_array, 1), prover.wins(board.position_array, 3)
    (False, True)
    >>> board.move_to_string(prover.best)
    'wA2 bS1-'
    """

    def __init__(self, table_bits: int = 20, node_limit: int = 0) -> None:
        size = 1 << table_bits
        self.ws = new_workspace()
        self.moves = np.zeros((MAX_PROOF_PLIES + 2) * MAX_MOVES, dtype=np.int32)
        self.order = np.zeros((MAX_PROOF_PLIES + 2) * MAX_MOVES, dtype=np.int64)
        self.tt_keys = np.zeros(size, dtype=np.int64)
        self.tt_check = np.zeros(size, dtype=np.int64)
        self.tt_data = np.zeros(size, dtype=np.int64)
        self.killers = np.full(MAX_PROOF_PLIES + 2, -1, dtype=np.int64)
        self.ctl = np.zeros(P_SIZE, dtype=np.int64)
        self.node_limit = node_limit
        self.nodes = 0  # positions made by every call since the last reset_counts
        self.best = -1  # the deciding move of the last call (-1: none)
        self.stopped = False  # the last call hit the node limit: its answer is void
        self.budget_end: int | None = None  # hiveai.puzzles.prove: stop a classification past this many nodes

    def clear(self) -> None:
        """Forget the table (answers stay exact without it; only time changes)."""
        self.tt_keys[:] = 0
        self.tt_check[:] = 0
        self.tt_data[:] = 0
        self.killers[:] = -1

    def wins(self, b: np.ndarray, plies: int, attacker: int | None = None) -> bool:
        """Whether ``attacker`` (default: the side to move) wins within ``plies`` from ``b``.

        ``b`` (a position array) is left unchanged. When :attr:`stopped`, the
        node limit was reached and the answer (False) means nothing.
        """
        if not 1 <= plies <= MAX_PROOF_PLIES:
            raise ValueError(f"plies must be 1 to {MAX_PROOF_PLIES}, not {plies}")
        if attacker is None:
            attacker = int(b[PLY]) & 1
        work = b.copy()
        ctl = self.ctl
        before = int(ctl[P_NODES])
        ctl[P_LIMIT] = before + self.node_limit if self.node_limit > 0 else 0
        result = prove_kernel(work, self.ws, self.moves, self.order, self.tt_keys, self.tt_check, self.tt_data,
                              self.killers, ctl, np.int64(plies), np.int64(attacker))
        self.nodes += int(ctl[P_NODES]) - before
        self.stopped = bool(ctl[P_STOP])
        self.best = int(ctl[P_BEST])
        return bool(result) and not self.stopped

    def reset_counts(self) -> None:
        """Start counting :attr:`nodes` from zero."""
        self.nodes = 0


__all__ = ["MAX_PROOF_PLIES", "Prover", "prove_kernel"]
