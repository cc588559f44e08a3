"""The feature kernel (hiveai.evaluation.features) against a plain-Python count made
through Board's public API and the move generator, on random positions of
every game type."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hiveai.rules.board import Board
from hiveai.rules.bug import ANT, LADYBUG, MOSQUITO, N_PIECES, PIECES_PER_COLOUR, SPIDER, kind_of, parse_game_type, piece_in_game
from hiveai.evaluation.features import (
    F_GAME_TYPE,
    F_KIND,
    F_PLACEMENTS,
    F_QUEEN_COVERED,
    F_QUEEN_NBR,
    F_STACKS,
    F_THROWS,
    K_BURIED,
    K_HAND,
    K_MOVABLE,
    K_MOVES,
    K_PINNED,
    K_TOUCH_ENEMY,
    K_TOUCH_FRIEND,
    N_FEATURES,
    PER_KIND,
    SIDE_FEATURES,
    features_of_set_into,
    new_scratch,
)
from hiveai.rules.hex_grid import neighbour
from hiveai.rules.movegen import MAX_MOVES, count_placements, count_placements_both, find_pinned, generate_moves, new_workspace
from hiveai.rules.position import HEIGHT, LAST_MOVED, LEVEL, PLY, POS, TOP
from game_types import EVERY_GAME_TYPE


def features(b: np.ndarray, feature_set: int = 1) -> np.ndarray:
    """The kernel's feature vector of position array ``b`` in ``feature_set``."""
    x, (ws, moves) = np.zeros(N_FEATURES, dtype=np.float32), new_scratch()
    features_of_set_into(b, ws, moves, x, -1, feature_set)
    return x


def reference(board: Board) -> np.ndarray:
    """The feature vector counted in plain Python, one rule at a time."""
    b = board.position_array
    gt = board.game_type
    x = np.zeros(N_FEATURES)
    x[F_GAME_TYPE + gt] = 1
    side = board.ply % 2
    on_board = [p for p in range(N_PIECES) if b[POS + p] >= 0]
    pinned = int(find_pinned(b, new_workspace(), int(b[POS + on_board[0]]))) if on_board else 0

    def block(colour: int) -> int:
        return 0 if colour == side else SIDE_FEATURES

    def slot(colour: int, piece: int, what: int) -> int:
        return block(colour) + F_KIND + kind_of(piece, gt) * PER_KIND + what

    def is_top(p: int) -> bool:
        return int(b[TOP + int(b[POS + p])]) == p

    def is_pinned(p: int) -> bool:
        return b[LEVEL + p] == 0 and bool((pinned >> p) & 1)

    for p in range(N_PIECES):
        colour = p // PIECES_PER_COLOUR
        if b[POS + p] < 0:
            x[slot(colour, p, K_HAND)] += piece_in_game(p, gt)
        elif not is_top(p):
            x[slot(colour, p, K_BURIED)] += 1
        else:
            x[slot(colour, p, K_PINNED)] += is_pinned(p)
            x[block(colour) + F_STACKS] += b[HEIGHT + int(b[POS + p])] >= 2
    for colour in (0, 1):
        queen = colour * PIECES_PER_COLOUR
        if b[POS + queen] < 0:
            continue
        qc = int(b[POS + queen])
        x[block(colour) + F_QUEEN_COVERED] = int(b[TOP + qc]) != queen
        for d in range(6):
            q = int(b[TOP + neighbour(qc, d)])
            if q < 0:
                continue
            enemy = q // PIECES_PER_COLOUR != colour
            x[block(colour) + F_QUEEN_NBR + 2 * enemy + (not is_pinned(q))] += 1
            x[slot(colour, q, K_TOUCH_ENEMY if enemy else K_TOUCH_FRIEND)] += 1
    # The side to move's moves from the public API; the other side's from the
    # generator on a copy with the turn passed (one ply on, nothing stunned).
    codes = [m.code for m in board.legal_moves if not m.is_pass]
    other = board.position_array
    other[PLY] += 1
    other[LAST_MOVED] = -1
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    n = generate_moves(other, new_workspace(), buf, 0)
    for colour, moves in ((side, codes), (1 - side, [int(m) for m in buf[:n]])):
        movers = set()
        for code in moves:
            p = code >> 10
            if b[POS + p] < 0:
                x[block(colour) + F_PLACEMENTS] += 1
            elif p // PIECES_PER_COLOUR == colour:
                x[slot(colour, p, K_MOVES)] += 1
                movers.add(p)
            else:
                x[block(colour) + F_THROWS] += 1
        for p in movers:
            x[slot(colour, p, K_MOVABLE)] += 1
    return x


