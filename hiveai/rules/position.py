"""Game state as one flat int64 array, and make/unmake.

Everything the numba kernels need lives in one array ``b`` so a position is a
single argument, copies are one ``b.copy()``, and no Python object is touched
per move. Sections (offsets below) hold, per cell, the stack height, the top
piece and the whole stack; per piece, its cell and level; then the ply count,
the last-moved piece, the game type and the Zobrist hash; last, per cell, a
six-bit mask of its occupied neighbours, kept up to date by make/unmake so
the articulation-point pass and the surround test read one word per cell.

Moves are ints: ``piece * 1024 + destination cell``; ``PASS`` is one more
value. Placements and movements share the form (a piece in hand has no cell),
and so do pillbug throws: UHP names the thrown piece and where it lands.
"""

import numpy as np

from hiveai.rules.borrow import counts_free
from hiveai.rules.bug import EXP_PILLBUG, MAX_STACK, N_PIECES, PIECES_PER_COLOUR
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET, N_CELLS
from hiveai.rules.zobrist import game_type_key, piece_key, side_key, stunned_key

HEIGHT = 0  # b[HEIGHT + c]: number of pieces on cell c
TOP = HEIGHT + N_CELLS  # b[TOP + c]: top piece on c, -1 if empty
STACK = TOP + N_CELLS  # b[STACK + c*MAX_STACK + l]: piece at level l of c
POS = STACK + N_CELLS * MAX_STACK  # b[POS + p]: cell of piece p, -1 in hand
LEVEL = POS + N_PIECES  # b[LEVEL + p]: level of p (0 = ground)
PLY = LEVEL + N_PIECES  # plies played
LAST_MOVED = PLY + 1  # piece moved (not placed) on the last ply, else -1
GAME_TYPE = PLY + 2  # expansion bits, see hiveai.rules.bug
HASH = PLY + 3  # Zobrist hash (int64 bit pattern)
NBR = PLY + 4  # b[NBR + c]: bit d set when the neighbour of c in direction d is occupied
STATE_SIZE = NBR + N_CELLS
ALL_NEIGHBOURS = 63  # the NBR mask of a surrounded cell

MOVE_PIECE_SHIFT = 10
PASS = N_PIECES << MOVE_PIECE_SHIFT

# Set bits of each NBR mask.
BIT_COUNT = np.array([bin(m).count("1") for m in range(64)], dtype=np.int64)  # set bits of a six-bit NBR mask

# Results, as returned by game_result().
IN_PROGRESS, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3


def new_position(game_type: int) -> np.ndarray:
    """An empty board of the given game type, white to move."""
    b = np.zeros(STATE_SIZE, dtype=np.int64)
    b[TOP : TOP + N_CELLS] = -1
    b[STACK : STACK + N_CELLS * MAX_STACK] = -1
    b[POS : POS + N_PIECES] = -1
    b[LAST_MOVED] = -1
    b[GAME_TYPE] = game_type
    b[HASH] = game_type_key(game_type)
    return b


@counts_free
def _tell_neighbours(b, cell, occupied):
    """Set (or clear) ``cell``'s bit in the NBR masks of its six neighbours:
    seen from the neighbour in direction d, ``cell`` lies in direction d + 3."""
    for d in range(6):
        n = NBR + ((cell + DIR_OFFSET[d]) & CELL_MASK)
        bit = 1 << ((d + 3) % 6)
        if occupied:
            b[n] |= bit
        else:
            b[n] &= ~bit


@counts_free
def _lift(b, p):
    """Take piece p off the top of its stack; returns its cell."""
    src = b[POS + p]
    h = b[HEIGHT + src] - 1
    b[STACK + src * MAX_STACK + h] = -1
    b[HEIGHT + src] = h
    b[TOP + src] = b[STACK + src * MAX_STACK + h - 1] if h > 0 else -1
    b[HASH] ^= piece_key(p, src, h)
    if h == 0:
        _tell_neighbours(b, src, 0)
    return src


@counts_free
def _drop(b, p, cell):
    """Put piece p on top of ``cell``."""
    h = b[HEIGHT + cell]
    if h == 0:
        _tell_neighbours(b, cell, 1)
    b[STACK + cell * MAX_STACK + h] = p
    b[HEIGHT + cell] = h + 1
    b[TOP + cell] = p
    b[POS + p] = cell
    b[LEVEL + p] = h
    b[HASH] ^= piece_key(p, cell, h)


