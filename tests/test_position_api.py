"""The position API of hiveai.rules.board.Board: cells, pieces, stacks, hands, equality, outcome."""

from __future__ import annotations

import random

import pytest

from hiveai.rules.board import Board, Move
from hiveai.rules.bug import BLACK, WHITE
from hiveai.rules.cell import Cell, Direction, cell_index
from hiveai.errors import GameStringError
from hiveai.rules.outcome import Outcome, Termination
from hiveai.rules.piece import Piece


def random_game(seed: int, game_type: str = "Base+MLP", plies: int = 120) -> Board:
    rng = random.Random(seed)
    board = Board(game_type)
    while board.ply < plies and not board.is_game_over():
        board.push(rng.choice(board.legal_moves))
    return board


def test_directions_and_cells():
    origin = Cell(0, 0)
    for d in Direction:
        assert origin.neighbour(d).neighbour(d.opposite()) == origin
        assert origin.direction_to(origin.neighbour(d)) is d
        assert origin.distance(origin.neighbour(d)) == 1
    assert [d.notation("wQ") for d in Direction] == ["\\wQ", "wQ/", "wQ-", "wQ\\", "/wQ", "-wQ"]
    assert len(set(origin.neighbours())) == 6 and origin + Direction.SE == Cell(0, 1)


def test_queries_agree_with_each_other_over_random_games():
    for seed in range(6):
        board = random_game(seed)
        pieces_on_board = [p for stack in board.pieces().values() for p in stack]
        in_hand = board.pieces_in_hand(WHITE) + board.pieces_in_hand(BLACK)
        assert len(pieces_on_board) + len(in_hand) == 28  # Base+MLP: 14 a side
        assert len(set(pieces_on_board) | set(in_hand)) == 28
        occupied = set(board.occupied())
        for cell in occupied:
            stack = board.stack_at(cell)
            assert stack and board.piece_at(cell) == stack[-1]
            assert all(board.cell_of(p) == cell for p in stack)
            for d in Direction:  # coordinates are continuous: neighbours on the plane are neighbours in play
                assert (cell.neighbour(d) in occupied) == (board.piece_at(cell.neighbour(d)) is not None)
        for piece in in_hand:
            assert board.cell_of(piece) is None


def test_a_far_cell_that_aliases_an_occupied_one_is_empty():
    board = Board("Base;InProgress;Black[1];wG1")
    assert board.piece_at(Cell(0, 0)) == Piece.from_name("wG1")
    assert cell_index(Cell(32, -1)) == cell_index(Cell(0, 0)) == cell_index(Cell(0, 32))
    assert board.piece_at(Cell(32, -1)) is None and board.stack_at(Cell(0, 32)) == []


def test_board_from_a_game_string_checks_state_and_turn():
    text = "Base;InProgress;White[2];wS1;bS1 wS1-"
    assert Board(text).game_string() == text
    with pytest.raises(GameStringError, match="says InProgress;Black\\[2\\]"):
        Board("Base;InProgress;Black[2];wS1;bS1 wS1-")
    with pytest.raises(GameStringError, match="says WhiteWins"):
        Board("Base;WhiteWins;White[2];wS1;bS1 wS1-")
    with pytest.raises(GameStringError, match="Unable to play"):
        Board("Base;InProgress;Black[1];wQ")
    assert Board.parse("Base;InProgress;Black[2];wS1;bS1 wS1-").ply == 2  # the lenient reader stays lenient


def test_equality_is_the_position_not_the_history():
    a = random_game(3, plies=30)
    b = Board(a.game_string())
    assert a == b and a.key() == b.key() and a.copy() == a
    b.push(b.legal_moves[0])
    assert a != b
    b.pop()
    assert a == b
    assert Board("Base") != Board("Base+M")  # the game type counts
    with pytest.raises(TypeError):
        hash(a)
    assert len({a.key(), b.key()}) == 1


def test_the_stunned_piece_counts_only_with_a_pillbug():
    with_pillbug = Board("Base+P;InProgress;Black[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-;wA1 \\wQ")
    assert with_pillbug.stunned() == Piece.from_name("wA1")
    # The same cells, the ant placed there directly, then two placements: nothing stunned.
    placed = Board("Base+P;InProgress;Black[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 \\wQ;bA1 bQ-;wG1 -wA1")
    assert placed.stunned() is None
    base = Board("Base;InProgress;Black[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-;wA1 \\wQ")
    assert base.stunned() is None


def test_outcome_legality_peek_and_move_strings():
    board = random_game(11, game_type="Base", plies=1000)
    while not board.is_game_over():  # a seed that ends in time; extend the search if it does not
        board = random_game(board.ply + 1, game_type="Base", plies=1000)
    outcome = board.outcome()
    assert isinstance(outcome, Outcome) and outcome.result == board.state
    assert outcome.termination in (Termination.QUEEN_SURROUNDED, Termination.BOTH_SURROUNDED)
    last = board.peek()
    assert not board.is_legal(board.legal_moves[0] if board.legal_moves else last)
    board.pop()
    assert board.outcome() is None and board.is_legal(last) and board.is_legal(str(last))
    assert board.move_to_string(last) == str(last) == board.move_to_string(last.code)
    assert all(board.is_legal(m) for m in board.legal_moves)
    with pytest.raises(IndexError):
        Board("Base").peek()
    assert not Board("Base").is_legal(Move(0, "wQ"))
