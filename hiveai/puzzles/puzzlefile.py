r"""The puzzle file: one puzzle a line, plain text, and the plain lists engine authors bring.

**Puzzle lines** have nine fields separated by tabs (MoveStrings hold spaces,
GameStrings semicolons, neither holds a tab)::

    id  GameString  solution  kind  themes  depth  nodes  rating  source

* ``id``: 16 hex digits, the position's key up to the board's twelve symmetries
  (:func:`hiveai.rules.symmetry.frame_of`): stable, and the same for two puzzles
  that are one position turned or mirrored.
* ``GameString``: the game up to the puzzle; the side to move is the solver.
* ``solution``: the solution line, MoveStrings joined by ``;``: the solver's
  moves and the best defence, ending with the surround (a save: its one move).
* ``kind``: ``win`` or ``save`` (:mod:`hiveai.puzzles.prove`).
* ``themes``: comma-separated, from :data:`hiveai.puzzles.themes.THEMES`.
* ``depth``: the proof's depth in plies; ``nodes``: the positions its proof made.
* ``rating``: the puzzle's rating (Glicko-2 scale; the shipped one is the
  engine's starting guess, :func:`hiveai.puzzles.rating.initial_rating`).
* ``source``: where it was found (``selfplay:...`` or ``records:FILE#GAME``),
  with the game's identity first, so two lines can be told to come from one game.

Lines starting with ``#`` and blank lines are ignored.

>>> line = ("62cb05b5ddf16a39\tBase;InProgress;White[8];wA1;bA1 wA1-;wA2 /wA1;bA2 bA1\\;wA3 -wA1;"
...         "bQ bA2/;wQ wA2\\;bA2 \\wA3;wQ wA1\\;bA2 bA1\\;wQ /bA2;bA3 \\bQ;wA3 bA3/;bS1 bQ-\t"
...         "wA2 bS1-;bS2 bQ\\;wA1 wA3\\\twin\tin2\t3\t3477\t850\trecords:mzinga#9:14")
>>> puzzle = parse_line(line)
>>> puzzle.kind, puzzle.solution[0], puzzle.game_type, puzzle.depth, puzzle.moves
('win', 'wA2 bS1-', 'Base', 3, 2)
>>> format_line(puzzle) == line
True

**Plain lists** (for ``hiveai puzzles solve``) have one position a line: a
GameString, a tab, the best move, and optionally a tab and the search depth
in plies. Mzinga's test files put the depth before the move (GameString, depth,
move): a middle field that is a number is read as the depth.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from hiveai.errors import HiveError

if TYPE_CHECKING:
    from hiveai.rules.board import Board

__all__ = ["FIELDS", "KINDS", "Case", "Puzzle", "PuzzleFileError", "format_line", "parse_case", "parse_line",
           "read_cases", "read_puzzles", "shipped", "shipped_path", "write_puzzles"]

FIELDS = ("id", "GameString", "solution", "kind", "themes", "depth", "nodes", "rating", "source")
KINDS = ("win", "save")
HEADER = "# hiveai puzzles: " + "\t".join(FIELDS) + " (docs/puzzles.md)"
# The shipped collection, package data in this folder.
SHIPPED = "collection.txt"
_ID = re.compile(r"[0-9a-f]{16}")
MAX_RATING = 4000


class PuzzleFileError(ValueError):
    """A puzzle file that cannot be read: ``path``, ``line`` (from 1) and ``reason``."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path, self.line, self.reason = path, line, reason


@dataclass
class Puzzle:
    """One puzzle (the fields of a line, module docstring)."""

    id: str
    game: str
    solution: list[str]
    kind: str
    themes: list[str]
    depth: int
    nodes: int
    rating: int
    source: str
    _board: Board | None = field(default=None, repr=False, compare=False)

    @property
    def game_type(self) -> str:
        """The GameTypeString (``Base+MLP``)."""
        return self.game.split(";", 1)[0]

    @property
    def moves(self) -> int:
        """N: the solver's moves a win takes, or the moves a save's threat takes."""
        from hiveai.puzzles.prove import solver_moves

        return solver_moves(self.kind, self.depth)

    @property
    def game_id(self) -> str:
        """The source's game (everything before the last ``:``): puzzles of one game share it."""
        return self.source.rsplit(":", 1)[0]

    def board(self) -> Board:
        """The puzzle position (a fresh :class:`hiveai.rules.board.Board` each call)."""
        from hiveai.rules.board import Board

        if self._board is None:
            self._board = Board(self.game)
        return self._board.copy()

    @cached_property
    def turn(self) -> int:
        """The solver's colour (0 White, 1 Black)."""
        return self.board().turn


