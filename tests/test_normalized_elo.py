"""Normalized Elo as fishtest defines it, and as docs/explanation/statistics.md says: the mean and
the variance of a pair's score both on the regularised counts (each zero count taken as 0.001),
not the mean on the raw counts (issue 39, point 10)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arena.analysis.sprt import normalized_elo

STATISTICS = Path(__file__).resolve().parent.parent / "docs" / "explanation" / "statistics.md"


def fishtest_normalized_elo(pentanomial: list[float]) -> float:
    """fishtest's definition, transcribed from server/fishtest/stats/: ``LLRcalc.regularize``
    (each zero count becomes 1e-3), then ``results_to_pdf`` (outcomes i / 4) and ``stats``
    (mean and variance of that pdf); normalized Elo is (mu - 1/2) / sqrt(2 var) * 800 / ln 10."""
    regularized = [c if c != 0 else 1e-3 for c in pentanomial]
    n = sum(regularized)
    pdf = [(i / 4, c / n) for i, c in enumerate(regularized)]
    mu = sum(p * a for a, p in pdf)
    var = sum(p * (a - mu) ** 2 for a, p in pdf)
    return (mu - 0.5) / math.sqrt(2 * var) * 800 / math.log(10)


def raw_mean_normalized_elo(pentanomial: list[float]) -> float:
    """The other reading: the mean on the raw counts, only the variance regularised."""
    regularized = [c if c != 0 else 1e-3 for c in pentanomial]
    n, raw_n = sum(regularized), sum(pentanomial)
    mean = sum(c * i / 4 for i, c in enumerate(pentanomial)) / raw_n
    mu = sum(c * i / 4 for i, c in enumerate(regularized)) / n
    var = sum(c / n * (i / 4 - mu) ** 2 for i, c in enumerate(regularized))
    return (mean - 0.5) / math.sqrt(2 * var) * 800 / math.log(10)


@pytest.mark.parametrize(
    "counts", [[0, 3, 10, 5, 2], [0, 2, 5, 3, 0], [0, 0, 1, 0, 1], [4, 0, 9, 0, 1], [10, 100, 700, 150, 40]]
)
def test_normalized_elo_is_fishtests_with_zero_counts_in_the_mean_too(counts: list[float]) -> None:
    assert normalized_elo(counts) == pytest.approx(fishtest_normalized_elo(counts), rel=1e-12, abs=1e-12)


def test_the_two_readings_differ_only_where_a_count_is_zero() -> None:
    assert fishtest_normalized_elo([10, 100, 700, 150, 40]) == pytest.approx(
        raw_mean_normalized_elo([10, 100, 700, 150, 40]), rel=1e-12
    )
    gap = fishtest_normalized_elo([0, 3, 10, 5, 2]) - raw_mean_normalized_elo([0, 3, 10, 5, 2])
    assert 0.01 < abs(gap) < 0.05  # the "<= 0.05 Elo"


def test_the_statistics_page_takes_the_mean_on_the_regularised_counts_as_the_code_does() -> None:
    row = next(line for line in STATISTICS.read_text().splitlines() if line.startswith("| normalized Elo |"))
    assert "(m′ − ½) / √(2·σ′²) × 800 / ln 10" in row
    said = "m′ and σ′² the mean and variance of a pair's score on the counts with each zero count taken as"
    assert said in row