@counts_free
def _stun_hash(b, p):
    """Hash term for "piece p moved last ply" (0 when p is -1).

    Only a pillbug power can be affected by it (the last-moved piece is
    otherwise always the opponent's, which we cannot move anyway), so without
    pillbugs the term is 0 and transpositions are not split by it.
    """
    if p < 0 or (b[GAME_TYPE] & EXP_PILLBUG) == 0:
        return 0
    return stunned_key(p)


@counts_free
def do_move(b, mv):
    """Play ``mv`` (assumed legal). Returns the undo token for :func:`undo_move`."""
    last = b[LAST_MOVED]
    b[HASH] ^= _stun_hash(b, last)
    if mv == PASS:
        src = -1
        b[LAST_MOVED] = -1
    else:
        p = mv >> MOVE_PIECE_SHIFT
        src = b[POS + p]
        if src >= 0:
            _lift(b, p)
            b[LAST_MOVED] = p
            b[HASH] ^= _stun_hash(b, p)
        else:
            # A placement never stuns (Mzinga says it does; it cannot matter):
            # a new piece touches no enemy stack, so no enemy pillbug could
            # throw it next ply. Black's first piece does touch White's, but
            # White's queen is not down yet, so no pillbug power is usable.
            b[LAST_MOVED] = -1
        _drop(b, p, mv & CELL_MASK)
    b[PLY] += 1
    b[HASH] ^= side_key()
    return (src + 1) | ((last + 1) << 11)


def undo_source(token: int) -> int:
    """The cell a move left, from its :func:`do_move` token; -1 for a placement or a pass."""
    return (int(token) & 2047) - 1


@counts_free
def undo_move(b, mv, token):
    """Take back ``mv``, given the token :func:`do_move` returned."""
    b[PLY] -= 1
    b[HASH] ^= side_key()
    b[HASH] ^= _stun_hash(b, b[LAST_MOVED])
    if mv != PASS:
        p = mv >> MOVE_PIECE_SHIFT
        _lift(b, p)
        src = (token & 2047) - 1
        if src >= 0:
            _drop(b, p, src)
        else:
            b[POS + p] = -1
            b[LEVEL + p] = 0
    last = (token >> 11) - 1
    b[LAST_MOVED] = last
    b[HASH] ^= _stun_hash(b, last)


@counts_free
def some_piece_cell(b):
    """The cell of the lowest-numbered piece on the board (any cell of the
    hive: where a walk over it can start), -1 on an empty board."""
    for p in range(N_PIECES):
        if b[POS + p] >= 0:
            return b[POS + p]
    return -1


@counts_free
def occupied_neighbours(b, cell):
    """How many of the six cells around ``cell`` hold a piece."""
    return BIT_COUNT[b[NBR + (cell & CELL_MASK)] & ALL_NEIGHBOURS]


@counts_free
def surrounded(b, cell):
    return b[NBR + (cell & CELL_MASK)] == ALL_NEIGHBOURS


@counts_free
def game_result(b):
    """IN_PROGRESS, WHITE_WINS, BLACK_WINS or DRAW, by queen surround only.

    Checked after every ply: a queen with all six neighbours occupied loses,
    whoever moved last (surrounding your own queen loses too); both at once
    is a draw.
    """
    wq = b[POS]
    bq = b[POS + PIECES_PER_COLOUR]
    w_lost = wq >= 0 and surrounded(b, wq)
    b_lost = bq >= 0 and surrounded(b, bq)
    if w_lost and b_lost:
        return DRAW
    if w_lost:
        return BLACK_WINS
    if b_lost:
        return WHITE_WINS
    return IN_PROGRESS


@counts_free
def recompute_hash(b):
    """The Zobrist hash computed from scratch (make/unmake keep it incrementally).

    The tests compare it with the incremental hash after every make and unmake.
    """
    h = game_type_key(b[GAME_TYPE])
    for p in range(N_PIECES):
        c = b[POS + p]
        if c >= 0:
            h ^= piece_key(p, c, b[LEVEL + p])
    if b[PLY] & 1:
        h ^= side_key()
    h ^= _stun_hash(b, b[LAST_MOVED])
    return h
