"""Match statistics (hiveai.tournament.stats) against numbers worked out
independently: by hand from the published formulas, from published
cutechess/fastchess output, and (for the SPRT) by brute-force maximum
likelihood and by the closed-form GSPRT approximation."""

from __future__ import annotations

import math

import pytest

from hiveai.tournament.stats import (
    GAME_SCORES,
    PAIR_SCORES,
    Sprt,
    elo_from_score,
    llr,
    pair_points,
    pentanomial_elo,
    score_from_elo,
    sprt_bounds,
    wdl_elo,
)


def test_elo_and_score_are_inverse():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(10 / 11) == pytest.approx(400)  # 10:1 odds is 400 Elo, by definition
    for elo in (-600, -35.5, 0, 12, 400):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_wdl_by_hand():
    # W 60, D 20, L 20: score (60 + 20/2)/100 = 0.7; per-game variance
    # 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.054 + 0.008 + 0.098 = 0.16; stderr sqrt(0.16/100) = 0.04;
    # 95 %: 0.7 -+ 1.959964*0.04 = 0.621601 .. 0.778399. Elo = -400 log10(1/p - 1):
    # 147.1907, interval 86.2250 .. 218.2518 (error 66.0134); LOS = Phi(0.2/0.04) = Phi(5) = 0.99999971.
    e = wdl_elo(60, 20, 20)
    assert (e.n, e.score, e.variance) == (100, pytest.approx(0.7), pytest.approx(0.16))
    assert e.elo == pytest.approx(147.1907, abs=1e-3)
    assert (e.lower, e.upper) == (pytest.approx(86.2250, abs=1e-3), pytest.approx(218.2518, abs=1e-3))
    assert e.error == pytest.approx(66.0134, abs=1e-3)
    assert e.los == pytest.approx(0.99999971, abs=1e-8)


def test_wdl_matches_published_cutechess_output():
    # cutechess-cli, 1000 games: "Score of midnight-dev vs midnight-latest: 449 - 276 - 275 [0.587]
    # ... Elo difference: 60.7 +/- 18.5" (archishou/MidnightChessEngine changelog).
    e = wdl_elo(449, 275, 276)
    assert round(e.score, 3) == 0.587 and round(e.elo, 1) == 60.7 and round(e.error, 1) == 18.5
    # "382 - 320 - 298 [0.531] ... Elo difference: 21.6 +/- 18.1" (cutechess's LOS, 99.0 %, uses
    # W and L only; ours is fastchess's normal approximation, checked below).
    e = wdl_elo(382, 298, 320)
    assert round(e.elo, 1) == 21.6 and round(e.error, 1) == 18.1


@pytest.mark.parametrize("ptnml, elo, error, los", [
    # fastchess output quoted in KSaiAkshit/eschec docs/dev_log.md: "Elo: 77.71 +/- 33.03 ... LOS: 100.00 %
    # ... Ptnml(0-2): [1, 11, 47, 25, 16]" and two more of its matches.
    ([1, 11, 47, 25, 16], 77.71, 33.03, 100.00),
    ([1, 24, 42, 25, 8], 26.11, 31.23, 95.04),
    ([2, 23, 32, 35, 8], 41.89, 33.28, 99.38),
])
def test_pentanomial_matches_published_fastchess_output(ptnml, elo, error, los):
    e = pentanomial_elo(ptnml)
    assert (round(e.elo, 2), round(e.error, 2), round(100 * e.los, 2)) == (elo, error, los)


def test_pentanomial_by_hand():
    # Pairs [LL, LD, WL+DD, WD, WW] = [1, 2, 4, 2, 1]: symmetric, so score 0.5 and Elo 0; variance over pair
    # scores (0, .25, .5, .75, 1): (1*.25 + 2*.0625 + 0 + 2*.0625 + 1*.25)/10 = 0.075.
    e = pentanomial_elo([1, 2, 4, 2, 1])
    assert (e.n, e.score, e.elo, e.los) == (10, 0.5, 0.0, 0.5)
    assert e.variance == pytest.approx(0.075)
    # Interval: 0.5 -+ 1.959964*sqrt(0.075/10) = 0.5 -+ 0.169738; -400 log10(1/0.669738 - 1) = 122.8184.
    assert e.upper == pytest.approx(-e.lower) == pytest.approx(122.8184, abs=1e-3)
    assert pair_points(1, 0) == pair_points(0.5, 0.5) == 2 and pair_points(1, 0.5) == 3 and pair_points(0, 0) == 0


def test_empty_and_degenerate_samples():
    assert math.isnan(wdl_elo(0, 0, 0).elo)
    all_won = wdl_elo(5, 0, 0)
    assert all_won.elo == math.inf and all_won.los == 1.0
    with pytest.raises(ValueError):
        pentanomial_elo([1, 2, 3])


def test_sprt_bounds():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))  # -+2.944
    assert sprt_bounds(0.05, 0.1) == (pytest.approx(math.log(0.1 / 0.95)), pytest.approx(math.log(0.9 / 0.05)))
    for bad in ((0, 0.05), (0.05, 1), (0.6, 0.5)):
        with pytest.raises(ValueError):
            sprt_bounds(*bad)
    with pytest.raises(ValueError):
        Sprt(10, 0)


