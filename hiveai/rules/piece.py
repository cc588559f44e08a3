"""One piece of a game: :class:`Piece`, a colour, a bug and a number, named by its UHP PieceString.

>>> p = Piece.from_name("bS2")
>>> p, str(p), p.colour == BLACK, p.kind, p.number
(Piece('bS2'), 'bS2', True, 'S', 2)
>>> Piece.from_name("wD", "Critters").kind, Piece.from_name("wM").kind
('D', 'M')

Plain Python (no numba); :class:`hiveai.rules.board.Board` hands these out
(:meth:`~hiveai.rules.board.Board.piece_at`, :meth:`~hiveai.rules.board.Board.pieces_in_hand`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hiveai.rules.bug import (
    BLACK,
    N_PIECES,
    PIECE_NUMBER,
    PIECES_PER_COLOUR,
    WHITE,
    colour_of,
    parse_game_type,
    parse_piece,
    piece_in_game,
    piece_names,
)

__all__ = ["BLACK", "WHITE", "Piece"]


@dataclass(frozen=True)
class Piece:
    """A piece: ``code`` is hiveai's piece id (0-13 white, 14-27 black), ``name`` its PieceString.

    Equal when both match (in Critters the Mosquito's slot is the Dragonfly ``wD``).

    >>> Piece.from_code(0), Piece.from_code(14 + 8).name, Piece.from_code(11, 8)
    (Piece('wQ'), 'bA1', Piece('wD'))
    """

    code: int
    name: str

    @classmethod
    def from_code(cls, code: int, game_type: int = 0) -> Piece:
        """The piece with id ``code`` in a game type (bits, see :mod:`hiveai.rules.bug`)."""
        if not 0 <= code < N_PIECES:
            raise ValueError(f"a piece id is 0 to {N_PIECES - 1}, not {code}")
        return cls(code, piece_names(game_type)[code])

    @classmethod
    def from_name(cls, name: str, game_type: str = "Base+MLP") -> Piece:
        """The piece a PieceString names (any letter case) in ``game_type``; ValueError if none."""
        gt = parse_game_type(game_type)
        if gt is None:
            raise ValueError(f"unknown game type {game_type!r}")
        code = parse_piece(name, gt)
        if code is None or not piece_in_game(code, gt):
            raise ValueError(f"{name!r} is no piece of a {game_type} game")
        return cls.from_code(code, gt)

    @property
    def colour(self) -> int:
        """:data:`WHITE` or :data:`BLACK`."""
        return colour_of(self.code)

    @property
    def kind(self) -> str:
        """The bug's letter: Q, S, B, G, A, M, L, P (or D in Critters)."""
        return self.name[1]

    @property
    def number(self) -> int:
        """1, 2 or 3 for bugs with several pieces; 0 for single ones (Q, M, L, P, D)."""
        return PIECE_NUMBER[self.code % PIECES_PER_COLOUR]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Piece({self.name!r})"

