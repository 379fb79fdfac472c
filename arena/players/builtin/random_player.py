"""``random``: the baseline every strategy should beat."""

from __future__ import annotations

import random

from arena.engine import Action, TurnView
from arena.players.protocol import GameInfo


class RandomPlayer:
    """Keeps a uniformly random legal selection; banks with probability 1/2 when allowed.

    The control strategy of every tournament (as in Axelrod's ``Random``): a strategy that does
    not beat it clearly has a bug.  Its coin comes from ``GameInfo.rng``, so it is reproducible.
    """

    name = "random"

    def __init__(self) -> None:
        self._rng = random.Random(0)

    def start_game(self, info: GameInfo) -> None:
        self._rng = info.rng

    def decide(self, view: TurnView) -> Action:
        keep = self._rng.choice(view.legal_keeps)
        bank = view.bank_allowed(keep) and self._rng.random() < 0.5
        return Action(keep.dice, bank)
