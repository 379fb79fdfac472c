"""Statistics on game pairs: both seat orders of one deal as one observation.

In duplicate play the two games of a deal share their dice by seat position, so the luck of the
dice pushes them in opposite directions for a player: a lucky first seat wins one game for each
side.  Counting the pair as one observation whose score is the mean of its two games (0, 1/4,
1/2, 3/4 or 1: fishtest's "pentanomial" results) removes that luck from the variance, so the
interval on the score is narrower than if the games were counted one by one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from arena.analysis.sprt import OUTCOMES, Sprt, mean_and_variance, normalized_elo
from arena.analysis.stats import Z95, elo_from_score, likelihood_of_superiority, wilson_interval

#: Pseudo-count added to each of the five outcomes for the interval and the LOS: the Jeffreys
#: prior Dirichlet(1/2, ..., 1/2) of the pentanomial frequencies.  With it the 95% interval
#: covers the true score in at least 94% of duels from 30 pairs on (benchmarks/interval_coverage.py:
#: twelve pentanomial shapes at 30 to 1,000 pairs; tests/test_sprt.py checks a few); the plain
#: normal interval covered as little as 90% at 30 to 50 pairs, and 45-80% when decisive pairs are
#: rare or nearly every pair is won.
INTERVAL_PRIOR = 0.5


@dataclass
class PairTally:
    """Running counts of pair scores for one player against another, in fastchess's
    "Ptnml(0-2)" order: pairs scoring 0, 1/4, 1/2, 3/4, 1."""

    counts: list[int] = field(default_factory=lambda: [0] * len(OUTCOMES))

    def add(self, score: float) -> None:
        """Add a pair whose score (mean of its two games' win shares) is ``score``.  In a game of
        two a win share is 0, 1/2 or 1, so a pair scores a multiple of 1/4."""
        self.counts[round(score * 4)] += 1

    @property
    def pentanomial(self) -> tuple[int, ...]:
        return tuple(self.counts)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def mean(self) -> float:
        """The score per game: the mean pair score (0.5 before any pair)."""
        n = self.pairs
        return sum(c * o for c, o in zip(self.counts, OUTCOMES, strict=True)) / n if n else 0.5

    def _smoothed(self) -> tuple[float, float]:
        """Mean and variance of the pair scores with :data:`INTERVAL_PRIOR` added to every
        outcome."""
        filled = [c + INTERVAL_PRIOR for c in self.counts]
        total = sum(filled)
        return mean_and_variance(OUTCOMES, [c / total for c in filled])

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The 95% interval of the score per game from the pairs.

        A normal interval around the pair mean after adding half a pair to each of the five
        outcomes (the Jeffreys prior of the multinomial, the same idea as Agresti and Coull's
        "add two successes and two failures", Amer. Statistician 1998): the pseudo-pairs keep
        the spread from collapsing when the few decisive pairs of a duplicate duel have not
        shown up yet, which made the plain interval too narrow.  Always holds the observed
        mean; clipped to [0, 1]."""
        if not self.pairs:
            return 0.0, 1.0
        centre, variance = self._smoothed()
        error = math.sqrt(variance / self.pairs)  # the pseudo-pairs widen the spread, not n
        low, high = centre - z * error, centre + z * error
        return max(0.0, min(low, self.mean)), min(1.0, max(high, self.mean))

    def game_interval(self, z: float = Z95) -> tuple[float, float]:
        """The Wilson interval counting the games one by one, for comparison."""
        return wilson_interval(self.mean * self.games, self.games, z)

    def los(self) -> float:
        """The likelihood of superiority: the probability that A's true score is above 1/2,
        Phi((mean - 1/2) / standard error) as cutechess and fastchess compute it, on the same
        mean and standard error as :meth:`interval` (so LOS > 97.5% exactly when the interval
        lies above 1/2)."""
        centre, variance = self._smoothed()
        return likelihood_of_superiority(centre, variance, self.pairs)

    def elo(self) -> float:
        return elo_from_score(self.mean)

    def normalized_elo(self) -> float:
        """Normalized Elo (fishtest): the score edge in standard deviations per game, * 800/ln 10."""
        return normalized_elo(self.counts)

    def llr(self, sprt: Sprt) -> float:
        """The GLR log-likelihood ratio of the pairs so far under ``sprt``."""
        return sprt.llr(self.counts)

    def decision(self, sprt: Sprt) -> tuple[float, str | None]:
        """The log-likelihood ratio and the SPRT's verdict so far: "H1", "H0", or None to play on."""
        llr = self.llr(sprt)
        return llr, sprt.verdict(llr)
