r"""Targeted rule tests on hand-built games (rules as in the UHP notes, §3).

Notation reminder (board drawn pointy-top, R = reference piece):

            \R      R/          \R = upper-left  (NW)     R/ = upper-right (NE)
        -R      R      R-       -R = left        (W)      R- = right       (E)
            /R      R\          /R = lower-left  (SW)     R\ = lower-right (SE)

Comments give axial cells (q, r): wS1 (or White's first piece) is (0, 0);
E = (q+1, r), W = (q-1, r), NW = (q, r-1), NE = (q+1, r-1), SW = (q-1, r+1),
SE = (q, r+1). Expected move sets are compared as Moves (via parse_move), which
are equal when they take the same piece to the same cell, so they do not
depend on which reference piece the engine prefers to print.
"""

from __future__ import annotations

import re

import pytest
from game_types import game

from hiveai.rules.board import PASS, Board, Move
from hiveai.errors import (
    GameOverError,
    GameStringError,
    GameTypeError,
    HiveError,
    IllegalMoveError,
    MoveStringError,
)

PIECE_RE = r"[wb](?:Q|M|L|P|S[12]|B[12]|G[1-3]|A[1-3])"
MOVE_RE = re.compile(rf"^(?:pass|{PIECE_RE}(?: (?:[-/\\]?{PIECE_RE}|{PIECE_RE}[-/\\]?))?)$")


# --- helpers ---------------------------------------------------------------


def move_strings(board: Board) -> list[str]:
    return [str(m) for m in board.legal_moves]


def moves_of(board: Board, piece: str) -> set[Move]:
    """Legal moves that move or place ``piece``."""
    return {m for m in board.legal_moves if m.piece == piece}


def as_moves(board: Board, texts) -> set[Move]:
    return {board.parse_move(t) for t in texts}


def snapshot(board: Board):
    return (
        board.game_string(),
        board.zobrist,
        board.ply,
        board.state,
        board.move_history,
        board.legal_move_ints(),
    )


def assert_rejected(board: Board, text: str, error=HiveError) -> HiveError:
    """``play(text)`` raises ``error`` and leaves the board exactly as it was."""
    before = snapshot(board)
    with pytest.raises(error) as info:
        board.play(text)
    assert snapshot(board) == before, f"state changed by rejected {text!r}"
    assert str(info.value), "error without a message"
    return info.value


def assert_sane(board: Board) -> None:
    """Every legal move prints canonically, parses back to itself, plays and undoes cleanly."""
    before = snapshot(board)
    moves = board.legal_moves
    assert len(moves) == len(set(moves))
    assert not any(m.is_pass for m in moves) or [str(m) for m in moves] == ["pass"]
    for m in moves:
        text = str(m)
        assert text == board.move_to_string(m.code)
        assert MOVE_RE.match(text), text
        parts = text.split(" ")
        if len(parts) == 2:
            ref = parts[1].strip("-/\\")
            assert ref != parts[0], f"self-reference {text!r}"
        assert board.parse_move(text) == m, text
        assert board.push(m) == m and board.move_history[-1] == text
        after = board.game_string()
        assert Board.from_game_string(after).game_string() == after
        assert board.pop() == m
    assert snapshot(board) == before
    if not board.is_game_over():
        assert board.valid_moves_string().split(";") == [str(m) for m in moves]


# --- tournament opening ------------------------------------------------------

DIRS = ("{}-", "-{}", "/{}", "{}/", "\\{}", "{}\\")  # the six cells around a piece


def test_opening_ply0_base():
    board = Board("Base")
    assert board.state == "NotStarted" and board.turn_string == "White[1]"
    assert set(board.valid_moves_string().split(";")) == {"wS1", "wB1", "wG1", "wA1"}
    assert_rejected(board, "wQ", IllegalMoveError)
    assert_sane(board)


def test_opening_ply0_mlp():
    board = Board("Base+MLP")
    assert set(board.valid_moves_string().split(";")) == {"wS1", "wB1", "wG1", "wA1", "wM", "wL", "wP"}
    assert_rejected(board, "wQ", IllegalMoveError)


