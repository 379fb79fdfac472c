"""One game of the engine with some seats played by arena strategies: what both environments drive.

The game is the engine's own :class:`~arena.engine.Game` with its seeded dice, so an episode is
the game ``arena play`` plays with the same seed and the same decisions.  The strategies at the
table are treated as :func:`arena.players.match.play_match` treats them: each is made fresh for
the game, gets ``start_game`` with the same :class:`~arena.players.protocol.GameInfo` (its
``rng`` seeded by :func:`~arena.players.match.strategy_seed`), every turn's end before the next
decision (``end_turn``, to every seat with the hook, in seat order) and ``end_game``.  A
strategy's fault is not guarded here: an environment is a training tool, and a strategy that
raises stops the episode with its own exception.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping

from arena.engine import Action, Game, GameResult, Ruleset, TurnEnd, TurnView
from arena.engine import events as ev
from arena.players.match import strategy_seed
from arena.players.protocol import GameInfo, Player


class BotTable:
    """A game between agents (the seats not in ``bots``) and the strategies in ``bots`` (seat ->
    player, fresh for this game).  :attr:`view` is the decision an agent must make next, or None
    once the game is over."""

    def __init__(
        self,
        rules: Ruleset,
        n_players: int,
        seed: int,
        bots: Mapping[int, Player],
        names: tuple[str, ...],
        *,
        max_rounds: int,
        on_event: Callable[[ev.Event], None] | None = None,
    ) -> None:
        self.bots = dict(bots)
        self._pending: list[TurnEnd] = []
        self._hooks: list[Callable[[TurnEnd], None] | None] = [
            getattr(self.bots[s], "end_turn", None) if s in self.bots else None for s in range(n_players)
        ]
        for seat, bot in sorted(self.bots.items()):
            start = getattr(bot, "start_game", None)
            if start is not None:
                start(GameInfo(rules, seat, n_players, names, strategy_seed(seed, seat)))
        told = self._pending.append if any(self._hooks) else None
        self.game = Game(rules, n_players, seed, on_event=on_event, max_rounds=max_rounds, on_turn_end=told)
        self.view: TurnView | None = None if self.game.over else self.game.view()
        self._finished = False
        self._advance()

    def act(self, action: Action) -> None:
        """The agent to move decides ``action`` (legal: the caller checked it against the mask);
        the strategies then play until an agent decides again or the game is over."""
        self.view = self.game.step(action)
        self._advance()

    def retire(self, seat: int) -> None:
        """Put an agent's seat out of the game (an illegal action: docs/faults.md) and play on."""
        self.view = self.game.retire(seat)
        self._advance()

    @property
    def result(self) -> GameResult | None:
        return self.game.result() if self.game.over else None

    def _advance(self) -> None:
        self._tell()
        while self.view is not None and self.view.seat in self.bots:
            self.view = self.game.step(self.bots[self.view.seat].decide(self.view))
            self._tell()
        if self.view is None and not self._finished:
            self._finished = True
            result = self.game.result()
            for _seat, bot in sorted(self.bots.items()):
                end = getattr(bot, "end_game", None)
                if end is not None:
                    end(copy.copy(result))

    def _tell(self) -> None:
        while self._pending:
            end = self._pending.pop(0)
            for hook in self._hooks:
                if hook is not None:
                    hook(copy.copy(end))