def random_positions(game_type: str, count: int, seed: int):
    rng = random.Random(seed)
    found = 0
    while found < count:
        board = Board(game_type)
        for _ in range(rng.randrange(4, 60)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            found += 1
            yield board


@pytest.mark.parametrize("game_type", EVERY_GAME_TYPE)
def test_kernel_matches_plain_python(game_type):
    for board in random_positions(game_type, 12, seed=parse_game_type(game_type)):
        b = board.position_array
        x = features(b)
        expected = reference(board)
        wrong = [(i, x[i], expected[i]) for i in np.flatnonzero(x != expected)]
        assert not wrong, (board.game_string(), wrong)
        assert np.array_equal(b, board.position_array), "the kernel must restore the position"


@pytest.mark.parametrize("game_type", EVERY_GAME_TYPE)
def test_both_sides_placements_in_one_pass(game_type):
    """count_placements_both gives what count_placements gives for the side to move
    and, one ply on, for the other side, from the first ply to the middle game."""
    ws, buf = new_workspace(), np.empty(MAX_MOVES, dtype=np.int32)
    rng = random.Random(parse_game_type(game_type))
    for _ in range(10):
        board = Board(game_type)
        for _ in range(40):
            if board.is_game_over() or not board.legal_moves:
                break
            b = board.position_array
            before = b.copy()
            both = count_placements_both(b, ws, buf)
            assert np.array_equal(b, before)
            other = b.copy()
            other[PLY] += 1
            assert both == (count_placements(b, ws, buf), count_placements(other, ws, buf)), board.game_string()
            board.push(rng.choice(board.legal_moves))


def test_empty_board():
    x = features(Board("Base").position_array)
    # White places one of four bugs (not the queen: tournament opening) on the one cell.
    assert x[F_GAME_TYPE] == 1 and x[F_PLACEMENTS] == 4
    assert [x[F_KIND + k * PER_KIND + K_HAND] for k in range(5)] == [1, 2, 2, 3, 3]
    assert x[SIDE_FEATURES + F_KIND + K_HAND] == 1 and x[:SIDE_FEATURES].sum() == 4 + 11


# --- Feature set 2 ------------------------------------------------------------------

# What feature set 2 estimates (indices): the moves of ants, spiders, ladybugs and
# mosquitoes, and whether a spider can move.
ESTIMATED = {block + F_KIND + kind * PER_KIND + what for block in (0, SIDE_FEATURES)
             for kind, what in [(k, K_MOVES) for k in (ANT, SPIDER, LADYBUG, MOSQUITO)] + [(SPIDER, K_MOVABLE)]}


@pytest.mark.parametrize("game_type", EVERY_GAME_TYPE)
def test_feature_set_2_is_set_1_but_for_what_it_estimates(game_type):
    """Every entry of feature set 2 but those it estimates is feature set 1's (in
    Critters, every entry), and the kernel leaves the position as it found it."""
    for board in random_positions(game_type, 12, seed=100 + parse_game_type(game_type)):
        b = board.position_array
        one, two = features(b, 1), features(b, 2)
        assert np.array_equal(b, board.position_array)
        differ = {int(i) for i in np.flatnonzero(one != two)}
        if game_type == "Critters":
            assert not differ, board.game_string()
        else:
            assert differ <= ESTIMATED, (board.game_string(), differ)


def _slide_groups(b) -> dict[int, int]:
    """Each empty cell next to the hive -> the size of its group of cells joined by
    sliding steps (exactly one of the step's two flanking cells occupied), in
    plain Python."""
    occupied = {int(b[POS + p]) for p in range(N_PIECES) if b[POS + p] >= 0}
    border = {neighbour(c, d) for c in occupied for d in range(6)} - occupied
    group, size = {}, {}
    for start in border:
        if start in group:
            continue
        todo, members = [start], {start}
        while todo:
            x = todo.pop()
            for d in range(6):
                y = neighbour(x, d)
                flanks = (neighbour(x, (d + 5) % 6) in occupied) + (neighbour(x, (d + 1) % 6) in occupied)
                if y not in occupied and flanks == 1 and y not in members:
                    members.add(y)
                    todo.append(y)
        for x in members:
            group[x] = start
        size[start] = len(members)
    return {x: size[g] for x, g in group.items()} | {("group", x): g for x, g in group.items()}


def _ant_reach(b, cell: int) -> int:
    """Feature set 2's estimate of an ant's moves from ``cell``, in plain Python:
    the sizes of the groups its first sliding steps enter, less its empty
    neighbours that touch the hive only through it."""
    occupied = {int(b[POS + p]) for p in range(N_PIECES) if b[POS + p] >= 0}
    groups = _slide_groups(b)
    entered = set()
    for d in range(6):
        y = neighbour(cell, d)
        flanks = (neighbour(cell, (d + 5) % 6) in occupied) + (neighbour(cell, (d + 1) % 6) in occupied)
        if y not in occupied and flanks == 1:
            entered.add(groups[("group", y)])
    total = sum(groups[g] for g in entered)
    if total:
        total -= sum(1 for d in range(6) if neighbour(cell, d) not in occupied
                     and {neighbour(neighbour(cell, d), e) for e in range(6)} & occupied == {cell})
    return total


def _generated_moves(board: Board, colour: int) -> dict[int, int]:
    """Piece -> how many moves the generator lists for it, ``colour`` to move
    (the other side one ply on, nothing stunned, as the features count it)."""
    b = board.position_array
    if colour != board.ply % 2:
        b[PLY] += 1
        b[LAST_MOVED] = -1
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    counts: dict[int, int] = {}
    for code in buf[: generate_moves(b, new_workspace(), buf, 0)]:
        counts[int(code) >> 10] = counts.get(int(code) >> 10, 0) + 1
    return counts


@pytest.mark.parametrize("game_type", ["Base", "Base+L"])
def test_feature_set_2_estimates_in_plain_python(game_type):
    """Without pillbugs or mosquitoes: feature set 2's ant moves are the sum of
    _ant_reach over the free ants (an ant that reaches nothing by that count
    gets its generated moves, as in feature set 1); spiders and ladybugs have
    no moves counted, every free ladybug is movable, and a free spider is
    movable when it can take a sliding step."""
    checked = 0
    for board in random_positions(game_type, 25, seed=200 + parse_game_type(game_type)):
        b = board.position_array
        x = features(b, 2)
        occupied = {int(b[POS + p]) for p in range(N_PIECES) if b[POS + p] >= 0}
        pinned = int(find_pinned(b, new_workspace(), next(iter(occupied))))
        side = board.ply % 2
        for block, colour in ((0, side), (SIDE_FEATURES, 1 - side)):
            if b[POS + colour * PIECES_PER_COLOUR] < 0:
                continue  # nothing moves before the queen is down
            generated = _generated_moves(board, colour)
            ant_moves, movable = 0, {SPIDER: 0, LADYBUG: 0}
            for p in range(colour * PIECES_PER_COLOUR, (colour + 1) * PIECES_PER_COLOUR):
                c, kind = int(b[POS + p]), kind_of(p, board.game_type)
                if c < 0 or int(b[TOP + c]) != p:
                    continue
                if (b[LEVEL + p] == 0 and (pinned >> p) & 1) or (colour == side and b[LAST_MOVED] == p):
                    continue
                if kind == ANT:
                    ant_moves += _ant_reach(b, c) or generated.get(p, 0)
                    checked += 1
                elif kind == LADYBUG:
                    movable[LADYBUG] += 1
                elif kind == SPIDER:
                    movable[SPIDER] += any(
                        neighbour(c, d) not in occupied
                        and (neighbour(c, (d + 5) % 6) in occupied) + (neighbour(c, (d + 1) % 6) in occupied) == 1
                        for d in range(6))
            assert x[block + F_KIND + ANT * PER_KIND + K_MOVES] == ant_moves, board.game_string()
            for kind in (SPIDER, LADYBUG):
                assert x[block + F_KIND + kind * PER_KIND + K_MOVES] == 0
                assert x[block + F_KIND + kind * PER_KIND + K_MOVABLE] == movable[kind], board.game_string()
    assert checked > 20