@pytest.mark.parametrize(
    "game_type,bugs",
    [("Base", ["bS1", "bB1", "bG1", "bA1"]), ("Base+MLP", ["bS1", "bB1", "bG1", "bA1", "bM", "bL", "bP"])],
)
def test_opening_ply1_all_around_first_piece(game_type, bugs):
    board = game(game_type, "wS1")
    assert board.state == "InProgress" and board.turn_string == "Black[1]"
    strings = move_strings(board)
    assert len(strings) == 6 * len(bugs)  # Base: 24
    assert set(board.legal_moves) == as_moves(board, [f"{p} {d.format('wS1')}" for p in bugs for d in DIRS])
    assert not any(s.startswith("bQ") for s in strings)
    assert_rejected(board, "bQ wS1-", IllegalMoveError)
    assert_sane(board)


def test_opening_first_move_is_the_bare_name_at_origin():
    board = game("Base", "wA1")
    assert board.game_string() == "Base;InProgress;Black[1];wA1"
    assert board.move_history == ["wA1"]
    board = game("Base", "wA1", "bG1 wA1-")
    assert board.game_string() == "Base;InProgress;White[2];wA1;bG1 wA1-"


def test_queen_allowed_on_second_turn():
    board = game("Base", "wS1", "bS1 wS1-")
    assert moves_of(board, "wQ")  # White[2]: the queen may come now
    board.play("wQ -wS1")
    assert moves_of(board, "bQ")


# --- queen deadline and movement gate ------------------------------------------

# wB1 wS2 wS1 bS1 bS2 bB1 in a row: (-2,0) (-1,0) (0,0) (1,0) (2,0) (3,0)
NO_QUEENS = ("wS1", "bS1 wS1-", "wS2 -wS1", "bS2 bS1-", "wB1 -wS2", "bB1 bS2-")


def test_queen_forced_on_fourth_turn():
    board = game("Base", *NO_QUEENS)
    assert board.turn_string == "White[4]"
    strings = move_strings(board)
    assert strings and all(s.startswith("wQ ") for s in strings), strings
    # Cells next to the white trio but not next to black: 9 neighbours minus (1,-1) and (0,1).
    assert len(strings) == 7
    assert_rejected(board, "wG1 -wB1", IllegalMoveError)
    assert_rejected(board, "wQ wS1/", IllegalMoveError)  # (1,-1) touches bS1
    board.play("wQ -wB1")
    assert board.turn_string == "Black[4]"
    strings = move_strings(board)
    assert strings and all(s.startswith("bQ ") for s in strings), strings
    assert len(strings) == 7  # mirror image


def test_queen_not_forced_on_third_turn():
    board = game("Base", *NO_QUEENS[:4])
    assert board.turn_string == "White[3]"
    assert {s.split(" ")[0] for s in move_strings(board)} == {"wQ", "wB1", "wG1", "wA1"}


def test_no_movement_before_queen():
    # wG1 (-1,0) wS1 (0,0) bS1 (1,0) bQ (2,0): white has no queen yet.
    board = game("Base", "wS1", "bS1 wS1-", "wG1 -wS1", "bQ bS1-")
    assert board.turn_string == "White[3]"
    on_board = {"wS1", "wG1"}
    assert not {s.split(" ")[0] for s in move_strings(board)} & on_board
    # The jump over the whole row would be legal with the queen down.
    err = assert_rejected(board, "wG1 bQ-", IllegalMoveError)
    assert "queen" in str(err).lower()
    board.play("wQ \\wS1")  # (0,-1): touches wS1 and wG1, so wG1 is not pinned
    # Black's queen is down: black may move (bQ slides to (2,-1) or (1,1)).
    assert as_moves(board, ["bQ bS1/", "bQ bS1\\"]) <= moves_of(board, "bQ")
    board.play("bA1 bQ-")
    assert as_moves(board, ["wG1 bA1-"]) <= moves_of(board, "wG1")


# --- placement -----------------------------------------------------------------


def test_placement_colour_of_a_stack_is_its_top():
    # wS1 (0,0), bS1 (1,0), wQ (-1,0), bQ (2,0), bG1 (3,0), bG2 (4,0);
    # wB1 placed at (0,-1), walks to (1,-1), climbs onto bS1 at (1,0).
    board = game(
        "Base",
        "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wB1 \\wS1", "bG1 bQ-", "wB1 wS1/", "bG2 bG1-", "wB1 bS1",
    )  # fmt: skip
    assert board.move_history[-1] == "wB1 bS1"
    # (2,-1) touches only bQ (black) and the stack topped by wB1 (white): not black's.
    assert_rejected(board, "bA1 \\bQ", IllegalMoveError)
    assert_rejected(board, "bA1 /bQ", IllegalMoveError)  # (1,1): same
    board.play("bA1 bQ/")  # (3,-1): black only
    # (1,-1) touches wS1 and the white-topped stack over bS1: fine for white.
    move = board.play("wA1 \\wB1")
    assert board.pop() == move and str(move) == "wA1 \\wB1"
    assert_sane(board)


