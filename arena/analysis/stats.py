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
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts a score (win share) of ``score``; ±inf at 1 and 0."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)
