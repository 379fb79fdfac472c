"""Players: the Player protocol, the built-in strategies and how strategies are found.

Write a strategy as a class with a ``name`` and ``decide(view) -> Action``; see
``strategies/template.py`` for every field of the view.  Or describe it as a :class:`Policy`
(a :class:`PolicyPlayer`), which also plays in the compiled kernel (docs/declarative.md).
"""

from arena.engine import Action, Keep, TurnEnd, TurnView
from arena.players.loading import (
    BUILTINS,
    ENTRY_POINT_GROUP,
    PlayerSpec,
    StrategyError,
    available_strategies,
    load_player_spec,
)
from arena.players.match import PlayerFault, play_match
from arena.players.policy import Policy, PolicyPlayer
from arena.players.protocol import GameInfo, Player

__all__ = [
    "BUILTINS",
    "ENTRY_POINT_GROUP",
    "Action",
    "GameInfo",
    "Keep",
    "Player",
    "PlayerFault",
    "PlayerSpec",
    "Policy",
    "PolicyPlayer",
    "StrategyError",
    "TurnEnd",
    "TurnView",
    "available_strategies",
    "load_player_spec",
    "play_match",
]