def test_placement_must_not_touch_enemy():
    board = game("Base", "wS1", "bS1 wS1-")
    # Cells around wS1 that also touch bS1 (1,0): NE (1,-1) and SE (0,1).
    assert_rejected(board, "wQ wS1/", IllegalMoveError)
    assert_rejected(board, "wQ wS1\\", IllegalMoveError)
    assert_rejected(board, "wQ bS1-", IllegalMoveError)
    assert as_moves(board, ["wQ -wS1", "wQ \\wS1", "wQ /wS1"]) == moves_of(board, "wQ")
    assert_rejected(board, "wQ wS1", IllegalMoveError)  # on top of a piece
    assert_rejected(board, "wQ bS1", IllegalMoveError)


def test_numbered_pieces_in_order():
    board = Board("Base")
    assert_rejected(board, "wS2", IllegalMoveError)
    assert_rejected(board, "wA3", IllegalMoveError)
    board.play("wS1")
    assert_rejected(board, "bS2 wS1-", IllegalMoveError)
    board.play("bS1 wS1-")
    names = {s.split(" ")[0] for s in move_strings(board)}
    assert names == {"wQ", "wS2", "wB1", "wG1", "wA1"}
    assert_rejected(board, "wB2 -wS1", IllegalMoveError)
    assert_rejected(board, "wS3 -wS1", MoveStringError)  # no such piece


def test_expansion_piece_not_in_game():
    board = Board("Base")
    assert_rejected(board, "wM")
    board = Board("Base+M")
    assert_rejected(board, "wL")
    assert_rejected(board, "wP")
    board.play("wM")
    assert board.game_string() == "Base+M;InProgress;Black[1];wM"


# --- pass ------------------------------------------------------------------------


def test_pass_rejected_when_moves_exist():
    board = Board("Base")
    assert_rejected(board, "pass", IllegalMoveError)
    with pytest.raises(IllegalMoveError):
        board.push(PASS)
    board.play("wS1")
    assert_rejected(board, "PASS", IllegalMoveError)


# --- game end ----------------------------------------------------------------------

# bQ at (2,0); neighbours bS1 (1,0), bA1 (3,-1), bA2 (2,1), bG1 (3,0); wA3 then fills (2,-1).
SURROUND = (
    "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 -wQ", "bA1 bQ/",
    "wA2 -wA1", "bA2 bQ\\", "wA3 -wA2", "bG1 bQ-", "wA3 \\bQ",
)  # fmt: skip


def test_white_wins_by_surrounding_black_queen():
    board = game("Base", *SURROUND, "bB1 bG1-")
    assert board.state == "InProgress"
    board.play("wA2 /bQ")  # (1,1): the sixth neighbour
    assert board.state == "WhiteWins"
    assert board.is_game_over()
    assert board.turn_string == "Black[7]"
    assert board.game_string().startswith("Base;WhiteWins;Black[7];wS1;bS1 wS1-;")
    assert board.legal_moves == () and board.legal_move_ints() == []
    with pytest.raises(GameOverError):
        board.valid_moves_string()
    before = snapshot(board)
    for text in ("bB2 bB1-", "pass", "wS2 -wA1"):
        with pytest.raises(GameOverError):
            board.play(text)
        with pytest.raises(GameOverError):
            board.parse_move(text)
    assert snapshot(board) == before
    assert board.perft(1) == 0 and board.perft(3) == 0
    # The state survives a round trip through the GameString, and undo reopens the game.
    assert Board.from_game_string(board.game_string()).state == "WhiteWins"
    board.pop()
    assert board.state == "InProgress"
    assert board.legal_moves


def test_surrounding_your_own_queen_loses():
    board = game("Base", *SURROUND)
    assert board.turn_string == "Black[6]"
    board.play("bB1 /bQ")  # black fills (1,1), the last free cell around its own queen
    assert board.state == "WhiteWins"


