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

import numpy as np
import pandas as pd

from arena.analysis.games_csv import GameBlock, Names
from arena.analysis.pairs import PairTally
from arena.analysis.stats import elo_from_score, likelihood_of_superiority, wilson_interval
from arena.analysis.tally import game_starts, group_sums

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
    the file, so a pair split across blocks, or games in any order, pair up the same: within a
    key, games pair up in file order, first with second, third with fourth.  A game waits in
    ``pending`` until its partner arrives (in a file in game order, at most one does).  Win
    shares of two-seat games are 0, 1/2 or 1, kept as integer halves, so every sum is exact.
    Rulesets and players are ids of the run's :class:`~arena.analysis.games_csv.Names`.
    """

    def __init__(self, tested: str, names: Names) -> None:
        self.tested = tested
        self.names = names
        self.pending: dict[tuple[int, int, int], int] = {}  # (ruleset, opponent, deal) -> halves won
        # (ruleset, opponent) -> [games, halves won, pairs scoring 0, 1/4, 1/2, 3/4, 1]
        self.totals: dict[tuple[int, int], list[int]] = {}

    def add(self, block: GameBlock) -> None:
        me = self.names.player_id(self.tested)
        if me is None:
            return
        starts, sizes = game_starts(block)
        rows = starts[sizes == 2][:, None] + np.arange(2)
        mine = block.player[rows] == me
        rows, mine = rows[mine[:, 0] != mine[:, 1]], mine[mine[:, 0] != mine[:, 1]]  # not with itself
        if not len(rows):
            return
        seat = np.where(mine[:, 0], 0, 1)
        mine_row, their_row = rows[np.arange(len(rows)), seat], rows[np.arange(len(rows)), 1 - seat]
        ruleset, opponent = block.ruleset[mine_row], block.player[their_row]
        won = np.rint(block.win[mine_row] * 2).astype(np.int64)
        for (r, o), (games, halves) in group_sums([ruleset, opponent], [won]):
            total = self.totals.setdefault((r, o), [0] * 7)
            total[0] += games
            total[1] += halves
        # Games still waiting first, then this block's, each key's games in file order.
        waiting = np.array([(*key, won) for key, won in self.pending.items()], dtype=np.int64).reshape(-1, 4)
        ruleset = np.r_[waiting[:, 0], ruleset]
        opponent = np.r_[waiting[:, 1], opponent]
        deal = np.r_[waiting[:, 2], block.deal[mine_row]]
        won = np.r_[waiting[:, 3], won]
        order = np.lexsort((deal, opponent, ruleset))  # stable: file order within a key
        ruleset, opponent, deal, won = ruleset[order], opponent[order], deal[order], won[order]
        n = len(order)
        new = np.r_[
            True, (ruleset[1:] != ruleset[:-1]) | (opponent[1:] != opponent[:-1]) | (deal[1:] != deal[:-1])
        ]
        position = np.arange(n) - np.maximum.accumulate(np.where(new, np.arange(n), 0))
        even = position % 2 == 0
        paired = even & np.r_[~new[1:], False]  # the next game has the same key: a pair
        first = np.flatnonzero(paired)
        for (r, o, quarters), (count,) in group_sums(
            [ruleset[first], opponent[first], won[first] + won[first + 1]], []
        ):
            self.totals[(r, o)][2 + quarters] += count  # quarters of a pair score: 0 to 4
        alone = np.flatnonzero(even & ~paired)
        self.pending = {
            (r, o, d): w
            for r, o, d, w in zip(
                ruleset[alone].tolist(),
                opponent[alone].tolist(),
                deal[alone].tolist(),
                won[alone].tolist(),
                strict=True,
            )
        }

    def frame(self, order: list[str]) -> pd.DataFrame:
        """One row per ruleset and opponent (GAUNTLET_COLUMNS), rulesets in ``order``, the
        opponent the tested player scored least against first."""
        rows = []
        for (ruleset_id, opponent_id), (games, won, *pentanomial) in self.totals.items():
            ruleset, opponent = self.names.rulesets[ruleset_id], self.names.players[opponent_id]
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
