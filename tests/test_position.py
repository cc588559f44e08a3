"""Make/unmake, the incremental Zobrist hash and movegen's scratch stamps."""

from __future__ import annotations

import random

import numpy as np
import pytest

from hiveai.board import Board
from hiveai.movegen import (
    MAX_MOVES,
    STAMP_LIMIT,
    WS_STAMP,
    generate_moves,
    new_workspace,
)
from hiveai.position import HASH, LAST_MOVED, recompute_hash
from hiveai.zobrist import game_type_key

GAME_TYPES = ["Base", "Base+M", "Base+L", "Base+P", "Base+ML", "Base+MP", "Base+LP", "Base+MLP"]


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_incremental_hash_matches_recomputed(game_type):
    """After every make and every unmake, the kept hash equals one computed from scratch."""
    rng = random.Random(game_type)
    for _ in range(3):
        board = Board(game_type)
        hashes = [board.zobrist]
        while not board.is_game_over() and board.ply < 100:
            board.push(rng.choice(board.legal_moves))
            b = board.position_array
            assert recompute_hash(b) == b[HASH], board.game_string()
            hashes.append(board.zobrist)
        while board.ply:
            board.pop()
            b = board.position_array
            assert recompute_hash(b) == b[HASH]
            assert board.zobrist == hashes[board.ply]
        # Back at the empty board only the game type's key is left.
        assert board.position_array[HASH] == game_type_key(board.game_type)


def test_game_type_is_part_of_the_hash():
    """The same moves in different game types hash differently (the TT and book share keys)."""
    hashes = set()
    for game_type in GAME_TYPES:
        board = Board(game_type)
        board.play("wG1")
        board.play("bG1 wG1-")
        hashes.add(board.zobrist)
    assert len(hashes) == len(GAME_TYPES)


def test_stamp_counter_wraps_without_losing_pins():
    """Generation is the same when the stamp counter restarts just before or inside it.

    In this position wS1 is pinned (removing it splits the hive); a counter
    reset in the middle of a generation used to forget that.
    """
    board = Board.from_game_string(
        "Base;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wG1 \\wQ;bA1 bQ/"
    )
    expected = sorted(board.legal_move_ints())
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    for start in [*range(STAMP_LIMIT - 40, STAMP_LIMIT + 2), 2**31 - 2]:
        ws = new_workspace()
        ws[WS_STAMP] = start
        n = generate_moves(board.position_array, ws, buf, 0)
        assert sorted(int(m) for m in buf[:n]) == expected, start


def test_last_moved_piece_hashed_only_with_pillbugs():
    """Positions that differ only in which piece moved last share a hash
    unless a pillbug is in play (only its power can see the difference)."""
    moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wQ \\wS1", "bQ bS1\\"]
    for game_type, differs in (("Base", False), ("Base+ML", False), ("Base+P", True), ("Base+MLP", True)):
        board = Board(game_type)
        for m in moves:
            board.play(m)
        a = board.position_array.copy()
        b = a.copy()
        assert a[LAST_MOVED] == 14  # bQ moved last
        b[LAST_MOVED] = 0  # as if wQ had
        assert (recompute_hash(a) != recompute_hash(b)) == differs, game_type


def _neighbour_masks(b: np.ndarray) -> np.ndarray:
    """Every cell's occupied-neighbour mask, computed from the heights."""
    from hiveai.hex_grid import DIR_OFFSET, N_CELLS, neighbour
    from hiveai.position import HEIGHT

    masks = np.zeros(N_CELLS, dtype=np.int64)
    for cell in range(N_CELLS):
        for d in range(len(DIR_OFFSET)):
            if b[HEIGHT + neighbour(cell, d)] > 0:
                masks[cell] |= 1 << d
    return masks


@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_neighbour_masks_follow_make_and_unmake(game_type):
    """The NBR masks kept by make/unmake equal masks computed from the heights,
    after moves (stacks included) and after taking them back."""
    from hiveai.hex_grid import N_CELLS
    from hiveai.position import NBR, do_move, undo_move

    rng = random.Random(game_type)
    board = Board(game_type)
    b = board.position_array
    start = b.copy()
    played = []
    for _ in range(60):
        moves = board.legal_move_ints()
        if board.is_game_over():
            break
        mv = rng.choice(moves)
        played.append((mv, do_move(b, mv)))
        board.push(mv)
        assert np.array_equal(b[NBR : NBR + N_CELLS], _neighbour_masks(b))
    for mv, token in reversed(played):
        undo_move(b, mv, token)
        assert np.array_equal(b[NBR : NBR + N_CELLS], _neighbour_masks(b))
    assert np.array_equal(b, start)