def _int(text: str, name: str, low: int, high: int) -> int:
    if not re.fullmatch(r"-?\d+", text):
        raise ValueError(f"{name} {text!r} is not a whole number")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{name} {value} is not {low} to {high}")
    return value


def _board_of(game: str) -> Board:
    from hiveai.rules.board import Board

    try:
        board = Board(game)
    except HiveError as e:
        raise ValueError(f"bad GameString: {e}") from None
    if ";" not in game:
        raise ValueError(f"bad GameString {game!r}: a GameString has a game type, a state, a turn and moves")
    if board.is_game_over():
        raise ValueError(f"the game is over ({board.state})")
    return board


def parse_line(text: str, replay: bool = True) -> Puzzle:
    """The puzzle of one line; ValueError saying what is wrong with it.

    ``replay``: also replay the game and the solution line, refusing one whose
    moves are not legal (the proof itself is :func:`hiveai.puzzles.verify`'s).
    """
    from hiveai.puzzles.themes import THEMES

    parts = text.rstrip("\r\n").split("\t")
    if len(parts) != len(FIELDS):
        raise ValueError(f"expected {len(FIELDS)} tab-separated fields ({', '.join(FIELDS)}), found {len(parts)}")
    pid, game, solution, kind, themes, depth, nodes, rating, source = parts
    if not _ID.fullmatch(pid):
        raise ValueError(f"id {pid!r} is not 16 lowercase hex digits")
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    line = solution.split(";")
    if not solution or any(not m.strip() for m in line):
        raise ValueError(f"solution {solution!r} is not MoveStrings joined by ';'")
    names = themes.split(",") if themes else []
    unknown = [t for t in names if t not in THEMES]
    if unknown:
        raise ValueError(f"unknown theme {unknown[0]!r}")
    puzzle = Puzzle(pid, game, line, kind, names, _int(depth, "depth", 1, 9), _int(nodes, "nodes", 0, 10**15),
                    _int(rating, "rating", 0, MAX_RATING), source)
    if not source.strip():
        raise ValueError("the source is empty")
    if replay:
        board = _board_of(game)
        puzzle._board = board.copy()
        for i, move in enumerate(line, 1):
            if board.is_game_over():
                raise ValueError(f"the game is over before move {i} of the solution ({move})")
            try:
                board.push(move)
            except HiveError as e:
                raise ValueError(f"move {i} of the solution ({move}) is not legal: {e}") from None
    return puzzle


def format_line(puzzle: Puzzle) -> str:
    """The line of ``puzzle`` (the inverse of :func:`parse_line`)."""
    return "\t".join([puzzle.id, puzzle.game, ";".join(puzzle.solution), puzzle.kind, ",".join(puzzle.themes),
                      str(puzzle.depth), str(puzzle.nodes), str(puzzle.rating), puzzle.source])


def _lines(source: str | os.PathLike) -> tuple[str, list[str]]:
    path = Path(source)
    try:
        return str(path), path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise PuzzleFileError(str(path), 1, f"not UTF-8 text ({e.reason})") from None


def read_puzzles(source: str | os.PathLike, replay: bool = True) -> list[Puzzle]:
    """Every puzzle of a puzzle file; :class:`PuzzleFileError` names the first bad line
    (a malformed one, an illegal move, or an id seen before). OSError if unreadable."""
    name, lines = _lines(source)
    out: list[Puzzle] = []
    seen: dict[str, int] = {}
    for no, text in enumerate(lines, 1):
        if not text.strip() or text.startswith("#"):
            continue
        try:
            puzzle = parse_line(text, replay)
        except ValueError as e:
            raise PuzzleFileError(name, no, str(e)) from None
        if puzzle.id in seen:
            raise PuzzleFileError(name, no, f"id {puzzle.id} repeats line {seen[puzzle.id]}")
        seen[puzzle.id] = no
        out.append(puzzle)
    return out