# Both queens share the empty cell (-1,1); wG1 jumps into it from (-3,1) over wA1.
#   wQ (-1,0): wS2 (-1,-1), wB1 (0,-1), wS1 (0,0), wA1 (-2,1), wB2 (-2,0)
#   bQ (0,1):  wS1 (0,0), bS1 (1,0), bA1 (1,1), bA2 (0,2), bA3 (-1,2)
DRAW = (
    "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1\\", "wS2 \\wQ", "bQ /bS1", "wB1 wQ/", "bA1 bS1\\",
    "wB2 -wQ", "bA2 bQ\\", "wA1 /wQ", "bA3 /bQ", "wG1 -wA1", "bG1 bS1-",
)  # fmt: skip


def test_draw_when_both_queens_surrounded():
    board = game("Base", *DRAW)
    assert board.state == "InProgress"
    board.play("wG1 wA1-")
    assert board.state == "Draw"
    assert board.turn_string == "Black[8]"
    assert board.legal_moves == () and board.legal_move_ints() == []
    with pytest.raises(GameOverError):
        board.valid_moves_string()
    assert Board.from_game_string(board.game_string()).state == "Draw"


def test_state_recomputed_from_game_string():
    board = game("Base", *SURROUND, "bB1 bG1-", "wA2 /bQ")
    moves = ";".join(board.move_history)
    for head in ("Base;InProgress;White[1]", "Base;Draw;Black[3]", "Base;NotStarted;White[1]"):
        again = Board.from_game_string(f"{head};{moves}")
        assert again.state == "WhiteWins" and again.turn_string == "Black[7]"
        assert again.game_string() == board.game_string()


def test_no_draw_by_repetition():
    # Both sides shuffle a piece back and forth; the game stays in progress.
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-")
    start = None
    for _ in range(4):
        board.play("wQ \\wS1")
        board.play("bQ bS1/")
        board.play("wQ -wS1")
        board.play("bQ bS1-")
        assert board.state == "InProgress"
        start = start if start is not None else board.zobrist
        assert board.zobrist == start
    assert board.ply == 4 + 16


# --- movement ------------------------------------------------------------------------


def test_spider_exactly_three_steps():
    # wS2 (-2,0) wQ (-1,0) wS1 (0,0) bS1 (1,0) bQ (2,0) bA1 (3,0) in a row.
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wS2 -wQ", "bA1 bQ-")
    # Around the row: three steps clockwise reach (1,-1), anticlockwise (0,1).
    assert moves_of(board, "wS2") == as_moves(board, ["wS2 \\bS1", "wS2 wS1\\"])
    assert_rejected(board, "wS2 \\wQ", IllegalMoveError)  # 1 step
    assert_rejected(board, "wS2 \\wS1", IllegalMoveError)  # 2 steps
    assert_rejected(board, "wS2 bS1/", IllegalMoveError)  # 4 steps
    # One Hive: wQ and wS1 hold the row together.
    assert moves_of(board, "wQ") == set()
    assert moves_of(board, "wS1") == set()
    assert_rejected(board, "wQ \\wS1", IllegalMoveError)
    assert_sane(board)


def test_grasshopper_jumps():
    # wG1 (-2,0) then the row wQ wS1 bS1 bQ bA1 to (3,0): one jump, over five pieces.
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 -wQ", "bA1 bQ-")
    assert moves_of(board, "wG1") == as_moves(board, ["wG1 bA1-"])
    assert_rejected(board, "wG1 bQ-", IllegalMoveError)  # would stop on an occupied cell
    assert_rejected(board, "wG1 \\wQ", IllegalMoveError)  # a slide, not a jump
    # Grasshopper at (-2,1), SW of wQ: its only line over pieces is NE over wQ to (0,-1).
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 /wQ", "bA1 bQ-")
    assert moves_of(board, "wG1") == as_moves(board, ["wG1 \\wS1"])
    assert_sane(board)


