"""Match statistics: Elo, 95 % confidence interval, LOS, pentanomial, SPRT.

Pure functions on result counts, no I/O. The formulas are the published ones
that chess engine testing uses, so numbers can be compared with fastchess
and cutechess output:

* Score ``mu`` = (W + D/2) / N; Elo = -400 log10(1/mu - 1) (logistic Elo).
* The 95 % interval is taken on the mean score, mu +- 1.96 sigma/sqrt(N),
  with sigma^2 the sample variance of one game's score (or one game pair's,
  scaled to 0..1), and mapped to Elo; the reported "+-" is half its width
  (fastchess ``elo_wdl.cpp`` / ``elo_pentanomial.cpp``, cutechess ``elo.cpp``).
* Likelihood of superiority: LOS = Phi((mu - 0.5) / (sigma / sqrt(N))),
  the normal approximation fastchess prints.
* Pentanomial: games are played in pairs (one opening, colours swapped); a
  pair scores 0, 1/2, 1, 3/2 or 2 points and the five counts are
  ``[LL, LD, WL+DD, WD, WW]`` (fastchess's ``Ptnml(0-2)``). Pairs are the
  independent samples, which removes the opening's bias from the variance.
* SPRT: the generalised SPRT of Michel Van den Bergh ("Comments on Normalized
  Elo", proposition 1.1), as fishtest and fastchess (model ``logistic``) run
  it: for hypotheses ``elo0`` < ``elo1`` in logistic Elo, the log-likelihood
  ratio is N * sum_i p^_i log(p1_i / p0_i), where p_s is the maximum-
  likelihood distribution over the outcomes with expected score s. Bounds
  are Wald's: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

# Two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054
# Scores of the five pair outcomes, as a fraction of the pair's 2 points.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
GAME_SCORES = (0.0, 0.5, 1.0)
# Outcome counts of zero are replaced by this before the SPRT's maximum-
# likelihood fit, which needs every outcome to have some mass (fastchess's
# ``regularize``, the same constant).
REGULARIZE = 1e-3
# Default SPRT error rates (fishtest's and fastchess's).
ALPHA = BETA = 0.05


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score in [0, 1] (+-inf at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a side ``elo`` logistic Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _phi(x: float) -> float:
    """Standard normal cumulative distribution."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95 % interval and likelihood of superiority.

    ``n`` samples (games or pairs) of mean ``score`` (0..1) and per-sample
    variance ``variance``; ``error`` is half the interval's width in Elo.
    All fields are NaN when ``n`` is 0.
    """

    n: int
    score: float
    variance: float
    elo: float
    lower: float
    upper: float
    error: float
    los: float


def _estimate(scores: Sequence[float], counts: Sequence[float]) -> EloEstimate:
    n = sum(counts)
    if n <= 0:
        nan = math.nan
        return EloEstimate(0, nan, nan, nan, nan, nan, nan, nan)
    mu = sum(s * c for s, c in zip(scores, counts)) / n
    var = sum(c * (s - mu) ** 2 for s, c in zip(scores, counts)) / n
    stderr = math.sqrt(var / n)
    lo, hi = elo_from_score(mu - Z95 * stderr), elo_from_score(mu + Z95 * stderr)
    if stderr > 0:
        los = _phi((mu - 0.5) / stderr)
    else:
        los = 0.5 if mu == 0.5 else float(mu > 0.5)
    return EloEstimate(int(n), mu, var, elo_from_score(mu), lo, hi, (hi - lo) / 2.0, los)


def wdl_elo(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo from game results (trinomial: each game one sample)."""
    return _estimate(GAME_SCORES, (losses, draws, wins))


def pentanomial_elo(pentanomial: Sequence[int]) -> EloEstimate:
    """Elo from game-pair results ``[LL, LD, WL+DD, WD, WW]`` (each pair one sample)."""
    _check_pentanomial(pentanomial)
    return _estimate(PAIR_SCORES, pentanomial)


def _check_pentanomial(pentanomial: Sequence[int]) -> None:
    if len(pentanomial) != 5 or any(c < 0 for c in pentanomial):
        raise ValueError(f"a pentanomial is 5 non-negative counts [LL, LD, WL+DD, WD, WW], not {pentanomial!r}")


def pair_points(first: float, second: float) -> int:
    """Pentanomial bucket (0..4) of a pair whose two games scored ``first`` and ``second`` (0, 0.5 or 1)."""
    return round(2 * (first + second))


# --- SPRT ---------------------------------------------------------------------


def sprt_bounds(alpha: float = ALPHA, beta: float = BETA) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds: below accept H0, above accept H1."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("SPRT needs 0 < alpha, beta < 1 and alpha + beta < 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _mle(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """Most likely outcome distribution with expected score ``s``, given observed ``probs``.

    Van den Bergh, proposition 1.1: p_i = p^_i / (1 + theta (a_i - s)) with theta
    the root of sum_i p^_i (a_i - s) / (1 + theta (a_i - s)) = 0, which is
    decreasing in theta on (-1/(a_max - s), -1/(a_min - s)); found by bisection.
    """
    lo, hi = -1.0 / (scores[-1] - s), -1.0 / (scores[0] - s)

    def f(theta: float) -> float:
        return sum(p * (a - s) / (1.0 + theta * (a - s)) for a, p in zip(scores, probs))

    for _ in range(200):  # the interval halves each time: far below double precision
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2.0
    return [p / (1.0 + theta * (a - s)) for a, p in zip(scores, probs)]


def llr(scores: Sequence[float], counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalised-SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo.

    ``counts[i]`` outcomes scored ``scores[i]`` (0..1, increasing). Zero counts
    are regularised; with no samples at all the LLR is 0.
    """
    if sum(counts) <= 0:
        return 0.0
    reg = [c if c > 0 else REGULARIZE for c in counts]
    n = sum(reg)
    probs = [c / n for c in reg]
    p0 = _mle(scores, probs, score_from_elo(elo0))
    p1 = _mle(scores, probs, score_from_elo(elo1))
    return n * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1))


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of ``elo0`` (H0) against ``elo1`` (H1)."""

    elo0: float
    elo1: float
    alpha: float = ALPHA
    beta: float = BETA

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs ELO0 < ELO1, got {self.elo0} and {self.elo1}")
        sprt_bounds(self.alpha, self.beta)

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, pentanomial: Sequence[int]) -> float:
        """LLR of the game pairs played so far."""
        _check_pentanomial(pentanomial)
        return llr(PAIR_SCORES, pentanomial, self.elo0, self.elo1)

    def decision(self, llr_value: float) -> str | None:
        """``"H0"``, ``"H1"`` or None (keep playing)."""
        lower, upper = self.bounds
        if llr_value <= lower:
            return "H0"
        if llr_value >= upper:
            return "H1"
        return None
