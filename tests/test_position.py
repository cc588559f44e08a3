"""Make/unmake, the incremental Zobrist hash, movegen's scratch stamps, and the
shortcuts the search takes past a full generation or pin pass."""

from __future__ import annotations

import random

import numpy as np
import pytest
from game_types import STANDARD_GAME_TYPES as GAME_TYPES

from hiveai.rules.board import Board
from hiveai.rules.movegen import (
    MAX_MOVES,
    STAMP_LIMIT,
    WS_STAMP,
    find_pinned,
    generate_moves,
    is_legal_placement,
    new_workspace,
    pinned_after_move,
)
from hiveai.rules.position import HASH, LAST_MOVED, recompute_hash
from hiveai.rules.zobrist import game_type_key


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
    reset in the middle of a generation must not forget that.
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
    from hiveai.rules.hex_grid import DIR_OFFSET, N_CELLS, neighbour
    from hiveai.rules.position import HEIGHT

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
    from hiveai.rules.hex_grid import N_CELLS
    from hiveai.rules.position import NBR, do_move, undo_move

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


def _random_positions(game_type: str, games: int, plies: int):
    """Boards along random games (a fixed seed per game type)."""
    rng = random.Random(f"positions {game_type}")
    for _ in range(games):
        board = Board(game_type)
        while not board.is_game_over() and board.ply < plies:
            yield board
            board.push(rng.choice(board.legal_move_ints()))


@pytest.mark.parametrize("game_type", [*GAME_TYPES, "Critters"])
def test_is_legal_placement_agrees_with_the_generation(game_type):
    """is_legal_placement (the search's test of a killer placement before the
    placements are generated) says yes exactly to the generated placements:
    tried on every legal move and on every bug in hand at every cell near the hive."""
    from hiveai.rules.bug import N_PIECES
    from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET
    from hiveai.rules.position import MOVE_PIECE_SHIFT, PASS, POS

    ws = new_workspace()
    scratch = np.zeros(MAX_MOVES, dtype=np.int32)
    accepted = 0
    for board in _random_positions(game_type, 3, 40):
        b = board.position_array
        legal = set(board.legal_move_ints()) - {PASS}
        stacks = {int(c) for c in b[POS : POS + N_PIECES] if c >= 0} or {int(m) & CELL_MASK for m in legal}
        cells = {(c + off) & CELL_MASK for c in stacks for off in DIR_OFFSET} | stacks
        in_hand = [p for p in range(N_PIECES) if b[POS + p] < 0]
        tries = legal | {(p << MOVE_PIECE_SHIFT) | c for p in in_hand for c in cells}
        for mv in tries:
            placement = mv >> MOVE_PIECE_SHIFT < N_PIECES and b[POS + (mv >> MOVE_PIECE_SHIFT)] < 0
            expected = placement and mv in legal
            assert is_legal_placement(b, ws, scratch, 0, mv) == expected, (board.game_string(), mv)
            accepted += expected
        assert not is_legal_placement(b, ws, scratch, 0, PASS) and not is_legal_placement(b, ws, scratch, 0, -1)
    assert accepted > 500


@pytest.mark.parametrize("game_type", ["Base", "Base+M", "Base+P", "Base+MLP", "Critters"])
def test_pinned_after_move_agrees_with_a_new_pin_pass(game_type):
    """Where pinned_after_move derives the pins after a move from those before
    it, they are the ones find_pinned finds in the new position (for every
    piece a caller asks about: uncovered, on the ground); and it does derive
    them for a good share of the moves."""
    from hiveai.rules.bug import N_PIECES
    from hiveai.rules.position import LEVEL, MOVE_PIECE_SHIFT, PASS, POS, TOP, do_move, undo_move

    def ground_pins(b, mask):
        return {p for p in range(N_PIECES)
                if b[POS + p] >= 0 and b[TOP + b[POS + p]] == p and b[LEVEL + p] == 0 and (mask >> p) & 1}

    ws = new_workspace()
    moves = derived = 0
    for board in _random_positions(game_type, 6, 70):
        b = board.position_array.copy()
        root = next((int(c) for c in b[POS : POS + N_PIECES] if c >= 0), -1)
        if root < 0:
            continue
        before = int(find_pinned(b, ws, root))
        for mv in board.legal_move_ints():
            after = int(pinned_after_move(b, before, mv))
            token = do_move(b, mv)
            moves += 1
            if after >= 0:
                derived += 1
                fresh = int(find_pinned(b, ws, root if mv == PASS else int(b[POS + (mv >> MOVE_PIECE_SHIFT)])))
                assert ground_pins(b, after) == ground_pins(b, fresh), (board.game_string(), mv)
            undo_move(b, mv, token)
    assert derived > moves // 5
