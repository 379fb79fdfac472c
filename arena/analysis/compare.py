"""Two runs side by side: the same strategies before and after a change."""

from __future__ import annotations

import math

import pandas as pd

from arena.analysis.stats import Z95

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
    with a 95% interval (normal approximation for two independent proportions), and whether the
    interval excludes zero."""
    both = a.merge(b, on=["ruleset", "player"], suffixes=("_a", "_b"))
    rows = []
    for row in both.itertuples(index=False):
        pa, pb, na, nb = row.win_rate_a, row.win_rate_b, row.games_a, row.games_b
        diff = pb - pa
        half = Z95 * math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
        rows.append(
            (
                row.ruleset,
                row.player,
                na,
                pa,
                nb,
                pb,
                diff,
                diff - half,
                diff + half,
                not (diff - half <= 0 <= diff + half),
            )
        )
    return pd.DataFrame(rows, columns=COLUMNS)
