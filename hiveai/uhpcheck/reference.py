"""The yardstick: hiveai's rules, and the move sets and illegal moves shipped with uhp-check.

hiveai's move generator (:class:`hiveai.rules.board.Board`) is the reference
for the engine's answers. Move sets are compared as (piece, destination)
pairs, never as text, since engines may name a destination by any
neighbouring piece; GameStrings are read with the rules layer's
:func:`hiveai.rules.notation.read_game_string`, field by field as written.

The two data files beside this module come from Mzinga's tests (MIT):
``uhpcheck_validmoves.tsv`` (GameString, then the validmoves line) and
``uhpcheck_illegal.tsv`` (``## rule`` headings, then GameString and MoveString).

The rules layer loads numba; it is imported inside the functions, so that
importing the checker stays light.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from importlib import resources
from typing import Callable, Sequence

# The capability flags UHP defines, and the letter each adds to a GameTypeString.
EXPANSIONS = {"Mosquito": "M", "Ladybug": "L", "Pillbug": "P"}


def board_from(text: str):
    """A :class:`~hiveai.rules.board.Board` from a GameTypeString or GameString."""
    from hiveai.rules.board import Board
    return Board.parse(text)


def game_type_of(game: str) -> str:
    """The GameTypeString a GameString starts with, as written.

    >>> game_type_of("Base+MLP;InProgress;White[2];wS1;bS1 wS1-")
    'Base+MLP'
    """
    from hiveai.rules.notation import read_game_string
    return read_game_string(game, check=False).game_type


def move_key(board, text: str) -> int:
    """The (piece, destination) of MoveString ``text`` on ``board`` as a move int, legal or not.

    Raises :class:`hiveai.errors.HiveError` if it does not name a move at all.

    >>> from hiveai.rules.board import Board
    >>> b = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
    >>> move_key(b, "wQ -wS1") == move_key(b, "WQ  bS1-") - 0   # not the same cell
    False
    >>> move_key(b, "wQ -wS1") == b.parse_move("wq -WS1").code
    True
    """
    return move_keyer(board)(text)


def move_keyer(board) -> Callable[[str], int]:
    """:func:`move_key` for many MoveStrings on one position (the position is read once)."""
    from hiveai.rules.notation import parse_move_string
    position = board.position_array
    return lambda text: parse_move_string(position, text)[0]


@dataclass
class SetDifference:
    """What ``validmoves`` gave against hiveai's moves: MoveStrings each side lacks."""

    game: str
    engine_lacks: list[str]
    engine_extra: list[str]

    def __bool__(self) -> bool:
        return bool(self.engine_lacks or self.engine_extra)

    def signature(self) -> tuple[frozenset[str], frozenset[str]]:
        """The pieces involved on each side: a shrink keeps the same ones."""
        return (frozenset(m.split()[0] for m in self.engine_lacks),
                frozenset(m.split()[0] for m in self.engine_extra))

    def describe(self, reference: str = "hiveai") -> list[str]:
        """Report lines: the GameString and the moves each side lacks."""
        lines = [f"game: {self.game}"]
        if self.engine_lacks:
            lines.append(f"{reference} has, the engine lacks: {';'.join(sorted(self.engine_lacks))}")
        if self.engine_extra:
            lines.append(f"the engine has, {reference} lacks: {';'.join(sorted(self.engine_extra))}")
        return lines


def compare_moves(board, line: str, reference: dict[int, str] | None = None) -> SetDifference:
    """Compare a ``validmoves`` line with ``reference`` ({move int: MoveString}, by default
    hiveai's legal moves on ``board``) as sets of (piece, destination).

    >>> from hiveai.rules.board import Board
    >>> b = Board("Base")
    >>> d = compare_moves(b, "wS1;wB1;wG1;wQ")
    >>> d.engine_lacks, d.engine_extra
    (['wA1'], ['wQ'])
    """
    if reference is None:
        reference = {m.code: str(m) for m in board.legal_moves}
    got: dict[int, str] = {}
    unparsed: list[str] = []
    key = move_keyer(board)
    for text in (t.strip() for t in line.split(";")):
        if not text:
            continue
        try:
            got[key(text)] = text
        except Exception:  # noqa: BLE001 - any MoveString hiveai cannot read is the engine's extra
            unparsed.append(f"{text} (names no move)")
    lacks = [reference[k] for k in reference if k not in got]
    extra = [got[k] for k in got if k not in reference] + unparsed
    return SetDifference(board.game_string(), lacks, extra)


