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
  and interval, how it was found: "pairs", the normal interval score +- 1.96 sd / sqrt(pairs)
  with sd the sample standard deviation of pair scores, or "games", the Wilson interval counting
  the games one by one (fewer than MIN_PAIRS pairs, or every pair alike, so that their variance
  says nothing); elo, elo_low, elo_high: the Elo difference -400 log10(1/s - 1) of the score and
  of the interval's ends (+-inf at 1 or 0); los: the likelihood of superiority, Phi((score - 1/2)
  / sqrt(variance / n)) from the same observations (cutechess and fastchess report it so).
"""

from __future__ import annotations

import pandas as pd

from arena.analysis.stats import Z95, elo_from_score, likelihood_of_superiority, wilson_interval

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
#: Game pairs before their variance is trusted for an interval (as in the duel, pairs.MIN_PAIRS):
#: a variance from a handful of pairs can be near zero by chance.
MIN_PAIRS = 30


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
        # (ruleset, opponent) -> [games, halves won, squares of halves, pairs, pair sum, pair squares]
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
            total = self.totals.setdefault((ruleset, opponent), [0] * 6)
            total[0] += 1
            total[1] += won
            total[2] += won * won
            key = (ruleset, opponent, int(deal))
            first = self.pending.pop(key, None)
            if first is None:
                self.pending[key] = won
            else:
                pair = first + won  # quarters of a pair score: 0 to 4
                total[3] += 1
                total[4] += pair
                total[5] += pair * pair

    def frame(self, order: list[str]) -> pd.DataFrame:
        """One row per ruleset and opponent (GAUNTLET_COLUMNS), rulesets in ``order``, the
        opponent the tested player scored least against first."""
        rows = []
        for (ruleset, opponent), (games, won, won2, n, pair, pair2) in self.totals.items():
            score = won / (2 * games)
            if n >= MIN_PAIRS and n * pair2 != pair * pair:  # enough pairs, not all alike
                variance = (pair2 - pair * pair / n) / (n - 1) / 16  # of one pair's score
                half = Z95 * (variance / n) ** 0.5
                low, high, method = max(0.0, score - half), min(1.0, score + half), "pairs"
                los = likelihood_of_superiority(score, variance, n)
            else:
                low, high = wilson_interval(won / 2, games)
                method = "games"
                variance = (won2 - won * won / games) / (games - 1) / 4 if games > 1 else 0.0
                los = likelihood_of_superiority(score, variance, games)
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
