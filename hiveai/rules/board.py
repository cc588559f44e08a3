r"""``Board`` and ``Move``: the friendly Python face of the rules core.

Modelled on python-chess: a small object that knows the game type, the moves
played, the legal moves and the result, and speaks UHP strings. The hot work
(move generation, make/unmake, perft) runs in numba kernels over the flat
position array, where a move is an int; this module keeps the history and
translates between those ints and :class:`Move` values and MoveStrings.

>>> board = Board("Base+MLP")
>>> board.play("wG1")
<Move wG1>
>>> board.push(board.parse_move("bP wG1-"))
<Move bP wG1->
>>> board.game_string()
'Base+MLP;InProgress;White[2];wG1;bP wG1-'
>>> board.pop(), board.ply
(<Move bP wG1->, 1)

Asking the board what is on it (cells are :class:`hiveai.rules.cell.Cell` values,
axial coordinates with White's first piece at ``(0, 0)``; pieces are
:class:`hiveai.rules.piece.Piece` values):

>>> board = Board("Base;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wB1 /wQ;bB1 bQ-")
>>> board.piece_at(Cell(0, 0)), board.piece_at(Cell(1, 0)), board.piece_at(Cell(5, 5))
(Piece('wS1'), Piece('bS1'), None)
>>> board.occupied()
(Cell(-1, 0), Cell(0, 0), Cell(1, 0), Cell(2, 0), Cell(3, 0), Cell(-2, 1))
>>> [str(p) for p in board.pieces_in_hand(BLACK)][:3], board.turn == WHITE
(['bS2', 'bB2', 'bG1'], True)
>>> board.push("wB1 wQ"), board.is_legal("bB1 bQ"), board.is_legal("wQ")
(<Move wB1 wQ>, True, False)
>>> board.push("bB1 bQ"), board.stack_at(Cell(2, 0))
(<Move bB1 bQ>, [Piece('bQ'), Piece('bB1')])
>>> board.peek(), board.outcome()
(<Move bB1 bQ>, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from hiveai.rules import board_picture
from hiveai.rules.bug import (
    BLACK,
    COLOUR_NAMES,
    EXP_PILLBUG,
    N_PIECES,
    WHITE,
    CRITTERS,
    KIND_FIRST,
    MAX_STACK,
    N_GAME_TYPES,
    PIECES_PER_COLOUR,
    QUEEN,
    colour_of,
    game_type_string,
    kind_of,
    piece_in_game,
    piece_names,
)
from hiveai.rules.cell import Cell, cell_index
from hiveai.errors import GameOverError, GameStringError, HiveError, IllegalMoveError
from hiveai.rules.hex_grid import CELL_MASK, N_CELLS, ORIGIN, torus_offset, unwrap
from hiveai.rules.movegen import (
    MAX_MOVES,
    RELAX_ANT,
    RELAX_BEETLE,
    RELAX_DRAGONFLY,
    RELAX_SPIDER,
    RELAX_SUICIDE,
    find_pinned,
    generate_moves,
    legal_moves,
    new_workspace,
)
from hiveai.rules.notation import (
    move_to_string,
    parse_game_type_string,
    parse_move_string,
    read_game_string,
    split_game_string,
    turn_string,
)
from hiveai.rules.perft import move_buffer, perft_kernel
from hiveai.rules.position import (
    BLACK_WINS,
    DRAW,
    GAME_TYPE,
    HASH,
    HEIGHT,
    IN_PROGRESS,
    LAST_MOVED,
    LEVEL,
    MOVE_PIECE_SHIFT,
    PASS,
    PLY,
    POS,
    STACK,
    TOP,
    NBR,
    STATE_SIZE,
    WHITE_WINS,
    _drop,
    do_move,
    game_result,
    new_position,
    recompute_hash,
    undo_move,
    undo_source,
)
from hiveai.rules.outcome import Outcome, Termination
from hiveai.rules.piece import Piece
from hiveai.text import plural

__all__ = ["BLACK", "WHITE", "Board", "Cell", "Move", "PASS", "Piece", "warmup"]

# Critters refusals, each explained by the one rule whose lifting lets the
# generator offer the move (checked in this order).
_CRITTERS_REASONS = (
    (RELAX_SUICIDE, "You can't make that move: it would surround your own Queen Bee."),
    (RELAX_BEETLE, "{name} can't move there: a Beetle can't climb onto another Beetle."),
    (RELAX_SPIDER, "{name} can't stop there: a Spider must move exactly three spaces unless it reaches a dead end."),
    (RELAX_ANT, "{name} can't move there: an Ant moves at most five spaces."),
    (RELAX_DRAGONFLY, "{name} can't move there: a Dragonfly must fly at least two spaces."),
)

# The sections of a position array, by first index, as a refusal names them.
_SECTIONS = ((HEIGHT, "heights"), (TOP, "top pieces"), (STACK, "stacks"), (POS, "piece cells"),
             (LEVEL, "piece levels"), (PLY, "ply"), (LAST_MOVED, "last-moved piece"), (GAME_TYPE, "game type"),
             (HASH, "hash"), (NBR, "neighbour masks"))

_RESULT_STATE = {WHITE_WINS: "WhiteWins", BLACK_WINS: "BlackWins", DRAW: "Draw"}

# Mzinga's wording for a MoveString naming a position that holds a piece.
OCCUPIED = "You can't move there because a piece already exists at that position."


def _checked_code(code: int) -> int:
    """``code`` if it is a move int at all (legal or not), else IllegalMoveError."""
    if not 0 <= code <= PASS:
        raise IllegalMoveError(f"{code} is not a move int (0 to {PASS}).")
    return code


@dataclass(frozen=True, slots=True)
class Move:
    r"""One move: a piece and the cell it goes to, or a pass. Immutable and hashable.

    Moves come from a :class:`Board` (:attr:`Board.legal_moves`,
    :meth:`Board.parse_move`, :meth:`Board.push`) or from :meth:`from_string`.
    Two moves are equal when they take the same piece to the same cell,
    however their MoveStrings name it. ``str()`` gives the canonical
    MoveString in the position the move was made for (Mzinga's choice of
    reference piece), which is what UHP clients expect.

    >>> board = Board.parse("Base;InProgress;White[3];wS1;bS1 wS1-;wQ -wS1;bQ bS1-")
    >>> move = Move.from_string("wa1  WQ/", board)
    >>> move, str(move), move.piece
    (<Move wA1 \wS1>, 'wA1 \\wS1', 'wA1')
    >>> move == board.parse_move("wA1 \\wS1") and move in board.legal_moves
    True
    >>> len({move, board.parse_move("wA1 \\wS1")})
    1
    """

    code: int
    """The move int the numba kernels use (piece * 1024 + cell, or PASS)."""
    text: str = field(compare=False)
    """The canonical MoveString, as ``str()`` gives it."""

    def __post_init__(self) -> None:
        _checked_code(self.code)

    @classmethod
    def from_string(cls, text: str, board: Board) -> Move:
        """The legal move that MoveString ``text`` names on ``board`` (see
        :meth:`Board.parse_move`, which this is; it raises the same errors)."""
        return board.parse_move(text)

    @property
    def piece(self) -> str | None:
        """The moving piece's name (``wS1``), None for a pass."""
        return None if self.is_pass else self.text.split()[0]

    @property
    def is_pass(self) -> bool:
        """Whether this is a pass (legal only when it is the only legal move)."""
        return self.code == PASS

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Move {self.text}>"


