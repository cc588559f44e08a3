"""The tactics positions and the brute-force predicates they are checked with.

Shared by the search's tactics tests (``test_search_tactics.py``), the
playing levels' tests (``test_level.py``) and the generator of the data file
(a seeded generator, in the git history). The positions come from
``tests/data/search/tactics.tsv`` (:data:`POSITIONS`); the predicates work
over the rules kernels (``movegen.legal_moves``, ``do_move``/``undo_move``,
``game_result``) alone, never the search.

Brute-force shortcut (``ending_moves``): a move changes how many occupied
cells surround a queen only at its source (at most -1) and its destination
(at most +1), unless it moves that queen itself. So only a move of a queen,
or a move that lands next to a queen with five neighbours, can end the game;
the other moves need not be played. ``test_ending_moves_shortcut_is_exact``
checks this against playing every move.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from game_types import EVERY_GAME_TYPE

from hiveai.rules.board import Board
from hiveai.rules.bug import EXP_PILLBUG, KIND_FIRST, MOSQUITO, PIECES_PER_COLOUR, PILLBUG, kind_of
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET
from hiveai.rules.movegen import MAX_MOVES, legal_moves, new_workspace
from hiveai.rules.position import (
    BLACK_WINS,
    GAME_TYPE,
    HEIGHT,
    IN_PROGRESS,
    LAST_MOVED,
    MOVE_PIECE_SHIFT,
    PASS,
    PLY,
    POS,
    TOP,
    WHITE_WINS,
    do_move,
    game_result,
    occupied_neighbours,
    undo_move,
)

GAME_TYPES = list(EVERY_GAME_TYPE)
P_TYPES = [g for g in GAME_TYPES if "P" in g]
DATA = Path(__file__).parent / "data" / "search" / "tactics.tsv"

# --- Brute force over the kernels ---------------------------------------------

_WS = new_workspace()
_BUF = np.empty(MAX_MOVES, dtype=np.int32)


def moves_of(b: np.ndarray) -> list[int]:
    """Legal moves of the side to move (``[PASS]`` when stuck); the game must be on."""
    n = legal_moves(b, _WS, _BUF, 0)
    return [int(m) for m in _BUF[:n]]


def side_to_move(b: np.ndarray) -> int:
    return int(b[PLY]) & 1


def win_code(side: int) -> int:
    return WHITE_WINS if side == 0 else BLACK_WINS


def queen_cell(b: np.ndarray, side: int) -> int:
    return int(b[POS + side * PIECES_PER_COLOUR])


def ring(cell: int) -> set[int]:
    return {(cell + o) & CELL_MASK for o in DIR_OFFSET}


def crowd(b: np.ndarray, side: int) -> int:
    """Occupied cells around ``side``'s queen (-1 while it is in hand)."""
    q = queen_cell(b, side)
    return -1 if q < 0 else int(occupied_neighbours(b, q))


def piece_of(mv: int) -> int:
    return mv >> MOVE_PIECE_SHIFT


def result_after(b: np.ndarray, mv: int) -> int:
    token = do_move(b, mv)
    r = int(game_result(b))
    undo_move(b, mv, token)
    return r


def ending_moves(b: np.ndarray, moves: list[int] | None = None, exhaustive: bool = False) -> dict[int, int]:
    """Moves that end the game at once, each with its result (``game_result``).

    Without ``exhaustive`` only the candidates of the module docstring's
    shortcut are played: moves of a queen, and moves landing next to a queen
    that has five neighbours.
    """
    if int(game_result(b)) != IN_PROGRESS:
        return {}
    if moves is None:
        moves = moves_of(b)
    if not exhaustive:
        crowded = [q for q in (queen_cell(b, 0), queen_cell(b, 1)) if q >= 0 and occupied_neighbours(b, q) == 5]
        around = set().union(*(ring(q) for q in crowded))
        moves = [m for m in moves if m != PASS
                 and (piece_of(m) % PIECES_PER_COLOUR == 0 or (m & CELL_MASK) in around)]
    out = {}
    for m in moves:
        r = result_after(b, m)
        if r != IN_PROGRESS:
            out[m] = r
    return out


def winning_moves(b: np.ndarray, moves: list[int] | None = None, exhaustive: bool = False) -> list[int]:
    """Moves that surround the enemy queen (and not ours) at once."""
    me = side_to_move(b)
    return [m for m, r in ending_moves(b, moves, exhaustive).items() if r == win_code(me)]


def loses_after(b: np.ndarray, mv: int) -> bool:
    """After our ``mv``: have we lost, or can the opponent surround our queen at once?

    A move that ends the game in a draw (both queens surrounded) does not lose.
    """
    me = side_to_move(b)
    token = do_move(b, mv)
    try:
        r = int(game_result(b))
        if r != IN_PROGRESS:
            return r == win_code(1 - me)
        return bool(winning_moves(b))
    finally:
        undo_move(b, mv, token)


