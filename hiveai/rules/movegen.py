"""Legal move generation for every bug, all eight standard game types and Critters.

``generate_moves(b, ws, moves, n)`` appends every legal move of the side to
move to ``moves[n:]`` (an int32 buffer, as everywhere) and returns the new end.
Kernels call it with ``np.int64(0)``, not ``0``, as the start: numba compiles a
separate copy of a kernel, and of everything it calls, for each literal
argument. Each (piece, destination) pair appears once, however many ways lead
there (a mosquito copying two bugs, a ladybug's several paths, a piece that can
walk or be thrown to the same cell), which is what UHP's ``validmoves`` and
the reference perft counts expect.

The rules, as Mzinga and nokamute implement them (docs/protocol-notes.md, section 2):

* Placement: after each side's first piece, a new piece must touch a
  friendly stack and no enemy stack; a stack's colour is its top piece's.
  Numbered bugs are placed in order. Tournament opening: no queen on either
  side's first turn; the queen is forced on the fourth turn if still in hand.
* Nothing moves, and no pillbug power is used, before that side's queen is
  down. The piece moved on the last ply (stunned) cannot move or be thrown.
* One Hive: a ground piece whose removal splits the hive is pinned. Pins
  come from one articulation-point pass (Tarjan) per position, not from
  trial removals.
* Slides (queen, pillbug, spider, ant): a step from A to empty B crosses the
  edge between two flank cells. Exactly one flank must be occupied: both
  occupied is a gate (Freedom to Move), neither means the piece would lose
  touch with the hive.
* Climbing steps (beetle, ladybug, mosquito as beetle, pillbug throws) compare
  heights: with h_src the mover's stack after it lifts off and h_dst the target
  stack, the step is gated when both flanks are taller than both.

Critters (docs/critters.md) switches a few rules inside the same kernels,
by the game type: ants go at most five steps (breadth first), spiders may
stop early at a dead end, beetles never climb onto beetles, the Dragonfly
(in the Mosquito's slot) flies, and a move that surrounds the mover's own
queen is dropped unless it surrounds the enemy queen too. The ``RELAX_*``
bits, or'ed into a copy's game type, lift one of those rules so
hiveai.rules.board can explain a refusal by asking the generator.

Scratch space lives in ``ws`` (see WS_* offsets) so nothing is allocated per
node. Cells are marked with ever-increasing stamps to avoid clearing arrays.
"""

import numpy as np

from hiveai.rules.borrow import counts_free
from hiveai.rules.bug import (
    ANT,
    BEETLE,
    CRITTERS,
    CRITTERS_PIECE_KIND,
    DRAGONFLY,
    EXP_PILLBUG,
    GRASSHOPPER,
    KIND_COUNT,
    KIND_EXPANSION,
    KIND_FIRST,
    LADYBUG,
    MAX_STACK,
    MOSQUITO,
    N_KINDS,
    N_PIECES,
    PIECE_KIND,
    PIECES_PER_COLOUR,
    PILLBUG,
    QUEEN,
    SPIDER,
    kind_count,
)
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET, N_CELLS, ORIGIN
from hiveai.rules.position import (
    ALL_NEIGHBOURS,
    BIT_COUNT,
    GAME_TYPE,
    HEIGHT,
    LAST_MOVED,
    LEVEL,
    MOVE_PIECE_SHIFT,
    NBR,
    PASS,
    PLY,
    POS,
    STACK,
    TOP,
    occupied_neighbours,
)

# Workspace layout (int32).
WS_STAMP = 0  # the current stamp
WS_MARK = 1  # per cell: stamp of the last time it was marked
WS_PINNED = WS_MARK + N_CELLS  # generate_movements' pinned-piece mask (find_pinned), -1 if it found none to compute
WS_DISC = WS_PINNED + 1  # per cell: DFS discovery time (Tarjan), 0 between calls
WS_LOW = WS_DISC + N_CELLS  # per cell: low-link (valid only during a call)
WS_VISITED = WS_LOW + N_CELLS  # cells in discovery order, to reset WS_DISC
WS_DFS_CELL = WS_VISITED + N_PIECES + 1  # explicit DFS stack: cell
WS_DFS_LEFT = WS_DFS_CELL + N_PIECES + 1  # explicit DFS stack: neighbours left to scan
WS_PLACEABLE = WS_DFS_LEFT + N_PIECES + 1  # pieces that may be placed now
WS_QUEUE = WS_PLACEABLE + N_KINDS  # ant flood fill / placement cell list
WS_SIZE = WS_QUEUE + N_CELLS

# Stamps one generate_moves call can use at most: placement, one per piece, a spare.
STAMPS_PER_GENERATION = 2 + N_PIECES
STAMP_LIMIT = 2**31 - 1 - 2 * STAMPS_PER_GENERATION

# Upper bound on the legal moves of one position, with margin: 14 pieces
# moving to at most ~6*28 cells each plus placements of 7 bugs on those cells.
MAX_MOVES = 4096