def _brute_force_trinomial_llr(w: int, d: int, l: int, elo0: float, elo1: float) -> float:
    """max log-likelihood under mean score s1 minus under s0, by golden-section search.

    A W/D/L distribution with expected score s has one free parameter: the draw
    rate pD, with pW = s - pD/2 and pL = 1 - s - pD/2. The log-likelihood
    sum n_i log p_i is concave in pD, so a 1-D search finds its maximum.
    """
    def best(s: float) -> float:
        def loglik(pd: float) -> float:
            pw, pl = s - pd / 2, 1 - s - pd / 2
            return w * math.log(pw) + d * math.log(pd) + l * math.log(pl)

        a, b = 1e-12, min(2 * s, 2 * (1 - s)) - 1e-12
        g = (math.sqrt(5) - 1) / 2
        for _ in range(200):
            c, e = b - g * (b - a), a + g * (b - a)
            if loglik(c) < loglik(e):
                a = c
            else:
                b = e
        return loglik((a + b) / 2)

    return best(score_from_elo(elo1)) - best(score_from_elo(elo0))


@pytest.mark.parametrize("wdl, elo0, elo1", [
    ((30, 50, 20), 0, 10),
    ((20, 60, 25), -5, 5),
    ((120, 200, 90), 0, 20),
    ((7, 3, 12), -20, 40),
])
def test_sprt_llr_is_the_maximum_likelihood_ratio(wdl, elo0, elo1):
    w, d, l = wdl
    ours = llr(GAME_SCORES, (l, d, w), elo0, elo1)
    assert ours == pytest.approx(_brute_force_trinomial_llr(w, d, l, elo0, elo1), rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("ptnml", [[10, 60, 180, 70, 12], [3, 40, 100, 30, 9], [25, 80, 150, 110, 35]])
def test_sprt_llr_agrees_with_the_closed_form_approximation(ptnml):
    # Van den Bergh's approximation for small Elo differences:
    # LLR ~ N (s1 - s0)(2 mu - s0 - s1) / (2 var), over pair scores.
    n = sum(ptnml)
    mu = sum(c * s for c, s in zip(ptnml, PAIR_SCORES)) / n
    var = sum(c * (s - mu) ** 2 for c, s in zip(ptnml, PAIR_SCORES)) / n
    s0, s1 = score_from_elo(0), score_from_elo(5)
    approx = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert Sprt(0, 5).llr(ptnml) == pytest.approx(approx, rel=0.02, abs=0.01)


def test_sprt_llr_of_identical_pairs_by_hand():
    # n pairs all in one bucket. The likeliest pair distribution with mean score s keeps as much
    # mass as it can on that bucket and puts the rest q on the farthest score on the other side of s.
    # All pairs scoring 1/2: under H0 (s0 = 1/2) nothing moves (log-likelihood 0); under H1 the rest
    # goes to 1, mean (1 - q)/2 + q = s1, q = 2 s1 - 1, so LLR = n ln(1 - q) = n ln(2 - 2 s1).
    # All pairs won (score 1): the rest goes to 0, q = 1 - s, so LLR = n ln(s1) - n ln(s0).
    # Zero counts are regularised (stats.REGULARIZE), hence the tolerance.
    sprt = Sprt(0, 100)
    s0, s1 = score_from_elo(0), score_from_elo(100)
    for n in (9, 50):  # with one pair the regularised counts weigh more (1.6 %)
        assert sprt.llr([0, 0, n, 0, 0]) == pytest.approx(n * math.log(2 - 2 * s1), rel=0.01)
        assert sprt.llr([0, 0, 0, 0, n]) == pytest.approx(n * math.log(s1 / s0), rel=0.01)


def test_sprt_decisions():
    sprt = Sprt(0, 100)
    lower, upper = sprt.bounds
    s1 = score_from_elo(100)
    # An engine against itself, deterministic: every pair is one win and one loss. By the LLR above,
    # H0 is accepted after ceil(ln(1/19) / ln(2 - 2 s1)) = ceil(2.944 / 0.3287) = 9 pairs.
    draws = math.ceil(lower / math.log(2 - 2 * s1))
    assert draws == 9
    assert sprt.decision(sprt.llr([0, 0, draws - 1, 0, 0])) is None
    assert sprt.decision(sprt.llr([0, 0, draws, 0, 0])) == "H0"
    # Winning every pair: H1 after ceil(ln 19 / ln(2 s1)) = ceil(2.944 / 0.2470) = 12 pairs.
    wins = math.ceil(upper / math.log(2 * s1))
    assert wins == 12
    assert sprt.decision(sprt.llr([0, 0, 0, 0, wins - 1])) is None
    assert sprt.decision(sprt.llr([0, 0, 0, 0, wins])) == "H1"
    assert Sprt(0, 5).decision(Sprt(0, 5).llr([2, 10, 30, 10, 2])) is None
    assert Sprt(0, 5).llr([0] * 5) == 0.0
