"""Themes of a puzzle, read off its solution line.

A theme names what the solver does, so players can pick what to practise:

* ``in1`` ... ``in4``: a win in that many of the solver's moves; ``defence``: a save.
* ``beetle-on-queen``: a solver's move climbs onto the enemy queen (a beetle, or a
  mosquito moving as one), covering it so it cannot move.
* ``beetle-drop``: a solver's piece comes down from the top of the hive into a
  cell next to the enemy queen.
* ``pillbug-throw``: a solver's move is a pillbug power (the pillbug's, or a
  mosquito's next to a pillbug): a piece lifted over the thrower.
* ``pin``: the first move leaves an enemy piece that could move unable to (the
  One Hive rule, or a piece climbed on top of it).
* ``quiet-move``: the first move takes no cell next to the enemy queen and
  throws nothing: it prepares.
* ``self-surround``: the defender's last move is forced to surround its own queen.
* ``<bug>-finish``: the bug that takes the last cell (``ant-finish``,
  ``grasshopper-finish``, ``ladybug-finish``, ...), ``placement-finish`` when a
  piece placed from the hand does.
* ``queen-escape``: a save by moving the queen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hiveai.rules.bug import BEETLE, EXP_PILLBUG, KIND_NAMES, MOSQUITO, PIECES_PER_COLOUR, kind_of
from hiveai.rules.hex_grid import CELL_MASK, DIR_OFFSET

if TYPE_CHECKING:
    import numpy as np

    from hiveai.puzzles.prove import Proof
    from hiveai.rules.board import Board

__all__ = ["THEMES", "theme_name", "themes"]

#: Every theme a puzzle may carry (bugs' finishes included).
# Plain Python up to here: hiveai.puzzles.puzzlefile reads THEMES without loading the rules kernels.
THEMES = ("in1", "in2", "in3", "in4", "defence", "beetle-on-queen", "beetle-drop", "pillbug-throw", "pin",
          "quiet-move", "self-surround", "queen-escape", "placement-finish",
          *(f"{name.lower()}-finish" for name in KIND_NAMES))
# What a player reads for each theme (the board's theme filter); a bug's finish is named after the bug.
_NAMES = {"in1": "Surround the queen in 1", "in2": "Surround the queen in 2", "in3": "Surround the queen in 3",
          "in4": "Surround the queen in 4", "defence": "Defence: the one saving move",
          "beetle-on-queen": "Beetle on the queen", "beetle-drop": "Beetle drop", "pillbug-throw": "Pillbug throw",
          "pin": "Pin", "quiet-move": "Quiet first move", "self-surround": "Forced self-surround",
          "queen-escape": "Queen escape", "placement-finish": "Finish from the hand"}


def theme_name(theme: str) -> str:
    """A theme as a player reads it (KeyError for a theme not in :data:`THEMES`).

    >>> theme_name("in2"), theme_name("pillbug-throw"), theme_name("grasshopper-finish")
    ('Surround the queen in 2', 'Pillbug throw', 'Grasshopper finish')
    """
    if theme not in THEMES:
        raise KeyError(theme)
    return _NAMES.get(theme) or theme.replace("-", " ").capitalize()


def _ring(cell: int) -> set[int]:
    return {(cell + o) & CELL_MASK for o in DIR_OFFSET}


def _throws(board: Board) -> set[int]:
    """The side to move's moves that only a pillbug power makes legal."""
    from hiveai.rules.position import GAME_TYPE, LEVEL, MOVE_PIECE_SHIFT, PASS, POS, do_move  # loads numba

    if not board.game_type & EXP_PILLBUG:
        return set()
    plain = board.copy()
    b = plain.position_array
    b[GAME_TYPE] &= ~EXP_PILLBUG
    from hiveai.rules.movegen import MAX_MOVES, legal_moves, new_workspace
    import numpy as np

    buf = np.empty(MAX_MOVES, dtype=np.int32)
    n = legal_moves(b, new_workspace(), buf, 0)
    without = {int(m) for m in buf[:n]}
    return {m for m in board.legal_move_ints() if m != PASS and b[POS + (m >> MOVE_PIECE_SHIFT)] >= 0
            and m not in without}


