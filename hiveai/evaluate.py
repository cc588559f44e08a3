"""Static evaluation: how good a position is for the side to move.

Hive is won by filling the six cells around the enemy queen, so the
evaluation is built around queen mobility (engine-notes.md 1: every strong
engine's common denominator):

* **Queen neighbours.** Each occupied cell next to a queen counts against
  that queen's owner. An enemy piece there is worst (it stays to finish the
  job); a friendly piece that cannot move away is nearly as bad (it fills a
  cell we cannot free); a friendly piece that can leave counts less. Danger
  grows faster than linearly: the fifth neighbour is one move from defeat.
* **Attackers.** Free cells around a queen matter only if enemy pieces can
  reach them: mobile enemy ants, beetles, mosquitoes, ladybugs reach almost
  any cell, spiders and grasshoppers fewer. Their count, up to the number of
  free cells, adds danger.
* **Mobility.** A piece that can move is worth its bug value; one that cannot
  (pinned by the One Hive rule, covered by a beetle, a crawler wedged in a
  gate, or any piece before its queen is down) is worth almost nothing.
  Pieces in hand are worth a fraction of their value: they can still come in.
* **Beetles and pillbugs.** A beetle on top of a queen freezes it and covers
  it; a pillbug next to its own queen can throw attackers away (and lift the
  queen out) and is a strong defence.

Scores are ints from the side to move's point of view (negamax), in
hundredths of "one enemy piece next to a queen". Finished games score
``WIN - plies`` (see hiveai.search). All weights live here, each with where
its value came from; tuning results are recorded in README.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hiveai.bug import ANT, MOSQUITO, N_PIECES, PIECES_PER_COLOUR, PILLBUG, QUEEN, SPIDER
from hiveai.hex_grid import CELL_MASK, DIR_OFFSET
from hiveai.movegen import KIND, WS_PIN, _renew_stamps, _slides, find_pinned
from hiveai.position import LEVEL, PLY, POS, TOP, occupied_neighbours

# A won game; larger than any static score (hiveai.tt.WIN is the same number).
WIN = 1_000_000
DRAW_SCORE = 0

# --- Weights ----------------------------------------------------------------
# Starting points from nokamute's BasicEvaluator at aggression 3
# (engine-notes.md 1), rescaled so that one enemy piece next to a queen is 100
# (nokamute: 36). Changes from there are kept only when a match says so.

# Per piece next to a queen, against the queen's owner.
QUEEN_ENEMY_NEIGHBOUR = 100  # nokamute 36 -> 100
QUEEN_STUCK_FRIEND = 80  # nokamute 30 (immovable friend) -> 83, rounded
QUEEN_FREE_FRIEND = 40  # nokamute 15 (movable friend) -> 42, rounded
# Extra danger by number of occupied neighbours (0..6): boardspace's Bestbot
# grows queen danger non-linearly ({0,5,10,15,40,80,120}); we add its excess
# over linear from the fourth neighbour on, scaled to our units.
QUEEN_CROWD = np.array([0, 0, 0, 0, 60, 160, 0], dtype=np.int64)
# An enemy beetle (or mosquito) on top of a queen: the queen cannot move and
# the cell counts as taken for good. Bestbot scores a buried queen +10 against
# ~1.5 per neighbour; we keep it near one neighbour's worth, as it also
# freezes the queen.
QUEEN_COVERED = 100
# Per enemy piece able to reach a free cell around the queen, counted up to
# the number of free cells ("attackers"). A guess at half a neighbour's worth
# of a future neighbour, discounted for the moves it still needs.
QUEEN_ATTACKER = 15
# Own pillbug next to own queen: nokamute +120 at its scale (3.3 neighbours)
# when an escape exists; we give one neighbour's worth unconditionally.
PILLBUG_DEFENCE = 60
# The queen itself can still move: Bestbot weighs a mobile queen at 0.5 of a
# neighbour in its queen-danger count.
QUEEN_MOBILE = 30

# Value of a piece that can move, by kind (nokamute 2 x bug value: Q 12, S 2,
# B 6, G 2, A 7, M = what it copies, L 6, P 5; x 2.8 to our units).
MOBILE_VALUE = np.array([
    0,   # queen: counted through QUEEN_MOBILE
    12,  # spider (nokamute 4)
    34,  # beetle (12)
    12,  # grasshopper (4)
    40,  # ant (14)
    34,  # mosquito (nokamute: the value of what it copies; beetle-like on average)
    34,  # ladybug (12)
    28,  # pillbug (10)
], dtype=np.int64)
# Reach of a mobile enemy piece towards a queen's free cells, in percent
# (ants and climbers get almost anywhere; spiders and grasshoppers are
# constrained). Bestbot's per-bug distance multipliers, normalised to ants.
ATTACK_REACH = np.array([0, 50, 100, 50, 100, 100, 100, 50], dtype=np.int64)
# A piece in hand: half its mobile value (nokamute: 1 x value in hand versus
# 2 x on the board and mobile).
HAND_VALUE = MOBILE_VALUE // 2
# Pieces of a side whose queen is in hand cannot move; their board and hand
# value is scaled by this. Half: placing a piece neither gains nor loses value
# (hand value is half the mobile value), yet the queen's placement, which
# frees them all, is worth a lot.
PRE_QUEEN_PERCENT = 50
# Bonus for having the move (positions at odd and even depth compare better).
TEMPO = 10


@njit(cache=True, nogil=True)
def _nb(cell, d):
    return (cell + DIR_OFFSET[d]) & CELL_MASK


@njit(cache=True, nogil=True)
def evaluate(b, ws):
    """Score of an unfinished position for the side to move (higher is better)."""
    side = b[PLY] & 1
    root = -1
    for p in range(N_PIECES):
        if b[POS + p] >= 0:
            root = b[POS + p]
            break
    if root < 0:
        return 0
    _renew_stamps(ws)
    pin = find_pinned(b, ws, root)

    # Material and mobility, one pass over the pieces. ``mobile`` has bit p
    # for a piece p that can move; ``reach_*`` sum each colour's attack reach.
    # Mobility is judged as if the queen were down (exact for pins and cover;
    # crawlers need a slidable exit; a grasshopper always has a jump, a beetle
    # or ladybug almost always a step), then pieces of a side whose queen is
    # still in hand count at PRE_QUEEN_PERCENT: they cannot move yet.
    white = 0
    black = 0
    mobile = 0
    reach_w = 0
    reach_b = 0
    for p in range(N_PIECES):
        c = b[POS + p]
        k = KIND[p]
        if c < 0:
            v = HAND_VALUE[k]
            if p < PIECES_PER_COLOUR:
                white += v
            else:
                black += v
            continue
        if b[TOP + c] != p:
            continue  # covered: worth nothing while buried
        if b[LEVEL + p] == 0:
            if ws[WS_PIN + p] == pin:
                continue
            if k == QUEEN or k == SPIDER or k == ANT or k == PILLBUG:
                if _slides(b, c) == 0:
                    continue
            elif k == MOSQUITO:
                copies = False
                for d in range(6):
                    q = b[TOP + _nb(c, d)]
                    if q >= 0 and KIND[q] != MOSQUITO:
                        copies = True
                if not copies:
                    continue
        mobile |= 1 << p
        if p < PIECES_PER_COLOUR:
            white += MOBILE_VALUE[k]
            reach_w += ATTACK_REACH[k]
        else:
            black += MOBILE_VALUE[k]
            reach_b += ATTACK_REACH[k]
    if b[POS] < 0:
        white = white * PRE_QUEEN_PERCENT // 100
        reach_w = 0
    if b[POS + PIECES_PER_COLOUR] < 0:
        black = black * PRE_QUEEN_PERCENT // 100
        reach_b = 0

    # Queen safety: danger for each colour's own queen.
    for colour in range(2):
        base = colour * PIECES_PER_COLOUR
        qc = b[POS + base]
        if qc < 0:
            continue
        danger = 0
        nocc = 0
        # Attack reach of the enemy's mobile pieces not yet touching the queen.
        reach = reach_b if colour == 0 else reach_w
        for d in range(6):
            q = b[TOP + _nb(qc, d)]
            if q < 0:
                continue
            nocc += 1
            if (q >= PIECES_PER_COLOUR) != (colour == 1):
                danger += QUEEN_ENEMY_NEIGHBOUR
                if (mobile >> q) & 1:
                    reach -= ATTACK_REACH[KIND[q]]
            elif (mobile >> q) & 1:
                danger += QUEEN_FREE_FRIEND
                if KIND[q] == PILLBUG and b[LEVEL + q] == 0:
                    danger -= PILLBUG_DEFENCE
            else:
                danger += QUEEN_STUCK_FRIEND
        danger += QUEEN_CROWD[nocc]
        top = b[TOP + qc]
        if top != base:
            danger += QUEEN_COVERED
            if (mobile >> top) & 1:
                reach -= ATTACK_REACH[KIND[top]]
        elif (mobile >> base) & 1:
            danger -= QUEEN_MOBILE
        # Attackers: enough reach for one more neighbour each, up to the free cells.
        attackers = max(reach, 0) // 100
        if attackers > 6 - nocc:
            attackers = 6 - nocc
        danger += QUEEN_ATTACKER * attackers
        if colour == 0:
            white -= danger
        else:
            black -= danger
    return (white - black if side == 0 else black - white) + TEMPO



def queen_neighbours(b: np.ndarray, colour: int) -> int:
    """Occupied cells around ``colour``'s queen (0 while it is in hand)."""
    cell = int(b[POS + colour * PIECES_PER_COLOUR])
    if cell < 0:
        return 0
    return int(occupied_neighbours(b, cell))