def test_beetle_gate_with_stacks():
    # wS1 D (0,0), wQ L (-1,0), wS2 R (1,-1); bB1 climbs bS1 (0,1) then wS1.
    # wB1 climbs onto wQ, wB2 onto wS2: both flanks of the step D -> (0,-1) become height 2.
    board = game(
        "Base",
        "wS1", "bS1 wS1\\", "wQ -wS1", "bQ bS1\\", "wS2 wS1/", "bB1 bS1-",
        "wB1 \\wQ", "bB1 bS1", "wB1 wQ", "bB1 wS1", "wB2 \\wS2",
    )  # fmt: skip
    # Flanks heights 2 (L) and 1 (R), beetle at height 1 (on wS1) going down: allowed.
    assert board.parse_move("bB1 wB1/") in moves_of(board, "bB1")
    board.play("bA1 bQ\\")
    board.play("wB2 wS2")
    # Flanks now both height 2 > max(1, 0): the beetle may not squeeze down to (0,-1).
    assert_rejected(board, "bB1 wB1/", IllegalMoveError)
    assert_rejected(board, "bB1 -wB2", IllegalMoveError)
    # It can still climb across onto either stack, or down to the open side.
    assert as_moves(board, ["bB1 wB1", "bB1 wB2", "bB1 bS1", "bB1 -bS1", "bB1 bS1/"]) <= moves_of(board, "bB1")
    assert_sane(board)


def test_beetle_steps_one_cell_and_climbs():
    # wS1 (0,0), bS1 (1,0), wQ (-1,0), bQ (2,0), wB1 (0,-1) after "wB1 \wS1".
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wB1 \\wS1", "bA1 bQ-")
    # wB1 at (0,-1): neighbours wQ (-1,0) SW, wS1 (0,0) SE. Steps: E to (1,-1) (flank wS1 only),
    # W to (-1,-1) (flank wQ only), onto wS1, onto wQ. NW (0,-2)/NE (1,-2): no flank -> no.
    assert moves_of(board, "wB1") == as_moves(board, ["wB1 wS1/", "wB1 \\wQ", "wB1 wS1", "wB1 wQ"])


def test_mosquito_next_to_only_a_mosquito_cannot_move():
    # wM (0,0) ends up touching only bM (1,0); the white queen walks round to (1,1).
    board = game(
        "Base+M",
        "wM", "bM wM-", "wA1 -wM", "bQ bM-", "wQ /wM", "bA1 bQ/", "wA1 bQ-",
        "bA2 bA1/", "wQ wM\\", "bS1 bA2-", "wQ bM\\", "bS2 bS1-",
    )  # fmt: skip
    assert board.turn_string == "White[7]"
    assert moves_of(board, "wM") == set()
    assert_rejected(board, "wM \\bM", IllegalMoveError)
    assert_rejected(board, "wM bM", IllegalMoveError)
    assert_sane(board)


def test_mosquito_on_top_moves_only_as_beetle():
    # wB1 (0,0), bS1 (1,0), wM (-1,0), bQ (2,0), wQ (0,-1); wM climbs onto wB1 as a beetle.
    board = game("Base+M", "wB1", "bS1 wB1-", "wM -wB1", "bQ bS1-", "wQ \\wB1", "bA1 bQ-")
    assert board.parse_move("wM wB1") in moves_of(board, "wM")
    board.play("wM wB1")
    board.play("bA2 bA1-")
    # On top it touches wQ (queen) and bS1 (spider) but moves like a beetle: one cell, six ways.
    expected = ["wM wQ", "wM bS1", "wM \\bS1", "wM wB1\\", "wM /wB1", "wM /wQ"]
    assert moves_of(board, "wM") == as_moves(board, expected)
    assert_sane(board)