def load_reference_positions() -> list[tuple[str, str]]:
    """The shipped reference move sets: (GameString, validmoves line) pairs, from Mzinga's tests."""
    text = resources.files("hiveai.uhpcheck").joinpath("uhpcheck_validmoves.tsv").read_text(encoding="utf-8")
    return [tuple(ln.split("\t", 1)) for ln in text.splitlines()  # type: ignore[misc]
            if ln.strip() and not ln.startswith("#")]


def load_illegal_moves() -> list[tuple[str, str, str]]:
    """The catalogue of illegal moves: (rule, GameString, MoveString) triples."""
    text = resources.files("hiveai.uhpcheck").joinpath("uhpcheck_illegal.tsv").read_text(encoding="utf-8")
    out, rule = [], ""
    for ln in text.splitlines():
        if ln.startswith("## "):
            rule = ln[3:].strip()
        elif ln.strip() and not ln.startswith("#"):
            game, move = ln.split("\t")
            out.append((rule, game, move))
    return out


def game_string_problem(reply: str, board, before=None) -> str | None:
    """Why the engine's GameString ``reply`` does not describe ``board``'s game, or None.

    Its fields are compared as written (``inprogress`` is not ``InProgress``). With
    ``before`` (the board one ply earlier, whose moves were checked already) only the
    last move is compared.

    >>> from hiveai.rules.board import Board
    >>> game_string_problem("Base;inprogress;Black[1];wS1", Board.parse("Base;InProgress;Black[1];wS1"))
    'inprogress;Black[1], expected InProgress;Black[1]'
    """
    from hiveai.rules.notation import read_game_string
    fields = read_game_string(reply, check=False)
    gtype, state, turn, moves = fields.game_type, fields.state, fields.turn, fields.moves
    if gtype != board.game_type_string:
        return f"game type {gtype!r}, expected {board.game_type_string!r}"
    if state != board.state or turn != board.turn_string:
        return f"{state};{turn}, expected {board.state};{board.turn_string}"
    if len(moves) != board.ply:
        return f"{len(moves)} moves, expected {board.ply}"
    if before is not None:
        try:
            same = move_key(before, moves[-1]) == board.peek().code
        except Exception as e:  # noqa: BLE001
            return f"move {moves[-1]!r} does not parse: {e}"
        return None if same else f"move {moves[-1]!r} is not {board.peek()}"
    replay = board_from(board.game_type_string)
    for mine, theirs in zip(board.move_stack, moves):
        try:
            if move_key(replay, theirs) != mine.code:
                return f"move {theirs!r} is not {mine}"
            replay.push(mine)
        except Exception as e:  # noqa: BLE001
            return f"move {theirs!r} does not parse: {e}"
    return None


def game_types(capabilities: Sequence[str]) -> list[str]:
    """The GameTypeStrings an engine's capability line allows, Base first.

    >>> game_types(["Mosquito", "Pillbug"])
    ['Base', 'Base+M', 'Base+P', 'Base+MP']
    """
    letters = [EXPANSIONS[c] for c in EXPANSIONS if c.lower() in {x.lower() for x in capabilities}]
    out = ["Base"]
    for n in range(1, len(letters) + 1):
        out += ["Base+" + "".join(combo) for combo in itertools.combinations(letters, n)]
    return out


def sample_board(game_type: str = "Base", plies: int = 6, seed: int = 0):
    """A position a few random plies into a game (not over)."""
    rng = random.Random(seed)
    while True:
        b = board_from(game_type)
        for _ in range(plies):
            b.push(rng.choice(b.legal_moves))
            if b.is_game_over():
                break
        if not b.is_game_over():
            return b
