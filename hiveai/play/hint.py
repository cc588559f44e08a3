"""Why the engine suggests a move, in one line, from facts the search and the position give.

Never from evaluation weights (they change with tuning): a forced result the
search proved, a win in one the move stops, the pieces around each queen
before and after, a piece the move pins by the One Hive rule, a climb onto a
queen. The first fact that holds is the reason.

>>> from hiveai.rules.board import Board
>>> board = Board.parse("Base;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 \\\\wQ;bA1 bQ/")
>>> reason(board, board.parse_move("wA1 bQ\\\\"), None)
'adds a piece around the enemy queen (3 of 6 cells now)'
>>> reason(board, board.parse_move("wA1 bA1-"), None)
'frees a cell around our queen (1 of 6 cells taken now)'
"""

from __future__ import annotations

import numpy as np

from hiveai.rules.board import Board, Move
from hiveai.rules.bug import COLOUR_NAMES, MAX_STACK, N_PIECES, PIECES_PER_COLOUR, QUEEN, colour_of, kind_of, piece_names
from hiveai.player.levels import allows_win, winning_move
from hiveai.rules.movegen import MAX_MOVES, find_pinned, new_workspace
from hiveai.rules.position import HEIGHT, MOVE_PIECE_SHIFT, POS, STACK, do_move, occupied_neighbours, undo_move
from hiveai.search.score import MATE_BOUND, WIN, format_score

__all__ = ["reason"]


def _queen_cell(b: np.ndarray, colour: int) -> int:
    return int(b[POS + colour * PIECES_PER_COLOUR])  # the queen is each colour's first piece (hiveai.rules.bug)


def _around(b: np.ndarray, colour: int) -> int:
    cell = _queen_cell(b, colour)
    return -1 if cell < 0 else int(occupied_neighbours(b, cell))


def _pinned(b: np.ndarray, colour: int) -> set[int]:
    ws = new_workspace()
    # find_pinned's root: any occupied cell (every piece on the board is in one hive).
    on_board = [int(b[POS + p]) for p in range(N_PIECES) if int(b[POS + p]) >= 0]
    if not on_board:
        return set()
    mask = int(find_pinned(b, ws, on_board[0]))
    return {p for p in range(colour * PIECES_PER_COLOUR, (colour + 1) * PIECES_PER_COLOUR) if mask >> p & 1}


def reason(board: Board, move: Move, score: int | None) -> str:
    """A one-line reason for playing ``move`` on ``board``; ``score`` is the search's (side to move's view)."""
    if move.is_pass:
        return "passes: there is no other move"
    if score is not None and score > MATE_BOUND:
        return f"wins in {(WIN - score + 1) // 2}" if (WIN - score + 1) // 2 > 1 else "wins at once"
    b = board.position_array.copy()
    ws = new_workspace()
    scratch = np.zeros(2 * MAX_MOVES, dtype=np.int32)
    us, them = board.turn, 1 - board.turn
    names = piece_names(board.game_type)
    if winning_move(b, ws, scratch, 0) == move.code:
        return "wins at once: it surrounds the enemy queen"
    legal = board.legal_move_ints()
    losing = sum(1 for mv in legal if allows_win(b, ws, scratch, mv))
    if losing and not allows_win(b, ws, scratch, move.code):
        return (f"stops a win in one: {losing} of {len(legal)} moves here would let "
                f"{COLOUR_NAMES[them]} surround the queen next move")
    if score is not None and score < -MATE_BOUND:
        return f"every move loses; this one holds out longest ({format_score(score)})"
    enemy_before, ours_before = _around(b, them), _around(b, us)
    pinned_before = _pinned(b, them)
    piece = move.code >> MOVE_PIECE_SHIFT
    token = do_move(b, move.code)
    try:
        enemy_after, ours_after = _around(b, them), _around(b, us)
        pinned_after = _pinned(b, them) - pinned_before
        dest = int(b[POS + piece])
        height = int(b[HEIGHT + dest])
        under = int(b[STACK + dest * MAX_STACK + height - 2]) if height > 1 else -1
    finally:
        undo_move(b, move.code, token)
    if enemy_before >= 0 and enemy_after > enemy_before:
        return f"adds a piece around the enemy queen ({enemy_after} of 6 cells now)"
    if ours_before >= 0 and 0 <= ours_after < ours_before:
        return f"frees a cell around our queen ({ours_after} of 6 cells taken now)"
    if under >= 0 and kind_of(under, board.game_type) == QUEEN:
        whose = "the enemy" if colour_of(under) == them else "our own"
        return f"climbs onto {whose} queen: she cannot move while covered"
    if pinned_after:
        pinned = ", ".join(sorted(names[p] for p in pinned_after))
        return f"pins {pinned} by the One Hive rule: moving it would split the hive"
    if kind_of(piece, board.game_type) == QUEEN and board.position_array[POS + piece] < 0:
        return "places the queen: she must be down by each side's fourth move, and she frees the others to move"
    return f"the search's best move ({format_score(score)} for {COLOUR_NAMES[us]})"