class Board:
    """A Hive game: position, move history and rules, for any game type.

    >>> board = Board("Base")
    >>> board.push("wS1"), board.ply, board.turn == BLACK, board.game_string()
    (<Move wS1>, 1, True, 'Base;InProgress;Black[1];wS1')
    """

    def __init__(self, text: str = "Base") -> None:
        """A new game of a GameTypeString such as ``Base+MLP``, or the game a full
        GameString describes.

        A GameString's moves are replayed with validation, and its state and
        turn must agree with them: ``Board`` refuses one that contradicts its
        moves, naming the reason (:meth:`parse` is the lenient reader, as UHP's
        ``newgame`` is). Raises :class:`~hiveai.errors.GameTypeError` for an
        unknown type, :class:`~hiveai.errors.GameStringError` for a bad move or
        a contradiction.

        >>> Board("Base;InProgress;Black[1];wS1").turn == BLACK
        True
        >>> Board("Base;InProgress;White[1];wS1")
        Traceback (most recent call last):
        ...
        hiveai.errors.GameStringError: The GameString says InProgress;White[1], but its move list (1 move) gives InProgress;Black[1].
        """
        if ";" not in text:
            self._reset(parse_game_type_string(text))
            return
        gt, moves = split_game_string(text)
        self._reset(gt)
        self._replay(moves)
        reason = self.head_mismatch(text)
        if reason is not None:
            raise GameStringError(reason)

    def _reset(self, gt: int) -> None:
        self._b = new_position(gt)
        self._ws = new_workspace()
        self._buf = np.empty(MAX_MOVES, dtype=np.int32)
        # (move, undo token, MoveString, hash of the position the move was played in), oldest first
        self._history: list[tuple[int, int, str, int]] = []
        self._setup: str | None = None  # the set-up the game started from (hiveai.rules.setup_position), None: the empty board
        self._changed()

    def _changed(self) -> None:
        """Forget what was worked out for the previous position."""
        self._legal: list[int] | None = None  # legal move ints, once generated
        self._legal_tuple: tuple[Move, ...] | None = None  # ... as Moves, once asked for
        self._dests: dict[int, set[int]] | None = None  # ... as piece -> cells, once asked for
        self._relaxed: dict[int, set[int]] = {}  # Critters: moves with one rule lifted, by RELAX_* bit
        self._cells: dict[int, Cell] | None = None  # occupied cell index -> Cell, once asked for

    # --- construction ---------------------------------------------------

    @classmethod
    def from_game_string(cls, text: str) -> Board:
        """A board from a full GameString, replaying its moves with validation.

        The state and turn fields are ignored and recomputed (Mzinga does the
        same). Raises GameTypeError or GameStringError naming the bad move.
        """
        gt, moves = split_game_string(text)
        board = cls.__new__(cls)
        board._reset(gt)
        board._replay(moves)
        return board

    @classmethod
    def from_position_array(cls, array: np.ndarray) -> Board:
        """A board at the position ``array`` holds, in the kernels' flat layout
        (:mod:`hiveai.rules.position`): the inverse of :attr:`position_array`, with no move history.

        For a position made on the array with the kernels (:func:`hiveai.rules.position.do_move`),
        such as a game moved across the board, which no GameString can spell (White's first piece
        always goes to the origin). As for a set-up board, :meth:`game_string` lists only the moves
        played from here; :attr:`setup` is None. The array is copied, and refused (ValueError)
        unless the kernels could have made it: its stacks, heights, neighbour masks and hash agree
        with where the pieces stand.

        >>> board = Board("Base;InProgress;Black[2];wS1;bS1 wS1-;wQ -wS1")
        >>> same = Board.from_position_array(board.position_array)
        >>> same == board, same.ply, same.move_history, same.legal_moves == board.legal_moves
        (True, 3, [], True)
        >>> broken = board.position_array
        >>> broken[TOP + ORIGIN] = -1
        >>> Board.from_position_array(broken)
        Traceback (most recent call last):
        ...
        ValueError: not a position the kernels could have made: where the pieces stand disagrees with its top pieces
        """
        given = np.asarray(array)
        if given.shape != (STATE_SIZE,) or given.dtype != np.int64:
            raise ValueError(f"a position array holds {STATE_SIZE} int64 values, not {given.shape} {given.dtype}")
        gt = int(given[GAME_TYPE])
        if not 0 <= gt < N_GAME_TYPES:
            raise ValueError(f"not a position the kernels could have made: game type {gt}")
        on_board = sorted((int(given[LEVEL + p]), p) for p in range(N_PIECES) if given[POS + p] >= 0)
        last = int(given[LAST_MOVED])
        pieces_fit = all(piece_in_game(p, gt) and 0 <= given[POS + p] < N_CELLS and 0 <= level < MAX_STACK
                         for level, p in on_board)
        last_fits = last == -1 or (0 <= last < N_PIECES and given[POS + last] >= 0)
        if given[PLY] < 0 or not pieces_fit or not last_fits:
            raise ValueError("not a position the kernels could have made: its ply, last-moved piece or "
                             "piece places are out of range")
        rebuilt = new_position(gt)
        for _, p in on_board:
            _drop(rebuilt, p, int(given[POS + p]))
        rebuilt[PLY], rebuilt[LAST_MOVED] = given[PLY], last
        rebuilt[HASH] = recompute_hash(rebuilt)
        differ = np.flatnonzero(rebuilt != given)
        if len(differ):
            section = next(name for start, name in reversed(_SECTIONS) if differ[0] >= start)
            raise ValueError(f"not a position the kernels could have made: where the pieces stand "
                             f"disagrees with its {section}")
        board = cls.__new__(cls)
        board._reset(gt)
        board._b[:] = given
        return board

    def _replay(self, moves: Sequence[str]) -> None:
        """Play a GameString's MoveStrings; GameStringError names the first bad one."""
        for i, m in enumerate(moves, 1):
            try:
                self.play(m)
            except HiveError as e:
                raise GameStringError(f'Unable to play "{m}" (move {i}) in GameString: {e}') from None

    @classmethod
    def parse(cls, text: str) -> Board:
        """``newgame`` semantics: a GameTypeString or a full GameString, whose state
        and turn fields are ignored and recomputed (Mzinga does the same); see
        :meth:`head_mismatch` for what they said."""
        return cls.from_game_string(text) if ";" in text else cls(text)

    def head_mismatch(self, text: str) -> str | None:
        """Why the state and turn of GameString ``text`` disagree with this board, or None.

        For a board parsed from ``text``, which replayed its moves and ignored
        those two fields (as Mzinga does). The caller decides what a
        disagreement is worth: the UHP server warns, the command line refuses.
        """
        if ";" not in text:
            return None  # a GameTypeString: nothing declared
        head = read_game_string(text)
        if head.state == self.state and head.ply == self.ply:
            return None
        return (f"The GameString says {head.state};{head.turn}, but its move list "
                f"({plural(self.ply, 'move')}) gives {self.state};{self.turn_string}.")

    def copy(self) -> Board:
        """An independent copy (history included)."""
        other = Board.__new__(Board)
        other._reset(self.game_type)
        other._b[:] = self._b
        other._history = list(self._history)
        other._setup = self._setup
        return other

    # --- state ----------------------------------------------------------

    @property
    def game_type(self) -> int:
        """Expansion bits (see :mod:`hiveai.rules.bug`)."""
        return int(self._b[GAME_TYPE])

    @property
    def game_type_string(self) -> str:
        return game_type_string(self.game_type)

    @property
    def setup(self) -> str | None:
        """The set-up position the game started from (a :class:`hiveai.rules.setup_position.Setup` string), or
        None for a game from the empty board. A set-up game's :meth:`game_string` and
        :attr:`move_history` hold the moves played since the set-up.

        >>> Board("Base").setup is None
        True
        """
        return self._setup

    @property
    def ply(self) -> int:
        """Plies played so far (passes included)."""
        return int(self._b[PLY])

    @property
    def turn(self) -> int:
        """Colour to move: :data:`WHITE` (0) or :data:`BLACK` (1)."""
        return self.ply & 1

    @property
    def turn_string(self) -> str:
        return turn_string(self.ply)

    @property
    def result(self) -> int:
        """IN_PROGRESS, WHITE_WINS, BLACK_WINS or DRAW (see hiveai.rules.position)."""
        return int(game_result(self._b))

    @property
    def state(self) -> str:
        """BoardStateString: NotStarted, InProgress, Draw, WhiteWins or BlackWins."""
        r = self.result
        if r != IN_PROGRESS:
            return _RESULT_STATE[r]
        return "NotStarted" if self.ply == 0 else "InProgress"

    def is_game_over(self) -> bool:
        """Whether a queen is surrounded (the game has an :meth:`outcome`)."""
        return self.result != IN_PROGRESS

    def outcome(self) -> Outcome | None:
        """How the game ended (:class:`hiveai.rules.outcome.Outcome`), None while it goes on.

        The rules end a game only by surrounding: one queen (that side loses) or
        both at once (a draw). Repetition, agreement and clocks are for the
        players or a referee to apply.

        >>> board = Board("Base")
        >>> board.outcome() is None
        True
        """
        r = self.result
        if r == IN_PROGRESS:
            return None
        if r == DRAW:
            return Outcome(None, Termination.BOTH_SURROUNDED)
        return Outcome(WHITE if r == WHITE_WINS else BLACK, Termination.QUEEN_SURROUNDED)

    @property
    def move_history(self) -> list[str]:
        """Canonical MoveStrings of the moves played, oldest first."""
        return [s for _, _, s, _ in self._history]

    @property
    def move_stack(self) -> list[Move]:
        """The moves played, oldest first, as :class:`Move` values (python-chess's name).

        >>> board = Board("Base")
        >>> board.play("wS1"), board.play("bS1 wS1-")
        (<Move wS1>, <Move bS1 wS1->)
        >>> board.move_stack, [str(m) for m in board.move_stack] == board.move_history
        ([<Move wS1>, <Move bS1 wS1->], True)
        """
        return [Move(m, s) for m, _, s, _ in self._history]

    def move_history_ints(self) -> list[tuple[int, int]]:
        """(move, undo token) of each ply played, oldest first, for kernels that
        walk the game backwards with :func:`hiveai.rules.position.undo_move`."""
        return [(m, t) for m, t, _, _ in self._history]

    @property
    def zobrist(self) -> int:
        """64-bit Zobrist hash of the position (pieces, side to move, stunned piece)."""
        return int(self._b[HASH]) & 0xFFFFFFFFFFFFFFFF

    @property
    def position_array(self) -> np.ndarray:
        """A copy of the flat int64 position the kernels work on (layout in
        :mod:`hiveai.rules.position`); changing it does not change the board."""
        return self._b.copy()

    # --- what is on the board --------------------------------------------

    def _cell_map(self) -> dict[int, Cell]:
        """Each occupied cell index -> its Cell. The hive is walked from the occupied
        cell nearest White's first cell, so coordinates stay continuous however
        far the hive drifts on the kernels' torus."""
        if self._cells is None:
            heights = self._b[HEIGHT:HEIGHT + N_CELLS]
            occupied = [int(c) for c in np.flatnonzero(heights)]
            if not occupied:
                self._cells = {}
            else:
                anchor = min(occupied, key=lambda c: Cell(0, 0).distance(Cell(*torus_offset(ORIGIN, c))))
                aq, ar = torus_offset(ORIGIN, anchor)
                self._cells = {c: Cell(aq + q, ar + r) for c, (q, r) in unwrap(occupied, anchor).items()}
        return self._cells

    def _index_of(self, cell: Cell) -> int | None:
        """The kernels' index of an occupied ``cell``, None if it is empty."""
        index = cell_index(cell)
        return index if self._cell_map().get(index) == cell else None

    def _piece(self, code: int) -> Piece:
        return Piece(code, piece_names(self.game_type)[code])

    def piece_at(self, cell: Cell) -> Piece | None:
        """The piece on top of ``cell``, None if the cell is empty."""
        index = self._index_of(cell)
        return None if index is None else self._piece(int(self._b[TOP + index]))

    def stack_at(self, cell: Cell) -> list[Piece]:
        """The pieces on ``cell``, bottom to top (empty list: an empty cell)."""
        index = self._index_of(cell)
        if index is None:
            return []
        base = STACK + index * MAX_STACK
        return [self._piece(int(p)) for p in self._b[base:base + int(self._b[HEIGHT + index])]]

    def occupied(self) -> tuple[Cell, ...]:
        """The cells that hold a piece, sorted by row (``r``) then ``q``."""
        return tuple(sorted(self._cell_map().values(), key=lambda c: (c.r, c.q)))

    def pieces(self) -> dict[Cell, list[Piece]]:
        """Every stack on the board: cell -> pieces bottom to top."""
        return {cell: self.stack_at(cell) for cell in self.occupied()}

    def cell_of(self, piece: Piece | str) -> Cell | None:
        """Where ``piece`` (a Piece or a PieceString) is, None while it is in hand.

        >>> Board("Base;InProgress;Black[1];wG1").cell_of("wG1")
        Cell(0, 0)
        """
        code = piece.code if isinstance(piece, Piece) else Piece.from_name(piece, self.game_type_string).code
        index = int(self._b[POS + code])
        return None if index < 0 else self._cell_map()[index]

    def pieces_in_hand(self, colour: int) -> list[Piece]:
        """``colour``'s pieces not yet placed, in the order Q S B G A M L P (D in Critters)."""
        first = colour * PIECES_PER_COLOUR
        return [self._piece(p) for p in range(first, first + PIECES_PER_COLOUR)
                if piece_in_game(p, self.game_type) and int(self._b[POS + p]) < 0]

    def stunned(self) -> Piece | None:
        """The piece that may not be moved or thrown this ply because it moved on the
        last one; only a pillbug power could touch it, so None without a pillbug in
        the game (and after a placement or a pass)."""
        last = int(self._b[LAST_MOVED])
        return self._piece(last) if last >= 0 and self.game_type & EXP_PILLBUG else None

    # --- comparing positions ----------------------------------------------

    def key(self) -> tuple[int, ...]:
        r"""A hashable key of the position: equal for boards that are ``==``.

        Two move orders reaching the same position (the ants took a detour in ``a``):

        >>> a = Board("Base;InProgress;White[5];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-;wA1 \\wQ;bA1 bQ\\")
        >>> b = Board("Base;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 \\wQ;bA1 bQ\\")
        >>> a == b, a.ply - b.ply, {a.key(): "seen"}[b.key()]
        (True, 2, 'seen')
        >>> hash(a)
        Traceback (most recent call last):
        ...
        TypeError: unhashable type: 'Board'
        """
        stunned = self.stunned()
        return (self.game_type, self.turn, -1 if stunned is None else stunned.code,
                *(int(x) for x in self._b[POS:POS + N_PIECES]), *(int(x) for x in self._b[LEVEL:LEVEL + N_PIECES]))

    def position_hashes(self) -> list[int]:
        """The :attr:`zobrist` hash of every position of the game, oldest first, this one last
        (from the empty board, or from the :attr:`setup` the game started from).

        >>> board = Board("Base")
        >>> board.push("wS1"), len(board.position_hashes()), board.position_hashes()[-1] == board.zobrist
        (<Move wS1>, 2, True)
        """
        return [h & 0xFFFFFFFFFFFFFFFF for *_, h in self._history] + [self.zobrist]

    def repetitions(self) -> int:
        r"""How many times this position has occurred in the game, this time included (1: the first time).

        The same position is the same :attr:`zobrist` hash: every piece on the same cell at the
        same level, the same side to move and, in games with the pillbug, the same stunned piece
        (:meth:`stunned`); so the same legal moves from here on. The move history is not part of
        it. (A 64-bit hash: two different positions could share one, with odds far below any
        game's length squared over 2**64.)

        The Queen's Shuffle, twice: White's and Black's queens step aside and back.

        >>> board = Board("Base;InProgress;White[3];wG1;bG1 wG1-;wQ -wG1;bQ bG1-")
        >>> for move in ("wQ \\wG1", "bQ bG1\\", "wQ -wG1", "bQ bG1-"):
        ...     _ = board.push(move)
        >>> board.repetitions(), board.is_repetition()
        (2, False)
        >>> for move in ("wQ \\wG1", "bQ bG1\\", "wQ -wG1", "bQ bG1-"):
        ...     _ = board.push(move)
        >>> board.repetitions(), board.is_repetition(), board.is_repetition(4)
        (3, True, False)
        """
        hashes = self.position_hashes()
        return hashes.count(hashes[-1])

    def is_repetition(self, count: int = 3) -> bool:
        """Whether this position has occurred ``count`` times in the game, this time included:
        by default a threefold repetition (see :meth:`repetitions` for what counts as the same
        position).

        The rules of Hive have no draw by repetition, and UHP has none either: the board only
        counts. A tournament's referee (``hiveai tournament``) and ``hiveai tune``'s self-play end
        a game drawn at the third occurrence, as many engines do.
        """
        return self.repetitions() >= count

    def plies_since_placement(self) -> int:
        r"""Plies played since the last placement (all of them if there was none since the start).

        A placed piece never goes back to hand, so no position from before the last placement
        can occur again (chess's halfmove clock counts from a capture or a pawn move the same way).

        >>> board = Board("Base;InProgress;White[3];wG1;bG1 wG1-;wQ -wG1;bQ bG1-")
        >>> board.plies_since_placement(), board.push("wQ \\wG1"), board.plies_since_placement()
        (0, <Move wQ \wG1>, 1)
        """
        for n, (move, token, _, _) in enumerate(reversed(self._history)):
            if move != PASS and undo_source(token) < 0:
                return n
        return len(self._history)

    def __eq__(self, other: object) -> bool:
        """Same position: game type, every piece's cell and height (stacks and hands
        with it), side to move and the piece the pillbug may not move. The move
        history is not compared (python-chess compares positions the same way)."""
        if not isinstance(other, Board):
            return NotImplemented
        return self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: hash board.key() instead

    def game_string(self) -> str:
        """Canonical GameString of the game so far."""
        head = f"{self.game_type_string};{self.state};{self.turn_string}"
        return ";".join([head, *self.move_history])

    def __str__(self) -> str:
        return self.game_string()

    def __repr__(self) -> str:
        return f"Board({self.game_string()!r})"

    def _repr_svg_(self) -> str | None:
        """The picture Jupyter shows for a board: the registered drawer's
        (:func:`hiveai.rules.board_picture`; after ``import hiveai``, :func:`hiveai.svg.board`
        with its defaults), None without one (Jupyter then shows the ``repr``)."""
        return board_picture(self)

    # --- moves ----------------------------------------------------------

    @property
    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the side to move, in the generator's order.

        ``(pass,)`` when the side to move is stuck, ``()`` once the game is over.
        Each :class:`Move` prints as its canonical MoveString.

        >>> board = Board("Base")
        >>> board.legal_moves
        (<Move wS1>, <Move wB1>, <Move wG1>, <Move wA1>)
        >>> board.play("wG1")
        <Move wG1>
        >>> len(board.legal_moves), board.parse_move("bA1 wG1-") in board.legal_moves
        (24, True)
        """
        if self._legal_tuple is None:
            self._legal_tuple = tuple(Move(m, move_to_string(self._b, m)) for m in self._legal_moves())
        return self._legal_tuple

    def legal_move_ints(self) -> list[int]:
        """The legal moves as the kernels' move ints (:attr:`Move.code`), same order
        as :attr:`legal_moves`; for hiveai's own search and book code, which hand
        them to numba kernels."""
        return list(self._legal_moves())

    def _legal_moves(self) -> list[int]:
        """The cached legal-move ints themselves (callers must not change them)."""
        if self._legal is None:
            if self.is_game_over():
                self._legal = []
            else:
                n = legal_moves(self._b, self._ws, self._buf, 0)
                self._legal = [int(m) for m in self._buf[:n]]
        return self._legal

    def _destinations(self) -> dict[int, set[int]]:
        """The legal moves as {piece: cells it may go to} (a pass is left out)."""
        if self._dests is None:
            self._dests = {}
            for m in self._legal_moves():
                if m != PASS:
                    self._dests.setdefault(m >> MOVE_PIECE_SHIFT, set()).add(m & CELL_MASK)
        return self._dests

    def move_to_string(self, move: Move | int) -> str:
        r"""Canonical MoveString of ``move`` (a :class:`Move` or a move int) in the
        current position, as Mzinga would write it here.

        >>> board = Board("Base;InProgress;Black[1];wS1")
        >>> board.move_to_string(board.legal_moves[0])
        'bS1 \\wS1'
        """
        return move_to_string(self._b, move.code if isinstance(move, Move) else move)

    def is_legal(self, move: Move | str | int) -> bool:
        """Whether ``move`` (a Move, a MoveString or a move int) is legal now; never raises
        for a bad move (False), only TypeError for something that is no move at all.

        >>> board = Board("Base")
        >>> board.is_legal("wS1"), board.is_legal("wQ"), board.is_legal("nonsense")
        (True, False, False)
        """
        try:
            self._legal_code(move)
        except HiveError:
            return False
        return True

    def why_illegal(self, move: Move | str | int) -> str | None:
        """None if ``move`` (a Move, a MoveString or a move int) is legal now, else why not: the
        message :meth:`push` would raise, in Mzinga's words where it has them.

        Raises what :meth:`push` raises for something that is no move to judge:
        MoveStringError for text that does not parse, TypeError for no move at all.

        >>> board = Board("Base;InProgress;White[2];wS1;bS1 wS1-")
        >>> board.why_illegal("wQ -wS1") is None
        True
        >>> board.why_illegal("wQ bS1-")
        "You must place a piece next to your own pieces and away from your opponent's."
        >>> board.why_illegal("bQ -wS1")
        "It is White's turn: you can't place bQ."
        """
        try:
            self._legal_code(move)
        except (IllegalMoveError, GameOverError) as e:
            return str(e)
        return None

    def peek(self) -> Move:
        """The last move played (python-chess's name); IndexError before the first.

        >>> board = Board("Base")
        >>> board.push("wA1") == board.peek()
        True
        """
        if not self._history:
            raise IndexError("peek: no move has been played")
        move, _, text, _ = self._history[-1]
        return Move(move, text)

    def valid_moves_string(self) -> str:
        """UHP ``validmoves`` line: ``;``-separated MoveStrings, or ``pass``."""
        if self.is_game_over():
            raise GameOverError()
        return ";".join(map(str, self.legal_moves))

    def parse_move(self, text: str) -> Move:
        """The legal move a MoveString names, in any valid spelling (see
        :func:`hiveai.rules.notation.parse_move_string`), as a canonical :class:`Move`.

        Raises MoveStringError if it does not parse, IllegalMoveError with a
        reason if the rules forbid it, GameOverError after the game ended.

        >>> board = Board.parse("Base;InProgress;White[2];wS1;bS1 wS1-")
        >>> board.parse_move("wq  /WS1")
        <Move wQ /wS1>
        >>> Board("Base").parse_move("wQ")
        Traceback (most recent call last):
        ...
        hiveai.errors.IllegalMoveError: You can't play your Queen Bee on your first turn.
        """
        code = self._legal_code(text)
        return Move(code, self.move_to_string(code))

    def _legal_code(self, move: Move | str | int) -> int:
        """The move int of ``move`` if it is legal now; raises otherwise (see :meth:`push`)."""
        if self.is_game_over():
            raise GameOverError()
        occupied = False
        if isinstance(move, str):
            code, occupied = parse_move_string(self._b, move)
        elif isinstance(move, Move):
            code = move.code
        elif isinstance(move, (int, np.integer)) and not isinstance(move, bool):
            code = _checked_code(int(move))
        else:
            raise TypeError(f"expected a Move or a MoveString, not {type(move).__name__}")
        reason = self._why_illegal(code, occupied)
        if reason is not None:
            raise IllegalMoveError(reason)
        return code

    def push(self, move: Move | str | int) -> Move:
        r"""Play ``move``: a :class:`Move`, a MoveString in any valid spelling, or a
        move int from :meth:`legal_move_ints`. Returns it as played (canonical).

        Raises IllegalMoveError (with the reason) for a move the rules forbid
        or a move int that is no move at all, MoveStringError for text that
        does not parse, GameOverError after the game ended. The board is
        unchanged when it raises.

        >>> board = Board("Base")
        >>> board.push("wS1")
        <Move wS1>
        >>> board.push(board.legal_moves[0])
        <Move bS1 \wS1>
        >>> board.push("wQ  /WS1")
        <Move wQ /wS1>
        >>> board.push(40000)
        Traceback (most recent call last):
        ...
        hiveai.errors.IllegalMoveError: 40000 is not a move int (0 to 28672).
        >>> board.game_string()
        'Base;InProgress;Black[2];wS1;bS1 \\wS1;wQ /wS1'
        """
        return self._push_checked(self._legal_code(move))

    def play(self, move: Move | str | int) -> Move:
        """The same as :meth:`push` (UHP calls it ``play``)."""
        return self.push(move)

    def _push_checked(self, move: int) -> Move:
        text = self.move_to_string(move)
        before = int(self._b[HASH])
        token = int(do_move(self._b, move))
        self._history.append((move, token, text, before))
        self._changed()
        return Move(move, text)

    def pop(self) -> Move:
        """Take back the last ply and return its move (as it was played)."""
        if not self._history:
            raise HiveError("There are no moves to undo.")
        move, token, text, _ = self._history.pop()
        undo_move(self._b, move, token)
        self._changed()
        return Move(move, text)

    def undo(self, count: int = 1) -> None:
        """Take back ``count`` plies (1 <= count <= ply), all or nothing."""
        if not 1 <= count <= len(self._history):
            raise HiveError(f"Unable to undo {plural(count, 'move')}: {plural(len(self._history), 'move')} "
                            "played so far.")
        for _ in range(count):
            self.pop()

    def perft(self, depth: int) -> int:
        """Leaf count of the legal-move tree ``depth`` plies deep (bulk counted)."""
        if depth < 0:
            raise ValueError("perft depth must be >= 0")
        b = self._b.copy()
        return int(perft_kernel(b, new_workspace(), move_buffer(depth), depth))

    # --- explanations ---------------------------------------------------

    def _why_illegal(self, move: int, occupied: bool = False) -> str | None:
        """None if ``move`` is legal, else why not, in Mzinga's words where it has them.

        ``occupied``: the MoveString named a position that holds a piece (see
        :func:`~hiveai.rules.notation.parse_move_string`); no legal move does that.
        The move generator is the only statement of the rules: this explains
        its verdict from what it offers (its move list and the pin kernel it
        uses), checking in Mzinga's order so a move breaking several rules
        gets the reason Mzinga gives. tests/test_board.py checks every reason
        against the generator over many positions.
        """
        if move == PASS:
            return None if self._legal_moves() == [PASS] else "You can't pass when you have valid moves."
        b = self._b
        piece, dest = move >> MOVE_PIECE_SHIFT, move & CELL_MASK
        dests = self._destinations()
        offered = dests.get(piece, set())
        if dest in offered and not occupied:
            return None
        name = piece_names(self.game_type)[piece]
        if self.game_type == CRITTERS and not occupied:
            for relax, reason in _CRITTERS_REASONS:
                if move in self._relaxed_moves(relax):
                    return reason.format(name=name)
        side = self.turn
        if not piece_in_game(piece, self.game_type):
            return f"{name} is not in a {self.game_type_string} game."
        own = colour_of(piece) == side
        src = int(b[POS + piece])
        # The pieces the generator places, and whether it moves any.
        placed = {p for p in dests if int(b[POS + p]) < 0}
        moved = len(placed) < len(dests)
        if src < 0:
            if not own:
                return f"It is {COLOUR_NAMES[side]}'s turn: you can't place {name}."
            if not offered:
                kinds = {kind_of(p, self.game_type) for p in placed}
                if kinds == {QUEEN}:
                    return "You must play your Queen Bee on or before your fourth turn."
                if kind_of(piece) == QUEEN and kinds:  # the one rule that holds back only the queen
                    return "You can't play your Queen Bee on your first turn."
                first = side * PIECES_PER_COLOUR + KIND_FIRST[kind_of(piece, self.game_type)]
                if any(int(b[POS + p]) < 0 for p in range(first, piece)):
                    return "When there are multiple pieces of the same bug type, you must play the pieces in order."
            if occupied:
                return OCCUPIED
            if int(b[HEIGHT + dest]) > 0:
                return "You can't place a piece on top of another piece."
            return "You must place a piece next to your own pieces and away from your opponent's."
        if own and not moved and int(b[POS + side * PIECES_PER_COLOUR]) < 0:
            return "You can't move a piece in play until you've played your Queen Bee."
        if occupied:
            return OCCUPIED
        if not offered:
            if int(b[TOP + src]) != piece:
                return "You can't move that piece because it has another piece on top of it."
            if piece == int(b[LAST_MOVED]):
                return f"You can't move {name}: it was moved on the last turn."
            if int(b[LEVEL + piece]) == 0 and self._is_pinned(piece):
                return "You can't move that piece because it will break the hive."
        if not own:
            return f"You can't move your opponent's {name} there."
        if dest == src:
            return f"{name} is already there."
        return f"{name} can't move there."

    def _relaxed_moves(self, relax: int) -> set[int]:
        """The generator's moves here with one Critters rule lifted (a ``RELAX_*`` bit)."""
        if relax not in self._relaxed:
            b = self._b.copy()
            b[GAME_TYPE] |= relax
            n = generate_moves(b, new_workspace(), self._buf, 0)
            self._relaxed[relax] = {int(m) for m in self._buf[:n]}
        return self._relaxed[relax]

    def _is_pinned(self, piece: int) -> bool:
        return bool((int(find_pinned(self._b, new_workspace(), int(self._b[POS + piece]))) >> piece) & 1)


def warmup() -> None:
    """Compile (or load from the on-disk cache) every kernel the engine uses."""
    b = Board("Base+MLP")
    for m in ("wP", "bM wP-", "wQ \\wP", "bQ bM-", "wA1 wQ/", "bL bQ/", "wA1 bL\\"):
        b.play(m)
    b.legal_move_ints()
    b.perft(2)
    b.pop()
