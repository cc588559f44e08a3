"""Move choice for ``bestmove``: for now a one-ply search.

Until the real search lands, ``bestmove`` picks a move by looking one ply
ahead and scoring each resulting position with :mod:`hiveai.evaluate`:

1. A move that wins at once is played at once (a cheap first pass, so it is
   found even when time is short).
2. Otherwise every move is scored statically; a move after which the
   opponent could surround our queen at once scores ``LOSES_NEXT``, so it is
   chosen only when every alternative is as bad.
3. The search polls ``limits`` between moves and returns the best move so
   far when told to stop; before anything is scored the answer is the first
   legal move (the fallback), so a legal move is always ready.

``depth 0`` and ``time 00:00:00`` return the fallback without searching.
``depth N`` for N >= 2 is the same one-ply pick for now (``MAX_DEPTH``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from hiveai.board import PASS, Board
from hiveai.bug import EXP_PILLBUG
from hiveai.evaluate import WIN, queen_neighbours, result_score, static_score
from hiveai.movegen import MAX_MOVES, legal_moves, new_workspace
from hiveai.position import GAME_TYPE, IN_PROGRESS, do_move, game_result, undo_move
from hiveai.timeman import Limits

# Deepest search available: depth limits above this are searched to this depth.
MAX_DEPTH = 1
# Score of a move that lets the opponent win at once: worse than any ordinary
# move, better than losing (or surrounding our own queen) outright.
LOSES_NEXT = -WIN // 2


@dataclass
class SearchResult:
    """What ``bestmove`` answers, plus figures for the log."""

    move: int
    move_string: str
    score: int | None  # None: not scored (fallback move)
    depth: int  # plies searched; 0 for the fallback
    nodes: int  # positions visited


def best_move(board: Board, limits: Limits,
              report: Callable[[str], None] | None = None) -> SearchResult:
    """The move to play in ``board`` (which must not be over) within ``limits``.

    ``report``, if given, receives Mzinga-style intermediate lines
    ``move;depth;score`` before the search returns.
    """
    moves = board.legal_moves()
    if not moves:
        raise ValueError("best_move called on a finished game")
    if len(moves) == 1 or limits.depth == 0 or limits.out_of_time():
        return _result(board, moves[0], None, 0, 0)

    b = board.position_array.copy()
    me = board.turn
    nodes = 0
    for mv in moves:  # pass 1: a move that wins now
        if limits.stopped():
            break
        token = do_move(b, mv)
        won = result_score(int(game_result(b)), me) == WIN
        undo_move(b, mv, token)
        nodes += 1
        if won:
            return _reported(board, mv, WIN, nodes, report)

    ws = new_workspace()
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    best, best_score = moves[0], None
    for mv in moves:  # pass 2: score every move
        if limits.out_of_time():
            break
        score, visited = _score_move(b, ws, buf, mv, me)
        nodes += visited
        if best_score is None or score > best_score:
            best, best_score = mv, score
    if best_score is None:
        return _result(board, best, None, 0, nodes)
    return _reported(board, best, best_score, nodes, report)


def _score_move(b: np.ndarray, ws: np.ndarray, buf: np.ndarray, mv: int, me: int) -> tuple[int, int]:
    """Score of playing ``mv`` for ``me``, and the nodes visited. ``b`` is restored."""
    token = do_move(b, mv)
    nodes = 1
    result = int(game_result(b))
    if result != IN_PROGRESS:
        score = result_score(result, me)
    else:
        n = int(legal_moves(b, ws, buf, 0))
        opponent_moves = 0 if buf[0] == PASS else n
        score = static_score(b, me, opponent_moves)
        # An ordinary move fills one cell, so it can only finish a queen with 5
        # neighbours; a pillbug throw can move our queen itself into a pocket,
        # so with pillbugs in play every reply is checked.
        if queen_neighbours(b, me) == 5 or b[GAME_TYPE] & EXP_PILLBUG:
            visited, lost = _opponent_wins_at_once(b, buf, n, me)
            nodes += visited
            if lost:
                score = LOSES_NEXT
    undo_move(b, mv, token)
    return score, nodes


def _opponent_wins_at_once(b: np.ndarray, replies: np.ndarray, n: int, me: int) -> tuple[int, bool]:
    """Whether one of the opponent's ``n`` legal ``replies`` wins; and nodes visited."""
    for i in range(n):
        reply = int(replies[i])
        if reply == PASS:
            return i + 1, False
        token = do_move(b, reply)
        lost = result_score(int(game_result(b)), me) == -WIN
        undo_move(b, reply, token)
        if lost:
            return i + 1, True
    return n, False


def _result(board: Board, mv: int, score: int | None, depth: int, nodes: int) -> SearchResult:
    return SearchResult(mv, board.move_to_string(mv), score, depth, nodes)


def _reported(board: Board, mv: int, score: int, nodes: int,
              report: Callable[[str], None] | None) -> SearchResult:
    result = _result(board, mv, score, MAX_DEPTH, nodes)
    if report is not None:
        report(f"{result.move_string};{result.depth};{score}")
    return result


def warmup() -> None:
    """Compile or load every kernel that the engine and this search use."""
    from hiveai.board import warmup as board_warmup
    from hiveai.timeman import StopFlag, depth_limits

    board_warmup()
    board = Board.parse("Base+MLP;InProgress;White[3];wP;bM wP-;wQ \\wP;bQ bM-")
    best_move(board, depth_limits(1, StopFlag()))
