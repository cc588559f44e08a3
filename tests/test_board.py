"""The Python API of :class:`hiveai.rules.board.Board` and :class:`hiveai.rules.board.Move`,
strict MoveStrings for occupied positions, and every rejection reason checked
against the move generator.

Positions come from the perft reference data (random play that MzingaCpp and
nokamute agree on) and from seeded random play in all eight game types.
"""

from __future__ import annotations

import dataclasses
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from game_types import STANDARD_GAME_TYPES as GAME_TYPES
from game_types import from_a_neighbour

from hiveai import Move as LazyMove
from hiveai.rules.board import OCCUPIED, PASS, Board, Move
from hiveai.rules.bug import (
    COLOUR_NAMES,
    KIND_FIRST,
    N_PIECES,
    PIECE_NAMES,
    PIECES_PER_COLOUR,
    QUEEN,
    colour_of,
    kind_of,
    piece_in_game,
)
from hiveai.errors import GameOverError, IllegalMoveError, MoveStringError
from hiveai.rules.hex_grid import CELL_MASK, ORIGIN, neighbour
from hiveai.rules.position import (
    GAME_TYPE, HASH, HEIGHT, LAST_MOVED, LEVEL, MOVE_PIECE_SHIFT, NBR, PLY, POS, STACK, TOP, recompute_hash,
)

DATA = Path(__file__).parent / "data"
OPENING = "Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-"
# W of bQ holds bS1, so "bB1 -bQ" names an occupied cell: Mzinga rejects it, and it
# must not be read as the climb "bB1 bS1".
OCCUPIED_SIDE_GS = "Base;InProgress;Black[5];wS1;bS1 wS1-;wB1 \\wS1;bB1 bS1/;wG1 /wS1;bG1 bS1\\;wQ /wB1;bQ bB1\\;wS2 /wG1"
# wB2 sits on wQ; wB1 may climb onto that stack, named by its top: "wB1 wB2".
COVERED_GS = "Base;InProgress;White[5];wB1;bB1 \\wB1;wQ /wB1;bB2 -bB1;wB2 wQ\\;bQ \\bB1;wB2 wQ;bB2 /bB1"
SIDES = ("{}-", "-{}", "/{}", "{}/", "\\{}", "{}\\")


def snapshot(board: Board):
    return board.game_string(), board.zobrist, board.legal_move_ints()


def perft_positions() -> list[str]:
    rows = (DATA / "perft" / "random_positions.tsv").read_text().splitlines()
    return sorted({line.split("\t")[0] for line in rows if line and not line.startswith("#")})


def random_positions() -> list[str]:
    """Positions of seeded random games: every ply of the opening (placement
    rules, queen deadline), then a few later ones (movement, stacks, throws)."""
    out = []
    for game_type in GAME_TYPES:
        for seed in range(2):
            rng = random.Random(f"{game_type}:{seed}")
            board = Board(game_type)
            while not board.is_game_over() and board.ply <= 60:
                if board.ply <= 9 or board.ply % 10 == 0:
                    out.append(board.game_string())
                board.push(rng.choice(board.legal_moves))
    return out


POSITIONS = perft_positions() + random_positions()


# --- Move -----------------------------------------------------------------------


def test_legal_moves_are_moves_that_print_canonically():
    board = Board.parse(OPENING)
    moves = board.legal_moves
    assert isinstance(moves, tuple) and all(isinstance(m, Move) for m in moves)
    assert [str(m) for m in moves] == board.valid_moves_string().split(";")
    assert [m.code for m in moves] == board.legal_move_ints()
    assert moves is board.legal_moves  # cached until the position changes
    assert {m.piece for m in moves} >= {"wA1", "wQ", "wS2"} and not any(m.is_pass for m in moves)


def test_move_equality_hash_and_immutability():
    board = Board.parse(OPENING + ";wA1 -wQ")
    a, b = board.parse_move("bA1 bS1/"), board.parse_move("bA1 \\bQ")  # one cell, two names
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a in board.legal_moves
    assert a != board.parse_move("bA1 bQ-")
    assert a != a.code and a != str(a)  # a Move is neither its int nor its text
    assert Move.from_string(" BA1  BS1/ ", board) == a and LazyMove is Move
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.code = 0