def test_ladybug_two_up_one_down():
    # wL (-2,0) at the end of the row wQ wS1 bS1 bQ bA1: up onto wQ, onto wS1, then down.
    board = game("Base+L", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wL -wQ", "bA1 bQ-")
    assert moves_of(board, "wL") == as_moves(board, ["wL \\wS1", "wL \\bS1", "wL wS1\\", "wL wQ\\"])
    assert_rejected(board, "wL -wQ", IllegalMoveError)  # back home is not a move
    assert_rejected(board, "wL wQ", IllegalMoveError)  # never ends on top
    assert_sane(board)


# Pillbug: wS1 (0,0), bP (1,0), wQ (-1,0), bQ (2,0), wA1 placed (-2,0), bA1 (2,-1).
# bP holds {bQ, bA1} to the rest of the hive, so it is pinned all along.
PILLBUG = ("wS1", "bP wS1-", "wQ -wS1", "bQ bP-", "wA1 -wQ", "bA1 bP/")


def test_pillbug_cannot_throw_last_moved_piece():
    board = game("Base+P", *PILLBUG, "wA1 wS1\\")  # wA1 walks to (0,1), next to bP
    assert moves_of(board, "wA1") == set()  # just moved: bP may not throw it
    # bP can throw its own queen though (pinned pillbug, unpinned friend).
    assert board.parse_move("bQ -bA1") in moves_of(board, "bQ")
    assert_sane(board)


def test_pillbug_throws_friend_and_foe_while_pinned():
    board = game("Base+P", *PILLBUG, "wA1 wS1\\", "bS1 bA1-", "wB1 -wA1")
    # bP's empty neighbours: (1,-1) and (1,1). Foe: wA1 from (0,1) to either.
    assert moves_of(board, "wA1") == as_moves(board, ["wA1 -bA1", "wA1 bP\\"])
    # Friend: bQ slides to (3,0) or (1,1), or is thrown to (1,-1) (or (1,1)).
    assert moves_of(board, "bQ") == as_moves(board, ["bQ -bA1", "bQ bS1\\", "bQ bP\\"])
    # wS1 is not pinned (wQ and wB1 hang on wA1 too): a foe bP may throw, to (1,-1) or (1,1).
    assert moves_of(board, "wS1") == as_moves(board, ["wS1 -bA1", "wS1 bP\\"])
    # bP itself is pinned: it cannot move.
    assert moves_of(board, "bP") == set()
    assert_sane(board)
    board.play("wA1 bP\\")  # throw the enemy ant to (1,1)
    assert board.turn_string == "White[6]"
    # The thrown ant may not move on its owner's next turn (it would have ant moves otherwise).
    assert moves_of(board, "wA1") == set()
    assert_rejected(board, "wA1 bQ\\", IllegalMoveError)
    assert_sane(board)


def test_pillbug_cannot_throw_stacked_pieces():
    board = game(
        "Base+P",
        *PILLBUG, "wA1 wS1\\", "bS1 bA1-", "wB1 -wA1", "wA1 bP\\",
        "wB1 wS1", "bS2 bS1/", "wG1 -wQ",
    )  # fmt: skip
    assert board.turn_string == "Black[7]"
    # wB1 sits on wS1 next to bP: neither the beetle nor the piece under it can be thrown.
    assert moves_of(board, "wB1") == set()
    assert moves_of(board, "wS1") == set()
    # wA1 (1,1) is free again and can be thrown to bP's empty neighbours (1,-1) and (0,1).
    assert moves_of(board, "wA1") == as_moves(board, ["wA1 -bA1", "wA1 wB1\\"])
    assert_sane(board)


def test_one_hive_rule_row():
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 -wQ", "bA1 bQ-")
    # Row wA1 wQ wS1 bS1 bQ bA1: only the end piece wA1 may move; wQ and wS1 hold it.
    assert {s.split(" ")[0] for s in move_strings(board) if s.split(" ")[0] in ("wQ", "wS1", "wA1")} == {"wA1"}
    err = assert_rejected(board, "wQ \\wS1", IllegalMoveError)
    assert "hive" in str(err).lower()
    # The ant goes anywhere around the other five (2*5+4 = 14 cells) except its own cell.
    assert len(moves_of(board, "wA1")) == 13


# --- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["Base+X", "Base+", "Base+MM", "Chess", "", "Base+MLPX"])
def test_unknown_game_type(text):
    with pytest.raises(GameTypeError):
        Board(text)


def test_game_type_lenient_and_canonical():
    assert Board("Base+LM").game_type_string == "Base+ML"
    assert Board("base+pml").game_type_string == "Base+MLP"
    assert Board.parse("Base+PL").game_string() == "Base+LP;NotStarted;White[1]"


@pytest.mark.parametrize(
    "text",
    [
        "Base+X;NotStarted;White[1]",
        "Chess;InProgress;Black[1];wS1",
    ],
)
def test_game_string_bad_type(text):
    with pytest.raises((GameTypeError, GameStringError)):
        Board.from_game_string(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        ";",
        "Base;NotStarted",
        "wS1;bS1 wS1-",
        "Base NotStarted White[1]",
        "Base;Winning;White[1]",
        "Base;NotStarted;Red[1]",
        "Base;InProgress;White[2];wS1;;bS1 wS1-",
    ],
)
def test_malformed_game_string(text):
    with pytest.raises((GameStringError, GameTypeError)):
        Board.from_game_string(text)


