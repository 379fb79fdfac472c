"""The Player protocol: what a strategy is, and what it is told at the start of a game.

A strategy is any class with a ``name`` and a ``decide(view) -> Action`` method::

    class AlwaysBank:
        name = "always-bank"

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep))

Three hooks are optional: ``start_game(info: GameInfo)`` before the first roll,
``end_turn(turn: TurnEnd)`` after every turn of every seat (how it ended: banked, farkled or
forfeited, a strike or a penalty, and the scores after it; :mod:`arena.engine.turn_ends`), and
``end_game(result: GameResult)`` after the last.  A strategy that wants randomness takes
``info.rng``: a ``random.Random`` seeded from the game's seed and the seat, separate from the
dice, so its play is reproducible too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol, runtime_checkable

from arena.engine import Action, GameResult, Ruleset, TurnEnd, TurnView


@runtime_checkable
class Player(Protocol):
    """A strategy: a human-readable ``name`` and one decision per scoring roll."""

    name: str

    def decide(self, view: TurnView) -> Action:
        """Choose the dice to keep from ``view.roll`` and whether to bank afterwards."""
        ...


@dataclass(frozen=True)
class GameInfo:
    """What a player learns when a game starts (passed to the optional ``start_game`` hook)."""

    rules: Ruleset
    seat: int
    n_players: int
    names: tuple[str, ...]  # every seat's player name, in seat order
    strategy_seed: int  # seeds ``rng``; derived from the game seed and seat, not the dice

    @cached_property
    def rng(self) -> random.Random:
        """A random generator for the strategy's own choices, separate from the dice."""
        return random.Random(self.strategy_seed)


__all__ = ["Action", "GameInfo", "GameResult", "Player", "TurnEnd", "TurnView"]
