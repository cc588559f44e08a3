"""What makes a position a puzzle, decided by exact proof (:mod:`hiveai.search.proof`).

Two kinds, for the side to move (the *solver*):

* **win**: the solver surrounds the enemy queen within N of its own moves
  (N = 1 to 4) whatever the defence, and exactly **one** first move does so
  within N moves. Uniqueness is checked within the same N (as Mzinga's puzzle
  test does): another first move that wins only in N + 1 moves does not spoil
  the puzzle, it is simply not the answer to "win in N". A win also counts
  when the defender's every reply surrounds its own queen (a forced
  self-surround). ``depth`` is the exact length of the win in plies against the
  best defence (1 to 7: the solver's N moves, and the defender's forced
  self-surround before the last one when the defence has nothing better).
* **save**: the opponent threatens to win within N of its moves, and exactly
  one move of the solver stops that: every other move loses within N (or at
  once), the saving move does not, and it keeps the game going (a move that
  ends the game in a draw is not counted as a save). ``depth`` is one more than
  the plies of the slowest forced loss among the other moves.

A position that is both (a unique win, and a threat against the solver) is a
win puzzle. Both queens surrounded at once is a draw, never a win; a side with
no legal move passes; every game type's bugs move by its own rules, since the
proof runs on the rules kernels themselves.

>>> from hiveai.rules.board import Board
>>> board = Board("Base;InProgress;White[8];wA1;bA1 wA1-;wA2 /wA1;bA2 bA1\\\\;wA3 -wA1;bQ bA2/;wQ wA2\\\\;"
...               "bA2 \\\\wA3;wQ wA1\\\\;bA2 bA1\\\\;wQ /bA2;bA3 \\\\bQ;wA3 bA3/;bS1 bQ-")
>>> found = find_puzzle(board)
>>> found.kind, found.depth, found.line[0]
('win', 3, 'wA2 bS1-')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hiveai.rules.position import BLACK_WINS, DRAW, IN_PROGRESS, WHITE_WINS, do_move, game_result, undo_move

if TYPE_CHECKING:
    import numpy as np

    from hiveai.rules.board import Board
    from hiveai.search.proof import Prover

__all__ = ["MAX_MOVES", "Proof", "ProofLimitError", "check_save", "check_win", "find_puzzle", "fastest_win",
           "make_prover", "solution_line", "winning_moves"]

# Wins of 1 to MAX_MOVES moves of the solver (and threats as long) are puzzles.
MAX_MOVES = 4


class ProofLimitError(RuntimeError):
    """A proof made more positions than its node limit allows: its answer is unknown."""


@dataclass
class Proof:
    """A proven puzzle: its ``kind`` (``win`` or ``save``), ``depth`` in plies,
    the solution ``line`` (MoveStrings, solver first; a save is its one move)
    and the ``nodes`` the proof made."""

    kind: str
    depth: int
    line: list[str]
    nodes: int = 0
    moves: int = field(init=False)

    def __post_init__(self) -> None:
        self.moves = solver_moves(self.kind, self.depth)


def solver_moves(kind: str, depth: int) -> int:
    """N: the solver's moves a win takes, or the opponent's a save's threat takes.

    >>> solver_moves("win", 3), solver_moves("win", 4), solver_moves("save", 5)
    (2, 2, 2)
    """
    if kind == "win":
        return (depth + 1) // 2
    return depth // 2  # the threat takes depth - 1 plies: ceil((depth - 1) / 2) moves


def make_prover(node_limit: int = 0) -> Prover:
    """A :class:`hiveai.search.proof.Prover` (loads the numba kernels)."""
    from hiveai.search.proof import Prover

    return Prover(node_limit=node_limit)


def _win_code(side: int) -> int:
    return WHITE_WINS if side == 0 else BLACK_WINS


def _wins(prover: Prover, b: np.ndarray, plies: int, attacker: int) -> bool:
    """``prover.wins``, raising ProofLimitError when the node limit cut it short or
    the prover's :attr:`budget_end` (a total of its :attr:`nodes`) is passed."""
    answer = prover.wins(b, plies, attacker)
    if prover.stopped:
        raise ProofLimitError(f"the proof needs more than {prover.node_limit} positions")
    end = getattr(prover, "budget_end", None)
    if end is not None and prover.nodes > end:
        raise ProofLimitError("the position needs more than its budget of positions")
    return answer


def _after(prover: Prover, b: np.ndarray, mv: int, plies: int, attacker: int) -> bool:
    """Whether ``attacker`` has won, or wins within ``plies`` more plies, after ``mv``."""
    token = do_move(b, mv)
    try:
        result = int(game_result(b))
        if result != IN_PROGRESS:
            return result == _win_code(attacker)
        return plies > 0 and _wins(prover, b, plies, attacker)
    finally:
        undo_move(b, mv, token)


