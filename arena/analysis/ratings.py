"""Ratings across many players and seats.

- A multiplayer rating: openskill's Plackett-Luce model (Weng and Lin 2011), fed every game in
  game order, so the same games.csv always gives the same ratings.
- For two-player round-robins, an Elo fit of the pairwise results: the Bradley-Terry model
  P(i beats j) = 1 / (1 + 10^((E_j - E_i) / 400)) by maximum likelihood (Hunter's MM algorithm),
  centred on 0, with 95% intervals from the Fisher information.  Each pairing gets one virtual
  drawn game (half a win each way) so that a player who never wins still has a finite Elo.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arena.analysis.stats import Z95

ELO_SCALE = 400 / math.log(10)


class MultiplayerRatings:
    """openskill Plackett-Luce ratings per (ruleset, player), updated game by game."""

    def __init__(self) -> None:
        from openskill.models import PlackettLuce

        self._model = PlackettLuce()
        self._ratings: dict[tuple[str, str], Any] = {}

    def add_game(self, ruleset: str, players: list[str], ranks: list[int]) -> None:
        teams = [[self._rating(ruleset, p)] for p in players]
        rated = self._model.rate(teams, ranks=ranks)
        for player, (rating,) in zip(players, rated, strict=True):
            self._ratings[(ruleset, player)] = rating

    def _rating(self, ruleset: str, player: str) -> Any:
        key = (ruleset, player)
        if key not in self._ratings:
            self._ratings[key] = self._model.rating(name=player)
        return self._ratings[key]

    def value(self, ruleset: str, player: str) -> tuple[float, float]:
        """(mu, sigma) of a player's rating."""
        rating = self._rating(ruleset, player)
        return float(rating.mu), float(rating.sigma)


def bradley_terry_elo(results: list[tuple[str, str, float, float]]) -> dict[str, tuple[float, float, float]]:
    """Elo and its 95% interval per player from pairwise results.

    ``results`` holds (player, opponent, games, wins) for every ordered pair, as pairwise.csv
    does: both directions of each pairing.  Returns {player: (elo, low, high)}, centred on 0.
    """
    players = sorted({r[0] for r in results} | {r[1] for r in results})
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    played = np.zeros((n, n))
    won = np.zeros((n, n))
    for player, opponent, games, wins in results:
        i, j = index[player], index[opponent]
        played[i, j] = games + 1  # one virtual drawn game per pairing ...
        won[i, j] = wins + 0.5  # ... half a win each way
    won_total = won.sum(axis=1)
    strength = np.ones(n)
    for _ in range(10_000):
        pair = strength[:, None] + strength[None, :]
        updated = won_total / (played / pair).sum(axis=1)
        updated /= math.exp(np.log(updated).mean())
        change = np.max(np.abs(np.log(updated) - np.log(strength)))
        strength = updated
        if change < 1e-12:
            break
    theta = np.log(strength)
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
    weight = played * p * (1 - p)
    information = np.diag(weight.sum(axis=1)) - weight
    covariance = np.linalg.pinv(information)  # the pseudo-inverse fixes the sum-to-zero gauge
    result = {}
    for player, i in index.items():
        elo = ELO_SCALE * theta[i]
        half = Z95 * ELO_SCALE * math.sqrt(max(covariance[i, i], 0.0))
        result[player] = (elo, elo - half, elo + half)
    return result
