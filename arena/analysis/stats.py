"""The few lines of standard math the reports need, tested against published values.

- Wilson score interval for a proportion (Wilson 1927); the 95% interval of 5,230 wins in
  10,000 games is 0.51320 to 0.53278, as scipy's ``binomtest(...).proportion_ci("wilson")``
  and statsmodels' ``proportion_confint(method="wilson")`` give.
- Elo difference from a score s: ``-400 * log10(1/s - 1)`` (0.523 gives +16.0).
"""

from __future__ import annotations

import math
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``trials`` (successes may be fractional,
    as with shared wins).  (0, 1) for no trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    # At 0 or all successes the bound is exactly 0 or 1 (the arithmetic leaves 1e-17).
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts a score (win share) of ``score``; ±inf at 1 and 0."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    """The expected score (win share) of a player ``elo`` points stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the log-likelihood ratio: accept H0 at or below the first,
    H1 at or above the second.  alpha = beta = 0.05 gives (-2.944, 2.944)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_llr_wins(wins: float, losses: float, elo0: float, elo1: float) -> float:
    """Wald's exact log-likelihood ratio of H1 (Elo elo1) against H0 (Elo elo0) for games that
    are won or lost: W ln(p1/p0) + L ln((1-p1)/(1-p0))."""
    p0, p1 = score_from_elo(elo0), score_from_elo(elo1)
    return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))


def sprt_llr_scores(n: int, mean: float, variance: float, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio for ``n`` observations of a score in [0, 1] with this mean and
    variance, under the normal approximation used by fishtest and cutechess for pentanomial
    (game pair) results: n (s1 - s0) (2 mean - s0 - s1) / (2 variance)."""
    if n == 0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def mean_interval(n: int, mean: float, variance: float, z: float = Z95) -> tuple[float, float]:
    """The normal interval of a mean of ``n`` observations with this (sample) variance."""
    if n <= 1:
        return 0.0, 1.0
    half = z * math.sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def likelihood_of_superiority(mean: float, variance: float, n: int) -> float:
    """The likelihood of superiority (LOS): the probability that the true score is above 0.5,
    given ``n`` observations of a score in [0, 1] with this mean and (sample) variance, under the
    normal approximation that cutechess and fastchess use: Phi((mean - 0.5) / sqrt(variance / n)).
    With no spread at all it is 1, 0 or 0.5 by the sign of mean - 0.5."""
    if n <= 0:
        return 0.5
    if variance <= 0:
        return 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return NormalDist().cdf((mean - 0.5) / math.sqrt(variance / n))