@pytest.mark.parametrize(
    "text,bad",
    [
        ("Base;InProgress;Black[1];wQ", "wQ"),  # queen on the first turn
        ("Base;InProgress;White[2];wS1;bS1 wS1-;wS2 wS1-", "wS2 wS1-"),  # occupied cell
        ("Base;InProgress;White[2];wS1;bS1 wQ-", "bS1 wQ-"),  # reference in hand
        ("Base;InProgress;White[2];wS1;bX1 wS1-", "bX1 wS1-"),  # no such piece
        ("Base;InProgress;White[2];wS1;zz top", "zz top"),  # garbage
        ("Base;InProgress;White[2];wS1;bS1 wS1-;pass", "pass"),  # pass with moves
        ("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wS1 /bQ", "wS1 /bQ"),  # breaks the hive
        ("Base;InProgress;Black[1];wM", "wM"),  # expansion piece not in the game
    ],
)
def test_game_string_with_bad_move_names_it(text, bad):
    with pytest.raises(GameStringError) as info:
        Board.from_game_string(text)
    assert bad in str(info.value)


def test_game_string_rejected_after_game_over():
    board = game("Base", *SURROUND, "bB1 bG1-", "wA2 /bQ")
    with pytest.raises(GameStringError) as info:
        Board.from_game_string(board.game_string() + ";bB2 bB1-")
    assert "bB2 bB1-" in str(info.value)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "wS1 ", "x", "wS1 wS2 wS3", "wS1 --wS1", "wS1 -wS1-", "wS1 w-S1", "wS1 /", "wS 1", "bS1 wZ1-", "Q"],
)
def test_malformed_move_strings(text):
    board = game("Base", "wS1")
    before = snapshot(board)
    with pytest.raises((MoveStringError, IllegalMoveError)):
        board.play(text)
    assert snapshot(board) == before


@pytest.mark.parametrize("text", ["wS3", "wQ2", "wM1", "bX1 wS1-", "bS1 wS1-+", "bS1 wS1%"])
def test_move_string_errors_are_move_string_errors(text):
    board = game("Base+M", "wS1")
    assert_rejected(board, text, MoveStringError)


def test_reference_to_piece_in_hand():
    board = game("Base", "wS1")
    err = assert_rejected(board, "bS1 wQ-", MoveStringError)
    assert "wQ" in str(err) or "hand" in str(err).lower() or "board" in str(err).lower()
    assert_rejected(board, "bS1 bS1-", HiveError)  # the mover itself, not on the board yet


def test_lenient_input_same_move():
    # wA1 (-2,0) wQ (-1,0) wS1 (0,0) bS1 (1,0) bQ (2,0); black to move.
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 -wQ")
    m = board.parse_move("bA1 bQ-")
    assert board.parse_move("  BA1   BQ-  ") == m
    assert board.parse_move("ba1 bq-") == m
    # (2,-1) is NE of bS1 and NW of bQ: either reference names the same move.
    m2 = board.parse_move("bA1 bS1/")
    assert board.parse_move("bA1 \\bQ") == m2
    assert str(m2) in ("bA1 bS1/", "bA1 \\bQ")


def test_errors_leave_state_unchanged_everywhere():
    board = game("Base", "wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-")
    before = snapshot(board)
    for text in ("wQ bQ-", "wS1 bQ-", "bQ bS1/", "pass", "wS3", "", "wB1 bQ-", "wG1 -wQ-"):
        with pytest.raises(HiveError):
            board.play(text)
        assert snapshot(board) == before, text
    with pytest.raises(IllegalMoveError):
        board.push(12345)
    assert snapshot(board) == before
    empty = Board("Base")
    with pytest.raises(HiveError):
        empty.pop()
    assert empty.game_string() == "Base;NotStarted;White[1]"


def test_copy_is_independent():
    board = game("Base", "wS1", "bS1 wS1-")
    other = board.copy()
    other.play("wQ -wS1")
    assert board.ply == 2 and other.ply == 3
    assert board.game_string() == "Base;InProgress;White[2];wS1;bS1 wS1-"
    assert other.zobrist != board.zobrist


# --- the unbounded plane ---------------------------------------------------------------