KIND = np.array(PIECE_KIND * 2, dtype=np.int64)
CRITTERS_KIND = np.array(CRITTERS_PIECE_KIND * 2, dtype=np.int64)
# Piece indices (0..27) fit in five bits. Masking an index read from an array
# with it lets numba prove the index is not negative and skip its wrap-around.
PIECE_MASK = 31
assert N_PIECES <= PIECE_MASK + 1
_KIND_FIRST = np.array(KIND_FIRST, dtype=np.int64)
# The game type without RELAX_* bits.
GAME_TYPE_BITS = 15
# Pieces of each slot kind per side: in a standard game, if its expansion
# (0 = always) is in play; in Critters, from its own table (the Mosquito's
# slot holds the Dragonfly). Kept as constant per-kind tables that LLVM folds
# into _placeable's unrolled loop: one table indexed by the game type at run
# time doubled that function's instructions.
_KIND_COUNT = np.array(KIND_COUNT[:N_KINDS], dtype=np.int64)
_KIND_EXP = np.array([KIND_EXPANSION.get(k, 0) for k in range(N_KINDS)], dtype=np.int64)
_CRITTERS_COUNT = np.array(
    [kind_count(DRAGONFLY if k == MOSQUITO else k, CRITTERS) for k in range(N_KINDS)], dtype=np.int64)
# Critters rules lifted for an explanation (hiveai.rules.board), never in a real game.
RELAX_SUICIDE = 16  # a move may surround the mover's own queen
RELAX_ANT = 32  # ants go any distance
RELAX_SPIDER = 64  # spiders may stop after one or two steps anywhere
RELAX_BEETLE = 128  # beetles may climb onto beetles
RELAX_DRAGONFLY = 256  # the Dragonfly may land next to its start
ANT_MAX_STEPS = 5  # Critters: an ant slides 1 to 5 steps
ANT_UNLIMITED = N_CELLS  # Hive: more steps than there are cells
_PILLBUG_INDEX = KIND_FIRST[PILLBUG]
_MOSQUITO_INDEX = KIND_FIRST[MOSQUITO]


def new_workspace() -> np.ndarray:
    return np.zeros(WS_SIZE, dtype=np.int32)


# Offsets of the two cells flanking a step in direction d: the gate.
_LEFT_OFFSET = tuple(DIR_OFFSET[(d + 5) % 6] for d in range(6))
_RIGHT_OFFSET = tuple(DIR_OFFSET[(d + 1) % 6] for d in range(6))


# Index offset of each direction as an int64 array, for kernels (hiveai.rules.hex_grid.DIR_OFFSET).
DIR_STEP = np.array(DIR_OFFSET, dtype=np.int64)
# HOLE_BIT[(hole - cell) & CELL_MASK]: the NBR bit of ``cell`` that points
# at ``hole`` when they are neighbours, else 0.
HOLE_BIT = np.zeros(N_CELLS, dtype=np.int64)
for _d, _offset in enumerate(DIR_OFFSET):
    HOLE_BIT[_offset & CELL_MASK] = 1 << _d
# Direction of the lowest set bit of a six-bit neighbour mask.
_LOWEST_BIT = np.array([(m & -m).bit_length() - 1 if m else 0 for m in range(64)], dtype=np.int64)
LOWEST_BIT = _LOWEST_BIT  # public: hiveai.evaluation.features walks neighbour masks too


@counts_free
def _nb(cell, d):
    return (cell + DIR_STEP[d]) & CELL_MASK


@counts_free
def new_stamp(ws):
    """A fresh stamp: a cell or piece is marked when its WS_MARK slot equals it."""
    s = ws[WS_STAMP] + 1
    ws[WS_STAMP] = s
    return s


@counts_free
def renew_stamps(ws):
    """Restart the stamp counter before it can overflow int32.

    Called once at the start of each generation, never inside one: a reset
    midway would erase the pin marks the rest of that generation relies on.
    One generation uses fewer than STAMPS_PER_GENERATION stamps.
    """
    if ws[WS_STAMP] >= STAMP_LIMIT:
        ws[WS_MARK : WS_MARK + N_CELLS] = 0
        ws[WS_STAMP] = 0


@counts_free
def slide_directions(b, cell, hole):
    """Bit set of the directions a piece on ``cell`` can slide to, with the
    cell ``hole`` counted as empty (the sliding mover's own start cell, lifted
    for the whole generation; pass ``cell`` itself for no hole).

    Freedom to move plus contact: the target must be empty and exactly one of
    the two cells flanking the edge occupied (both is a gate, neither would
    leave the hive). The cell's NBR mask (hiveai.rules.position) is the 6-bit
    occupancy ring; rotating it one step each way lines up each direction's
    two flanks.
    """
    occ = b[NBR + cell] & ~HOLE_BIT[(hole - cell) & CELL_MASK] & ALL_NEIGHBOURS
    left = ((occ << 1) | (occ >> 5)) & 63  # bit d: flank d-1 occupied
    right = ((occ >> 1) | (occ << 5)) & 63  # bit d: flank d+1 occupied
    return ~occ & (left ^ right) & 63


@counts_free
def _can_climb(b, cell, d, h_src, h_dst):
    """Beetle-gate test for a step between stacks of heights h_src and h_dst."""
    hl = b[HEIGHT + ((cell + _LEFT_OFFSET[d]) & CELL_MASK)]
    hr = b[HEIGHT + ((cell + _RIGHT_OFFSET[d]) & CELL_MASK)]
    if h_src == 0 and h_dst == 0 and hl == 0 and hr == 0:
        return False  # a ground step with no flank would leave the hive
    return min(hl, hr) <= max(h_src, h_dst)


@counts_free
def _add(ws, stamp, moves, n, piece, dest):
    """Append (piece, dest) unless this piece already has it (same stamp)."""
    if ws[WS_MARK + dest] != stamp:
        ws[WS_MARK + dest] = stamp
        moves[n] = (piece << MOVE_PIECE_SHIFT) | dest
        n += 1
    return n