def test_pass_move():
    board = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
    with pytest.raises(IllegalMoveError, match="You can't pass when you have valid moves."):
        board.push("pass")
    board = _stuck_board()
    assert len(board.legal_moves) == 1
    move = board.legal_moves[0]
    assert move.is_pass and move.piece is None and str(move) == "pass"
    assert board.push(move) == move and board.move_history[-1] == "pass"


def _stuck_board() -> Board:
    """A board where the side to move must pass (from the UHP test positions)."""
    for line in (DATA / "uhp" / "positions.tsv").read_text().splitlines():
        if line.startswith("pass\t"):
            return Board.parse(line.split("\t")[2])
    raise AssertionError("no 'pass' position in tests/data/uhp/positions.tsv")


def test_push_and_play_take_move_string_or_int():
    board = Board.parse(OPENING)
    move = board.parse_move("wA1 -wQ")
    for how in (move, "wa1   -WQ", move.code):
        for play in (board.push, board.play):
            played = play(how)
            assert played == move and str(played) == "wA1 -wQ" and board.move_history[-1] == "wA1 -wQ"
            assert board.pop() == move
    assert board.game_string() == Board.parse(OPENING).game_string()


def test_a_move_from_another_position_is_checked_again():
    board = Board.parse(OPENING)
    move = board.parse_move("wA1 -wQ")
    board.push("wA1 \\wS1")
    with pytest.raises(IllegalMoveError):
        board.push(move)  # white's move, but black is to move now


@pytest.mark.parametrize("bad", [40000, -1, PASS + 1, 2**40, -(2**40)])
def test_out_of_range_move_ints_are_illegal_moves(bad):
    board = Board("Base")
    before = snapshot(board)
    with pytest.raises(IllegalMoveError, match="is not a move int"):
        board.push(bad)
    with pytest.raises(IllegalMoveError, match="is not a move int"):
        Move(bad, "x")
    assert snapshot(board) == before


@pytest.mark.parametrize("bad", [None, 1.5, True, b"wS1", ["wS1"]])
def test_other_types_are_type_errors(bad):
    board = Board("Base")
    with pytest.raises(TypeError, match="expected a Move or a MoveString"):
        board.push(bad)
    assert board.ply == 0


def test_game_over_rejects_every_form():
    over = _finished_board()
    before = snapshot(over)
    for how in ("pass", "wS1", "bQ wS1-", PASS, 5, 40000):
        with pytest.raises(GameOverError):
            over.push(how)
        with pytest.raises(GameOverError):
            over.parse_move(str(how))
    assert over.legal_moves == () and snapshot(over) == before


def test_why_illegal_gives_the_message_push_raises():
    board = Board.parse(OPENING)
    for move in board.legal_moves:
        assert board.why_illegal(move) is None and board.why_illegal(str(move)) is None
    for move in ("wA1 bQ-", "bA1 -wQ", "wQ wS1", 40000):
        with pytest.raises(IllegalMoveError) as refused:
            board.copy().push(move)
        assert board.why_illegal(move) == str(refused.value)
    assert _finished_board().why_illegal("pass") == str(GameOverError())
    with pytest.raises(MoveStringError):
        board.why_illegal("nonsense")


# The queens step out and back twice: the position after ply 4 occurs again after plies 8 and 12.
SHUFFLE = ("wG1", "bG1 wG1-", "wQ -wG1", "bQ bG1-") + ("wQ \\wG1", "bQ bG1\\", "wQ -wG1", "bQ bG1-") * 2


