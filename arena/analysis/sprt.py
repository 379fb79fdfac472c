"""The generalized likelihood ratio (GLR) SPRT on pentanomial game-pair results.

A game pair (one deal in both seat orders) scores 0, 1/4, 1/2, 3/4 or 1 for player A.  The five
counts of those outcomes are all the data.  For a hypothesis about the true score, the
likelihood of the counts is maximised over every distribution of the five outcomes that meets
the hypothesis (the constrained multinomial maximum-likelihood estimate), and the log of the
ratio of the two maxima is the test statistic.  This is the log-likelihood ratio fishtest reports
(``LLR_logistic`` and ``LLR_normalized`` in fishtest's ``server/fishtest/stats/LLRcalc.py``, by
Michel Van den Bergh) and fastchess uses.  The theory is in Van den Bergh's notes "Maximum
likelihood estimation of a multinomial distribution with given expectation value"
(support_MLE_multinomial.pdf, Proposition 1.1) and "Normalized Elo, practical" (section 4.1).

Two models say what a hypothesis is about:

- ``logistic``: the expected score s per game; Elo e means s = 1 / (1 + 10^(-e/400)).
- ``normalized``: the t-value (mu - 1/2) / sigma of the pair score, with normalized Elo
  nElo = nt * 800 / ln 10, nt = (mu - 1/2) / sigma_pg and sigma_pg = sqrt(2 var_pair): the score
  edge measured in standard deviations, so a bound means the same number of games to resolve it
  whatever the draw (split-pair) rate.

Zero counts get a pseudo-count of 1e-3 each (fishtest's ``regularize``), so no outcome ever has
probability 0 and the maxima exist.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.analysis.stats import score_from_elo

#: The pair scores of the five pentanomial outcomes, in fastchess's "Ptnml(0-2)" order.
OUTCOMES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Pseudo-count that replaces a zero count (fishtest's regularisation).
PRIOR = 1e-3
#: Normalized Elo per unit of the per-game t-value nt (800 / ln 10 = 347.4).
NELO_PER_NT = 800 / math.log(10)
MODELS = ("logistic", "normalized")
#: The largest |elo0|, |elo1| each model accepts.
ELO_LIMITS = {"logistic": 2000, "normalized": 200}


def regularized(counts: Sequence[float]) -> tuple[float, list[float]]:
    """The number of observations and the frequencies of ``counts``, zero counts replaced by
    :data:`PRIOR` first, as fishtest's ``results_to_pdf`` does."""
    filled = [c if c > 0 else PRIOR for c in counts]
    n = sum(filled)
    return n, [c / n for c in filled]


def mean_and_variance(values: Sequence[float], probabilities: Sequence[float]) -> tuple[float, float]:
    mean = sum(p * v for v, p in zip(values, probabilities, strict=True))
    return mean, sum(p * (v - mean) ** 2 for v, p in zip(values, probabilities, strict=True))


def secular_root(a: Sequence[float], p: Sequence[float]) -> float:
    """The x with sum_i p_i a_i / (1 + x a_i) = 0 and every 1 + x a_i > 0 (the "secular
    equation" of the constrained MLE).  The a_i must have both signs and every p_i be positive;
    the left side then falls strictly from +inf to -inf across (-1/max a, -1/min a), so the root
    is unique.  Newton's method, kept inside the bracket by bisection."""
    low, high = -1 / max(a), -1 / min(a)
    terms = list(zip(a, p, strict=True))
    x = 0.0
    for _ in range(200):
        f = slope = 0.0
        for ai, pi in terms:
            t = ai / (1 + x * ai)
            term = pi * t
            f += term
            slope -= term * t
        # |f| this small moves the LLR by far less than 1e-12 (its error is second order).
        if -1e-14 <= f <= 1e-14:
            break
        if f > 0:
            low = x
        else:
            high = x
        step = x - f / slope
        # Newton where it stays inside the bracket, else bisection.
        x = step if low < step < high else (low + high) / 2
        if high - low <= 1e-15 * (1 + abs(x)):
            break
    return x


def mle_with_mean(values: Sequence[float], p: Sequence[float], s: float) -> list[float]:
    """The distribution on ``values`` closest to the observed frequencies ``p`` (maximum
    likelihood, i.e. least Kullback-Leibler divergence from p) whose mean is ``s``:
    q_i = p_i / (1 + lambda (v_i - s)), lambda from the secular equation (Van den Bergh,
    support_MLE_multinomial.pdf, Proposition 1.1)."""
    a = [v - s for v in values]
    lam = secular_root(a, p)
    return [pi / (1 + lam * ai) for ai, pi in zip(a, p, strict=True)]


def mle_with_t_value(values: Sequence[float], p: Sequence[float], ref: float, t: float) -> list[float]:
    """The maximum-likelihood distribution on ``values`` given frequencies ``p`` whose t-value
    (mu - ref) / sigma is ``t``.  The Lagrange conditions give q_i = p_i / (1 + x b_i) with
    b_i = v_i - ref - t sigma (1 + ((mu - v_i) / sigma)^2) / 2, where mu and sigma are q's own;
    iterated from the uniform distribution until q stops changing (Van den Bergh, "Normalized Elo,
    practical", section 4.1; fishtest's ``MLE_t_value``)."""
    q = [1 / len(values)] * len(values)
    for _ in range(100):
        mu, var = mean_and_variance(values, q)
        sigma = math.sqrt(var)
        b = [v - ref - t * sigma * (1 + ((mu - v) / sigma) ** 2) / 2 for v in values]
        x = secular_root(b, p)
        new = [pi / (1 + x * bi) for bi, pi in zip(b, p, strict=True)]
        change = max(abs(n - o) for n, o in zip(new, q, strict=True))
        q = new
        if change < 1e-12:
            break
    return q


