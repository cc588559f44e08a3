"""Hive puzzles: tactics mined from games, proven by exhaustive search, rated, and solved.

Read the shipped collection, or any puzzle file, and play through a puzzle:

>>> from hiveai import puzzles
>>> collection = puzzles.shipped()
>>> len(collection) >= 600
True
>>> puzzle = next(p for p in collection if p.kind == "win" and p.depth == 1)
>>> step = puzzles.try_move(puzzle, [], puzzle.solution[0])
>>> step.right, step.solved
(True, True)

Prove a position yourself (the proof behind every puzzle, :mod:`hiveai.puzzles.prove`):

>>> board = puzzle.board()
>>> found = puzzles.find_puzzle(board)
>>> found.kind, found.depth, found.line == puzzle.solution
('win', 1, True)
>>> puzzles.verify_puzzle(puzzle) is None
True

Write and read a file (the format: :mod:`hiveai.puzzles.puzzlefile`):

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "mine.txt")
>>> puzzles.write_puzzles(path, collection[:3])
>>> [p.id for p in puzzles.read_puzzles(path)] == [p.id for p in collection[:3]]
True

Ratings are Glicko-2 (:mod:`hiveai.puzzles.rating`): ``puzzles.attempt(player, puzzle_rating, solved)``.
Importing this package loads no numba; the proofs load it on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hiveai.puzzles.prove import MAX_MOVES as MAX_MOVES
    from hiveai.puzzles.prove import Proof as Proof
    from hiveai.puzzles.prove import ProofLimitError as ProofLimitError
    from hiveai.puzzles.prove import fastest_win as fastest_win
    from hiveai.puzzles.prove import find_puzzle as find_puzzle
    from hiveai.puzzles.prove import make_prover as make_prover
    from hiveai.puzzles.prove import winning_moves as winning_moves
    from hiveai.puzzles.puzzlefile import Case as Case
    from hiveai.puzzles.puzzlefile import Puzzle as Puzzle
    from hiveai.puzzles.puzzlefile import PuzzleFileError as PuzzleFileError
    from hiveai.puzzles.puzzlefile import format_line as format_line
    from hiveai.puzzles.puzzlefile import parse_line as parse_line
    from hiveai.puzzles.puzzlefile import read_cases as read_cases
    from hiveai.puzzles.puzzlefile import read_puzzles as read_puzzles
    from hiveai.puzzles.puzzlefile import shipped as shipped
    from hiveai.puzzles.puzzlefile import write_puzzles as write_puzzles
    from hiveai.puzzles.rating import Rating as Rating
    from hiveai.puzzles.rating import attempt as attempt
    from hiveai.puzzles.rating import initial_rating as initial_rating
    from hiveai.puzzles.solving import Step as Step
    from hiveai.puzzles.solving import hint as hint
    from hiveai.puzzles.solving import try_move as try_move
    from hiveai.puzzles.solving import verify_puzzle as verify_puzzle
    from hiveai.puzzles.themes import THEMES as THEMES
    from hiveai.puzzles.themes import theme_name as theme_name
    from hiveai.puzzles.themes import themes as themes

_LAZY = {
    "MAX_MOVES": "hiveai.puzzles.prove",
    "Proof": "hiveai.puzzles.prove",
    "ProofLimitError": "hiveai.puzzles.prove",
    "fastest_win": "hiveai.puzzles.prove",
    "find_puzzle": "hiveai.puzzles.prove",
    "make_prover": "hiveai.puzzles.prove",
    "winning_moves": "hiveai.puzzles.prove",
    "Case": "hiveai.puzzles.puzzlefile",
    "Puzzle": "hiveai.puzzles.puzzlefile",
    "PuzzleFileError": "hiveai.puzzles.puzzlefile",
    "format_line": "hiveai.puzzles.puzzlefile",
    "parse_line": "hiveai.puzzles.puzzlefile",
    "read_cases": "hiveai.puzzles.puzzlefile",
    "read_puzzles": "hiveai.puzzles.puzzlefile",
    "shipped": "hiveai.puzzles.puzzlefile",
    "write_puzzles": "hiveai.puzzles.puzzlefile",
    "Rating": "hiveai.puzzles.rating",
    "attempt": "hiveai.puzzles.rating",
    "initial_rating": "hiveai.puzzles.rating",
    "Step": "hiveai.puzzles.solving",
    "hint": "hiveai.puzzles.solving",
    "try_move": "hiveai.puzzles.solving",
    "verify_puzzle": "hiveai.puzzles.solving",
    "THEMES": "hiveai.puzzles.themes",
    "theme_name": "hiveai.puzzles.themes",
    "themes": "hiveai.puzzles.themes",
}

__all__ = sorted(_LAZY)

if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        import importlib

        if name in _LAZY:
            return getattr(importlib.import_module(_LAZY[name]), name)
        raise AttributeError(f"module 'hiveai.puzzles' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