def test_repetitions_count_the_positions_of_the_game():
    """Each position's hash, as a replay gives it; a repetition counts the earlier positions with
    the same hash, through pop and copy; a placement starts positions no earlier one can equal."""
    board, replayed, counts = Board("Base"), [Board("Base").zobrist], []
    for move in SHUFFLE:
        board.play(move)
        replayed.append(Board.parse(board.game_string()).zobrist)
        counts.append(board.repetitions())
    assert board.position_hashes() == replayed
    assert counts == [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3]
    assert board.is_repetition() and not board.is_repetition(4) and board.plies_since_placement() == 8
    back = board.copy()
    back.pop()
    assert back.position_hashes() == replayed[:-1] and back.repetitions() == 2 and board.repetitions() == 3
    board.play("wA1 -wQ")
    assert board.repetitions() == 1 and board.plies_since_placement() == 0
    # The side to move is part of the position: the same pieces with the other side to move differ.
    assert board.zobrist != Board.from_position_array(_other_side_to_move(board)).zobrist


def _other_side_to_move(board: Board) -> np.ndarray:
    b = board.position_array
    b[PLY] += 1
    b[HASH] = recompute_hash(b)
    return b


def test_a_board_from_a_position_array_is_that_position_or_refused():
    board = Board.parse(OPENING)
    same = Board.from_position_array(board.position_array)
    assert same == board and same.position_hashes() == [board.zobrist] and same.move_history == []
    assert [str(m) for m in same.legal_moves] == [str(m) for m in board.legal_moves]
    for section, value in ((HASH, 1), (NBR, 1), (STACK, 3), (LEVEL, 1), (PLY, -1), (GAME_TYPE, 99), (LAST_MOVED, 40)):
        broken = board.position_array
        broken[section] += value
        with pytest.raises(ValueError, match="not a position the kernels could have made"):
            Board.from_position_array(broken)
    with pytest.raises(ValueError, match="int64"):
        Board.from_position_array(board.position_array.astype(np.int32))


def _finished_board() -> Board:
    for line in (DATA / "uhp" / "positions.tsv").read_text().splitlines():
        if line.startswith("end_WhiteWins\t"):
            board = Board.parse(line.split("\t")[2])
            assert board.is_game_over()
            return board
    raise AssertionError("no finished position in tests/data/uhp/positions.tsv")


def test_views_do_not_change_the_board():
    board = Board.parse(OPENING)
    before = snapshot(board)
    array = board.position_array
    array[:] = 0
    board.move_history.clear()
    board.legal_move_ints().clear()
    board.move_history_ints().clear()
    assert snapshot(board) == before
    assert board.position_array.any()


# --- occupied positions ------------------------------------------------------------------


def test_occupied_cell_named_by_a_side_rejected_with_mzingas_message():
    board = Board.parse(OCCUPIED_SIDE_GS)
    before = snapshot(board)
    with pytest.raises(IllegalMoveError) as info:
        board.play("bB1 -bQ")
    assert str(info.value) == OCCUPIED == "You can't move there because a piece already exists at that position."
    assert snapshot(board) == before
    climb = board.play("bB1 bS1")  # the climb onto that cell, written the UHP way, is legal
    assert str(climb) == "bB1 bS1"


def test_bare_name_of_a_covered_piece_is_rejected():
    board = Board.parse(COVERED_GS)
    before = snapshot(board)
    with pytest.raises(IllegalMoveError, match=OCCUPIED):
        board.play("wB1 wQ")  # the position above wQ holds wB2
    assert snapshot(board) == before
    assert str(board.play("wB1 wB2")) == "wB1 wB2"


@pytest.mark.parametrize("game_string", POSITIONS[::3])
def test_every_spelling_of_a_legal_move_plays_and_none_names_a_piece(game_string):
    """Separators: every reference and side naming an empty destination is
    accepted (leniency kept); naming an occupied one is rejected (Mzinga).
    Bare names: only the top of a stack."""
    board = Board.parse(game_string)
    if board.is_game_over() or board.ply == 0:
        return
    arr = board.position_array
    for move in board.legal_moves:
        if move.is_pass:
            continue
        dest = move.code & CELL_MASK
        occupied = int(arr[HEIGHT + dest]) > 0
        for p in range(N_PIECES):
            cell = int(arr[POS + p])
            if cell < 0:
                continue
            for side in SIDES:
                text = f"{move.piece} {side.format(PIECE_NAMES[p])}"
                if _named_cell(text, cell) != dest:
                    continue
                if occupied:
                    with pytest.raises(IllegalMoveError, match=OCCUPIED):
                        board.parse_move(text)
                else:
                    assert board.parse_move(text) == move, text
            if cell == dest:  # a climb: the bare name of the top piece only
                text = f"{move.piece} {PIECE_NAMES[p]}"
                if int(arr[TOP + cell]) == p:
                    assert board.parse_move(text) == move, text
                else:
                    with pytest.raises(IllegalMoveError, match=OCCUPIED):
                        board.parse_move(text)


