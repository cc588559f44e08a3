"""Set-up positions (hiveai.rules.setup_position): built from where the pieces stand, refused when no game could reach them."""

import pytest

from hiveai.rules.board import Board
from hiveai.errors import SetupError
from hiveai.rules.setup_position import Setup, set_up

# A middle game with a beetle on a stack, in Base+MLP (Mzinga-style move list).
GAME = ("Base+MLP;InProgress;White[7];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wB1 /wQ;bA1 bQ-;wB1 wQ;bB1 bQ\\;"
        "wA1 -wQ;bB1 bQ;wG1 \\wQ;bP bA1\\")


@pytest.mark.parametrize("game_string", [GAME, "Base;InProgress;Black[1];wS1", "Critters;InProgress;White[3];wD;bD wD-;wQ -wD;bQ bD-"])
def test_the_set_up_of_a_game_is_its_position(game_string):
    board = Board(game_string)
    again = Setup.from_board(board).board()
    assert again == board and again.turn_string == board.turn_string
    assert sorted(m.text for m in again.legal_moves) == sorted(m.text for m in board.legal_moves)
    assert again.zobrist == board.zobrist and again.move_history == [] and again.setup is not None
    assert set_up(again.setup) == board  # the text round-trips


def test_a_set_up_board_plays_on_and_undoes_to_the_set_up():
    board = Setup.from_board(Board(GAME)).board()
    before = board.copy()
    assert before.setup == board.setup
    move = board.legal_moves[0]
    board.play(move)
    assert board.move_history == [str(move)] and board.ply == before.ply + 1
    board.pop()
    assert board == before
    with pytest.raises(Exception):
        board.pop()  # nothing before the set-up


def test_the_least_turn_number_fits_the_pieces():
    assert set_up("Base;White").turn_string == "White[1]"
    assert set_up("Base;Black;wA1@0,0").turn_string == "Black[1]"
    assert set_up("Base;White;wA1@0,0;bA1@1,0;wQ@-1,0;bQ@2,0").turn_string == "White[3]"
    assert set_up("Base;White[5];wA1@0,0;bA1@1,0;wQ@-1,0;bQ@2,0").turn_string == "White[5]"
    # A beetle up on the hive moved: one turn more than its side's placements.
    assert set_up("Base;Black;wA1@0,0;bA1@1,0;wQ@-1,0;bQ@2,0;wB1@-1,0").turn_string == "Black[4]"


def test_bare_kinds_take_the_next_number():
    board = set_up("Base;White;wA@0,0;bA@1,0;wQ@-1,0;bQ@2,0;wA@-2,0")
    assert str(board.piece_at(board.occupied()[0])) == "wA2"


@pytest.mark.parametrize("text, words", [
    ("Base;White;wA1@0,0;wA2@1,0;wA3@2,0;wA@3,0", "Too many white Ants: Base has 3"),
    ("Base;White;wA4@0,0", "wA4 is not a piece of Base (it has 3 white Ants)"),
    ("Base;White;wM@0,0", "it has no Mosquito"),
    ("Base;White;wA1@0,0;wA1@1,0", "wA1 is listed twice"),
    ("Base;White;wA2@0,0", "wA2 is on the board but wA1 is not"),
    ("Base;White;wQ@0,0;bQ@1,0;wS1@3,0;bS1@-1,0", "The hive is in 2 parts"),
    ("Base;White;wQ@0,0;bQ@1,0;wS1@-1,0;bS1@2,0;wB1@5,0,1", "cannot be stacked on nothing"),
    ("Base;White;wQ@0,0;bQ@1,0;wS1@-1,0;bS1@2,0;wA1@-1,0", "only a beetle or a mosquito can climb"),
    ("Critters;White;wQ@0,0;bQ@1,0;wB1@-1,0;bB1@2,0;bB1@2,0", "listed twice"),
    ("Critters;White;wQ@0,0;bQ@1,0;wB1@-1,0;bB1@2,0;wB2@2,0", "cannot climb onto a beetle"),
    ("Base;White;wA1@0,0;bA1@1,0;wA2@-1,0;bA2@2,0;wA3@-2,0;bA3@3,0;wS1@-3,0;bQ@4,0", "the queen must be placed by"),
    ("Base;White;wQ@0,0;bA1@1,0", "only piece is its queen"),
    ("Base;White;wQ@0,0;bA1@1,0;wA1@-1,0;bB1@1,0", "no piece may move before its queen"),
    ("Base;White;wA1@0,0;bQ@1,0;bA1@2,0;bA2@3,0", "could not have moved"),
    ("Base;Black[1];wQ@0,0;bQ@1,0;wS1@-1,0", "too few for its 2 pieces"),
    ("Base;White;wQ@0,0;bQ@1,0;wS1@-1,1;wS2@0,1;wA1@1,1;wA2@2,0;wA3@2,-1;wB1@1,-1;wB2@0,-1;bS1@3,-1", "over already"),
    ("Base;Green;wQ@0,0", "bad side to move"),
    ("Base+M;White;wQ@0,0;" + ";".join(f"{p}@0,0" for p in ("wB1", "wB2", "wM", "bB1", "bB2", "bM", "bQ", "wS1")),
     "more than 8 high"),
    ("Base;White;wQ", "Malformed set-up entry"),
    ("Base+X;White", "Unknown game type"),
])
def test_impossible_set_ups_are_refused_with_the_reason(text, words):
    with pytest.raises(SetupError) as e:
        set_up(text)
    assert words in str(e.value), str(e.value)
