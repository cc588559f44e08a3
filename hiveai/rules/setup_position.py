r"""Set-up positions: a board built from where the pieces stand, not from a move list.

A GameString is a move list from the empty board; a set-up names each
piece's cell instead, for a position from a book, a puzzle or a game played
elsewhere. :class:`Setup` holds one and checks that a real game could reach
it before :meth:`Setup.board` builds it: pieces of the game type, at most as
many of a kind as the game has, the numbered ones out in number order, one
connected hive, only climbers above the ground, each queen down by its
side's fourth turn, and turn counts that fit the pieces.

Its text form, one ``;``-separated line: the GameTypeString, the side to move
(``White``, or a TurnString such as ``Black[5]`` to give the turn number too),
then one ``PIECE@Q,R`` per piece, at axial cell ``(Q, R)`` (:class:`hiveai.rules.cell.Cell`);
pieces listed on one cell stack in the order listed, bottom first.

>>> Setup.parse("Base+M;Black;wS1@0,0;bS1@1,0;wQ@-1,0;bQ@2,0;wB1@-1,1;bB1@3,0;wB1@0,0").problem()
'wB1 is listed twice.'
>>> setup = Setup.parse("Base+M;Black[4];wS1@0,0;bS1@1,0;wQ@-1,0;bQ@2,0;wB1@-1,1;bB1@3,0;wM@0,0")
>>> setup.problem()
'wM is on top of a stack, so it has moved: that takes a turn more than White has had (Black[4] gives White 4 turns, and its 4 pieces on the board and 1 moved take 5).'
>>> board = Setup.parse("Base+M;White;wS1@0,0;bS1@1,0;wQ@-1,0;bQ@2,0;wB1@-1,1;bB1@3,0;wM@0,0").board()
>>> board.turn_string, board.stack_at(Cell(0, 0)), board.setup
('White[6]', [Piece('wS1'), Piece('wM')], 'Base+M;White[6];wQ@-1,0;wS1@0,0;wM@0,0;bS1@1,0;bQ@2,0;bB1@3,0;wB1@-1,1')
>>> board.play("wB1 wQ"), board.play("bB1 bQ")
(<Move wB1 wQ>, <Move bB1 bQ>)

Refusals name the problem:

>>> Setup.parse("Base;White;wA1@0,0;wA2@1,0;wA3@2,0;wA4@3,0").problem()
'wA4 is not a piece of Base (it has 3 white Ants).'
>>> Setup.parse("Base;White;wQ@0,0;bQ@1,0;wS1@3,0;bS1@-1,0").problem()
'The hive is in 2 parts: every piece must touch the hive (the One Hive rule); wS1 at (3, 0) is cut off.'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hiveai.rules.board import Board
from hiveai.rules.bug import (
    BEETLE,
    BLACK,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    CRITTERS,
    KIND_LETTERS,
    KIND_NAMES,
    MAX_STACK,
    MOSQUITO,
    PIECES_PER_COLOUR,
    WHITE,
    colour_of,
    game_type_string,
    kind_count,
    kind_of,
    parse_piece,
    piece_in_game,
    piece_names,
)
from hiveai.rules.cell import Cell, cell_index
from hiveai.errors import HiveError, SetupError
from hiveai.rules.notation import parse_game_type_string, turn_string
from hiveai.rules.position import HASH, IN_PROGRESS, PLY, _drop, recompute_hash
from hiveai.text import plural

__all__ = ["Setup", "SetupError", "set_up"]

# A queen must be down by its side's fourth turn (the rules' "by your fourth turn").
QUEEN_BY_TURN = 4


@dataclass
class Setup:
    """A position given by where the pieces stand: ``pieces`` as (PieceString, cell, level),
    in listing order; a level None stacks the piece on top of what is listed before it there.

    ``turn`` is the colour to move; ``turn_number`` that side's turn number (``Black[5]``: 5),
    None for the smallest the pieces allow.
    """

    game_type: int
    pieces: list[tuple[str, Cell, int | None]] = field(default_factory=list)
    turn: int = WHITE
    turn_number: int | None = None

    # --- text ------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Setup:
        """A set-up from its text form (the module docstring); SetupError if it is malformed.
        What it says is checked by :meth:`board` and :meth:`problem`."""
        fields = [f.strip() for f in text.strip().split(";")]
        if len(fields) < 2:
            raise SetupError(f'Malformed set-up "{text.strip()}": expected GameType;Turn;PIECE@Q,R;...')
        try:
            gt = parse_game_type_string(fields[0])
        except HiveError as e:
            raise SetupError(str(e)) from None
        turn, number = _parse_turn(fields[1])
        pieces = []
        for entry in fields[2:]:
            if not entry:
                continue
            name, at, where = entry.partition("@")
            numbers = where.split(",")
            try:
                if not at or len(numbers) not in (2, 3):
                    raise ValueError
                q, r, *level = (int(n) for n in numbers)
            except ValueError:
                raise SetupError(f'Malformed set-up entry "{entry}": expected PIECE@Q,R (e.g. wQ@0,0) '
                                 "or PIECE@Q,R,LEVEL.") from None
            pieces.append((name.strip(), Cell(q, r), level[0] if level else None))
        return cls(gt, pieces, turn, number)

    def __str__(self) -> str:
        """The canonical text: the turn number written out, stacks bottom first, cells by row then column."""
        stacks = self.stacks()
        ply = self.ply()
        entries = [f"{p}@{c.q},{c.r}" for c in sorted(stacks, key=lambda c: (c.r, c.q)) for p in stacks[c]]
        return ";".join([game_type_string(self.game_type), turn_string(ply), *entries])

    @classmethod
    def from_board(cls, board: Board) -> Setup:
        """The set-up of ``board``'s position (to edit it, or to write it down).

        >>> print(Setup.from_board(Board("Base;InProgress;White[2];wS1;bS1 wS1-")))
        Base;White[2];wS1@0,0;bS1@1,0
        """
        pieces = [(str(p), cell, None) for cell, stack in board.pieces().items() for p in stack]
        return cls(board.game_type, pieces, board.turn, board.ply // 2 + 1)

    # --- checks ----------------------------------------------------------------------

    def named(self) -> list[tuple[int, Cell, int | None]]:
        """The pieces as piece ids; a bare kind (``wA``) takes the lowest number not listed.
        SetupError for a name that is no piece of the game, or one listed twice."""
        gt = self.game_type
        names = piece_names(gt)
        listed: set[int] = set()
        out: list[tuple[int, Cell, int | None]] = []
        bare = []
        for name, cell, level in self.pieces:
            piece = parse_piece(name, gt)
            if piece is None and len(name) == 2 and name[0].lower() in COLOUR_LETTERS:
                bare.append(len(out))
                out.append((-1, cell, level))
                continue
            if piece is None or not piece_in_game(piece, gt):
                raise SetupError(_no_such_piece(name, gt))
            if piece in listed:
                raise SetupError(f"{names[piece]} is listed twice.")
            listed.add(piece)
            out.append((piece, cell, level))
        for i in bare:
            name = self.pieces[i][0]
            colour = COLOUR_LETTERS.index(name[0].lower())
            free = [p for p in range(colour * PIECES_PER_COLOUR, (colour + 1) * PIECES_PER_COLOUR)
                    if piece_in_game(p, gt) and p not in listed and names[p][1].lower() == name[1].lower()]
            if not free:
                raise SetupError(_no_such_piece(name, gt, more=True))
            listed.add(free[0])
            out[i] = (free[0], out[i][1], out[i][2])
        return out

    def stacks(self) -> dict[Cell, list[str]]:
        """Cell -> PieceStrings bottom to top (levels checked: SetupError for a piece on nothing)."""
        names = piece_names(self.game_type)
        stacks: dict[Cell, list[str]] = {}
        for piece, cell, level in self.named():
            stack = stacks.setdefault(cell, [])
            if level is not None and level != len(stack):
                raise SetupError(f"{names[piece]} is given level {level} at {tuple(cell)}, but the stack there is "
                                 f"{len(stack)} high: a piece cannot be stacked on nothing.")
            stack.append(names[piece])
            if len(stack) > MAX_STACK:
                raise SetupError(f"The stack at {tuple(cell)} is more than {MAX_STACK} high; no stack can be.")
        return stacks

    def ply(self) -> int:
        """The ply of the position: from ``turn_number``, else the least the pieces allow."""
        if self.turn_number is not None:
            return 2 * (self.turn_number - 1) + self.turn
        need = self._turns_needed()
        if self.turn == WHITE:
            return 2 * max(need)
        return 2 * max(need[WHITE] - 1, need[BLACK]) + 1

    def _turns_needed(self) -> tuple[int, int]:
        """Each side's fewest turns: one per piece on the board, one more per piece off the ground
        (a climber got there by moving)."""
        need = [0, 0]
        for cell, stack in self.stacks().items():
            for level, name in enumerate(stack):
                need[colour_of(parse_piece(name, self.game_type))] += 1 + (level > 0)
        return need[WHITE], need[BLACK]

    def problem(self) -> str | None:
        """Why no game could reach this position, or None if one could."""
        try:
            self.board()
        except SetupError as e:
            return str(e)
        return None

    def sketch(self) -> Board:
        """The pieces on a board, unchecked beyond their names and levels: a picture of a half-made
        set-up (an editor's). Play from :meth:`board` only."""
        gt = self.game_type
        board = Board(game_type_string(gt))
        b = board._b
        for cell, stack in self.stacks().items():
            for name in stack:
                _drop(b, parse_piece(name, gt), cell_index(cell))
        b[PLY] = max(0, self.ply())
        b[HASH] = recompute_hash(b)  # the pieces' terms and the side to move's
        board._changed()
        return board

    def board(self) -> Board:
        """The position as a :class:`~hiveai.rules.board.Board` (no moves played yet; its :attr:`~Board.setup`
        is this set-up's text); SetupError naming the problem if no game could reach it."""
        gt = self.game_type
        stacks = self.stacks()
        pieces = {parse_piece(n, gt): (cell, level) for cell, stack in stacks.items() for level, n in enumerate(stack)}
        _check_numbering(pieces, gt)
        _check_stacks(stacks, gt)
        _check_connected(stacks)
        if self.turn_number is not None and self.turn_number < 1:
            raise SetupError(f"A turn number starts at 1, not {self.turn_number}.")
        self._check_turns(pieces, self.ply())
        board = self.sketch()
        if board.result != IN_PROGRESS:
            raise SetupError(f"The game would be over already: {board.outcome()}.")
        board._setup = str(self)
        return board

    def _check_turns(self, pieces: dict[int, tuple[Cell, int]], ply: int) -> None:
        turns_at = turn_string(ply)
        need = self._turns_needed()
        for colour in (WHITE, BLACK):
            name = COLOUR_NAMES[colour]
            had = (ply + 1 - colour) // 2  # White has had ceil(ply/2) turns, Black floor(ply/2)
            own = [p for p in pieces if colour_of(p) == colour]
            moved = [p for p in own if pieces[p][1] > 0]
            queen = colour * PIECES_PER_COLOUR
            if queen not in pieces:
                if moved:
                    raise SetupError(f"{piece_names(self.game_type)[moved[0]]} is on top of a stack, so it has moved, "
                                     f"but {name}'s queen is not on the board: no piece may move before its queen "
                                     "is placed.")
                if had >= QUEEN_BY_TURN:
                    raise SetupError(f"{name} has had {had} turns ({turns_at}) but its queen is not on the board: "
                                     f"the queen must be placed by a side's fourth turn.")
                if had != len(own):
                    raise SetupError(f"{name} has had {plural(had, 'turn')} ({turns_at}) but has "
                                     f"{plural(len(own), 'piece')} on the board and no queen, so it could not "
                                     "have moved: each of its turns placed a piece.")
            elif len(own) == 1:
                raise SetupError(f"{name}'s only piece is its queen, but the queen may not be a side's first "
                                 "piece (the tournament opening rule).")
            if had < need[colour]:
                what = f"its {plural(len(own), 'piece')} on the board" + (f" and {len(moved)} moved" if moved else "")
                if moved:
                    raise SetupError(f"{piece_names(self.game_type)[moved[0]]} is on top of a stack, so it has moved: "
                                     f"that takes a turn more than {name} has had ({turns_at} gives {name} "
                                     f"{plural(had, 'turn')}, and {what} take {need[colour]}).")
                raise SetupError(f"{name} has had {plural(had, 'turn')} ({turns_at}), too few for {what}.")


def set_up(text: str) -> Board:
    """The board of a set-up's text (:class:`Setup`); SetupError naming what no game could reach.

    >>> set_up("Base;Black;wS1@0,0").turn_string
    'Black[1]'
    """
    return Setup.parse(text).board()


def _parse_turn(text: str) -> tuple[int, int | None]:
    name, _, rest = text.partition("[")
    colours = [c.lower() for c in COLOUR_NAMES]
    if name.strip().lower() not in colours or (rest and not (rest.endswith("]") and rest[:-1].isdigit())):
        raise SetupError(f'Malformed set-up: bad side to move "{text}" (expected White, Black or e.g. Black[5]).')
    return colours.index(name.strip().lower()), int(rest[:-1]) if rest else None


def _no_such_piece(name: str, gt: int, more: bool = False) -> str:
    """Why ``name`` is no piece of game type ``gt``, with how many of its kind the game has."""
    gts = game_type_string(gt)
    if len(name) >= 2 and name[0].lower() in COLOUR_LETTERS and name[1].upper() in KIND_LETTERS:
        colour = COLOUR_NAMES[COLOUR_LETTERS.index(name[0].lower())].lower()
        kind = KIND_LETTERS.index(name[1].upper())
        if gt == CRITTERS and kind == MOSQUITO:
            kind = len(KIND_LETTERS) - 1  # not in Critters; its slot is the Dragonfly's
        count = kind_count(kind, gt) if kind < len(KIND_NAMES) else 0
        bugs = KIND_NAMES[kind] + ("s" if count != 1 else "")
        if count == 0:
            return f"{name} is not a piece of {gts} (it has no {KIND_NAMES[kind]})."
        if more:
            return f"Too many {colour} {bugs}: {gts} has {count}."
        return f"{name} is not a piece of {gts} (it has {count} {colour} {bugs})."
    return f'"{name}" is not a piece (a PieceString is e.g. wQ, bA2).'


def _check_numbering(pieces: dict[int, tuple[Cell, int]], gt: int) -> None:
    """Pieces of a kind come out in number order (wA1 before wA2): a gap could not happen."""
    names = piece_names(gt)
    for p in pieces:
        name = names[p]
        if len(name) == 3 and name[2] > "1":
            lower = parse_piece(name[:2] + str(int(name[2]) - 1), gt)
            if lower not in pieces:
                raise SetupError(f"{name} is on the board but {names[lower]} is not: pieces of a kind are "
                                 "placed in number order.")


def _check_stacks(stacks: dict[Cell, list[str]], gt: int) -> None:
    """Only a beetle (or a mosquito, which moves as one up there) is ever above the ground;
    in Critters never on a beetle."""
    climbers = (BEETLE,) if gt == CRITTERS else (BEETLE, MOSQUITO)
    what = "a beetle" if gt == CRITTERS else "a beetle or a mosquito"
    for cell, stack in stacks.items():
        for level, name in enumerate(stack[1:], 1):
            kind = kind_of(parse_piece(name, gt), gt)
            below = kind_of(parse_piece(stack[level - 1], gt), gt)
            if kind not in climbers:
                raise SetupError(f"{name} is on top of {stack[level - 1]} at {tuple(cell)}: only {what} can climb.")
            if gt == CRITTERS and below == BEETLE:
                raise SetupError(f"{name} is on top of {stack[level - 1]} at {tuple(cell)}: in Critters a beetle "
                                 "cannot climb onto a beetle.")


def _check_connected(stacks: dict[Cell, list[str]]) -> None:
    """One hive: every stack reachable from every other through neighbours (the One Hive rule)."""
    parts = _parts(stacks)
    if len(parts) > 1:
        first = min(set().union(*parts[1:]), key=lambda c: (c.r, c.q))
        raise SetupError(f"The hive is in {len(parts)} parts: every piece must touch the hive (the One Hive rule); "
                         f"{stacks[first][0]} at {tuple(first)} is cut off.")


def _parts(cells: Iterable[Cell]) -> list[set[Cell]]:
    """The groups of ``cells`` joined through neighbours, the group of the first cell first."""
    rest = dict.fromkeys(cells)  # in their order
    parts = []
    while rest:
        start = next(iter(rest))
        del rest[start]
        part, todo = {start}, [start]
        while todo:
            for n in todo.pop().neighbours():
                if n in rest:
                    del rest[n]
                    part.add(n)
                    todo.append(n)
        parts.append(part)
    return parts
