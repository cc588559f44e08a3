"""The feature kernel (hiveai.evaluation.features) against a plain-Python count made
through Board's public API and the move generator, on random positions of
every game type."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hiveai.rules.board import Board
from hiveai.rules.bug import N_PIECES, PIECES_PER_COLOUR, kind_of, parse_game_type, piece_in_game
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
    features_into,
    new_scratch,
)
from hiveai.rules.hex_grid import neighbour
from hiveai.rules.movegen import MAX_MOVES, find_pinned, generate_moves, new_workspace
from hiveai.rules.position import HEIGHT, LAST_MOVED, LEVEL, PLY, POS, TOP
from game_types import EVERY_GAME_TYPE


def features(b: np.ndarray) -> np.ndarray:
    """The kernel's feature vector of position array ``b``."""
    x, (ws, moves) = np.zeros(N_FEATURES, dtype=np.float32), new_scratch()
    features_into(b, ws, moves, x, -1)
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


def test_empty_board():
    x = features(Board("Base").position_array)
    # White places one of four bugs (not the queen: tournament opening) on the one cell.
    assert x[F_GAME_TYPE] == 1 and x[F_PLACEMENTS] == 4
    assert [x[F_KIND + k * PER_KIND + K_HAND] for k in range(5)] == [1, 2, 2, 3, 3]
    assert x[SIDE_FEATURES + F_KIND + K_HAND] == 1 and x[:SIDE_FEATURES].sum() == 4 + 11
