"""The GLR SPRT on game pairs, the pair interval and the LOS: against published values, against
the formulas computed another way, and by simulation."""

from __future__ import annotations

import collections
import math
import random

import numpy as np
import pytest

from arena.analysis import pairs
from arena.analysis.pairs import PairTally
from arena.analysis.sprt import (
    OUTCOMES,
    PRIOR,
    Sprt,
    SprtError,
    llr_logistic,
    llr_normalized,
    mle_with_mean,
    mle_with_t_value,
    normalized_elo,
    regularized,
    sprt_bounds,
)
from arena.analysis.stats import score_from_elo
from arena.engine import STANDARD
from arena.players import load_player_spec
from arena.tournaments.duel import run_duel

# --- the GLR against fishtest --------------------------------------------------------------------
# fishtest's stat_util runs these pentanomials as its self-test; the values are what fishtest's
# LLRcalc (LLR_logistic, LLR_normalized) prints for them.
FISHTEST = [
    ("logistic", [10789, 19328, 33806, 19402, 10543], -3, 1, 2.1310678117940807),
    ("logistic", [1187, 7410, 13475, 7378, 1164], -3, 1, 2.86152718059463),
    ("logistic", [39, 2226, 31451, 2412, 40], 0.2, 0.9, 2.1625425800483593),
    ("normalized", [39, 2226, 31451, 2412, 40], 0.764, 3.439, 2.162940869584568),
    ("normalized", [10789, 19328, 33806, 19402, 10543], -3, 1, 0.30086978548354076),
    # Small duels with empty outcomes (regularised with 1e-3 each, as fishtest does).
    ("logistic", [0, 3, 20, 5, 0], 0, 20, 0.15852835887957875),
    ("logistic", [0, 0, 10, 0, 0], 0, 20, -0.5854342209858332),
    ("normalized", [2, 10, 70, 15, 3], 0, 20, 0.5177299305609131),
]


@pytest.mark.parametrize(("model", "counts", "elo0", "elo1", "expected"), FISHTEST)
def test_llr_matches_fishtest(
    model: str, counts: list[int], elo0: float, elo1: float, expected: float
) -> None:
    llr = llr_logistic(counts, elo0, elo1) if model == "logistic" else llr_normalized(counts, elo0, elo1)
    assert llr == pytest.approx(expected, rel=1e-8, abs=1e-10)
    assert Sprt(elo0, elo1, model=model).llr(counts) == llr


def kl_to_mean(p: list[float], s: float) -> float:
    """min over distributions q on OUTCOMES with mean s of KL(p || q), by convex duality
    (empirical likelihood, Owen 1988): max over lambda of sum_i p_i log(1 + lambda (x_i - s)).
    Found by golden-section search, independently of the secular-equation solver."""
    a = [x - s for x in OUTCOMES]
    low, high = -1 / max(a) + 1e-12, -1 / min(a) - 1e-12

    def g(lam: float) -> float:
        return sum(pi * math.log(1 + lam * ai) for pi, ai in zip(p, a, strict=True))

    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        m1, m2 = high - ratio * (high - low), low + ratio * (high - low)
        if g(m1) < g(m2):
            low = m1
        else:
            high = m2
    return g((low + high) / 2)


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [([3, 40, 300, 45, 7], 0, 20), ([0, 1, 9, 3, 0], -10, 10), ([50, 0, 0, 0, 80], 0, 100), ([5] * 5, -5, 5)],
)
def test_logistic_llr_is_the_difference_of_the_constrained_divergences(
    counts: list[int], elo0: float, elo1: float
) -> None:
    # LLR = N [KL(p || q0*) - KL(p || q1*)], q* the closest distribution with the hypothesis' mean.
    n, p = regularized(counts)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    assert llr_logistic(counts, elo0, elo1) == pytest.approx(
        n * (kl_to_mean(p, s0) - kl_to_mean(p, s1)), rel=1e-7, abs=1e-9
    )


def test_the_constrained_mles_meet_their_constraints() -> None:
    _, p = regularized([3, 40, 300, 45, 7])
    for s in (0.3, 0.5, 0.53, 0.9):
        q = mle_with_mean(OUTCOMES, p, s)
        assert sum(q) == pytest.approx(1) and sum(x * w for x, w in zip(OUTCOMES, q, strict=True)) == (
            pytest.approx(s)
        )
    for t in (-0.2, 0.0, 0.05, 0.3):
        q = mle_with_t_value(OUTCOMES, p, 0.5, t)
        mu = sum(x * w for x, w in zip(OUTCOMES, q, strict=True))
        sigma = math.sqrt(sum(w * (x - mu) ** 2 for x, w in zip(OUTCOMES, q, strict=True)))
        assert sum(q) == pytest.approx(1) and (mu - 0.5) / sigma == pytest.approx(t, abs=1e-9)


