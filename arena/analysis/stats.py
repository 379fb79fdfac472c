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
