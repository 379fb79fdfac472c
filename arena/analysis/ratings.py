"""Ratings that depend on the set of games, not on their order.

One model for every format: **Plackett-Luce** (Luce 1959, Plackett 1975), fitted by maximum
likelihood to each game's finishing order.  A player has a strength ``theta``; a game's order is
read as a sequence of choices, the winner chosen from everyone with probability proportional to
``exp(theta)``, second place from those left, and so on.  With two seats it is the Bradley-Terry
model, ``P(i beats j) = 1 / (1 + 10^((E_j - E_i) / 400))``, so the strengths are reported on the
Elo scale: ``E = 400 / ln 10 * theta``, centred on 0 (the field average).

- **Fit.** Hunter's MM algorithm for Plackett-Luce (D. R. Hunter, "MM algorithms for generalized
  Bradley-Terry models", Ann. Statist. 32(1):384-406, 2004), which raises the likelihood at every
  step, up to its maximum: for untied orders the same estimate as choix's ``ilsr_rankings``
  (Maystre and Grossglauser 2015), with no added dependency.
- **Prior.** Each pair of players who met gets one virtual drawn game (half a win each way), so a
  player who never wins keeps a finite rating; a weak pull towards equal strengths that thousands
  of real games outweigh.
- **Ties.** Players who share a rank (a shared win, equal scores) are tied; a tied group counts
  every order of its members with equal weight (1/m! each for m members), as a shared win in two
  seats counts half a win each way.  The average is taken in closed form: when s of the group's m
  members are left, every set of s of them is the one left with probability 1/C(m, s), and each of
  its members is chosen next with probability 1/s.  A faulty seat already ranks last.
- **Intervals.** 95% Wald intervals from the Fisher information of the Plackett-Luce likelihood
  (it is also the observed information: the second derivatives do not depend on who won), with
  its pseudo-inverse fixing the sum-to-zero gauge.  Each interval is that of a player's rating
  against the field average.
- **Order-free.** The data are finishing orders with their counts; they are read in sorted order,
  so the same set of games always gives the same floating-point numbers.

Players who never met anyone (one-seat games only) have no rating (NaN).  Groups of players who
never met each other, directly or through others, are each centred on 0 separately: their
ratings can't be compared across groups.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

import numpy as np

from arena.analysis.stats import Z95

ELO_SCALE = 400 / math.log(10)
#: One game's finishing order: groups of players, best first; the players of a group are tied
#: (sorted by name, so equal orders compare equal).
Order = tuple[tuple[str, ...], ...]
#: (elo, 95% low, 95% high) per player.
Ratings = dict[str, tuple[float, float, float]]

_MAX_ITERATIONS = 100_000
_TOLERANCE = 1e-10  # largest change of a log-strength between MM steps


def finishing_order(players: Sequence[str], ranks: Sequence[int]) -> Order:
    """The finishing order of one game from its players' ranks (1 best; equal ranks tie)."""
    groups: dict[int, list[str]] = {}
    for player, rank in zip(players, ranks, strict=True):
        groups.setdefault(int(rank), []).append(player)
    return tuple(tuple(sorted(groups[rank])) for rank in sorted(groups))


class _Stages:
    """The sufficient statistics of a Plackett-Luce fit: for every set of players a choice was
    made from, its total weight, and for every player the total weight of being chosen."""

    def __init__(self, players: list[str]) -> None:
        self.index = {p: i for i, p in enumerate(players)}
        self.sets: dict[tuple[int, ...], float] = {}
        self.chosen = [0.0] * len(players)

    def add(self, choice_set: tuple[int, ...], chosen: Iterable[int], weight: float) -> None:
        """``weight`` for each of ``chosen`` being picked from ``choice_set``."""
        chosen = list(chosen)
        if len(choice_set) < 2 or weight <= 0:
            return  # the last one left is not a choice
        self.sets[choice_set] = self.sets.get(choice_set, 0.0) + weight * len(chosen)
        for i in chosen:
            self.chosen[i] += weight

    def add_order(self, order: Order, count: float) -> None:
        remaining = sorted(self.index[p] for group in order for p in group)
        for group in order:
            members = [self.index[p] for p in group]
            rest = [i for i in remaining if i not in set(members)]
            m = len(members)
            for s in range(m, 0, -1):  # s of the tied group are still to be placed
                weight = count / (math.comb(m, s) * s)
                for left in combinations(members, s):
                    self.add(tuple(sorted(rest + list(left))), left, weight)
            remaining = rest