def fastest_win(board: Board, prover: Prover, max_plies: int = 2 * MAX_MOVES,
                attacker: int | None = None) -> int | None:
    """The fewest plies in which ``attacker`` (default: the side to move) forces the
    enemy queen surrounded, up to ``max_plies``; None if it cannot."""
    b = board.position_array
    side = board.turn if attacker is None else attacker
    for plies in range(1, max_plies + 1):
        if _wins(prover, b, plies, side):
            return plies
    return None


def winning_moves(board: Board, plies: int, prover: Prover) -> list[str]:
    """The side to move's moves that force the win within ``plies`` plies (the move
    itself included), as MoveStrings in the board's move order: what a puzzle
    accepts at a later move of its line.
    """
    b = board.position_array
    me = board.turn
    return [board.move_to_string(mv) for mv in board.legal_move_ints() if _after(prover, b, mv, plies - 1, me)]


def _unique_winner(board: Board, plies: int, prover: Prover) -> list[int]:
    """The first moves that win within ``plies``; stops at the second one."""
    b = board.position_array
    me = board.turn
    found = []
    for mv in board.legal_move_ints():
        if _after(prover, b, mv, plies - 1, me):
            found.append(mv)
            if len(found) > 1:
                break
    return found


def solution_line(board: Board, depth: int, key: str, prover: Prover) -> list[str]:
    """The line of a win puzzle: ``key``, then the best defence (the reply after which
    the win takes longest; the first such in move order) and the solver's fastest
    win, until the enemy queen is surrounded."""
    work = board.copy()
    me = work.turn
    line = [work.push(key).__str__()]
    left = depth - 1
    while not work.is_game_over():
        b = work.position_array
        if work.turn != me:
            best, best_len = None, -1
            for mv in work.legal_move_ints():
                length = _resistance(prover, b, mv, left, me)
                if length > best_len:
                    best, best_len = mv, length
            line.append(str(work.push(best)))
        else:
            plies = next(p for p in range(1, left + 1) if _wins(prover, b, p, me))
            prover.wins(b, plies, me)
            line.append(str(work.push(prover.best)))
        left -= 1
    return line


def _resistance(prover: Prover, b: np.ndarray, mv: int, left: int, attacker: int) -> int:
    """Plies until the attacker's win after the defender's ``mv`` (itself counted)."""
    token = do_move(b, mv)
    try:
        if int(game_result(b)) != IN_PROGRESS:
            return 1
        for plies in range(1, left):
            if _wins(prover, b, plies, attacker):
                return 1 + plies
        return left + 1  # not forced within the line's length: cannot happen after a proven win
    finally:
        undo_move(b, mv, token)


def _find_win(board: Board, prover: Prover, max_moves: int) -> Proof | None:
    # A win of N moves is one of 2N - 1 plies, or 2N when the defender's last move is
    # forced to surround its own queen: only the first are looked for (the second,
    # rare, cost far more to rule out), but both count against uniqueness.
    depth = fastest_win(board, prover, 2 * max_moves - 1)
    if depth is None:
        return None
    horizon = 2 * solver_moves("win", depth)
    winners = _unique_winner(board, horizon, prover)
    if len(winners) != 1:
        return None
    key = board.move_to_string(winners[0])
    return Proof("win", depth, solution_line(board, depth, key, prover))


def _loss_length(prover: Prover, b: np.ndarray, mv: int, horizon: int, me: int) -> int | None:
    """Plies after our ``mv`` until the opponent's forced win (0: ``mv`` loses at
    once), within ``horizon``; None if it does not come; -1 if ``mv`` ends the game
    otherwise (a win or a draw)."""
    token = do_move(b, mv)
    try:
        result = int(game_result(b))
        if result != IN_PROGRESS:
            return 0 if result == _win_code(1 - me) else -1
        for plies in range(1, horizon + 1):
            if _wins(prover, b, plies, 1 - me):
                return plies
        return None
    finally:
        undo_move(b, mv, token)


def _find_save(board: Board, prover: Prover, max_moves: int) -> Proof | None:
    """The one move that stops the opponent's forced win within N of its moves, for
    the smallest N with exactly one such move."""
    b = board.position_array
    me = board.turn
    moves = board.legal_move_ints()
    if len(moves) < 2:
        return None
    lengths: dict[int, int | None] = {}  # known loss lengths (None: none within the horizon tried)
    for n in range(1, max_moves + 1):
        horizon = 2 * n
        escapes = []
        for mv in moves:
            known = lengths.get(mv, "unknown")
            if known == -1:
                return None  # a move that ends the game (a draw, or a win: not a save)
            if known != "unknown" and known is not None:
                continue  # loses within a shorter horizon already
            length = _loss_length(prover, b, mv, horizon, me)
            lengths[mv] = length
            if length == -1:
                return None
            if length is None:
                escapes.append(mv)
                if len(escapes) > 1:
                    break
        if not escapes:
            return None  # every move loses within N: nothing to find
        if len(escapes) == 1:
            depth = 1 + max(v for k, v in lengths.items() if k != escapes[0])
            return Proof("save", depth, [board.move_to_string(escapes[0])])
    return None


