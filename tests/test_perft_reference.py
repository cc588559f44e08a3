"""Perft against reference counts, and perft/push/pop consistency.

The reference data in tests/data/perft/ comes from Mzinga-compatible engines
(MzingaCpp and nokamute agree on every line). Each line is
``GameString<TAB>depth<TAB>leaves``.

Default run (``pytest``): every start_*.tsv line up to depth 4 and every
random-position line up to depth 4 whose count is at most ``SLOW_LEAVES``.
``pytest -m slow``: the heavier random-position lines and depths 5-6 from the
empty board of all eight game types.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from game_types import STANDARD_GAME_TYPES as GAME_TYPES

from hiveai.rules.board import Board

DATA = Path(__file__).parent / "data" / "perft"
SLOW_LEAVES = 10_000_000  # random-position lines above this go to the slow run


def read_tsv(path: Path) -> list[tuple[str, int, int]]:
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        game_string, depth, leaves = line.split("\t")
        rows.append((game_string, int(depth), int(leaves)))
    return rows


def start_rows() -> list[tuple[str, int, int]]:
    rows = []
    for path in sorted(DATA.glob("start_*.tsv")):
        rows += read_tsv(path)
    return rows


START_ROWS = start_rows()
RANDOM_ROWS = read_tsv(DATA / "random_positions.tsv")
RANDOM_GAME_STRINGS = list(dict.fromkeys(g for g, _, _ in RANDOM_ROWS))


@functools.lru_cache(maxsize=None)
def board_for(game_string: str) -> Board:
    """One board per GameString, shared by that string's depths (replaying is not free).

    Tests only call ``perft`` on it, which must leave it untouched (checked).
    """
    return Board.from_game_string(game_string)


def check_perft(game_string: str, depth: int, leaves: int) -> None:
    board = board_for(game_string)
    before = board.game_string(), board.zobrist
    got = board.perft(depth)
    assert got == leaves, f"perft({depth}) of {game_string!r}: expected {leaves}, got {got}"
    assert (board.game_string(), board.zobrist) == before, "perft changed the board"


def row_id(game_string: str, depth: int) -> str:
    if game_string in RANDOM_GAME_STRINGS:
        return f"random{RANDOM_GAME_STRINGS.index(game_string):02d}-{game_string.split(';')[0]}-d{depth}"
    return f"{game_string.split(';')[0]}-d{depth}"


def test_reference_data_present():
    assert len(START_ROWS) == 8 * 9
    assert len(RANDOM_GAME_STRINGS) == 32
    assert {g.split(";")[0] for g, _, _ in START_ROWS} == set(GAME_TYPES)


@pytest.mark.parametrize(
    "game_string,depth,leaves",
    [pytest.param(g, d, n, id=row_id(g, d)) for g, d, n in START_ROWS if d <= 4],
)
def test_perft_start(game_string, depth, leaves):
    check_perft(game_string, depth, leaves)


@pytest.mark.parametrize(
    "game_string,depth,leaves",
    [
        pytest.param(g, d, n, id=row_id(g, d), marks=[pytest.mark.slow] if n > SLOW_LEAVES else [])
        for g, d, n in RANDOM_ROWS
        if d <= 4
    ],
)
def test_perft_random_positions(game_string, depth, leaves):
    check_perft(game_string, depth, leaves)


@pytest.mark.slow
@pytest.mark.parametrize(
    "game_string,depth,leaves",
    [pytest.param(g, d, n, id=row_id(g, d)) for g, d, n in START_ROWS if d in (5, 6)],
)
def test_perft_start_deep(game_string, depth, leaves):
    check_perft(game_string, depth, leaves)


# --- consistency: bulk counting, push/pop -----------------------------------


def divide(board: Board, depth: int) -> int:
    """perft(depth) computed one level up: sum over legal moves of perft(depth-1) after push."""
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += board.perft(depth - 1)
        board.pop()
    return total


CONSISTENCY_GAME_STRINGS = RANDOM_GAME_STRINGS[::4]  # one of each game type, more or less


@pytest.mark.parametrize("game_string", CONSISTENCY_GAME_STRINGS, ids=lambda g: row_id(g, 3))
def test_perft_equals_sum_of_children(game_string):
    board = Board.from_game_string(game_string)
    for depth in (1, 2, 3):
        assert divide(board, depth) == board.perft(depth), (game_string, depth)
    assert board.perft(1) == len(board.legal_moves)


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_perft_equals_sum_of_children_from_start(game_type):
    board = Board(game_type)
    for _ in range(6):  # a few plies into the game, along the first moves
        board.push(board.legal_moves[len(board.legal_moves) // 2])
    for depth in (1, 2, 3):
        assert divide(board, depth) == board.perft(depth), (board.game_string(), depth)


def test_legal_moves_are_unique_and_pass_only_alone():
    for game_string in RANDOM_GAME_STRINGS:
        board = board_for(game_string)
        moves = board.legal_moves
        assert len(moves) == len(set(moves)), game_string
        assert not any(m.is_pass for m in moves) or len(moves) == 1, game_string


@pytest.mark.parametrize("game_string", RANDOM_GAME_STRINGS[::3], ids=lambda g: row_id(g, 2))
def test_push_pop_restores_everything(game_string):
    board = Board.from_game_string(game_string)
    rng = random.Random(game_string)
    root = (board.game_string(), board.zobrist, board.ply, board.state, board.legal_move_ints())
    for move in board.legal_moves:
        before = (board.game_string(), board.zobrist)
        text = str(move)
        board.push(move)
        assert board.move_history[-1] == text
        # one more ply below, on a sample of replies
        replies = board.legal_moves
        for reply in rng.sample(replies, min(3, len(replies))):
            inner = (board.game_string(), board.zobrist)
            board.push(reply)
            assert board.pop() == reply
            assert (board.game_string(), board.zobrist) == inner
        assert board.pop() == move
        assert (board.game_string(), board.zobrist) == before
    assert (board.game_string(), board.zobrist, board.ply, board.state, board.legal_move_ints()) == root


@pytest.mark.parametrize("game_string", RANDOM_GAME_STRINGS[1::3], ids=lambda g: row_id(g, 1))
def test_zobrist_matches_replayed_position(game_string):
    """The hash depends on the position, not on the path: a replayed GameString hashes the same."""
    board = Board.from_game_string(game_string)
    for move in board.legal_moves:
        board.push(move)
        replayed = Board.from_game_string(board.game_string())
        assert replayed.zobrist == board.zobrist, board.game_string()
        assert replayed.game_string() == board.game_string()
        board.pop()


def test_zobrist_distinguishes_children():
    """Different moves from one position give different hashes (no trivial collisions)."""
    for game_string in RANDOM_GAME_STRINGS[:8]:
        board = Board.from_game_string(game_string)
        hashes = []
        for move in board.legal_moves:
            board.push(move)
            hashes.append(board.zobrist)
            board.pop()
        assert len(hashes) == len(set(hashes)), game_string
