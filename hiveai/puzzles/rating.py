"""Puzzle and player ratings: Glicko-2, and a puzzle's starting rating from the engine.

**Glicko-2** is written here from Mark Glickman's paper "Example of the Glicko-2
system" (2013), steps 1 to 8, volatility by the paper's Illinois iteration; its
worked example is ``tests/test_puzzles.py``'s test. Not a dependency: the PyPI
packages that implement it are small one-person projects, and the update is
fifty lines that the paper's example checks exactly.

As lichess rates puzzles, each attempt is a rated game between the player and
the puzzle, and both ratings move: solving is a win for the player, failing a
win for the puzzle (:func:`attempt`).

>>> player, puzzle = Rating(), Rating(1600, 300)
>>> p2, z2 = attempt(player, puzzle, solved=True)
>>> p2.rating > player.rating, z2.rating < puzzle.rating, p2.rd < player.rd
(True, True, True)

**Starting rating** (:func:`initial_rating`): the weakest playing level that
finds the first move (levels 1 to 9, :mod:`hiveai.player.levels`, each with a
fixed seed), and the nodes hiveai's full-strength search needs to settle on
it: ``700 + 150 * (level - 1)``, plus ``100`` for every tenfold of those nodes
above 1,000 (at most 300), with a rating deviation of
:data:`PUZZLE_RD` so that players' attempts soon correct it. Level 10 stands
for "no level below full strength finds it".

>>> initial_rating(1, 500), initial_rating(4, 10_000), initial_rating(10, 1_000_000)
(700, 1250, 2350)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["DEFAULT_RATING", "DEFAULT_RD", "DEFAULT_VOLATILITY", "PUZZLE_RD", "TAU", "Rating", "attempt",
           "initial_rating", "update"]

DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
#: The system constant tau (the paper's example uses 0.5; it suggests 0.3 to 1.2).
TAU = 0.5
#: The rating deviation a new puzzle starts with: its engine rating is a guess.
PUZZLE_RD = 300.0
# Glicko-2's scale: 173.7178 = 400 / ln(10).
_SCALE = 173.7178
_EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating: ``rating``, rating deviation ``rd`` and ``volatility``."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, games: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period of ``games`` (opponent, score: 1 a
    win, 0.5 a draw, 0 a loss), as Glickman's paper computes it.

    No games: only the deviation grows (step 6 alone).
    """
    mu = (player.rating - DEFAULT_RATING) / _SCALE
    phi = player.rd / _SCALE
    sigma = player.volatility
    if not games:
        return Rating(player.rating, math.sqrt(phi * phi + sigma * sigma) * _SCALE, sigma)
    # Steps 3 and 4: the estimated variance v and improvement delta.
    inv_v = 0.0
    total = 0.0
    for opponent, score in games:
        mu_j = (opponent.rating - DEFAULT_RATING) / _SCALE
        phi_j = opponent.rd / _SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inv_v
    delta = v * total
    # Step 5: the new volatility, by the Illinois algorithm.
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    # Steps 6 to 8.
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * total
    return Rating(_SCALE * new_mu + DEFAULT_RATING, _SCALE * new_phi, new_sigma)


def attempt(player: Rating, puzzle: Rating, solved: bool, tau: float = TAU) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after one attempt (a game each way)."""
    score = 1.0 if solved else 0.0
    return update(player, [(puzzle, score)], tau), update(puzzle, [(player, 1.0 - score)], tau)


def initial_rating(level: int, nodes: int) -> int:
    """A puzzle's starting rating: the weakest level (1-9, 10: none) that solves it,
    and the full-strength search's nodes to find the first move (module docstring)."""
    extra = min(300.0, max(0.0, 100.0 * math.log10(max(nodes, 1) / 1000.0)))
    return int(round(700 + 150 * (level - 1) + extra))