def _mobile_pieces(b: np.ndarray, side_to_move_passes: bool) -> set[int]:
    """Pieces the side to move (after a pass, if asked: the other side) could move."""
    from hiveai.rules.position import GAME_TYPE, LEVEL, MOVE_PIECE_SHIFT, PASS, POS, do_move  # loads numba

    from hiveai.rules.movegen import MAX_MOVES, legal_moves, new_workspace
    import numpy as np

    b = b.copy()
    if side_to_move_passes:
        do_move(b, PASS)
    buf = np.empty(MAX_MOVES, dtype=np.int32)
    n = legal_moves(b, new_workspace(), buf, 0)
    return {int(m) >> MOVE_PIECE_SHIFT for m in buf[:n] if m != PASS and b[POS + (int(m) >> MOVE_PIECE_SHIFT)] >= 0}


def _pins(board: Board, move: int) -> bool:
    """Whether ``move`` leaves an enemy piece that could move unable to."""
    from hiveai.rules.position import GAME_TYPE, LEVEL, MOVE_PIECE_SHIFT, PASS, POS, do_move  # loads numba

    from hiveai.rules.position import IN_PROGRESS, game_result

    b = board.position_array
    enemy = 1 - board.turn
    before = {p for p in _mobile_pieces(b, True) if p // PIECES_PER_COLOUR == enemy}
    do_move(b, move)
    if int(game_result(b)) != IN_PROGRESS:
        return False  # the game is over: nothing is pinned, it is won
    after = {p for p in _mobile_pieces(b, False) if p // PIECES_PER_COLOUR == enemy}
    return bool(before - after)


def _kind(board: Board, move: int) -> int:
    from hiveai.rules.position import GAME_TYPE, LEVEL, MOVE_PIECE_SHIFT, PASS, POS, do_move  # loads numba

    return kind_of(move >> MOVE_PIECE_SHIFT, board.game_type)


def themes(board: Board, proof: Proof) -> list[str]:
    """The themes of ``proof`` (a :class:`hiveai.puzzles.prove.Proof`) on ``board``, in :data:`THEMES` order."""
    from hiveai.rules.position import GAME_TYPE, LEVEL, MOVE_PIECE_SHIFT, PASS, POS, do_move  # loads numba

    found: set[str] = set()
    me = board.turn
    enemy_queen = (1 - me) * PIECES_PER_COLOUR
    work = board.copy()
    first = work.parse_move(proof.line[0]).code
    if proof.kind == "save":
        found.add("defence")
        if first >> MOVE_PIECE_SHIFT == me * PIECES_PER_COLOUR:
            found.add("queen-escape")
        if first in _throws(work):
            found.add("pillbug-throw")
        if _pins(work, first):
            found.add("pin")
        return [t for t in THEMES if t in found]
    found.add(f"in{proof.moves}")
    if _pins(work, first):
        found.add("pin")
    for i, text in enumerate(proof.line):
        mv = work.parse_move(text).code
        if work.turn == me and mv != PASS:
            b = work.position_array
            piece = mv >> MOVE_PIECE_SHIFT
            dest = mv & CELL_MASK
            queen_cell = int(b[POS + enemy_queen])
            src = int(b[POS + piece])
            thrown = mv in _throws(work)
            if thrown:
                found.add("pillbug-throw")
            elif dest == queen_cell and _kind(work, mv) in (BEETLE, MOSQUITO):
                found.add("beetle-on-queen")
            elif src >= 0 and int(b[LEVEL + piece]) > 0 and dest in _ring(queen_cell):
                found.add("beetle-drop")
            if i == 0 and not thrown and dest != queen_cell and dest not in _ring(queen_cell):
                found.add("quiet-move")
            if i == len(proof.line) - 1:
                if src < 0:
                    found.add("placement-finish")
                elif not thrown:
                    found.add(f"{KIND_NAMES[_kind(work, mv)].lower()}-finish")
        elif i == len(proof.line) - 1:
            found.add("self-surround")
        work.push(mv)
    return [t for t in THEMES if t in found]