def find_puzzle(board: Board, prover: Prover | None = None, max_moves: int = MAX_MOVES,
                save_moves: int | None = None, budget: int | None = None) -> Proof | None:
    """The puzzle ``board`` is for its side to move (a win of at most ``max_moves``
    moves first, else a save against a threat of at most ``save_moves``, default
    ``max_moves``; 0: no saves), or None.

    Raises :class:`ProofLimitError` when ``prover``'s node limit cuts a proof
    short, or the whole classification makes more than ``budget`` positions.
    """
    if board.is_game_over():
        return None
    prover = prover or make_prover()
    start = prover.nodes
    prover.budget_end = None if budget is None else start + budget
    try:
        found = _find_win(board, prover, max_moves)
        saves = max_moves if save_moves is None else save_moves
        if found is None and saves > 0:
            found = _find_save(board, prover, saves)
    finally:
        prover.budget_end = None
    if found is not None:
        found.nodes = prover.nodes - start
    return found


def check_win(board: Board, depth: int, line: list[str], prover: Prover) -> str | None:
    """Why ``line`` is not the proven solution of a win puzzle of ``depth`` plies on
    ``board``, or None when it is (the checks of ``hiveai puzzles verify``)."""
    if not 1 <= depth <= 2 * MAX_MOVES:
        return f"depth {depth} is not 1 to {2 * MAX_MOVES} plies"
    me = board.turn
    b = board.position_array
    if not _wins(prover, b, depth, me):
        return f"no forced win within {depth} plies"
    if depth > 1 and _wins(prover, b, depth - 1, me):
        return f"the win is faster than {depth} plies"
    work = board.copy()
    if not line:
        return "the solution line is empty"
    if not work.is_legal(line[0]):
        return f"the first move {line[0]!r} is not legal"
    winners = _unique_winner(board, 2 * solver_moves("win", depth), prover)
    first = work.parse_move(line[0]).code
    if winners != [first]:
        names = ", ".join(board.move_to_string(m) for m in winners)
        return f"the winning first moves are {names or 'none'}, not {line[0]} alone"
    left = depth
    for i, text in enumerate(line):
        if work.is_game_over():
            return f"the game is over before move {i + 1} of the line ({text})"
        if not work.is_legal(text):
            return f"move {i + 1} of the line ({text}) is not legal"
        solver = work.turn == me
        mv = work.parse_move(text).code
        b = work.position_array
        if solver and not _after(prover, b, mv, left - 1, me):
            return f"move {i + 1} of the line ({text}) does not win within {left} plies"
        if not solver and left > 2 and _after(prover, b, mv, left - 2, me):
            return f"move {i + 1} of the line ({text}) is not the best defence"
        work.push(mv)
        left -= 1
    if work.result != _win_code(me):
        return f"the line does not end with the {('White', 'Black')[1 - me]} queen surrounded"
    if left != 0:
        return f"the line has {depth - left} plies, not {depth}"
    return None


def check_save(board: Board, depth: int, line: list[str], prover: Prover) -> str | None:
    """Why ``line`` (one move) is not the one save of a save puzzle of ``depth`` plies,
    or None when it is."""
    if not 2 <= depth <= 2 * MAX_MOVES + 1:
        return f"depth {depth} is not 2 to {2 * MAX_MOVES + 1} plies"
    if len(line) != 1:
        return f"a save's line is its one move, not {len(line)} moves"
    if not board.is_legal(line[0]):
        return f"the move {line[0]!r} is not legal"
    me = board.turn
    b = board.position_array
    save = board.parse_move(line[0]).code
    horizon = depth - 1
    threat = 2 * solver_moves("save", depth)
    token = do_move(b, save)
    result = int(game_result(b))
    undo_move(b, save, token)
    if result != IN_PROGRESS:
        return f"{line[0]} ends the game" if result != DRAW else f"{line[0]} draws"
    if _after(prover, b, save, threat, 1 - me):
        return f"{line[0]} does not stop the loss within {threat} plies"
    slowest = 0
    for mv in board.legal_move_ints():
        if mv == save:
            continue
        length = _loss_length(prover, b, mv, horizon, me)
        if length is None or length < 0:
            return f"{board.move_to_string(mv)} saves too (or ends the game)"
        slowest = max(slowest, length)
    if slowest + 1 != depth:
        return f"the slowest loss takes {slowest} plies after a wrong move, so the depth is {slowest + 1}, not {depth}"
    return None