def _glr(n: float, p: Sequence[float], q0: Sequence[float], q1: Sequence[float]) -> float:
    """N sum_i p_i ln(q1_i / q0_i): the log of the ratio of the two constrained maxima."""
    return n * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1, strict=True))


def llr_logistic(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The GLR log-likelihood ratio of H1 (score s1 = L(elo1)) against H0 (s0 = L(elo0)) for the
    pentanomial ``counts`` (fishtest ``LLR_logistic``).  With counts [0, 3, 20, 5, 0] and
    elo0=0, elo1=20 it is 0.15853, as fishtest computes."""
    n, p = regularized(counts)
    q0 = mle_with_mean(OUTCOMES, p, score_from_elo(elo0))
    q1 = mle_with_mean(OUTCOMES, p, score_from_elo(elo1))
    return _glr(n, p, q0, q1)


def llr_normalized(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """The GLR log-likelihood ratio of normalized Elo nelo1 against nelo0 for the pentanomial
    ``counts`` (fishtest ``LLR_normalized``): the hypotheses fix the pair score's t-value
    (mu - 1/2) / sigma_pair at nt sqrt 2, since sigma_pg = sqrt 2 sigma_pair."""
    n, p = regularized(counts)
    t0, t1 = (nelo / NELO_PER_NT * math.sqrt(2) for nelo in (nelo0, nelo1))
    q0 = mle_with_t_value(OUTCOMES, p, 0.5, t0)
    q1 = mle_with_t_value(OUTCOMES, p, 0.5, t1)
    return _glr(n, p, q0, q1)


def pentanomial_llr(counts: Sequence[float], elo0: float, elo1: float, model: str = "logistic") -> float:
    """The GLR of ``counts`` under ``model`` ("logistic" or "normalized")."""
    if model == "logistic":
        return llr_logistic(counts, elo0, elo1)
    if model == "normalized":
        return llr_normalized(counts, elo0, elo1)
    raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")


def normalized_elo(counts: Sequence[float]) -> float:
    """The normalized Elo of the pentanomial ``counts``: (mu - 1/2) / sqrt(2 var_pair) * 800 / ln 10,
    on the regularised frequencies (fishtest's estimate).  0 when every pair is alike at 1/2."""
    _, p = regularized(counts)
    mu, var = mean_and_variance(OUTCOMES, p)
    return (mu - 0.5) / math.sqrt(2 * var) * NELO_PER_NT


class SprtError(ValueError):
    """A malformed --sprt setting; the message is one line."""


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the log-likelihood ratio: accept H0 at or below the first,
    H1 at or above the second.  alpha = beta = 0.05 gives (-2.944, 2.944)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0 (A is elo0 stronger than B) against H1 (elo1),
    with error rates alpha (accepting H1 when H0 holds) and beta (accepting H0 when H1 holds).
    Elo is logistic or normalized as ``model`` says."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0=0,elo1=20,alpha=0.05,beta=0.05,model=logistic``; keys left out keep their
        defaults.  Raises :class:`SprtError` with a one-line message."""
        values: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, eq, raw = item.partition("=")
            key, raw = key.strip(), raw.strip()
            if not eq or key not in ("elo0", "elo1", "alpha", "beta", "model"):
                raise SprtError(f"--sprt: {item!r} is not one of elo0=, elo1=, alpha=, beta=, model=")
            if key == "model":
                values[key] = raw
                continue
            try:
                values[key] = float(raw)
            except ValueError:
                raise SprtError(f"--sprt: {key} must be a number, got {raw!r}") from None
            if not math.isfinite(values[key]):
                raise SprtError(f"--sprt: {key} must be a finite number, got {raw!r}")
        return cls(**values)

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise SprtError(f"--sprt: model must be {' or '.join(MODELS)}, got {self.model!r}")
        if not self.elo1 > self.elo0:
            raise SprtError(f"--sprt: elo1 must be above elo0, got elo0={self.elo0:g}, elo1={self.elo1:g}")
        # Beyond these the scores are 0 or 1 to double precision (logistic), or the t-value MLE
        # stops converging (normalized); no test needs them.
        limit = ELO_LIMITS[self.model]
        for name in ("elo0", "elo1"):
            if not -limit <= getattr(self, name) <= limit:
                raise SprtError(
                    f"--sprt: {name} must be between -{limit} and {limit} for model={self.model}, "
                    f"got {getattr(self, name):g}"
                )
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise SprtError(f"--sprt: {name} must be between 0 and 0.5, got {getattr(self, name):g}")

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def llr(self, counts: Sequence[float]) -> float:
        """The GLR log-likelihood ratio of the pentanomial ``counts`` under this test's model."""
        return pentanomial_llr(counts, self.elo0, self.elo1, self.model)

    def verdict(self, llr: float) -> str | None:
        """ "H1" at or above the upper bound, "H0" at or below the lower one, else None."""
        low, high = self.bounds
        if llr >= high:
            return "H1"
        if llr <= low:
            return "H0"
        return None

    def as_dict(self) -> dict[str, Any]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "model": self.model,
        }

    def __str__(self) -> str:
        return (
            f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g} "
            f"model={self.model}"
        )