def _named_cell(text: str, ref_cell: int) -> int:
    """The cell a ``piece SIDE-ref`` MoveString names, given the reference's cell."""
    position = text.split(" ")[1]
    d = {"-": (5, 2), "/": (4, 1), "\\": (0, 3)}  # separator -> (direction if before, if after)
    sep, before = (position[0], True) if position[0] in d else (position[-1], False)
    return neighbour(ref_cell, d[sep][0 if before else 1])


# --- every rejection reason against the generator ------------------------------------


def _connected_without(arr, src: int) -> bool:
    """Whether the occupied cells stay one group with the piece on ``src`` lifted
    (a plain flood fill, independent of the generator's articulation points)."""
    cells = {int(c) for c in (arr[HEIGHT:HEIGHT + CELL_MASK + 1] > 0).nonzero()[0]}
    if arr[HEIGHT + src] == 1:
        cells.discard(src)
    start = next(iter(cells))
    seen, todo = {start}, deque([start])
    while todo:
        c = todo.popleft()
        for d in range(6):
            n = neighbour(c, d)
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == cells


class Facts:
    """What the generator offers in one position, for checking reasons against it."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.arr = arr = board.position_array
        self.legal = set(board.legal_move_ints())
        self.dests: dict[int, set[int]] = {}
        for m in self.legal - {PASS}:
            self.dests.setdefault(m >> MOVE_PIECE_SHIFT, set()).add(m & CELL_MASK)
        self.placed = {p for p in self.dests if arr[POS + p] < 0}
        self.placement_cells = {c for p in self.placed for c in self.dests[p]}
        self.moves_something = len(self.placed) < len(self.dests)
        self._connected: dict[int, bool] = {}

    def connected_without(self, src: int) -> bool:
        if src not in self._connected:
            self._connected[src] = _connected_without(self.arr, src)
        return self._connected[src]


def _check_reason(f: Facts, code: int, occupied: bool, reason: str) -> None:
    """Assert that ``reason``, given for the illegal ``code``, is true of the
    position and of the generator's move list."""
    board, arr = f.board, f.arr
    piece, dest = code >> MOVE_PIECE_SHIFT, code & CELL_MASK
    name, side = PIECE_NAMES[piece], board.turn
    src = int(arr[POS + piece])
    offered = f.dests.get(piece, set())
    own_queen_in_hand = int(arr[POS + side * PIECES_PER_COLOUR]) < 0
    where = f"{reason!r} for {name} to cell {dest} in {board.game_string()}"
    assert code not in f.legal or occupied, where
    if reason == f"{name} is not in a {board.game_type_string} game.":
        assert not piece_in_game(piece, board.game_type), where
        return
    assert piece_in_game(piece, board.game_type), where
    if reason == f"It is {COLOUR_NAMES[side]}'s turn: you can't place {name}.":
        assert src < 0 and colour_of(piece) != side, where
    elif reason == "You must play your Queen Bee on or before your fourth turn.":
        assert board.ply // 2 + 1 == 4 and own_queen_in_hand and kind_of(piece) != QUEEN, where
        assert f.placed and all(kind_of(p) == QUEEN for p in f.dests), where
    elif reason == "You can't play your Queen Bee on your first turn.":
        assert board.ply < 2 and kind_of(piece) == QUEEN and not offered, where
    elif reason == "When there are multiple pieces of the same bug type, you must play the pieces in order.":
        first = side * PIECES_PER_COLOUR + KIND_FIRST[kind_of(piece)]
        assert any(int(arr[POS + p]) < 0 for p in range(first, piece)) and not offered, where
    elif reason == OCCUPIED:
        assert occupied and int(arr[HEIGHT + dest]) > 0, where
    elif reason == "You can't place a piece on top of another piece.":
        assert src < 0 and int(arr[HEIGHT + dest]) > 0, where
    elif reason == "You must place a piece next to your own pieces and away from your opponent's.":
        assert src < 0 and int(arr[HEIGHT + dest]) == 0, where
        assert dest not in f.placement_cells, where  # the generator places nothing there
    elif reason == "You can't move a piece in play until you've played your Queen Bee.":
        assert src >= 0 and colour_of(piece) == side and own_queen_in_hand and not f.moves_something, where
    elif reason == "You can't move that piece because it has another piece on top of it.":
        assert src >= 0 and int(arr[TOP + src]) != piece and not offered, where
    elif reason == f"You can't move {name}: it was moved on the last turn.":
        assert piece == int(arr[LAST_MOVED]) and not offered, where
    elif reason == "You can't move that piece because it will break the hive.":
        assert int(arr[LEVEL + piece]) == 0 and not offered and not f.connected_without(src), where
    elif reason == f"You can't move your opponent's {name} there.":
        assert src >= 0 and colour_of(piece) != side, where
    elif reason == f"{name} is already there.":
        assert dest == src, where
    elif reason == f"{name} can't move there.":
        assert src >= 0 and colour_of(piece) == side and dest != src, where
    else:
        raise AssertionError(f"unknown reason {where}")