# --- One Hive ---------------------------------------------------------------


@counts_free
def find_pinned(b, ws, root):
    """The pieces that are articulation points of the hive: bit p set for piece p.

    Iterative Tarjan over occupied cells, linear in the number of stacks.
    Each cell is marked through its top piece. Only single-piece cells
    matter: a piece on top of a stack never splits the hive (callers skip the
    pin test for it) and a covered piece cannot move at all.

    Speed (this runs at every evaluation and every move generation): a cell's
    neighbours come from its NBR mask (hiveai.rules.position), so only occupied ones
    are visited; discovery times are kept per cell and reset from the visit
    list at the end; the scanned cell, its remaining neighbours and its
    low-link stay in locals, so the stack is touched only on a descent or a
    return. Every index read from an array is masked: numba then knows it is
    not negative and drops its wrap-around fix-up.
    """
    pinned = 0
    rc = root & CELL_MASK
    c = rc
    m = b[NBR + c] & ALL_NEIGHBOURS  # neighbours of c not yet looked at
    t = 1
    ws[WS_DISC + c] = 1
    ws[WS_VISITED] = c
    low = 1
    sp = 0  # frames below the cell being scanned
    root_children = 0
    while True:
        descended = False
        while m != 0:
            d = _LOWEST_BIT[m]
            m &= m - 1
            nc = _nb(c, d)
            disc = ws[WS_DISC + nc]
            if disc == 0:
                # Tree edge: save this frame, scan the child.
                ws[WS_DFS_CELL + sp] = c
                ws[WS_DFS_LEFT + sp] = m
                ws[WS_LOW + c] = low
                sp += 1
                if sp == 1:
                    root_children += 1
                ws[WS_VISITED + t] = nc
                t += 1
                ws[WS_DISC + nc] = t
                c = nc
                m = b[NBR + nc] & ALL_NEIGHBOURS
                low = t
                descended = True
                break
            if disc < low:
                # Back edge (or the edge to the parent: harmless for the
                # articulation test, which compares low[child] >= disc[parent]).
                low = disc
        if descended:
            continue
        # c is finished: pass its low-link up and test its parent.
        if sp == 0:
            break
        sp -= 1
        parent = ws[WS_DFS_CELL + sp] & CELL_MASK
        if sp > 0 and low >= ws[WS_DISC + parent]:
            pinned |= 1 << (b[TOP + parent] & PIECE_MASK)
        plow = ws[WS_LOW + parent]
        if low < plow:
            plow = low
        c = parent
        m = ws[WS_DFS_LEFT + sp] & ALL_NEIGHBOURS
        low = plow
    if root_children > 1:
        pinned |= 1 << (b[TOP + rc] & PIECE_MASK)
    for i in range(t):
        ws[WS_DISC + (ws[WS_VISITED + i] & CELL_MASK)] = 0
    return pinned


@counts_free
def pinned_after_move(b, pinned, mv):
    """The pinned mask (find_pinned) after the legal move ``mv``, from the mask
    ``pinned`` before it, in the cases where it follows without a new pass;
    else -1. Read before the move is made.

    The rules (the hive as a graph of stacks): a stack added touching one stack
    u hangs off the hive, so every articulation point stays one and u becomes
    one. A stack added touching two stacks that touch each other closes a
    triangle: that pair was joined already, nothing changes. Taking such a
    triangle corner away changes nothing either, by the same argument read
    backwards. So a placement, a ground piece leaving a cell whose neighbours
    are two touching stacks, and a piece stepping off a stack's top keep the
    mask (plus u) whenever the cell they land on is a new stack of those two
    kinds, or an existing stack (a climb). A stack's pin is its top piece's:
    when a piece leaves a stack, the piece under it inherits the mark.
    """
    if mv == PASS:
        return pinned
    x = mv >> MOVE_PIECE_SHIFT
    dest = mv & CELL_MASK
    src = b[POS + (x & PIECE_MASK)]
    hole = -1  # a cell the move leaves empty
    below = -1  # the piece a move off a stack's top uncovers
    if src >= 0:
        h = b[HEIGHT + src]
        if h > 1:
            below = b[STACK + src * MAX_STACK + h - 2] & PIECE_MASK
            pinned = (pinned & ~(1 << x)) | (((pinned >> x) & 1) << below)
        else:
            ring = b[NBR + src] & ALL_NEIGHBOURS
            if BIT_COUNT[ring] != 2 or not _adjacent_pair(ring):
                return -1
            hole = src
        if b[HEIGHT + dest] > 0:
            return pinned  # a climb: no stack added
    around = b[NBR + dest] & ALL_NEIGHBOURS
    if hole >= 0:
        around &= ~HOLE_BIT[(hole - dest) & CELL_MASK]
    if BIT_COUNT[around] == 1:
        u = _nb(dest, _LOWEST_BIT[around])
        others = b[NBR + u] & ALL_NEIGHBOURS
        if hole >= 0:
            others &= ~HOLE_BIT[(hole - u) & CELL_MASK]
        if others == 0:
            return -1  # u was the whole hive: two stacks pin nothing
        top = below if u == src else b[TOP + u] & PIECE_MASK  # u's top once the move is made
        return pinned | (1 << top)
    if BIT_COUNT[around] == 2 and _adjacent_pair(around):
        return pinned
    return -1


