"""The statistics module against published values, the pair statistics, and the ratings."""

from __future__ import annotations

import math
import random

import pytest

from arena.analysis.pairs import PairTally
from arena.analysis.ratings import bradley_terry_elo
from arena.analysis.sprt import Sprt
from arena.analysis.stats import elo_from_score, score_from_elo, wilson_interval


def test_wilson_interval_matches_scipy_and_statsmodels() -> None:
    # 5,230 wins of 10,000: scipy binomtest(...).proportion_ci("wilson") gives 0.51320 to 0.53278.
    low, high = wilson_interval(5230, 10_000)
    assert round(low, 5) == 0.51320 and round(high, 5) == 0.53278
    # Wilson's interval stays inside [0, 1] and is not degenerate at 0 or n successes.
    low, high = wilson_interval(0, 20)
    assert low == 0 and 0.15 < high < 0.17  # 0.1611 for 0 of 20
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_elo_conversions() -> None:
    assert round(elo_from_score(0.523), 1) == 16.0
    assert elo_from_score(0.5) == 0
    assert round(elo_from_score(0.75), 1) == 190.8  # the classic "75 % = +191 Elo"
    for elo in (-300, -20, 0, 5, 150):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_pairs_narrow_the_interval_when_games_of_a_pair_cancel() -> None:
    # Duplicate play: the luck of a deal tends to give each side one game of the pair.
    rng = random.Random(1)
    tally = PairTally()
    for _ in range(2000):
        tally.add(rng.choice([0.5, 0.5, 0.5, 0.75, 0.25, 1.0, 0.0]))
    low, high = tally.interval()
    game_low, game_high = tally.game_interval()
    assert high - low < game_high - game_low
    assert low < tally.mean < high and tally.games == 4000


def test_identical_pairs_leave_room_in_the_interval() -> None:
    # Three split pairs: no spread seen yet, but the interval is not a point and the SPRT waits.
    tally = PairTally()
    for _ in range(3):
        tally.add(0.5)
    low, high = tally.interval()
    assert low < 0.45 and high > 0.55
    assert tally.decision(Sprt(0, 20)) == (pytest.approx(tally.llr(Sprt(0, 20))), None)


def test_bradley_terry_two_players_is_the_log_odds() -> None:
    fitted = bradley_terry_elo([("a", "b", 1000, 640), ("b", "a", 1000, 360)])
    assert fitted["a"][0] - fitted["b"][0] == pytest.approx(400 * math.log10(640.5 / 360.5))
    assert fitted["a"][0] == pytest.approx(-fitted["b"][0])  # centred on 0
    # Interval: the variance of the difference is 1 / (n p (1 - p)), split over two players.
    n, p = 1001, 640.5 / 1001
    half = 1.959964 * (400 / math.log(10)) * math.sqrt(1 / (n * p * (1 - p))) / 2
    assert fitted["a"][2] - fitted["a"][0] == pytest.approx(half, rel=1e-3)


def test_bradley_terry_recovers_true_strengths() -> None:
    true = {"a": 200.0, "b": 0.0, "c": -200.0}
    results = []
    for x in true:
        for y in true:
            if x != y:
                results.append((x, y, 100_000, 100_000 * score_from_elo(true[x] - true[y])))
    fitted = bradley_terry_elo(results)
    for player, elo in true.items():
        assert fitted[player][0] == pytest.approx(elo, abs=0.5)


def test_a_player_who_never_wins_has_a_finite_elo() -> None:
    fitted = bradley_terry_elo([("a", "b", 100, 100), ("b", "a", 100, 0)])
    assert math.isfinite(fitted["b"][0]) and fitted["b"][0] < -300


def test_likelihood_of_superiority_matches_the_normal_approximation():
    from arena.analysis.stats import likelihood_of_superiority

    # 60 wins, 40 losses counted game by game: mean 0.6, variance 0.24, z = 0.1 / sqrt(0.0024).
    assert likelihood_of_superiority(0.6, 0.24, 100) == pytest.approx(0.979, abs=5e-4)
    assert likelihood_of_superiority(0.5, 0.24, 100) == 0.5
    assert likelihood_of_superiority(0.4, 0.24, 100) == pytest.approx(1 - 0.979, abs=5e-4)
    assert likelihood_of_superiority(0.7, 0.0, 10) == 1.0
    assert likelihood_of_superiority(0.5, 0.1, 0) == 0.5