def write_puzzles(path: str | os.PathLike, puzzles: Iterable[Puzzle]) -> None:
    """Write a puzzle file (header comment, one line each), whole or not at all."""
    from hiveai.durable import replace_atomically

    replace_atomically(path, "\n".join([HEADER, *map(format_line, puzzles)]) + "\n")


def shipped_path():
    """The shipped collection (an :mod:`importlib.resources` traversable)."""
    from importlib.resources import files

    return files("hiveai.puzzles").joinpath(SHIPPED)


def shipped(replay: bool = True) -> list[Puzzle]:
    """The puzzles that ship with hiveai."""
    from importlib.resources import as_file

    with as_file(shipped_path()) as path:
        return read_puzzles(path, replay)


_ID_START = re.compile(r"[0-9a-f]{4,16}")


def puzzle_by_id(puzzles: Iterable[Puzzle], text: str) -> Puzzle:
    """The one puzzle of ``puzzles`` whose id is, or starts with, ``text`` (4 to 16
    lowercase hex digits); a :class:`LookupError` naming the problem otherwise.
    """
    if not isinstance(text, str) or not _ID_START.fullmatch(text):
        raise LookupError(f"A puzzle id is 4 to 16 hex digits (the start of one will do), not {text!r}.")
    found = [p for p in puzzles if p.id.startswith(text)]
    if len(found) != 1:
        raise LookupError(f"No puzzle has an id starting {text}." if not found else
                          f"{len(found)} puzzles have ids starting {text}: give more of it.")
    return found[0]


@dataclass
class Case:
    """One position of a solve run: the GameString, the moves that count as solving it,
    the depth to search it at (plies, None: the run's own limit), and a name."""

    game: str
    answers: list[str]
    depth: int | None
    name: str
    game_type: str = ""
    proof_depth: int | None = None

    def __post_init__(self) -> None:
        self.game_type = self.game.split(";", 1)[0]


def parse_case(text: str) -> Case:
    """A solve case from a puzzle line or a plain-list line (module docstring); ValueError if neither."""
    parts = text.rstrip("\r\n").split("\t")
    if len(parts) == len(FIELDS):
        puzzle = parse_line(text)
        return Case(puzzle.game, [puzzle.solution[0]], None, puzzle.id, proof_depth=puzzle.depth)
    if len(parts) not in (2, 3):
        raise ValueError(f"expected a puzzle line ({len(FIELDS)} fields) or GameString<TAB>move[<TAB>depth], "
                         f"found {len(parts)} fields")
    game, move, depth = parts[0], parts[1], parts[2] if len(parts) == 3 else None
    if depth is not None and re.fullmatch(r"\d+", move.strip()) and not re.fullmatch(r"\d+", depth.strip()):
        move, depth = depth, move  # Mzinga's order: GameString, depth, move
    plies = _int(depth.strip(), "depth", 1, 60) if depth is not None else None
    board = _board_of(game)
    try:
        board.parse_move(move)
    except HiveError as e:
        raise ValueError(f"the best move {move!r} is not legal: {e}") from None
    return Case(game, [move], plies, f"{game.split(';', 1)[0]}@{board.ply}", proof_depth=plies)


def read_cases(source: str | os.PathLike) -> list[Case]:
    """The cases of a puzzle file or a plain list; :class:`PuzzleFileError` names a bad line."""
    name, lines = _lines(source)
    out = []
    for no, text in enumerate(lines, 1):
        if not text.strip() or text.startswith("#"):
            continue
        try:
            case = parse_case(text)
        except ValueError as e:
            raise PuzzleFileError(name, no, str(e)) from None
        if not case.name or "@" in case.name:
            case.name = f"{Path(name).name}:{no}"
        out.append(case)
    return out