def plackett_luce_elo(orders: Mapping[Order, float]) -> Ratings:
    """Elo and its 95% interval per player from finishing orders and how often each occurred.

    ``orders`` maps each distinct :data:`Order` to its count (or weight).  The result depends on
    the mapping only, never on the order of its items.  Returns {player: (elo, low, high)}.
    """
    keys = sorted(orders)
    players = sorted({p for order in keys for group in order for p in group})
    if not players:
        return {}
    stages = _Stages(players)
    met: set[tuple[int, int]] = set()
    for order in keys:
        stages.add_order(order, float(orders[order]))
        seated = sorted(stages.index[p] for group in order for p in group)
        met.update(combinations(seated, 2))
    for i, j in sorted(met):  # the prior: one virtual drawn game per pair that met
        stages.add((i, j), (i, j), 0.5)
    return _fit(players, stages, sorted(met))


def bradley_terry_elo(results: Iterable[tuple[str, str, float, float]]) -> Ratings:
    """The two-seat case from pairwise results: ``(player, opponent, games, wins)`` for each
    ordered pair, both directions of each pairing as in pairwise.csv (a shared win is half a win
    each way).  The same model and prior as :func:`plackett_luce_elo`."""
    orders: dict[Order, float] = {}
    for player, opponent, _games, wins in results:
        key = ((player,), (opponent,))
        orders[key] = orders.get(key, 0.0) + float(wins)
    return plackett_luce_elo(orders)


def _components(n: int, edges: list[tuple[int, int]]) -> list[list[int]]:
    """Groups of players connected by having met."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in edges:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _fit(players: list[str], stages: _Stages, met: list[tuple[int, int]]) -> Ratings:
    n = len(players)
    nan = (math.nan, math.nan, math.nan)
    components = _components(n, met)
    rated = sorted(i for group in components for i in group)
    if not rated:
        return dict.fromkeys(players, nan)
    sets = sorted(stages.sets)
    membership = np.zeros((len(sets), n))
    for row, choice_set in enumerate(sets):
        membership[row, list(choice_set)] = 1.0
    weight = np.array([stages.sets[s] for s in sets])
    chosen = np.array(stages.chosen)
    masks = [np.isin(np.arange(n), group) for group in components]
    strength = np.where(np.isin(np.arange(n), rated), 1.0, 0.0)
    for _ in range(_MAX_ITERATIONS):
        # Hunter's MM step: gamma_i <- w_i / (sum over choice sets R that hold i of W_R / gamma(R)),
        # w_i the weight of i being chosen, W_R that of choices from R, gamma(R) its total strength.
        denominator = membership.T @ (weight / (membership @ strength))
        updated = np.where(strength > 0, chosen / np.where(denominator > 0, denominator, 1.0), 0.0)
        for mask in masks:  # centre each connected group on 0 (geometric mean 1)
            updated[mask] /= math.exp(np.log(updated[mask]).mean())
        change = float(np.max(np.abs(np.log(updated[rated]) - np.log(strength[rated]))))
        strength = updated
        if change < _TOLERANCE:
            break
    theta = np.zeros(n)
    theta[rated] = np.log(strength[rated])
    covariance = np.linalg.pinv(_information(theta, membership, weight))
    result = dict.fromkeys(players, nan)
    for i in rated:
        elo = ELO_SCALE * float(theta[i])
        half = Z95 * ELO_SCALE * math.sqrt(max(float(covariance[i, i]), 0.0))
        result[players[i]] = (elo, elo - half, elo + half)
    return result


def _information(theta: np.ndarray, membership: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Fisher information of the Plackett-Luce log-likelihood: for each choice set R with weight
    W_R, W_R (diag(p_R) - p_R p_R^T), where p_R are the choice probabilities within R."""
    share = membership * np.exp(theta - theta.max())[None, :]
    share /= share.sum(axis=1, keepdims=True)
    return np.diag((weight[:, None] * share).sum(axis=0)) - share.T @ (weight[:, None] * share)
