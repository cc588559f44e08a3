"""The GameTypeStrings of the game types, for tests that run in each: made from
:mod:`hiveai.bug`'s list, so a game type added there is tested everywhere."""

from __future__ import annotations

from hiveai.bug import CRITTERS, game_type_string
from hiveai.bug import STANDARD_GAME_TYPES as STANDARD_BITS

# Base and every mix of M, L, P (what UHP's info advertises), in hiveai.bug's order.
STANDARD_GAME_TYPES = tuple(game_type_string(bits) for bits in STANDARD_BITS)
# And Critters, the variant with a game type of its own.
EVERY_GAME_TYPE = (*STANDARD_GAME_TYPES, game_type_string(CRITTERS))