@counts_free
def _adjacent_pair(ring):
    """Whether the two set bits of a six-bit neighbour mask are next to each other."""
    return BIT_COUNT[ring | ((ring << 1) & 63) | (ring >> 5)] == 3


# --- Bugs -------------------------------------------------------------------
# Each generator runs with the mover already lifted off its cell (its stack
# one lower), appends its destinations and returns the new end of ``moves``.


@counts_free
def _slide_one(b, ws, stamp, moves, n, p, src):
    """Queen and pillbug: one sliding step."""
    m = slide_directions(b, src, src)
    for d in range(6):
        if (m >> d) & 1:
            n = _add(ws, stamp, moves, n, p, _nb(src, d))
    return n


@counts_free
def _spider(b, ws, stamp, moves, n, p, src, dead_ends, anywhere):
    """Exactly three sliding steps, never revisiting a cell (start included).

    ``dead_ends`` (Critters): also stop early where no step to an unvisited
    cell is left. ``anywhere``: stop after any step (only to explain a refusal).
    """
    m1 = slide_directions(b, src, src)
    for d1 in range(6):
        if not (m1 >> d1) & 1:
            continue
        c1 = _nb(src, d1)
        m2 = slide_directions(b, c1, src)
        on1 = False
        for d2 in range(6):
            c2 = _nb(c1, d2)
            if not (m2 >> d2) & 1 or c2 == src:
                continue
            on1 = True
            m3 = slide_directions(b, c2, src)
            on2 = False
            for d3 in range(6):
                c3 = _nb(c2, d3)
                if (m3 >> d3) & 1 and c3 != src and c3 != c1:
                    on2 = True
                    n = _add(ws, stamp, moves, n, p, c3)
            if anywhere or (dead_ends and not on2):
                n = _add(ws, stamp, moves, n, p, c2)
        if anywhere or (dead_ends and not on1):
            n = _add(ws, stamp, moves, n, p, c1)
    return n


@counts_free
def _ant(b, ws, stamp, moves, n, p, src, max_steps):
    """Sliding steps, at most ``max_steps`` of them (Hive: no limit, Critters: 5):
    a breadth-first flood fill of the reachable empty cells, level by level so
    each cell is offered at its shortest distance (a depth-limited walk that
    shared one visited set would miss cells it first reached the long way)."""
    ws[WS_MARK + src] = stamp  # never a destination
    ws[WS_QUEUE] = src
    head, tail = 0, 1
    level_end = 1  # end of the queued cells at the current distance
    steps = 1  # distance of the cells now being queued
    while head < tail:
        if head == level_end:
            if steps == max_steps:
                break
            steps += 1
            level_end = tail
        c = ws[WS_QUEUE + head]
        head += 1
        m = slide_directions(b, c, src)
        for d in range(6):
            if (m >> d) & 1:
                nc = _nb(c, d)
                if ws[WS_MARK + nc] != stamp:
                    ws[WS_MARK + nc] = stamp
                    ws[WS_QUEUE + tail] = nc
                    tail += 1
                    moves[n] = (p << MOVE_PIECE_SHIFT) | nc
                    n += 1
    return n


@counts_free
def _grasshopper(b, ws, stamp, moves, n, p, src):
    """Jump in a straight line over one or more stacks to the first gap."""
    for d in range(6):
        c = _nb(src, d)
        if b[HEIGHT + c] == 0:
            continue
        while b[HEIGHT + c] != 0:
            c = _nb(c, d)
        n = _add(ws, stamp, moves, n, p, c)
    return n


@counts_free
def _beetle(b, ws, stamp, moves, n, p, src, on_beetles):
    """One step in any direction, onto or off stacks, gate-checked by height;
    never onto a beetle unless ``on_beetles`` (Hive: yes, Critters: no)."""
    h_src = b[HEIGHT + src]
    for d in range(6):
        dst = _nb(src, d)
        h_dst = b[HEIGHT + dst]
        if not on_beetles and h_dst > 0 and CRITTERS_KIND[b[TOP + dst] & PIECE_MASK] == BEETLE:
            continue
        if _can_climb(b, src, d, h_src, h_dst):
            n = _add(ws, stamp, moves, n, p, dst)
    return n


@counts_free
def _ladybug(b, ws, stamp, moves, n, p, src):
    """Two climbing steps over the hive, then one step down to an empty cell."""
    for d1 in range(6):
        c1 = _nb(src, d1)
        h1 = b[HEIGHT + c1]
        if h1 == 0 or not _can_climb(b, src, d1, 0, h1):
            continue
        for d2 in range(6):
            c2 = _nb(c1, d2)
            h2 = b[HEIGHT + c2]
            if h2 == 0 or not _can_climb(b, c1, d2, h1, h2):
                continue
            for d3 in range(6):
                c3 = _nb(c2, d3)
                if c3 == src or b[HEIGHT + c3] != 0 or not _can_climb(b, c2, d3, h2, 0):
                    continue
                n = _add(ws, stamp, moves, n, p, c3)
    return n


# --- Critters bugs -----------------------------------------------------------


