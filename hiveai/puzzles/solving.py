r"""Solving a puzzle move by move (what a board in the browser asks), and verifying one.

A player's move is judged by proof, not by string comparison with the line:

* the **first move** must be the puzzle's (it is the only one that wins within
  N moves, or the only save);
* a **later move** of a win is right when it still forces the surround in the
  plies left (:func:`hiveai.puzzles.prove.winning_moves`): another way to
  finish as fast is accepted, as lichess accepts any mate in a mate puzzle;
* after a right move that does not end the game, the reply is the **best
  defence** (the line's move while the player follows the line, else the
  reply after which the win takes longest);
* a **wrong** move gets its refutation: for a win, the defender's reply that
  escapes (no win in the plies left); for a save, the opponent's fastest win.

>>> from hiveai.puzzles.puzzlefile import parse_line
>>> puzzle = parse_line("62cb05b5ddf16a39\tBase;InProgress;White[8];wA1;bA1 wA1-;wA2 /wA1;bA2 bA1\\;wA3 -wA1;"
...     "bQ bA2/;wQ wA2\\;bA2 \\wA3;wQ wA1\\;bA2 bA1\\;wQ /bA2;bA3 \\bQ;wA3 bA3/;bS1 bQ-\t"
...     "wA2 bS1-;bS2 bQ\\;wA1 wA3\\\twin\tin2\t3\t3477\t850\trecords:mzinga#9:14")
>>> step = try_move(puzzle, [], "wA2 bS1-")
>>> step.right, step.solved, step.reply
(True, False, 'bS2 bQ\\')
>>> try_move(puzzle, ["wA2 bS1-", "bS2 bQ\\"], "wA1 wA3\\").solved
True
>>> wrong = try_move(puzzle, [], "wS1 wQ\\")
>>> wrong.right, len(wrong.refutation)
(False, 1)
>>> hint(puzzle, [])
'wA2'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hiveai.puzzles.prove import (
    ProofLimitError, check_save, check_win, fastest_win, make_prover, solution_line, winning_moves,
)

if TYPE_CHECKING:
    from hiveai.puzzles.puzzlefile import Puzzle
    from hiveai.rules.board import Board
    from hiveai.search.proof import Prover

__all__ = ["Step", "hint", "try_move", "verify_puzzle"]


@dataclass
class Step:
    """The answer to one of the player's moves.

    ``right``: the move is accepted; ``solved``: the puzzle is done (the enemy
    queen is surrounded, or the save was found); ``reply``: the opponent's
    answer to play next (None when solved or wrong); ``refutation``: after a
    wrong move, the opponent's line that shows why (MoveStrings from the
    position after the wrong move).
    """

    right: bool
    solved: bool = False
    reply: str | None = None
    refutation: list[str] = field(default_factory=list)


def _replay(puzzle: Puzzle, played: list[str]) -> Board:
    """The puzzle's board after ``played``; ValueError for a move that is not legal there."""
    from hiveai.errors import HiveError

    board = puzzle.board()
    for i, move in enumerate(played, 1):
        try:
            board.push(move)
        except HiveError as e:
            raise ValueError(f"move {i} played ({move}) is not legal: {e}") from None
    return board


def _plies_left(puzzle: Puzzle, played: list[str]) -> int:
    return puzzle.depth - len(played)