# Every reason Board gives, with the piece as X and the game type as G.
REASONS = {
    "X is not in a G game.",
    "It is White's turn: you can't place X.",
    "It is Black's turn: you can't place X.",
    "You must play your Queen Bee on or before your fourth turn.",
    "You can't play your Queen Bee on your first turn.",
    "When there are multiple pieces of the same bug type, you must play the pieces in order.",
    OCCUPIED,
    "You can't place a piece on top of another piece.",
    "You must place a piece next to your own pieces and away from your opponent's.",
    "You can't move a piece in play until you've played your Queen Bee.",
    "You can't move that piece because it has another piece on top of it.",
    "You can't move X: it was moved on the last turn.",
    "You can't move that piece because it will break the hive.",
    "You can't move your opponent's X there.",
    "X is already there.",
    "X can't move there.",
}


def test_every_reason_agrees_with_the_generator():
    """For every piece and every cell on or next to the hive: the board calls a
    move legal exactly when the generator lists it, and every reason it gives
    for an illegal one is true of the position and of the generator's list.
    The positions exercise every reason."""
    seen = set()
    for game_string in POSITIONS:
        board = Board.parse(game_string)
        if board.is_game_over():
            continue
        facts = Facts(board)
        arr, legal = facts.arr, facts.legal
        cells = {ORIGIN} | {c for c in range(CELL_MASK + 1) if arr[HEIGHT + c]}
        cells |= {neighbour(c, d) for c in cells for d in range(6)}
        for piece in range(N_PIECES):
            for cell in cells:
                code = (piece << MOVE_PIECE_SHIFT) | cell
                for occupied in (False, True) if arr[HEIGHT + cell] else (False,):
                    move = from_a_neighbour(board, code) if occupied else code
                    if move is None:
                        continue  # a lone piece: no neighbour to name its cell from
                    reason = board.why_illegal(move)
                    assert (reason is None) == (code in legal and not occupied), (game_string, code, reason)
                    if reason is not None:
                        _check_reason(facts, code, occupied, reason)
                        seen.add(reason.replace(PIECE_NAMES[piece], "X").replace(board.game_type_string, "G"))
        reason = board.why_illegal(PASS)
        assert (reason is None) == (legal == {PASS})
        assert reason in (None, "You can't pass when you have valid moves.")
        assert board.game_string() == Board.parse(game_string).game_string()  # nothing was played
    assert seen == REASONS