@counts_free
def _dragonfly(b, ws, stamp, moves, n, p, src, relax):
    """Flies (no gates, no sliding) to any empty ground cell next to another
    piece, at least two cells from its start (``relax``: next to it too).

    The empty neighbours of every other stack are exactly the cells that
    touch another piece; the start and (unless relaxed) its ring are marked
    first so they are never offered.
    """
    ws[WS_MARK + src] = stamp
    if not relax:
        for d in range(6):
            ws[WS_MARK + _nb(src, d)] = stamp
    for q in range(N_PIECES):
        c = b[POS + q]
        if c < 0 or c == src or b[TOP + (c & CELL_MASK)] != q:
            continue
        empty = ~b[NBR + c] & ALL_NEIGHBOURS
        while empty != 0:
            e = _nb(c, _LOWEST_BIT[empty])
            empty &= empty - 1
            n = _add(ws, stamp, moves, n, p, e)
    return n


@counts_free
def _critters_moves(b, ws, stamp, moves, n, p, src, gt):
    """Destinations of piece p in Critters (``gt`` may carry RELAX_* bits)."""
    k = CRITTERS_KIND[p]
    if k == ANT and (gt & RELAX_ANT) == 0:
        return _ant(b, ws, stamp, moves, n, p, src, ANT_MAX_STEPS)
    if k == SPIDER:
        return _spider(b, ws, stamp, moves, n, p, src, True, (gt & RELAX_SPIDER) != 0)
    if k == BEETLE:
        return _beetle(b, ws, stamp, moves, n, p, src, (gt & RELAX_BEETLE) != 0)
    if k == DRAGONFLY:
        return _dragonfly(b, ws, stamp, moves, n, p, src, (gt & RELAX_DRAGONFLY) != 0)
    return _moves_as(b, ws, stamp, moves, n, p, src, k)


@counts_free
def _queen_ring_after(b, qc, src, dest):
    """NBR mask of the queen on ``qc`` after a piece goes from ``src`` (-1: in
    hand) to ``dest``: a ground piece leaving frees its cell, the landing fills one."""
    ring = b[NBR + qc]
    if src >= 0 and b[HEIGHT + src] == 1:
        ring &= ~HOLE_BIT[(src - qc) & CELL_MASK]
    return ring | HOLE_BIT[(dest - qc) & CELL_MASK]


@counts_free
def _drop_suicides(b, moves, start, n, side):
    """Critters: remove from moves[start:n] each move after which the mover's
    own queen is surrounded, unless the enemy queen is too (a draw). Returns
    the new end. Only a queen with five neighbours can be filled by one move;
    the queen itself never is (it leaves its old cell empty)."""
    queen = side * PIECES_PER_COLOUR
    qc = b[POS + queen]
    if qc < 0 or occupied_neighbours(b, qc) < 5:
        return n
    eq = b[POS + (1 - side) * PIECES_PER_COLOUR]
    k = start
    for i in range(start, n):
        mv = moves[i]
        p = mv >> MOVE_PIECE_SHIFT
        dest = mv & CELL_MASK
        src = b[POS + (p & PIECE_MASK)]
        fatal = (p != queen and _queen_ring_after(b, qc, src, dest) == ALL_NEIGHBOURS
                 and not (eq >= 0 and _queen_ring_after(b, eq, src, dest) == ALL_NEIGHBOURS))
        if not fatal:
            moves[k] = mv
            k += 1
    return k


@counts_free
def _moves_as(b, ws, stamp, moves, n, p, src, kind):
    """Destinations of piece p moving like ``kind`` (never MOSQUITO)."""
    if kind == QUEEN or kind == PILLBUG:
        return _slide_one(b, ws, stamp, moves, n, p, src)
    if kind == SPIDER:
        return _spider(b, ws, stamp, moves, n, p, src, False, False)
    if kind == BEETLE:
        return _beetle(b, ws, stamp, moves, n, p, src, True)
    if kind == GRASSHOPPER:
        return _grasshopper(b, ws, stamp, moves, n, p, src)
    if kind == ANT:
        return _ant(b, ws, stamp, moves, n, p, src, ANT_UNLIMITED)
    if kind == LADYBUG:
        return _ladybug(b, ws, stamp, moves, n, p, src)
    return n


@counts_free
def _mosquito(b, ws, stamp, moves, n, p, src):
    """Moves of every bug on top of a neighbouring stack; on the hive, beetle only."""
    if b[LEVEL + p] > 0:
        return _beetle(b, ws, stamp, moves, n, p, src, True)
    seen = 0
    for d in range(6):
        q = b[TOP + _nb(src, d)]
        if q >= 0:
            seen |= 1 << KIND[q]
    if seen & (1 << ANT):
        # The ant's flood fill runs first, on clean marks, and reaches every
        # cell a queen, pillbug or spider could slide to: skip those.
        n = _ant(b, ws, stamp, moves, n, p, src, ANT_UNLIMITED)
        seen &= ~((1 << QUEEN) | (1 << PILLBUG) | (1 << SPIDER))
    elif seen & (1 << PILLBUG):
        seen = (seen | (1 << QUEEN)) & ~(1 << PILLBUG)  # same single slide
    for k in (QUEEN, SPIDER, BEETLE, GRASSHOPPER, LADYBUG):
        if (seen >> k) & 1:
            n = _moves_as(b, ws, stamp, moves, n, p, src, k)
    return n


@counts_free
def _throws(b, ws, stamp, moves, n, x, xcell, thrower):
    """Pillbug power: lift x onto the thrower's cell, drop it on an empty neighbour."""
    d_up = -1
    for d in range(6):
        if _nb(xcell, d) == thrower:
            d_up = d
    if d_up < 0:
        return n
    # x is lifted: its cell is empty for every gate test below. The thrower's
    # stack is one high (throwers are never covered).
    if not _can_climb(b, xcell, d_up, 0, 1):
        return n
    for d in range(6):
        dst = _nb(thrower, d)
        if dst != xcell and b[HEIGHT + dst] == 0 and _can_climb(b, thrower, d, 1, 0):
            n = _add(ws, stamp, moves, n, x, dst)
    return n