def try_move(puzzle: Puzzle, played: list[str], move: str, prover: Prover | None = None) -> Step:
    """Judge the solver's ``move`` after the moves ``played`` so far (the player's and
    the replies, from the puzzle position). ValueError for a move that is not legal,
    or when it is not the solver's turn."""
    from hiveai.errors import HiveError

    board = _replay(puzzle, played)
    if board.is_game_over() or board.turn != puzzle.turn:
        raise ValueError("it is not the solver's turn in this puzzle")
    try:
        code = board.parse_move(move).code
    except HiveError as e:
        raise ValueError(f"{move!r} is not a legal move: {e}") from None
    prover = prover or make_prover()
    text = board.move_to_string(code)
    if puzzle.kind == "save":
        right = not played and code == board.parse_move(puzzle.solution[0]).code
        if right:
            return Step(True, True)
        return Step(False, refutation=_opponent_win(board, code, prover))
    left = _plies_left(puzzle, played)
    if not played:
        right = code == board.parse_move(puzzle.solution[0]).code
    else:
        right = left >= 1 and text in winning_moves(board, left, prover)
    after = board.copy()
    after.push(code)
    if not right:
        return Step(False, refutation=_escape(after, left - 1, puzzle.turn, prover))
    if after.is_game_over():
        return Step(True, True)
    canonical = board.move_history[len(board.move_history) - len(played):] if played else []
    on_line = canonical + [text] == puzzle.solution[: len(played) + 1]
    if on_line and len(puzzle.solution) > len(played) + 1:
        reply = puzzle.solution[len(played) + 1]
    else:
        reply = _best_defence(after, left - 1, puzzle.turn, prover)
    after.push(reply)
    return Step(True, after.is_game_over(), reply)


def _best_defence(board: Board, left: int, attacker: int, prover: Prover) -> str:
    """The defender's reply after which the attacker's win takes longest."""
    from hiveai.puzzles.prove import _resistance

    b = board.position_array
    best, best_len = None, -1
    for mv in board.legal_move_ints():
        length = _resistance(prover, b, mv, left, attacker)
        if length > best_len:
            best, best_len = mv, length
    return board.move_to_string(best)


def _escape(board: Board, left: int, attacker: int, prover: Prover) -> list[str]:
    """After a wrong move of a win: the defender's move that escapes the win in the
    plies left (with the opponent to move), or the line that wins anyway later."""
    if board.is_game_over():
        return []
    if left <= 0 or not prover.wins(board.position_array, left, attacker):
        if left > 0 and prover.best >= 0:
            return [board.move_to_string(prover.best)]
        return [board.move_to_string(board.legal_move_ints()[0])]
    return [_best_defence(board, left, attacker, prover)]


def _opponent_win(board: Board, move: int, prover: Prover) -> list[str]:
    """After a wrong move of a save: the opponent's fastest win (its line), or [] if none is found."""
    after = board.copy()
    after.push(move)
    if after.is_game_over():
        return []
    depth = fastest_win(after, prover, 9)
    if depth is None:
        return []
    prover.wins(after.position_array, depth, after.turn)
    first = after.move_to_string(prover.best)
    return solution_line(after, depth, first, prover)


def hint(puzzle: Puzzle, played: list[str], prover: Prover | None = None) -> str:
    """The piece to move next (``wA2``; a piece from the hand is named the same way)."""
    board = _replay(puzzle, played)
    if len(played) < len(puzzle.solution) and played == puzzle.solution[: len(played)]:
        move = puzzle.solution[len(played)]
    else:
        prover = prover or make_prover()
        moves = winning_moves(board, _plies_left(puzzle, played), prover)
        if not moves:
            raise ValueError("no move wins from here: the puzzle has gone wrong")
        move = moves[0]
    return move.split()[0]


def verify_puzzle(puzzle: Puzzle, prover: Prover | None = None) -> str | None:
    """Why ``puzzle`` is not what its line says (not a forced win, not unique, an
    illegal move, a wrong depth or id), or None when its proof holds."""
    from hiveai.errors import HiveError
    from hiveai.rules.symmetry import frame_of

    try:
        board = puzzle.board()
    except HiveError as e:
        return f"bad GameString: {e}"
    if board.is_game_over():
        return f"the game is over ({board.state})"
    key = frame_of(board.position_array).key
    if key != puzzle.id:
        return f"the id is {puzzle.id}, but the position's is {key}"
    prover = prover or make_prover()
    try:
        if puzzle.kind == "win":
            return check_win(board, puzzle.depth, puzzle.solution, prover)
        return check_save(board, puzzle.depth, puzzle.solution, prover)
    except ProofLimitError as e:
        return str(e)
