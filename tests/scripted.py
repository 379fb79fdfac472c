"""Helpers for tests that replay games with exact dice and exact decisions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.engine import Action, Game, GameResult, Ruleset, ScriptedDice, TurnView
from arena.engine.events import Event

Decision = tuple[Sequence[int], bool]


class ScriptedGame:
    """A game whose dice and decisions (in playing order, all seats together) are given."""

    def __init__(
        self, rules: Ruleset, n_players: int, rolls: Iterable[Iterable[int]], decisions: Iterable[Decision]
    ) -> None:
        self.events: list[Event] = []
        self.views: list[TurnView] = []
        self.dice = ScriptedDice(rolls)
        self.decisions = [Action(tuple(keep), bank) for keep, bank in decisions]
        self.game = Game(rules, n_players, seed=0, on_event=self.events.append, roller=self.dice)

    def run(self) -> GameResult | None:
        """Apply every scripted decision; the result if the game ended, else None."""
        for action in self.decisions:
            assert not self.game.over, f"game ended with decisions left: {action}"
            self.views.append(self.game.view())
            self.game.apply(action)
        return self.game.result() if self.game.over else None

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]