def test_pairs_won_or_lost_outright_give_walds_binomial_llr() -> None:
    # With only pairs scoring 0 or 1 the pentanomial is a binomial on pairs, whose exact LLR is
    # Wald's W ln(s1/s0) + L ln((1-s1)/(1-s0)); only the 1e-3 pseudo-counts differ.
    s0, s1 = score_from_elo(0), score_from_elo(20)
    for wins, losses in ((60, 40), (600, 400), (30, 5)):
        wald = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
        assert llr_logistic([losses, 0, 0, 0, wins], 0, 20) == pytest.approx(wald, abs=2e-3 * (1 + abs(wald)))


def test_one_pair_carries_little_evidence() -> None:
    # Under the drift approximation one pair scoring 3/4 gave an LLR of about 7 (the variance of
    # one pair is only the prior); its exact GLR is ln(s1/s0)-sized.
    for score in (0.0, 0.25, 0.75, 1.0):
        tally = PairTally()
        tally.add(score)
        llr, verdict = tally.decision(Sprt(0, 20))
        assert abs(llr) < 0.1 and verdict is None


def test_two_copies_of_a_deterministic_strategy() -> None:
    # Every pair splits.  Logistic: H0 after about 50 pairs.  Normalized: with no spread the
    # t-value is all but undefined (only the 1e-3 pseudo-counts give one), and the test crawls
    # towards H0: about 7,100 pairs for elo1=5.
    logistic, normalized = Sprt(0, 20), Sprt(0, 5, model="normalized")
    counts = [0, 0, 0, 0, 0]
    first_h0 = None
    for n in range(1, 101):
        counts[2] = n
        if first_h0 is None and logistic.verdict(logistic.llr(counts)) == "H0":
            first_h0 = n
    assert first_h0 is not None and 40 <= first_h0 <= 60
    assert normalized.verdict(normalized.llr([0, 0, 2000, 0, 0])) is None
    assert normalized.verdict(normalized.llr([0, 0, 7500, 0, 0])) == "H0"


def test_normalized_elo_is_the_score_edge_in_deviations_per_game() -> None:
    counts = [10, 100, 700, 150, 40]
    n = sum(counts)
    mu = sum(c * x for c, x in zip(counts, OUTCOMES, strict=True)) / n
    var = sum(c * (x - mu) ** 2 for c, x in zip(counts, OUTCOMES, strict=True)) / n
    assert normalized_elo(counts) == pytest.approx((mu - 0.5) / math.sqrt(2 * var) * 800 / math.log(10))
    assert PRIOR == 1e-3 and regularized([0, 1])[1][0] == pytest.approx(1e-3 / 1.001)


# --- the test's error rates, by simulation ----------------------------------------------------------
def tilted(shape: list[float], target: float) -> np.ndarray:
    """``shape`` exponentially tilted to mean ``target``: the same outcomes, a shifted edge."""
    p, x = np.array(shape, float), np.array(OUTCOMES)
    low, high = -100.0, 100.0
    for _ in range(100):
        theta = (low + high) / 2
        q = p * np.exp(theta * x)
        q /= q.sum()
        low, high = (theta, high) if q @ x < target else (low, theta)
    return q


def verdicts(sprt: Sprt, q: np.ndarray, duels: int, seed: int, max_pairs: int = 3000) -> collections.Counter:
    rng = np.random.default_rng(seed)
    found: collections.Counter = collections.Counter()
    for _ in range(duels):
        tally = PairTally()
        for outcome in rng.choice(5, size=max_pairs, p=q):
            tally.add(OUTCOMES[outcome])
            _, verdict = tally.decision(sprt)
            if verdict is not None:
                break
        found[verdict] += 1
    return found


