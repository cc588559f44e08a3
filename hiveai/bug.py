"""Bugs, pieces and game types: the fixed vocabulary of Hive.

Pieces are small integers so the numba kernels can index arrays with them:
white pieces are 0..13 and black pieces 14..27, each colour in the order
``Q S1 S2 B1 B2 G1 G2 G3 A1 A2 A3 M L P``. A game type is a bit set of the
expansion pieces in play (``M``, ``L``, ``P``). This module is plain Python
(no numba) so the UHP front end can use it before anything is compiled.
"""

from __future__ import annotations

# Bug kinds.
QUEEN, SPIDER, BEETLE, GRASSHOPPER, ANT, MOSQUITO, LADYBUG, PILLBUG = range(8)
N_KINDS = 8
KIND_LETTERS = "QSBGAMLP"

WHITE, BLACK = 0, 1
COLOUR_LETTERS = "wb"
COLOUR_NAMES = ("White", "Black")

PIECES_PER_COLOUR = 14
N_PIECES = 2 * PIECES_PER_COLOUR
# Room per cell for a stack: at most 7 pieces can pile up (one ground piece,
# then the 4 beetles and 2 mosquitoes), rounded up to a power of two.
MAX_STACK = 8

# Kind of each of a colour's 14 pieces, and its number (0 for single pieces).
PIECE_KIND = (
    QUEEN,
    SPIDER, SPIDER,
    BEETLE, BEETLE,
    GRASSHOPPER, GRASSHOPPER, GRASSHOPPER,
    ANT, ANT, ANT,
    MOSQUITO, LADYBUG, PILLBUG,
)
PIECE_NUMBER = (0, 1, 2, 1, 2, 1, 2, 3, 1, 2, 3, 0, 0, 0)
# First piece index (within a colour) of each kind, and how many there are.
KIND_FIRST = (0, 1, 3, 5, 8, 11, 12, 13)
KIND_COUNT = (1, 2, 2, 3, 3, 1, 1, 1)

# Game types: bit flags of the expansion pieces in play.
EXP_MOSQUITO, EXP_LADYBUG, EXP_PILLBUG = 1, 2, 4
EXPANSION_LETTERS = (("M", EXP_MOSQUITO), ("L", EXP_LADYBUG), ("P", EXP_PILLBUG))
KIND_EXPANSION = {MOSQUITO: EXP_MOSQUITO, LADYBUG: EXP_LADYBUG, PILLBUG: EXP_PILLBUG}


def colour_of(piece: int) -> int:
    """``WHITE`` or ``BLACK``."""
    return piece // PIECES_PER_COLOUR


def kind_of(piece: int) -> int:
    """Bug kind (``QUEEN`` ... ``PILLBUG``) of a piece id."""
    return PIECE_KIND[piece % PIECES_PER_COLOUR]


def piece_name(piece: int) -> str:
    """UHP PieceString, e.g. ``wQ``, ``bS2``, ``wM``."""
    i = piece % PIECES_PER_COLOUR
    num = PIECE_NUMBER[i]
    return COLOUR_LETTERS[piece // PIECES_PER_COLOUR] + KIND_LETTERS[PIECE_KIND[i]] + (str(num) if num else "")


PIECE_NAMES = tuple(piece_name(p) for p in range(N_PIECES))
_PIECE_BY_NAME = {name.lower(): p for p, name in enumerate(PIECE_NAMES)}


def parse_piece(text: str) -> int | None:
    """Piece id of a PieceString in any letter case (``WS1``, ``bq``), else None."""
    return _PIECE_BY_NAME.get(text.strip().lower())


def piece_in_game(piece: int, game_type: int) -> bool:
    """Whether ``piece`` exists in the given game type."""
    exp = KIND_EXPANSION.get(kind_of(piece))
    return exp is None or bool(game_type & exp)


def game_type_string(game_type: int) -> str:
    """Canonical GameTypeString: ``Base`` or ``Base+`` then M, L, P in that order."""
    letters = "".join(letter for letter, bit in EXPANSION_LETTERS if game_type & bit)
    return "Base+" + letters if letters else "Base"


def parse_game_type(text: str) -> int | None:
    """Game type bits of a GameTypeString, else None.

    Lenient like nokamute: any letter case, spaces around, expansions in any
    order (``Base+LM`` is ``Base+ML``). Repeated or unknown letters and an empty
    ``Base+`` are rejected.
    """
    s = text.strip()
    head, plus, tail = s.partition("+")
    if head.lower() != "base":
        return None
    if not plus:
        return 0
    bits = 0
    if not tail:
        return None
    for ch in tail.upper():
        bit = dict(EXPANSION_LETTERS).get(ch)
        if bit is None or bits & bit:
            return None
        bits |= bit
    return bits