# --- Placement --------------------------------------------------------------


@counts_free
def _first_cell(b):
    """The cell of White's one piece on the board (at ply 1)."""
    first = b[POS + 0]
    for p in range(PIECES_PER_COLOUR):
        if b[POS + p] >= 0:
            first = b[POS + p]
    return first


@counts_free
def _placement_cells(b, ws, side):
    """Cells where side may place; stored at ws[WS_QUEUE:], returns the count."""
    ply = b[PLY]
    if ply == 0:
        ws[WS_QUEUE] = ORIGIN
        return 1
    if ply == 1:
        # Black's first piece may touch White's: the one exception.
        first = _first_cell(b)
        for d in range(6):
            ws[WS_QUEUE + d] = _nb(first, d)
        return 6
    stamp = new_stamp(ws)
    base = side * PIECES_PER_COLOUR
    k = 0
    for p in range(base, base + PIECES_PER_COLOUR):
        c = b[POS + p]
        if c < 0 or b[TOP + c] != p:
            continue
        # Empty cells around c, in direction order, from its neighbour mask.
        empty = ~b[NBR + c] & ALL_NEIGHBOURS
        while empty != 0:
            e = _nb(c, _LOWEST_BIT[empty])
            empty &= empty - 1
            if ws[WS_MARK + e] == stamp:
                continue
            ws[WS_MARK + e] = stamp
            if _touches_only_own(b, e, side):
                ws[WS_QUEUE + k] = e
                k += 1
    return k


@counts_free
def placement_cell_count(b, ws, side):
    """How many empty cells ``side`` could place a piece on now (whether or not it
    has one in hand); the cells are left at ws[WS_QUEUE:]."""
    renew_stamps(ws)
    return _placement_cells(b, ws, side)


@counts_free
def placeable_count(b, ws, side):
    """How many of ``side``'s bugs it could place now (one per kind in hand, the
    queen rules of the current turn applied); they are left at ws[WS_PLACEABLE:]."""
    return _placeable(b, ws, side)


@counts_free
def _touches_only_own(b, e, side):
    """Whether every stack next to cell e is topped by one of side's pieces."""
    around = b[NBR + e] & ALL_NEIGHBOURS
    while around != 0:
        q = b[TOP + _nb(e, _LOWEST_BIT[around])]
        around &= around - 1
        if (q >= PIECES_PER_COLOUR) != (side == 1):
            return False
    return True


@counts_free
def is_legal_placement(b, ws, moves, n, mv):
    """Whether ``mv`` is a placement generate_moves would give here, tested
    without generating them (moves[n] is scratch for the Critters rule).

    What lets the search try a killer placement before the placements are
    generated: a few dozen nanoseconds against a few hundred.
    """
    x = mv >> MOVE_PIECE_SHIFT
    if mv < 0 or x >= N_PIECES or b[POS + x] >= 0:
        return False
    dest = mv & CELL_MASK
    side = b[PLY] & 1
    placeable = False
    for i in range(_placeable(b, ws, side)):
        if ws[WS_PLACEABLE + i] == x:
            placeable = True
    if not placeable or b[HEIGHT + dest] != 0:
        return False
    ply = b[PLY]
    if ply == 0:
        return dest == ORIGIN
    if ply == 1:
        return HOLE_BIT[(dest - _first_cell(b)) & CELL_MASK] != 0
    if b[NBR + dest] & ALL_NEIGHBOURS == 0 or not _touches_only_own(b, dest, side):
        return False
    if _is_critters(b) and (b[GAME_TYPE] & RELAX_SUICIDE) == 0:
        moves[n] = mv
        return _drop_suicides(b, moves, n, n + 1, side) == n + 1
    return True


@counts_free
def _placeable(b, ws, side):
    """Pieces side may place now (lowest number of each bug); returns the count."""
    return _placeable_in(b, ws, side, _is_critters(b))


@counts_free(inline="always")
def _placeable_in(b, ws, side, critters):
    """_placeable with the game type's Critters test given (a constant where inlined)."""
    base = side * PIECES_PER_COLOUR
    turn = b[PLY] // 2 + 1
    queen_in_hand = b[POS + base] < 0
    gt = b[GAME_TYPE]
    k = 0
    for kind in range(N_KINDS):
        if critters:
            count = _CRITTERS_COUNT[kind]
            if count == 0:
                continue
        elif _KIND_EXP[kind] != 0 and (gt & _KIND_EXP[kind]) == 0:
            continue
        else:
            count = _KIND_COUNT[kind]
        if kind == QUEEN:
            if turn == 1:
                continue  # tournament opening
        elif turn == 4 and queen_in_hand:
            continue  # the queen must come out on the fourth turn
        first = base + _KIND_FIRST[kind]
        for p in range(first, first + count):
            if b[POS + p] < 0:
                ws[WS_PLACEABLE + k] = p
                k += 1
                break
    return k


# --- Everything -------------------------------------------------------------