def test_error_rates_with_mostly_split_pairs_are_nominal() -> None:
    # 76% split pairs.  The drift approximation accepted H0 in 10-19% of such duels at a true
    # +20 Elo.  alpha = beta = 0.05; 300 duels each side: 5% lies within 1.3 points of it.
    shape = [0.02, 0.10, 0.76, 0.10, 0.02]
    sprt = Sprt(0, 40)  # wider bounds than the default keep the test fast; same statistics
    at_h0 = verdicts(sprt, tilted(shape, 0.5), 300, seed=1)
    at_h1 = verdicts(sprt, tilted(shape, score_from_elo(40)), 300, seed=2)
    assert at_h0["H1"] / 300 <= 0.09, at_h0
    assert at_h1["H0"] / 300 <= 0.09, at_h1
    assert at_h0["H0"] > 250 and at_h1["H1"] > 250


# --- the interval and the LOS ---------------------------------------------------------------------
SHAPES = {
    "mostly split": [0.02, 0.10, 0.76, 0.10, 0.02],
    "skewed": [0.0, 0.0, 0.85, 0.10, 0.05],
    "strong": [0.001, 0.01, 0.2, 0.3, 0.489],
    "rare decisive": [0.0, 0.02, 0.96, 0.0, 0.02],
}


def coverage(shape: list[float], n: int, draws: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    p = np.array(shape) / sum(shape)
    truth = float(p @ np.array(OUTCOMES))
    hits = 0
    for counts in rng.multinomial(n, p, size=draws):
        low, high = PairTally(counts.tolist()).interval()
        hits += low <= truth <= high
    return hits / draws


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize("n", [30, 100])
def test_the_pair_interval_covers_the_true_score(name: str, n: int) -> None:
    # Measured over 20,000 draws: at least 94.4% for twelve shapes from 30 to 1,000 pairs.
    # 2,000 draws: a true 94.4% falls below 93.4% about 1 time in 50.
    assert coverage(SHAPES[name], n, 2000, seed=n) >= 0.934


def test_without_the_prior_the_interval_under_covers(monkeypatch: pytest.MonkeyPatch) -> None:
    # The plain normal interval: with rare decisive pairs, 30 pairs are often all split and the
    # spread looks like zero.
    monkeypatch.setattr(pairs, "INTERVAL_PRIOR", PRIOR)
    assert coverage(SHAPES["rare decisive"], 30, 2000, seed=3) < 0.8


def test_the_interval_holds_the_observed_score_and_stays_in_bounds() -> None:
    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(1, 200))
        tally = PairTally(rng.multinomial(n, rng.dirichlet([0.3] * 5)).tolist())
        low, high = tally.interval()
        assert 0 <= low <= tally.mean <= high <= 1
    assert PairTally().interval() == (0.0, 1.0)


def test_los_agrees_with_the_interval() -> None:
    # LOS above 97.5% exactly when the 95% interval lies above 1/2 (same mean, same error).
    rng = np.random.default_rng(6)
    for _ in range(300):
        tally = PairTally(rng.multinomial(int(rng.integers(30, 300)), rng.dirichlet([1] * 5)).tolist())
        low, _high = tally.interval()
        if abs(tally.los() - 0.975) > 1e-6 and tally.mean > 0.5:
            assert (tally.los() > 0.975) == (low > 0.5)
    assert PairTally([1, 5, 30, 5, 1]).los() == pytest.approx(0.5)
    assert PairTally([0, 2, 30, 8, 2]).los() > 0.95 > PairTally([2, 8, 30, 2, 0]).los()


def test_pairs_are_counted_in_ptnml_order() -> None:
    tally = PairTally()
    for score in (0.0, 0.25, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0):
        tally.add(score)
    assert tally.pentanomial == (1, 2, 1, 1, 3) and tally.games == 16
    assert tally.mean == pytest.approx((0.5 + 0.5 + 0.75 + 3) / 8)


# --- --sprt settings --------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_the_llr_is_finite_up_to_the_limits(model: str) -> None:
    limit = 2000 if model == "logistic" else 200
    for elo in (-limit, -limit / 2, 0, limit / 2, limit - 1):
        sprt = Sprt(elo, elo + 1, model=model)
        for counts in (
            [0] * 5,
            [1, 0, 0, 0, 0],
            [0, 0, 0, 0, 50],
            [3, 20, 300, 25, 4],
            [0, 0, 1000, 0, 0],
            [1] * 5,
        ):
            assert math.isfinite(sprt.llr(counts)), (elo, counts)


