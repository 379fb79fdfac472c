"""The racing rule of ``arena tune``: which candidates to drop after a round, and when to stop.
Pure functions on per-deal scores; no games, no files.

A candidate's *per-deal score* is its mean win share over one deal: every opponent, every
ruleset, both seat orders (duplicate dice).  Every candidate still in the race has played the
same deals, so two candidates' per-deal scores are *paired* and their difference cancels the
luck of the dice.

The rule is the racing of F-Race with the paired t-test and a Bonferroni correction, as irace
offers it (``testType = "t-test-bonferroni"``; Birattari, Stützle, Paquete and Varrentrapp, "A
Racing Algorithm for Configuring Metaheuristics", GECCO 2002; López-Ibáñez et al., "The irace
package", Operations Research Perspectives 3, 2016), on rounds that double the deals played so
far, as in successive halving (Jamieson and Talwalkar, AISTATS 2016):

- after round ``r``, the leader is the candidate with the highest mean per-deal score;
- each other candidate ``c`` is compared with it by the paired differences ``leader - c`` over
  their common deals, with a one-sided z test (the mean difference over its standard error;
  the rounds are at least ``MIN_DEALS`` deals, where the normal approximation holds);
- ``c`` is dropped when its p-value is below ``alpha * 2**-r / (k - 1)`` with ``k`` the
  candidates in the race (Bonferroni over the ``k - 1`` comparisons, and an alpha spent over
  the rounds that sums to less than ``alpha``).

So the best candidate is dropped in the whole race with probability at most about ``alpha``
(the union bound over rounds and comparisons; "about" for the normal approximation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

#: The fewest deals a comparison is made on: below, the normal approximation is poor.
MIN_DEALS = 10
#: The two-sided confidence of the intervals reported for scores and gaps.
CONFIDENCE = 0.95
_NORMAL = NormalDist()


def elo(score: float) -> float:
    """The Elo difference of a score against the field: ``-400 log10(1/s - 1)`` (the logistic
    Elo model, as in cutechess-cli); clamped to a finite value at 0 and 1."""
    s = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / s - 1.0)


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (sample standard deviation over sqrt n)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = math.fsum(values) / n
    if n < 2:
        return mean, 0.0
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Mean and two-sided normal interval of a mean of per-deal scores (each deal one
    observation, as fishtest counts game pairs): ``mean +- z * se``."""
    mean, error = mean_and_error(values)
    z = _NORMAL.inv_cdf(0.5 + confidence / 2)
    return mean, mean - z * error, mean + z * error


def differences(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Paired differences ``a - b`` over their common deals (the shorter one's)."""
    return [x - y for x, y in zip(a, b, strict=False)]


@dataclass(frozen=True)
class Comparison:
    """One candidate against the leader after a round."""

    candidate: int
    gap: float  # leader's mean per-deal score minus the candidate's, on common deals
    error: float  # the gap's standard error
    p_value: float  # one-sided: of a gap this large if the candidate were at least as good
    upper: float  # the gap's upper confidence bound at the round's level
    dropped: bool


@dataclass(frozen=True)
class RoundVerdict:
    leader: int
    level: float  # the per-comparison significance level of this round
    comparisons: tuple[Comparison, ...]

    @property
    def dropped(self) -> tuple[int, ...]:
        return tuple(c.candidate for c in self.comparisons if c.dropped)


def round_level(alpha: float, round_number: int, racing: int) -> float:
    """The per-comparison level of round ``round_number`` (from 1) with ``racing`` candidates:
    ``alpha * 2**-round / (racing - 1)``."""
    return alpha * 0.5**round_number / max(1, racing - 1)


def judge_round(scores: dict[int, Sequence[float]], alpha: float, round_number: int) -> RoundVerdict:
    """Compare every candidate in ``scores`` (per-deal scores on the same deals) with the
    leader, and drop those significantly worse (see the module's docstring).  Ties for the
    lead go to the candidate listed first."""
    if not scores:
        raise ValueError("no candidates to judge")
    order = list(scores)
    means = {c: math.fsum(scores[c]) / max(1, len(scores[c])) for c in order}
    leader = max(order, key=lambda c: (means[c], -order.index(c)))
    level = round_level(alpha, round_number, len(order))
    z_level = _NORMAL.inv_cdf(1 - level)
    comparisons = []
    for c in order:
        if c == leader:
            continue
        diffs = differences(scores[leader], scores[c])
        gap, error = mean_and_error(diffs)
        # Every deal the same difference (no error): certain if positive, nothing if zero.
        p = 1 - _NORMAL.cdf(gap / error) if error > 0 else (0.0 if gap > 0 else 1.0)
        enough = len(diffs) >= MIN_DEALS
        comparisons.append(Comparison(c, gap, error, p, gap + z_level * error, enough and p < level))
    return RoundVerdict(leader, level, tuple(comparisons))


def elo_gap(leader_score: float, gap: float) -> float:
    """Elo between a score of ``leader_score`` and one ``gap`` below it, both against the field."""
    return elo(leader_score) - elo(leader_score - gap)


def within_tolerance(verdict: RoundVerdict, leader_score: float, tolerance: float) -> bool:
    """True when every candidate the round keeps is, by the upper bound of its gap, within
    ``tolerance`` Elo of the leader: racing on could only choose among equals."""
    kept = [c for c in verdict.comparisons if not c.dropped]
    return all(elo_gap(leader_score, max(0.0, c.upper)) <= tolerance for c in kept)
