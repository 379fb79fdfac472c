"""Two runs side by side: the same strategies before and after a change."""

from __future__ import annotations

import math

import pandas as pd

from arena.analysis.stats import wilson_interval

COLUMNS = [
    "ruleset",
    "player",
    "games_a",
    "win_rate_a",
    "games_b",
    "win_rate_b",
    "difference",
    "diff_low",
    "diff_high",
    "significant",
]


def compare_summaries(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Win rates of every (ruleset, player) found in both summaries, their difference (b - a)
    with a 95% interval, and whether the interval excludes zero.

    The interval is Newcombe's hybrid score interval (1998, method 10) built from the two Wilson
    intervals: unlike the plain normal one it stays honest at 0% and 100%.
    """
    both = a.merge(b, on=["ruleset", "player"], suffixes=("_a", "_b"))
    rows = []
    for row in both.itertuples(index=False):
        pa, pb, na, nb = row.win_rate_a, row.win_rate_b, row.games_a, row.games_b
        low_a, high_a = wilson_interval(pa * na, na)
        low_b, high_b = wilson_interval(pb * nb, nb)
        diff = pb - pa
        low = diff - math.sqrt((pb - low_b) ** 2 + (high_a - pa) ** 2)
        high = diff + math.sqrt((high_b - pb) ** 2 + (pa - low_a) ** 2)
        rows.append((row.ruleset, row.player, na, pa, nb, pb, diff, low, high, not (low <= 0 <= high)))
    return pd.DataFrame(rows, columns=COLUMNS)