def test_sprt_settings_parse() -> None:
    sprt = Sprt.parse("elo0=0, elo1=5, model=normalized")
    assert sprt == Sprt(0, 5, 0.05, 0.05, "normalized") and Sprt.parse("") == Sprt()
    assert Sprt(**sprt.as_dict()) == sprt
    assert str(sprt) == "elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized"
    assert sprt.bounds == sprt_bounds(0.05, 0.05) == pytest.approx((-2.944, 2.944), abs=5e-4)
    for text, message in (
        ("model=bayes", "model must be logistic or normalized"),
        ("elo1=inf", "finite"),
        ("elo0=-2500", "elo0 must be between -2000 and 2000 for model=logistic"),
        ("elo1=300,model=normalized", "elo1 must be between -200 and 200 for model=normalized"),
    ):
        with pytest.raises(SprtError, match=message):
            Sprt.parse(text)


# --- the SPRT ---------------------------------------------------------------------------------
def sequential_test(rng: random.Random, probabilities: list[float], sprt: Sprt, max_pairs: int = 1000):
    """What run_duel does after every pair, on pair scores drawn from a pentanomial."""
    tally = PairTally()
    for _ in range(max_pairs):
        tally.add(rng.choices(OUTCOMES, probabilities)[0])
        _, verdict = tally.decision(sprt)
        if verdict is not None:
            return verdict
    return None


def test_one_game_pair_cannot_decide_the_sprt() -> None:
    # A wins one game of the pair and ties the other.  For H1 (+20 Elo) against H0 (0 Elo) no
    # single pair carries anywhere near ln(19) = 2.94 of evidence: the likelihood ratio of any one
    # outcome is close to 1.  The normal approximation with a variance estimated from one pair
    # (plus a 1e-3 prior) gives an LLR of about 7.3, so `arena duel --sprt` accepts H1 after two
    # games whenever the first pair scores 3/4 or 1 (about 10% of duels between equals).
    tally = PairTally()
    tally.add(0.75)
    assert tally.decision(Sprt(0, 20))[1] is None


def test_sprt_false_positive_rate_between_equals_is_at_most_alpha() -> None:
    # Pair outcomes of two differently seeded copies of one randomised bot, as measured with
    # run_duel over 2,000 pairs (0.0215, 0.083, 0.794, 0.080, 0.0215): mean 0.5, Elo 0.
    rng = random.Random(5)
    # alpha = beta = 0.05; elo1=40 rather than 20 keeps the duels short (the exact GLR needs
    # about 100 pairs at elo1=20 where the approximation stopped after one).
    sprt = Sprt(0, 40)
    verdicts = collections.Counter(
        sequential_test(rng, [0.02, 0.08, 0.80, 0.08, 0.02], sprt) for _ in range(1000)
    )
    # Measured with the drift approximation: H1 in about 11% of duels at elo1=20, nearly all after
    # one pair.  With the exact GLR: 5.3% of 2,000 duels at elo1=20, 2.5-2.8% at elo1=40.
    assert verdicts["H1"] / 1000 <= 0.065, verdicts


@pytest.mark.slow
def test_sprt_accepts_h1_for_a_strategy_37_elo_stronger() -> None:
    # threshold:bank_at=350 beats threshold:bank_at=200 by +36.7 Elo [32.6, 40.9] (6,000 games
    # on standard).  With elo0=0, elo1=20, beta=0.05 the test should wrongly accept H0 in at most
    # about 5% of duels; it does in 43% (130 of 300 seeds), after one pair scoring 0 or after
    # three split pairs, whose near-zero sample variance makes the LLR plunge.  With the exact
    # GLR: H1 in all of 40 seeds (about 72 pairs each); 20 seeds keep the test fast.
    a, b = load_player_spec("threshold:bank_at=350"), load_player_spec("threshold:bank_at=200")
    verdicts = collections.Counter(
        run_duel(STANDARD, a, b, games=2000, seed=seed, sprt=Sprt(0, 20), workers=1, progress=False).verdict
        for seed in range(20)
    )
    assert verdicts["H0"] <= 2, verdicts


def test_pair_interval_with_every_game_won_is_not_absurdly_narrow() -> None:
    # Ten pairs, every game won by A.  If A's true score were 0.95 (independent games), twenty
    # straight wins would happen 36% of the time, so a 95% interval must include 0.95; Wilson on
    # the 20 games gives [0.839, 1].  The pair interval says [0.9915, 1] (Elo +827 to +inf), from a
    # variance that is only the 1e-3 prior: `arena duel optimal random --games 20` prints it.
    tally = PairTally()
    for _ in range(10):
        tally.add(1.0)
    low, _ = tally.interval()
    assert low < 0.95, tally.interval()
