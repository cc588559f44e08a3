"""``Board``: the friendly Python face of the rules core.

Modelled on python-chess: a small object that knows the game type, the moves
played, the legal moves and the result, and speaks UHP strings. The hot work
(move generation, make/unmake, perft) runs in numba kernels over the flat
position array; this class only keeps the history and translates strings.

>>> b = Board("Base+MLP")
>>> b.play("wG1")
>>> b.game_string()
'Base+MLP;InProgress;Black[1];wG1'
"""

from __future__ import annotations

import numpy as np

from hiveai.bug import (
    COLOUR_NAMES,
    KIND_FIRST,
    PIECE_NAMES,
    PIECES_PER_COLOUR,
    QUEEN,
    colour_of,
    game_type_string,
    kind_of,
    piece_in_game,
)
from hiveai.errors import GameOverError, GameStringError, HiveError, IllegalMoveError
from hiveai.hex_grid import CELL_MASK
from hiveai.movegen import MAX_MOVES, WS_PIN, find_pinned, legal_moves, new_workspace
from hiveai.notation import (
    _TURN_RE,
    move_to_string,
    parse_game_type_string,
    parse_move_string,
    split_game_string,
    turn_string,
)
from hiveai.perft import move_buffer, perft_kernel
from hiveai.position import (
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
    TOP,
    WHITE_WINS,
    do_move,
    game_result,
    new_position,
    undo_move,
)
from hiveai.text import plural

__all__ = ["Board", "PASS", "warmup"]

_RESULT_STATE = {WHITE_WINS: "WhiteWins", BLACK_WINS: "BlackWins", DRAW: "Draw"}