def safe_and_losing(b: np.ndarray, moves: list[int] | None = None) -> tuple[list[int], list[int]]:
    moves = moves_of(b) if moves is None else moves
    safe, losing = [], []
    for m in moves:
        (losing if loses_after(b, m) else safe).append(m)
    return safe, losing


def forces_win_in_2(b: np.ndarray, mv: int) -> bool:
    """Our ``mv`` leaves the game on, and after every reply we win (or have won) at once."""
    me = side_to_move(b)
    token = do_move(b, mv)
    try:
        if int(game_result(b)) != IN_PROGRESS:
            return False
        for reply in moves_of(b):
            t2 = do_move(b, reply)
            r = int(game_result(b))
            ok = r == win_code(me) or (r == IN_PROGRESS and bool(winning_moves(b)))
            undo_move(b, reply, t2)
            if not ok:
                return False
        return True
    finally:
        undo_move(b, mv, token)


def threatened(b: np.ndarray) -> bool:
    """Could the opponent surround our queen at once if we passed?"""
    c = b.copy()
    do_move(c, PASS)
    return bool(winning_moves(c))


def throw_only(b: np.ndarray, moves: list[int]) -> set[int]:
    """Moves of pieces on the board that only a pillbug power makes legal.

    Compared with the moves generated with the game type's pillbug bit
    cleared: movegen then finds no throwers, and nothing else it generates
    for pieces already on the board depends on that bit (a pillbug still
    walks, a mosquito next to one still copies its walk).
    """
    c = b.copy()
    c[GAME_TYPE] &= ~EXP_PILLBUG
    plain = set(moves_of(c))
    return {m for m in moves if m != PASS and b[POS + piece_of(m)] >= 0 and m not in plain}


def throwers(b: np.ndarray, mv: int) -> set[str]:
    """Which of our pieces could throw ``mv`` (independent check of ``throw_only``).

    ``"P"``: our pillbug, ``"M"``: our mosquito touching a pillbug; either must be
    uncovered, not moved last ply, and next to both the thrown piece and its
    destination (docs/protocol-notes.md, "Movement").
    """
    me = side_to_move(b)
    src, dst = int(b[POS + piece_of(mv)]), mv & CELL_MASK
    out = set()
    for kind, letter in ((PILLBUG, "P"), (MOSQUITO, "M")):
        p = me * PIECES_PER_COLOUR + KIND_FIRST[kind]
        c = int(b[POS + p])
        if c < 0 or int(b[HEIGHT + c]) != 1 or int(b[LAST_MOVED]) == p:
            continue
        if kind == MOSQUITO and not any(int(b[TOP + n]) >= 0 and kind_of(int(b[TOP + n])) == PILLBUG
                                        for n in ring(c)):
            continue
        if src in ring(c) and dst in ring(c):
            out.add(letter)
    return out


def position_key(b: np.ndarray) -> bytes:
    """What makes two positions the same: every stack, the side to move and,
    with pillbugs in play, the stunned piece (it changes the legal moves)."""
    stunned = int(b[LAST_MOVED]) if int(b[GAME_TYPE]) & EXP_PILLBUG else -1
    return b[HEIGHT:POS].tobytes() + bytes([int(b[PLY]) & 1, stunned + 1])


def earlier_positions(board: Board) -> set[bytes]:
    """Keys of the game's positions since the last placement (none can recur before it)."""
    b = board.position_array.copy()
    keys = {position_key(b)}
    for mv, token in reversed(board.move_history_ints()):
        undo_move(b, mv, token)
        if mv != PASS and b[POS + piece_of(mv)] < 0:
            break
        keys.add(position_key(b))
    return keys


def repeating(board: Board, b: np.ndarray, moves: list[int]) -> list[int]:
    """The ``moves`` that lead back to a position played earlier in the game."""
    keys = earlier_positions(board)
    out = []
    for m in moves:
        t = do_move(b, m)
        if position_key(b) in keys:
            out.append(m)
        undo_move(b, m, t)
    return out


# --- Data ---------------------------------------------------------------------


def load() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(category, game type) -> [(note, GameString)]."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    if not DATA.exists():
        return out
    for line in DATA.read_text().splitlines():
        if line and not line.startswith("#"):
            cat, gt, note, gs = line.split("\t")
            assert gs.split(";")[0] == gt, line
            out[cat, gt].append((note, gs))
    return out


POSITIONS = load()




def position(gs: str) -> tuple[Board, np.ndarray]:
    board = Board.from_game_string(gs)
    assert board.state == "InProgress", gs
    return board, board.position_array.copy()


def names(board: Board, moves) -> list[str]:
    return sorted(board.move_to_string(m) for m in moves)