# Critters without a cost to the standard types: each generator's body below
# takes ``critters`` as an argument and is inlined (numba's inline="always",
# at the IR level) into one caller passing False and one passing True, after
# a single test of the game type. LLVM then folds the Critters tests out of
# the standard copy, which is as lean as a generator without Critters, and keeps
# the whole generation in one function (a call between numba functions costs
# a status check, and, in a kernel compiled with numba's runtime, reference-count
# calls on every array argument: see hiveai.rules.borrow.counts_free).


@counts_free
def _is_critters(b):
    """Whether the game type (RELAX_* bits aside) is Critters."""
    return (b[GAME_TYPE] & GAME_TYPE_BITS) == CRITTERS


@counts_free
def generate_moves(b, ws, moves, n):
    """Append all legal moves of the side to move (not PASS) to moves[n:].

    Returns the new end. The caller decides what no moves means (a pass) and
    must not call this on a finished game.
    """
    if _is_critters(b):
        return _critters_moves_all(b, ws, moves, n)
    return _movements(b, ws, moves, _placements(b, ws, moves, n, False), -1, False)


@counts_free
def _critters_moves_all(b, ws, moves, n):
    """generate_moves in Critters."""
    return _movements(b, ws, moves, _placements(b, ws, moves, n, True), -1, True)


@counts_free
def generate_placements(b, ws, moves, n):
    """The placements of generate_moves alone, appended at moves[n:]; returns the new end."""
    if _is_critters(b):
        return _critters_placements(b, ws, moves, n)
    return _placements(b, ws, moves, n, False)


@counts_free
def count_placements(b, ws, moves):
    """How many placements generate_placements would give, without listing
    them outside Critters: every placeable piece on every placement cell.
    In Critters they are generated (at moves[0:]) since the suicide rule
    removes some."""
    if _is_critters(b):
        return _critters_placements(b, ws, moves, np.int64(0))
    renew_stamps(ws)
    side = b[PLY] & 1
    npl = _placeable_in(b, ws, side, False)
    return npl * _placement_cells(b, ws, side) if npl > 0 else 0


@counts_free
def _walk_border(b, ws, colour, was, then, other):
    """Walk the empty cells next to ``colour``'s stacks: a cell marked ``then``
    or ``other`` is passed over, one marked ``was`` is marked ``then``, and
    any other is marked ``other`` and counted. Returns the count."""
    k = 0
    base = colour * PIECES_PER_COLOUR
    for p in range(base, base + PIECES_PER_COLOUR):
        c = b[POS + p]
        if c >= 0 and b[TOP + c] == p:
            k += _mark_around(b, ws, c, was, then, other)
    return k


@counts_free(inline="always")
def _mark_around(b, ws, c, was, then, other):
    """_walk_border's marks on the empty neighbours of the stack on ``c``; returns how many it counted."""
    k = 0
    empty = ~b[NBR + c] & ALL_NEIGHBOURS
    while empty != 0:
        e = _nb(c, _LOWEST_BIT[empty])
        empty &= empty - 1
        m = ws[WS_MARK + e]
        if m == then or m == other:
            continue
        if m == was:
            ws[WS_MARK + e] = then
        else:
            ws[WS_MARK + e] = other
            k += 1
    return k


@counts_free
def count_placements_both(b, ws, moves):
    """count_placements for the side to move, and for the other side as if it
    were to move (one ply on), in one walk of each colour's border where two
    calls would walk it twice and test every cell's neighbours.

    Three walks, with three marks: Black's border is marked ``black``; White's
    border is walked, its cells marked ``black`` become ``both`` (they touch
    both colours) and the others ``white``, counted: White's placement cells;
    Black's border is walked again, and its cells still marked ``black`` are
    Black's placement cells (marked ``white`` as they are counted, so once).

    Returns (the side to move's count, the other side's). In Critters (whose
    suicide rule removes placements) and on the first two plies (their own
    placement rules) it is the two calls. ``moves`` is scratch, as for
    count_placements.
    """
    ply = b[PLY]
    if _is_critters(b) or ply < 2:
        ours = count_placements(b, ws, moves)
        b[PLY] = ply + 1
        theirs = count_placements(b, ws, moves)
        b[PLY] = ply
        return ours, theirs
    renew_stamps(ws)
    side = ply & 1
    npl_us = _placeable_in(b, ws, side, False)
    b[PLY] = ply + 1
    npl_them = _placeable_in(b, ws, 1 - side, False)
    b[PLY] = ply
    if npl_us == 0 and npl_them == 0:
        return 0, 0
    black = new_stamp(ws)
    both = new_stamp(ws)
    white = new_stamp(ws)
    _walk_border(b, ws, 1, -1, both, black)
    white_cells = _walk_border(b, ws, 0, black, both, white)
    black_cells = _walk_border(b, ws, 1, -1, both, white)  # the cells still marked black
    ours = white_cells if side == 0 else black_cells
    theirs = black_cells if side == 0 else white_cells
    return npl_us * ours, npl_them * theirs


@counts_free
def _critters_placements(b, ws, moves, n):
    """generate_placements in Critters."""
    return _placements(b, ws, moves, n, True)


@counts_free(inline="always")
def _placements(b, ws, moves, n, critters):
    """generate_placements' body; ``critters`` is the game type's test (a constant where inlined)."""
    renew_stamps(ws)
    side = b[PLY] & 1
    start = n
    npl = _placeable_in(b, ws, side, critters)
    if npl > 0:
        ncells = _placement_cells(b, ws, side)
        for i in range(npl):
            p = ws[WS_PLACEABLE + i]
            for j in range(ncells):
                moves[n] = (p << MOVE_PIECE_SHIFT) | ws[WS_QUEUE + j]
                n += 1
    if critters and (b[GAME_TYPE] & RELAX_SUICIDE) == 0:
        n = _drop_suicides(b, moves, start, n, side)
    return n


