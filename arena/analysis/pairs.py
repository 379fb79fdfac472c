"""Statistics on game pairs: both seat orders of one deal as one observation.

In duplicate play the two games of a deal share their dice by seat position, so the luck of the
dice pushes them in opposite directions for a player: a lucky first seat wins one game for each
side.  Counting the pair as one observation whose score is the mean of its two games (0, 1/4,
1/2, 3/4 or 1: fishtest's "pentanomial" results) removes that luck from the variance, so the
interval on the score is narrower than if the games were counted one by one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.analysis.stats import Z95, elo_from_score, mean_interval, sprt_llr_scores, wilson_interval

#: Pseudo-count per pentanomial outcome, so the variance of a few identical pairs is not zero
#: (fishtest regularises its pentanomial counts the same way).
PRIOR = 1e-3
OUTCOMES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Pairs before a variance estimated from them is trusted: before that the interval counts the
#: games one by one (Wilson) and the SPRT does not decide.  A variance from one to three pairs
#: can be near zero by chance and would make the test stop at once on the wrong answer (in
#: simulation: 11% false H1 and 43% false H0 at alpha = beta = 5%; from 30 pairs on, about 5%).
MIN_PAIRS = 30


@dataclass
class PairTally:
    """Running totals of pair scores for one player against another."""

    pairs: int = 0
    total: float = 0.0
    squares: float = 0.0
    counts: dict[float, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    def add(self, score: float) -> None:
        """Add a pair whose score (mean of its two games' win shares) is ``score``."""
        self.pairs += 1
        self.total += score
        self.squares += score * score
        nearest = min(OUTCOMES, key=lambda o: abs(o - score))
        self.counts[nearest] += 1

    @property
    def games(self) -> int:
        return 2 * self.pairs

    @property
    def mean(self) -> float:
        return self.total / self.pairs if self.pairs else 0.5

    @property
    def variance(self) -> float:
        """Variance of a pair's score, with a small prior on each of the five outcomes."""
        n = self.pairs + PRIOR * len(OUTCOMES)
        total = self.total + PRIOR * sum(OUTCOMES)
        squares = self.squares + PRIOR * sum(o * o for o in OUTCOMES)
        mean = total / n
        return max(squares / n - mean * mean, 1e-12)

    @property
    def pairs_are_informative(self) -> bool:
        """Enough pairs, not all alike, for the variance of pair scores to be trusted."""
        return self.pairs >= MIN_PAIRS and max(self.counts.values()) < self.pairs

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """95% interval of the score per game: from the pairs where they are informative, else
        (few pairs, or every pair alike, as when one side wins every game) the Wilson interval
        of the games counted one by one."""
        if not self.pairs_are_informative:
            return self.game_interval(z)
        return mean_interval(self.pairs, self.mean, self.variance, z)

    def game_interval(self, z: float = Z95) -> tuple[float, float]:
        """The Wilson interval counting the games one by one, for comparison."""
        return wilson_interval(self.total * 2, self.games, z)

    def elo(self) -> float:
        return elo_from_score(self.mean)

    def llr(self, elo0: float, elo1: float) -> float:
        return sprt_llr_scores(self.pairs, self.mean, self.variance, elo0, elo1)

    def decision(self, elo0: float, elo1: float, bounds: tuple[float, float]) -> str | None:
        """The SPRT's verdict so far: "H1", "H0", or None to play on.  No verdict before
        MIN_PAIRS pairs, whatever the log-likelihood ratio says."""
        if self.pairs < MIN_PAIRS:
            return None
        llr = self.llr(elo0, elo1)
        if llr >= bounds[1]:
            return "H1"
        if llr <= bounds[0]:
            return "H0"
        return None
