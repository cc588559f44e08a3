"""UHP strings: GameString, GameTypeString, TurnString and MoveString.

Lenient on input (any letter case, extra spaces, any valid reference piece
and side, a reference to the moving piece itself as nokamute writes them)
except where Mzinga is strict (a position that holds a piece), canonical on
output (what Mzinga writes, so MzingaViewer can replay it).
Everything here is plain Python reading the position array; no kernels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from hiveai.rules.bug import (
    COLOUR_NAMES,
    MAX_STACK,
    game_type_string,
    parse_game_type,
    parse_piece,
    piece_names,
)
from hiveai.errors import GameStringError, GameTypeError, MoveStringError
from hiveai.rules.hex_grid import CELL_MASK, NE, NW, ORIGIN, SE, SW, E, W, neighbour
from hiveai.rules.position import GAME_TYPE, HEIGHT, MOVE_PIECE_SHIFT, PASS, PLY, POS, STACK, TOP

# UHP's BoardStateStrings, and those that end a game.
STATES = ("NotStarted", "InProgress", "Draw", "WhiteWins", "BlackWins")
FINISHED = frozenset({"WhiteWins", "BlackWins", "Draw"})
_STATE_BY_LOWER = {s.lower(): s for s in STATES}

# Where the moving piece lands relative to the reference R, by the separator.
_PREFIX_DIR = {"-": W, "/": SW, "\\": NW}
_SUFFIX_DIR = {"-": E, "/": NE, "\\": SE}
_REF_RE = re.compile(r"^([-/\\]?)([A-Za-z]{2}\d?)([-/\\]?)$")
_TURN_RE = re.compile(r"^(white|black)\[(\d+)\]$", re.IGNORECASE)


def turn_string(ply: int) -> str:
    """``White[n]`` / ``Black[n]``: side to move and its turn number."""
    return f"{COLOUR_NAMES[ply & 1]}[{ply // 2 + 1}]"


def _top_without(b: np.ndarray, cell: int, mover: int) -> int:
    """Top piece of ``cell`` as if ``mover`` had been lifted off the board."""
    h = int(b[HEIGHT + cell])
    if h and int(b[TOP + cell]) == mover:
        h -= 1
    return int(b[STACK + cell * MAX_STACK + h - 1]) if h else -1


def move_to_string(b: np.ndarray, mv: int) -> str:
    """Canonical MoveString of ``mv`` in position ``b`` (before it is played).

    Mzinga's choice of reference: lift the mover, then take the first occupied
    neighbour of the destination in the order NW, NE, E, SE, SW, W; a climb
    names the top piece of the destination stack instead.
    """
    if mv == PASS:
        return "pass"
    piece, dest = mv >> MOVE_PIECE_SHIFT, mv & CELL_MASK
    names = piece_names(int(b[GAME_TYPE]))
    name = names[piece]
    if int(b[PLY]) == 0:
        return name
    top = _top_without(b, dest, piece)
    if top >= 0:
        return f"{name} {names[top]}"
    for d in (NW, NE, E, SE, SW, W):
        ref = _top_without(b, neighbour(dest, d), piece)
        if ref >= 0:
            r = names[ref]
            # dest lies in direction d+3 of the reference.
            side = (d + 3) % 6
            if side == NW:
                return f"{name} \\{r}"
            if side == NE:
                return f"{name} {r}/"
            if side == E:
                return f"{name} {r}-"
            if side == SE:
                return f"{name} {r}\\"
            if side == SW:
                return f"{name} /{r}"
            return f"{name} -{r}"
    raise MoveStringError(f"Move {name} has no neighbour to name its destination.")


def parse_move_string(b: np.ndarray, text: str) -> tuple[int, bool]:
    """Decode a MoveString to ``(move int, occupied)``, without checking legality.

    ``occupied`` is True when the text names a position that holds a piece,
    which no legal move can reach (Mzinga rejects these, so we do too): a
    separator names a ground-level cell, so ``bB1 -bQ`` must not land on a
    piece left of bQ (a move onto a stack names the top piece bare, ``bB1
    bS1``); and a bare name means "on top of that piece", so it must be the
    top of its stack. Anything else is lenient: any reference and side for
    the same empty cell, the moving piece as its own reference, any case
    and spacing.

    Raises MoveStringError for text that does not parse, an unknown piece, or
    a reference piece that is not on the board.
    """
    s = text.strip()
    if s.lower() == "pass":
        return PASS, False
    tokens = s.split()
    if not tokens or len(tokens) > 2:
        raise MoveStringError(f'Unable to parse move "{text.strip()}".')
    gt = int(b[GAME_TYPE])
    piece = parse_piece(tokens[0], gt)
    if piece is None:
        raise MoveStringError(f'Unable to parse move "{text.strip()}": unknown piece "{tokens[0]}".')
    if len(tokens) == 1:
        if int(b[PLY]) == 0:
            return (piece << MOVE_PIECE_SHIFT) | ORIGIN, False
        raise MoveStringError(
            f'Unable to parse move "{text.strip()}": only the first move of the game may omit the position.'
        )
    m = _REF_RE.match(tokens[1])
    if not m or (m.group(1) and m.group(3)):
        raise MoveStringError(f'Unable to parse move "{text.strip()}": bad position "{tokens[1]}".')
    ref = parse_piece(m.group(2), gt)
    if ref is None:
        raise MoveStringError(f'Unable to parse move "{text.strip()}": unknown piece "{m.group(2)}".')
    ref_cell = int(b[POS + ref])
    if ref_cell < 0:
        raise MoveStringError(
            f'Invalid move "{text.strip()}": the reference piece {piece_names(gt)[ref]} is not on the board.'
        )
    if m.group(1):
        dest = neighbour(ref_cell, _PREFIX_DIR[m.group(1)])
    elif m.group(3):
        dest = neighbour(ref_cell, _SUFFIX_DIR[m.group(3)])
    else:
        return (piece << MOVE_PIECE_SHIFT) | ref_cell, int(b[TOP + ref_cell]) != ref
    return (piece << MOVE_PIECE_SHIFT) | dest, int(b[HEIGHT + dest]) > 0


def parse_game_type_string(text: str) -> int:
    """Game type bits; raises GameTypeError naming the bad string."""
    gt = parse_game_type(text)
    if gt is None:
        raise GameTypeError(
            f'Unknown game type "{text.strip()}". Expected Base optionally followed by +M, +L, +P '
            "(e.g. Base+MLP), or Critters."
        )
    return gt


def parse_state(text: str) -> str | None:
    """The BoardStateString ``text`` names, in any letter case (``"draw"`` -> ``"Draw"``), or None."""
    return _STATE_BY_LOWER.get(text.strip().lower())


@dataclass(frozen=True)
class GameStringFields:
    """The fields of a GameString as written, with the state and turn checked.

    ``state`` is canonical (``Draw``, not ``draw``); ``ply`` is the ply the
    turn stands for (``White[1]`` is 0, ``Black[1]`` is 1); ``moves`` are the
    MoveStrings, not replayed. Read with ``check=False`` (see
    :func:`read_game_string`), every field is exactly as written and ``ply`` is
    None when the turn is malformed.
    """

    game_type: str
    state: str
    turn: str
    ply: int | None
    moves: list[str]


def read_game_string(text: str, *, check: bool = True) -> GameStringFields:
    """Split a GameString into its fields; raises GameStringError if the state or turn is malformed.

    The one reader of GameString fields: the move list is not replayed and
    the game type is not checked here (see :func:`split_game_string`).

    With ``check=False`` nothing is checked or made canonical and nothing is
    raised: each field is as written (only the text's two ends are trimmed; a
    missing field is ``""``), for
    a caller that judges what someone else wrote (``hiveai uhp-check`` compares
    an engine's reply field by field).

    >>> read_game_string(" Base ; draw ; Black[2] ; wS1 ; bS1 wS1- ; wQ -wS1")
    GameStringFields(game_type='Base', state='Draw', turn='Black[2]', ply=3, moves=['wS1', 'bS1 wS1-', 'wQ -wS1'])
    >>> read_game_string("Base;draw ;Blak[2];wS1", check=False)
    GameStringFields(game_type='Base', state='draw ', turn='Blak[2]', ply=None, moves=['wS1'])
    >>> read_game_string("Base", check=False)
    GameStringFields(game_type='Base', state='', turn='', ply=None, moves=[])
    """
    if not check:
        fields = text.strip().split(";")
        fields += [""] * (3 - len(fields))
        turn = _TURN_RE.match(fields[2])
        return GameStringFields(fields[0], fields[1], fields[2], _turn_ply(turn) if turn else None, fields[3:])
    fields = [f.strip() for f in text.strip().split(";")]
    if len(fields) < 3:
        raise GameStringError(
            f'Malformed GameString "{text.strip()}": expected GameType;State;Turn[;Move...].'
        )
    state = parse_state(fields[1])
    if state is None:
        raise GameStringError(f'Malformed GameString: unknown game state "{fields[1]}".')
    turn = _TURN_RE.match(fields[2])
    if not turn:
        raise GameStringError(f'Malformed GameString: bad turn "{fields[2]}" (expected e.g. White[1]).')
    return GameStringFields(fields[0], state, fields[2], _turn_ply(turn), fields[3:])


def _turn_ply(turn: re.Match[str]) -> int:
    """The ply a matched TurnString stands for (``White[1]`` is 0, ``Black[1]`` is 1)."""
    return 2 * (int(turn.group(2)) - 1) + (turn.group(1).lower() == "black")


def split_game_string(text: str) -> tuple[int, list[str]]:
    """Game type and move list of a GameString.

    The state and turn fields must be well formed but are ignored, as Mzinga
    does: the caller recomputes them by replaying the moves (see
    :func:`read_game_string` for what they declare).
    """
    fields = read_game_string(text)
    gt = parse_game_type_string(fields.game_type)
    if any(not m for m in fields.moves):
        raise GameStringError("Malformed GameString: empty move (a trailing or doubled ';').")
    return gt, fields.moves


__all__ = [
    "FINISHED",
    "STATES",
    "GameStringFields",
    "game_type_string",
    "move_to_string",
    "parse_game_type_string",
    "parse_move_string",
    "parse_state",
    "read_game_string",
    "split_game_string",
    "turn_string",
]