@counts_free
def generate_movements(b, ws, moves, n, pinned):
    """The moves of pieces on the board (pillbug throws included) of
    generate_moves alone, appended at moves[n:]; returns the new end.

    ``pinned``: the position's pinned-piece mask if the caller knows it
    (find_pinned, pinned_after_move), else -1. The mask used is left in
    ws[WS_PINNED] (-1 before the queen is down: nothing moves, no mask).
    """
    if _is_critters(b):
        return _critters_movements(b, ws, moves, n, pinned)
    return _movements(b, ws, moves, n, pinned, False)


@counts_free
def _critters_movements(b, ws, moves, n, pinned):
    """generate_movements in Critters."""
    return _movements(b, ws, moves, n, pinned, True)


@counts_free(inline="always")
def _movements(b, ws, moves, n, pinned, critters):
    """generate_movements' body; ``critters`` is the game type's test (a constant where inlined)."""
    renew_stamps(ws)
    side = b[PLY] & 1
    base = side * PIECES_PER_COLOUR
    start = n
    gt = b[GAME_TYPE]
    ws[WS_PINNED] = -1
    if b[POS + base] < 0:
        return n  # no movement before the queen is down (nor a queen to surround)
    last = b[LAST_MOVED]
    if pinned < 0:
        pinned = find_pinned(b, ws, b[POS + base])
    ws[WS_PINNED] = pinned
    t0, t1 = throwers(b, base, last)
    for x in range(N_PIECES):
        xc = b[POS + x]
        if xc < 0 or b[TOP + xc] != x or x == last:
            continue
        own = (x >= base) and (x < base + PIECES_PER_COLOUR)
        free = b[LEVEL + x] > 0 or (pinned >> x) & 1 == 0
        if not own and (t0 < 0 or not free):
            continue
        stamp = new_stamp(ws)
        b[HEIGHT + xc] -= 1  # lift x for every gate and contact test
        if own and free:
            k = KIND[x]
            if critters:
                n = _critters_moves(b, ws, stamp, moves, n, x, xc, gt)
            elif k == MOSQUITO:
                n = _mosquito(b, ws, stamp, moves, n, x, xc)
            else:
                n = _moves_as(b, ws, stamp, moves, n, x, xc, k)
        if t0 >= 0 and free and b[HEIGHT + xc] == 0:
            n = _throws(b, ws, stamp, moves, n, x, xc, t0)
            if t1 >= 0:
                n = _throws(b, ws, stamp, moves, n, x, xc, t1)
        b[HEIGHT + xc] += 1
    if critters and (gt & RELAX_SUICIDE) == 0:
        n = _drop_suicides(b, moves, start, n, side)
    return n


@counts_free(inline="always")
def throwers(b, base, last):
    """The cells (t0, t1; -1: none) of the pieces that can throw for the side
    whose first piece is ``base``: its uncovered pillbug, and its mosquito on
    the ground touching a pillbug, unless stunned (``last``, the piece moved
    last, -1 for none)."""
    t0 = -1
    t1 = -1
    if b[GAME_TYPE] & EXP_PILLBUG:
        for p in (base + _PILLBUG_INDEX, base + _MOSQUITO_INDEX):
            c = b[POS + p]
            if c < 0 or p == last or b[HEIGHT + c] != 1:
                continue
            if KIND[p] == MOSQUITO:
                touches = False
                for d in range(6):
                    q = b[TOP + _nb(c, d)]
                    if q >= 0 and KIND[q] == PILLBUG:
                        touches = True
                if not touches:
                    continue
            if t0 < 0:
                t0 = c
            else:
                t1 = c
    return t0, t1


@counts_free
def piece_destinations(b, ws, moves, x, own, t0, t1):
    """The destinations generate_movements lists for piece ``x`` in a standard
    game type, at moves[0:]; returns how many. Its own moves if ``own`` (its
    side is to move), then, if it is alone on its cell, its throws by the
    throwers on cells t0 and t1 (throwers(); -1: none), each cell once, by the
    generator's own code for its bug. The caller checks what
    generate_movements checks first: x is on top of its stack, not stunned,
    not pinned unless on the hive, and its side's queen is down."""
    renew_stamps(ws)
    xc = b[POS + x]
    stamp = new_stamp(ws)
    n = np.int64(0)
    b[HEIGHT + xc] -= 1  # lifted, as generate_movements lifts it
    if own:
        k = KIND[x]
        if k == MOSQUITO:
            n = _mosquito(b, ws, stamp, moves, n, x, xc)
        else:
            n = _moves_as(b, ws, stamp, moves, n, x, xc, k)
    if t0 >= 0 and b[HEIGHT + xc] == 0:
        n = _throws(b, ws, stamp, moves, n, x, xc, t0)
        if t1 >= 0:
            n = _throws(b, ws, stamp, moves, n, x, xc, t1)
    b[HEIGHT + xc] += 1
    return n


@counts_free
def legal_moves(b, ws, moves, n):
    """Legal moves appended at moves[n:], a lone PASS when stuck; returns the end.

    The game must not be over.
    """
    end = generate_moves(b, ws, moves, n)
    if end == n:
        moves[n] = PASS
        end += 1
    return end
