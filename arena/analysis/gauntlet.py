"""A gauntlet's report: the tested player against each opponent, from game pairs.

In a gauntlet the tested player meets every opponent and each opponent only the tested player,
so a ranking would set the tested player's games against everyone beside each opponent's few.
Instead each opponent gets a row.  Each deal is played in both seat orders with the same dice
per seat (duplicate play); the two games are one *pair*, whose score is the mean of the tested
player's two win shares (0, 1/4, 1/2, 3/4 or 1: fishtest's pentanomial results).  The dice's
luck pulls the two games of a pair in opposite directions, so the variance of pair scores is
the honest one for an interval.

gauntlet.csv, one row per ruleset and opponent, the opponent the tested player scored least
against first:
  ruleset; player (the tested one); opponent; games, wins (the tested player's; a shared win is
  half); score = wins / games; pairs (complete pairs); score_low, score_high: the 95% interval,
  and interval, how it was found: "pairs", the duel's pair interval (arena/analysis/pairs.py:
  normal on the pair scores with half a pseudo-pair on each of the five outcomes, which covers
  the true score at least 94% of the time from 30 pairs on), or "games", the Wilson interval
  counting the games one by one (no complete pair yet); elo, elo_low, elo_high: the Elo
  difference -400 log10(1/s - 1) of the score and of the interval's ends (+-inf at 1 or 0); los:
  the likelihood of superiority from the same pairs, as cutechess and fastchess report it.
"""

from __future__ import annotations

import pandas as pd

from arena.analysis.pairs import PairTally
from arena.analysis.stats import elo_from_score, likelihood_of_superiority, wilson_interval

GAUNTLET_COLUMNS = [
    "ruleset",
    "player",
    "opponent",
    "games",
    "wins",
    "score",
    "pairs",
    "score_low",
    "score_high",
    "interval",
    "elo",
    "elo_low",
    "elo_high",
    "los",
]


class GauntletPairs:
    """The tested player's results against each opponent, game by game and pair by pair.

    A pair is the two games of one deal of one pairing (each deal is played in both seat orders;
    duplicate play).  Its games are matched by (ruleset, opponent, deal), not by their position in
    the file, so a pair split across chunks, or games in any order, pair up the same.  A game
    waits in ``pending`` until its partner arrives (in a file in game order, at most one does).  Win
    shares of two-seat games are 0, 1/2 or 1, kept as integer halves, so every sum is exact.
    """

    def __init__(self, tested: str) -> None:
        self.tested = tested
        self.pending: dict[tuple[str, str, int], int] = {}
        # (ruleset, opponent) -> [games, halves won, pairs scoring 0, 1/4, 1/2, 3/4, 1]
        self.totals: dict[tuple[str, str], list[int]] = {}

    def add(self, chunk: pd.DataFrame) -> None:
        seats = chunk.groupby("game", sort=False)["game"].transform("size")
        two = chunk[seats == 2]
        mine = two[two["player"] == self.tested]
        other = two[two["player"] != self.tested][["game", "player"]]
        games = mine.merge(other, on="game", suffixes=("", "_opponent"))  # a game with itself drops out
        halves = (games["win"] * 2).round().astype("int64")
        for ruleset, opponent, deal, won in zip(
            games["ruleset"], games["player_opponent"], games["deal"], halves, strict=True
        ):
            total = self.totals.setdefault((ruleset, opponent), [0] * 7)
            total[0] += 1
            total[1] += won
            key = (ruleset, opponent, int(deal))
            first = self.pending.pop(key, None)
            if first is None:
                self.pending[key] = won
            else:
                total[2 + first + won] += 1  # quarters of a pair score: 0 to 4

    def frame(self, order: list[str]) -> pd.DataFrame:
        """One row per ruleset and opponent (GAUNTLET_COLUMNS), rulesets in ``order``, the
        opponent the tested player scored least against first."""
        rows = []
        for (ruleset, opponent), (games, won, *pentanomial) in self.totals.items():
            score = won / (2 * games)
            tally = PairTally(list(pentanomial))
            n = tally.pairs
            if n:  # the duel's pair interval and LOS (arena/analysis/pairs.py)
                (low, high), method, los = tally.interval(), "pairs", tally.los()
            else:  # a lone game of an interrupted run
                low, high = wilson_interval(won / 2, games)
                method, los = "games", likelihood_of_superiority(score, score * (1 - score), games)
            rows.append(
                (
                    ruleset,
                    self.tested,
                    opponent,
                    games,
                    won / 2,
                    score,
                    n,
                    low,
                    high,
                    method,
                    elo_from_score(score),
                    elo_from_score(low),
                    elo_from_score(high),
                    los,
                )
            )
        table = pd.DataFrame(rows, columns=GAUNTLET_COLUMNS)
        if table.empty:
            return table
        rank = {r: i for i, r in enumerate(order)}
        table["ruleset_order"] = table["ruleset"].map(rank)
        table = table.sort_values(["ruleset_order", "score", "opponent"])
        return table[GAUNTLET_COLUMNS].reset_index(drop=True)
