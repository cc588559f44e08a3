"""Zobrist keys, computed on the fly instead of stored in tables.

A position's hash is the XOR of one key per (piece, cell, level) triple, one
for the side to move, one for the game type (so a transposition table or book
shared between game types never confuses them), and, in games with the
pillbug, one for the "stunned"
piece (moved last ply, so it may not move or be thrown). Keys come from the splitmix64
finaliser applied to the triple's index: a few multiplies, no 1.8 MB table
to keep in cache or to freeze into the compiled code, and identical on every
run so book and TT keys are stable.
"""

import numpy as np
from numba import njit

from hiveai.rules.bug import MAX_STACK, N_PIECES
from hiveai.rules.hex_grid import N_CELLS

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)

# Key index spaces: one per (piece, cell, level), then one per stunned piece,
# then the side key, then one per game type (8 of them).
_PER_PIECE = N_CELLS * MAX_STACK
_STUNNED_BASE = N_PIECES * _PER_PIECE
_SIDE_INDEX = _STUNNED_BASE + N_PIECES
_GAME_TYPE_BASE = _SIDE_INDEX + 1


@njit(cache=True)
def _mix(i):
    z = np.uint64(i) * _GOLDEN + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return np.int64(z ^ (z >> _S31))


@njit(cache=True)
def piece_key(piece, cell, level):
    """Key of ``piece`` standing on ``cell`` at stack ``level`` (0 = ground)."""
    return _mix(piece * _PER_PIECE + cell * MAX_STACK + level)


@njit(cache=True)
def stunned_key(piece):
    """Key of "``piece`` was moved last ply and may not move or be thrown now"."""
    return _mix(_STUNNED_BASE + piece)


@njit(cache=True)
def side_key():
    """Key XORed in on every ply, so the side to move is part of the hash."""
    return _mix(_SIDE_INDEX)


@njit(cache=True)
def game_type_key(game_type):
    """Key XORed in once per position: the game type (expansion bits 0..7)."""
    return _mix(_GAME_TYPE_BASE + game_type)