class Board:
    """A Hive game: position, move history and rules, for any game type."""

    def __init__(self, game_type: str = "Base") -> None:
        """A new game of ``game_type`` (a GameTypeString such as ``Base+MLP``).

        Raises :class:`~hiveai.errors.GameTypeError` for an unknown type.
        """
        self._reset(parse_game_type_string(game_type))

    def _reset(self, gt: int) -> None:
        self._b = new_position(gt)
        self._ws = new_workspace()
        self._buf = np.empty(MAX_MOVES, dtype=np.int32)
        self._history: list[tuple[int, int, str]] = []  # (move, undo token, MoveString)
        self._legal: list[int] | None = None

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
        for i, m in enumerate(moves, 1):
            try:
                board.play(m)
            except HiveError as e:
                raise GameStringError(f'Unable to play "{m}" (move {i}) in GameString: {e}') from None
        return board

    @classmethod
    def parse(cls, text: str) -> Board:
        """``newgame`` semantics: a GameTypeString or a full GameString."""
        return cls.from_game_string(text) if ";" in text else cls(text)

    def head_mismatch(self, text: str) -> str | None:
        """Why the state and turn of GameString ``text`` disagree with this board, or None.

        For a board parsed from ``text``, which replayed its moves and ignored
        those two fields (as Mzinga does). The caller decides what a
        disagreement is worth: the UHP server warns, the command line refuses.
        """
        fields = [f.strip() for f in text.split(";")]
        turn = _TURN_RE.match(fields[2]) if len(fields) >= 3 else None
        if turn is None:
            return None  # a GameTypeString: nothing declared
        declared_ply = 2 * (int(turn.group(2)) - 1) + (turn.group(1).lower() == "black")
        if fields[1].lower() == self.state.lower() and declared_ply == self.ply:
            return None
        return (f"The GameString says {fields[1]};{fields[2]}, but its move list "
                f"({plural(self.ply, 'move')}) gives {self.state};{self.turn_string}.")

    def copy(self) -> Board:
        """An independent copy (history included)."""
        other = Board.__new__(Board)
        other._reset(self.game_type)
        other._b[:] = self._b
        other._history = list(self._history)
        return other

    # --- state ----------------------------------------------------------

    @property
    def game_type(self) -> int:
        """Expansion bits (see :mod:`hiveai.bug`)."""
        return int(self._b[GAME_TYPE])

    @property
    def game_type_string(self) -> str:
        return game_type_string(self.game_type)

    @property
    def ply(self) -> int:
        """Plies played so far (passes included)."""
        return int(self._b[PLY])

    @property
    def turn(self) -> int:
        """Colour to move: 0 white, 1 black."""
        return self.ply & 1

    @property
    def turn_string(self) -> str:
        return turn_string(self.ply)

    @property
    def result(self) -> int:
        """IN_PROGRESS, WHITE_WINS, BLACK_WINS or DRAW (see hiveai.position)."""
        return int(game_result(self._b))

    @property
    def state(self) -> str:
        """BoardStateString: NotStarted, InProgress, Draw, WhiteWins or BlackWins."""
        r = self.result
        if r != IN_PROGRESS:
            return _RESULT_STATE[r]
        return "NotStarted" if self.ply == 0 else "InProgress"

    def is_game_over(self) -> bool:
        return self.result != IN_PROGRESS

    @property
    def move_history(self) -> list[str]:
        """Canonical MoveStrings of the moves played, oldest first."""
        return [s for _, _, s in self._history]

    def move_history_ints(self) -> list[tuple[int, int]]:
        """(move, undo token) of each ply played, oldest first, for kernels that
        walk the game backwards with :func:`hiveai.position.undo_move`."""
        return [(m, t) for m, t, _ in self._history]

    @property
    def zobrist(self) -> int:
        """64-bit Zobrist hash of the position (pieces, side to move, stunned piece)."""
        return int(self._b[HASH]) & 0xFFFFFFFFFFFFFFFF

    @property
    def position_array(self) -> np.ndarray:
        """The flat int64 position the kernels work on (read it, don't write it)."""
        return self._b

    def game_string(self) -> str:
        """Canonical GameString of the game so far."""
        head = f"{self.game_type_string};{self.state};{self.turn_string}"
        return ";".join([head, *self.move_history])

    def __str__(self) -> str:
        return self.game_string()

    def __repr__(self) -> str:
        return f"Board({self.game_string()!r})"

    # --- moves ----------------------------------------------------------

    def legal_moves(self) -> list[int]:
        """Legal moves of the side to move; ``[PASS]`` when stuck, ``[]`` when over."""
        return list(self._legal_moves())

    def _legal_moves(self) -> list[int]:
        """The cached legal-move list itself (callers must not change it)."""
        if self._legal is None:
            if self.is_game_over():
                self._legal = []
            else:
                n = legal_moves(self._b, self._ws, self._buf, 0)
                self._legal = [int(m) for m in self._buf[:n]]
        return self._legal

    def _check_legal(self, move: int) -> None:
        if self.is_game_over():
            raise GameOverError()
        if move not in self._legal_moves():
            raise IllegalMoveError(self._why_illegal(move))

    def move_to_string(self, move: int) -> str:
        """Canonical MoveString of ``move`` in the current position."""
        return move_to_string(self._b, move)

    def valid_moves_string(self) -> str:
        """UHP ``validmoves`` line: ``;``-separated MoveStrings, or ``pass``."""
        if self.is_game_over():
            raise GameOverError()
        return ";".join(self.move_to_string(m) for m in self.legal_moves())

    def parse_move(self, text: str) -> int:
        """The legal move a MoveString names, in any valid spelling.

        Raises MoveStringError if it does not parse, IllegalMoveError with a
        reason if the rules forbid it, GameOverError after the game ended.
        """
        if self.is_game_over():
            raise GameOverError()
        move = parse_move_string(self._b, text)
        self._check_legal(move)
        return move

    def push(self, move: int) -> None:
        """Play a legal move int (IllegalMoveError otherwise)."""
        self._check_legal(move)
        self._push_checked(move)

    def _push_checked(self, move: int) -> None:
        text = self.move_to_string(move)
        token = int(do_move(self._b, move))
        self._history.append((move, token, text))
        self._legal = None

    def play(self, text: str) -> int:
        """Play a MoveString; returns the move int. State unchanged on error."""
        move = self.parse_move(text)
        self._push_checked(move)
        return move

    def pop(self) -> int:
        """Take back the last ply and return its move."""
        if not self._history:
            raise HiveError("There are no moves to undo.")
        move, token, _ = self._history.pop()
        undo_move(self._b, move, token)
        self._legal = None
        return move

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

    def _why_illegal(self, move: int) -> str:
        """A reason, in Mzinga's words where it has them, why ``move`` is illegal."""
        b = self._b
        if move == PASS:
            return "You can't pass when you have valid moves."
        piece, dest = move >> MOVE_PIECE_SHIFT, move & CELL_MASK
        name = PIECE_NAMES[piece]
        side = self.turn
        if not piece_in_game(piece, self.game_type):
            return f"{name} is not in a {self.game_type_string} game."
        own = colour_of(piece) == side
        src = int(b[POS + piece])
        turn_no = self.ply // 2 + 1
        queen_down = int(b[POS + side * PIECES_PER_COLOUR]) >= 0
        if src < 0:
            if not own:
                return f"It is {COLOUR_NAMES[side]}'s turn: you can't place {name}."
            i = piece % PIECES_PER_COLOUR
            first = KIND_FIRST[kind_of(piece)]
            base = side * PIECES_PER_COLOUR
            if any(int(b[POS + base + j]) < 0 for j in range(first, i)):
                return "When there are multiple pieces of the same bug type, you must play the pieces in order."
            if kind_of(piece) == QUEEN and turn_no == 1:
                return "You can't play your Queen Bee on your first turn."
            if kind_of(piece) != QUEEN and turn_no == 4 and not queen_down:
                return "You must play your Queen Bee on or before your fourth turn."
            if int(b[HEIGHT + dest]) > 0:
                return "You can't place a piece on top of another piece."
            return "You must place a piece next to your own pieces and away from your opponent's."
        if own and not queen_down:
            return "You can't move a piece in play until you've played your Queen Bee."
        if int(b[TOP + src]) != piece:
            return f"You can't move {name}: it is covered by another piece."
        if piece == int(b[LAST_MOVED]):
            return f"You can't move {name}: it was moved on the last turn."
        if int(b[LEVEL + piece]) == 0 and self._is_pinned(piece):
            return "You can't move that piece because it will break the hive."
        if not own:
            return f"You can't move your opponent's {name} there."
        if dest == src:
            return f"{name} is already there."
        return f"{name} can't move there."

    def _is_pinned(self, piece: int) -> bool:
        ws = new_workspace()
        stamp = find_pinned(self._b, ws, int(self._b[POS + piece]))
        return int(ws[WS_PIN + piece]) == stamp


def warmup() -> None:
    """Compile (or load from the on-disk cache) every kernel the engine uses."""
    b = Board("Base+MLP")
    for m in ("wP", "bM wP-", "wQ \\wP", "bQ bM-", "wA1 wQ/", "bL bQ/", "wA1 bL\\"):
        b.play(m)
    b.legal_moves()
    b.perft(2)
    b.pop()