# Each side builds its own end of one straight line: white at one end, black at the other.
WHITE_ORDER = {
    "Base": ["wS1", "wS2", "wQ", "wB1", "wB2", "wG1", "wG2", "wA1", "wA2", "wA3", "wG3"],
    "Base+MLP": ["wS1", "wS2", "wQ", "wB1", "wB2", "wM", "wL", "wP", "wG1", "wG2", "wA1", "wA2", "wA3", "wG3"],
}
BLACK_ORDER = {
    "Base": ["bS1", "bS2", "bQ", "bB1", "bB2", "bG1", "bG2", "bG3", "bA1", "bA2", "bA3"],
    "Base+MLP": ["bS1", "bS2", "bQ", "bB1", "bB2", "bM", "bL", "bP", "bG1", "bG2", "bG3", "bA1", "bA2", "bA3"],
}
# Axis -> (how black extends beyond R, how white extends beyond R) as format strings.
AXES = {
    "E-W": ("{}-", "-{}"),
    "NE-SW": ("{}/", "/{}"),
    "NW-SE": ("\\{}", "{}\\"),
}


def line_moves(game_type: str, axis: str) -> list[str]:
    black_dir, white_dir = AXES[axis]
    whites, blacks = WHITE_ORDER[game_type], BLACK_ORDER[game_type]
    moves = [whites[0], f"{blacks[0]} {black_dir.format(whites[0])}"]
    for i in range(1, len(whites)):
        moves.append(f"{whites[i]} {white_dir.format(whites[i - 1])}")
        moves.append(f"{blacks[i]} {black_dir.format(blacks[i - 1])}")
    return moves


@pytest.mark.parametrize("axis", list(AXES))
@pytest.mark.parametrize("game_type", ["Base", "Base+MLP"])
def test_longest_line(game_type, axis):
    n = len(WHITE_ORDER[game_type]) * 2  # 22 or 28 pieces in one row
    black_dir, white_dir = AXES[axis]
    board = game(game_type, *line_moves(game_type, axis))
    assert board.ply == n and board.state == "InProgress"
    assert Board.from_game_string(board.game_string()).game_string() == board.game_string()
    # Only the end pieces could move; black's end (bA3) is not white's to move. wG3 at white's end
    # has exactly one move: over all n-1 other pieces to the cell just past bA3.
    jump = f"wG3 {black_dir.format('bA3')}"
    assert board.valid_moves_string() == jump
    assert str(board.play(jump)) == jump
    # Every black piece is now inside the line: black is stuck and must pass.
    assert board.valid_moves_string() == "pass"
    assert [str(m) for m in board.legal_moves] == ["pass"] and board.legal_moves[0].is_pass
    assert_rejected(board, "bA3 " + white_dir.format("wA3"), IllegalMoveError)
    board.play("pass")
    assert board.move_history[-1] == "pass"
    assert board.ply == n + 2 and board.turn_string == f"White[{n // 2 + 2}]"
    # White: wG3 jumps all the way back past wA3; the ant wA3 at the other end walks round the
    # remaining n-1 pieces (2(n-1)+4 cells, less its own).
    back = f"wG3 {white_dir.format('wA3')}"
    assert moves_of(board, "wG3") == as_moves(board, [back])
    assert len(moves_of(board, "wA3")) == 2 * (n - 1) + 4 - 1
    assert len(board.legal_moves) == 1 + 2 * (n - 1) + 4 - 1
    assert_sane(board)
    board.play(back)
    assert str(board.pop()) == back
    # The whole game replays from its GameString, and perft agrees with the move list.
    again = Board.from_game_string(board.game_string())
    assert again.zobrist == board.zobrist
    assert again.perft(1) == len(board.legal_moves)
    assert again.perft(2) == board.perft(2)


# --- properties over random games ---------------------------------------------------------


@pytest.mark.parametrize("game_type", ["Base", "Base+M", "Base+L", "Base+P", "Base+MLP"])
def test_random_games_round_trip(game_type):
    """In random games every legal move prints, parses back and plays; undo restores; replay agrees."""
    import random

    rng = random.Random(game_type)
    for _ in range(3):
        board = Board(game_type)
        while board.ply < 80 and not board.is_game_over():
            moves = board.legal_moves
            assert moves and len(moves) == len(set(moves))
            assert not any(m.is_pass for m in moves) or len(moves) == 1
            texts = board.valid_moves_string().split(";")
            assert tuple(board.parse_move(t) for t in texts) == moves
            assert all(MOVE_RE.match(t) for t in texts), texts
            before = (board.game_string(), board.zobrist)
            move = rng.choice(moves)
            board.push(move)
            assert board.ply == len(board.move_history)
            board.pop()
            assert (board.game_string(), board.zobrist) == before
            board.push(move)
        again = Board.from_game_string(board.game_string())
        assert again.game_string() == board.game_string()
        assert again.zobrist == board.zobrist
        assert again.state == board.state
