"""Bugs, pieces and game types: the fixed vocabulary of Hive.

Pieces are small integers so the numba kernels can index arrays with them:
white pieces are 0..13 and black pieces 14..27, each colour in the order
``Q S1 S2 B1 B2 G1 G2 G3 A1 A2 A3 M L P``. A standard game type is a bit set
of the expansion pieces in play (``M``, ``L``, ``P``); ``CRITTERS`` is one
more game type (M. Winther's variant, docs/critters.md), whose Dragonfly
takes the Mosquito's slot (Critters has no Mosquito; both are single pieces
without a number), so piece ids, and with them Zobrist keys and books, are
the same in every game type. This module is plain Python (no numba) so the
UHP front end can use it before anything is compiled.
"""

from __future__ import annotations

# Bug kinds. The first N_KINDS have slots of their own (below); DRAGONFLY
# lives in the Mosquito's slot in Critters, so N_ALL_KINDS sizes tables by kind.
QUEEN, SPIDER, BEETLE, GRASSHOPPER, ANT, MOSQUITO, LADYBUG, PILLBUG, DRAGONFLY = range(9)
N_KINDS = 8
N_ALL_KINDS = 9
KIND_LETTERS = "QSBGAMLPD"
# The bugs' names in words, in KIND_LETTERS' order (for messages).
KIND_NAMES = ("Queen", "Spider", "Beetle", "Grasshopper", "Ant", "Mosquito", "Ladybug", "Pillbug", "Dragonfly")

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
KIND_FIRST = (0, 1, 3, 5, 8, 11, 12, 13, 11)
KIND_COUNT = (1, 2, 2, 3, 3, 1, 1, 1, 1)

# Game types: bit flags of the expansion pieces in play.
EXP_MOSQUITO, EXP_LADYBUG, EXP_PILLBUG = 1, 2, 4
EXPANSION_LETTERS = (("M", EXP_MOSQUITO), ("L", EXP_LADYBUG), ("P", EXP_PILLBUG))
KIND_EXPANSION = {MOSQUITO: EXP_MOSQUITO, LADYBUG: EXP_LADYBUG, PILLBUG: EXP_PILLBUG}
STANDARD_GAME_TYPES = tuple(range(8))  # Base and every mix of M, L, P: what UHP's info advertises
# Critters (a whole GameTypeString, no expansions): the next value after the
# standard bit sets, so tables indexed by game type stay small.
CRITTERS = 8
CRITTERS_NAME = "Critters"
N_GAME_TYPES = 9
# Slot of the Dragonfly within a colour (the Mosquito's), and the slots
# Critters leaves out: G3, L, P (11 pieces a side: Q A1-A3 G1-G2 S1-S2 B1-B2 D).
DRAGONFLY_INDEX = KIND_FIRST[MOSQUITO]
CRITTERS_ABSENT = (KIND_FIRST[GRASSHOPPER] + 2, KIND_FIRST[LADYBUG], KIND_FIRST[PILLBUG])
# Kind of each slot in Critters.
CRITTERS_PIECE_KIND = tuple(DRAGONFLY if i == DRAGONFLY_INDEX else k for i, k in enumerate(PIECE_KIND))


def colour_of(piece: int) -> int:
    """``WHITE`` or ``BLACK``."""
    return piece // PIECES_PER_COLOUR


def kind_of(piece: int, game_type: int = 0) -> int:
    """Bug kind (``QUEEN`` ... ``DRAGONFLY``) of a piece id in a game type."""
    kinds = CRITTERS_PIECE_KIND if game_type == CRITTERS else PIECE_KIND
    return kinds[piece % PIECES_PER_COLOUR]


def piece_name(piece: int, game_type: int = 0) -> str:
    """UHP PieceString, e.g. ``wQ``, ``bS2``, ``wM`` (``wD`` in Critters)."""
    i = piece % PIECES_PER_COLOUR
    num = PIECE_NUMBER[i]
    letter = KIND_LETTERS[kind_of(piece, game_type)]
    return COLOUR_LETTERS[piece // PIECES_PER_COLOUR] + letter + (str(num) if num else "")


PIECE_NAMES = tuple(piece_name(p) for p in range(N_PIECES))
CRITTERS_PIECE_NAMES = tuple(piece_name(p, CRITTERS) for p in range(N_PIECES))
_PIECE_BY_NAME = {name.lower(): p for p, name in enumerate(PIECE_NAMES)}
# Critters names only its own pieces (G3 still parses, to be refused as not in the game).
_CRITTERS_PIECE_BY_NAME = {
    name.lower(): p for p, name in enumerate(CRITTERS_PIECE_NAMES)
    if p % PIECES_PER_COLOUR not in CRITTERS_ABSENT[1:]
}


def piece_names(game_type: int) -> tuple[str, ...]:
    """PieceString of every piece id in ``game_type`` (the Dragonfly's slot reads ``D`` in Critters)."""
    return CRITTERS_PIECE_NAMES if game_type == CRITTERS else PIECE_NAMES


def parse_piece(text: str, game_type: int = 0) -> int | None:
    """Piece id of a PieceString in any letter case (``WS1``, ``bq``), else None."""
    names = _CRITTERS_PIECE_BY_NAME if game_type == CRITTERS else _PIECE_BY_NAME
    return names.get(text.strip().lower())


def piece_in_game(piece: int, game_type: int) -> bool:
    """Whether ``piece`` exists in the given game type."""
    if game_type == CRITTERS:
        return piece % PIECES_PER_COLOUR not in CRITTERS_ABSENT
    exp = KIND_EXPANSION.get(kind_of(piece))
    return exp is None or bool(game_type & exp)


def kind_count(kind: int, game_type: int) -> int:
    """How many pieces of ``kind`` each side has in ``game_type`` (0: not in the game)."""
    return sum(kind_of(i, game_type) == kind and piece_in_game(i, game_type) for i in range(PIECES_PER_COLOUR))


def game_type_string(game_type: int) -> str:
    """Canonical GameTypeString: ``Base`` or ``Base+`` then M, L, P in that order; ``Critters``."""
    if game_type == CRITTERS:
        return CRITTERS_NAME
    letters = "".join(letter for letter, bit in EXPANSION_LETTERS if game_type & bit)
    return "Base+" + letters if letters else "Base"


def parse_game_type(text: str) -> int | None:
    """Game type bits of a GameTypeString, else None.

    Lenient like nokamute: any letter case, spaces around, expansions in any
    order (``Base+LM`` is ``Base+ML``). Repeated or unknown letters and an empty
    ``Base+`` are rejected. ``Critters`` stands alone (no expansion combines with it).
    """
    s = text.strip()
    if s.lower() == CRITTERS_NAME.lower():
        return CRITTERS
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
