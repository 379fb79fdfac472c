"""``greedy``: take everything, bank at once."""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.players.builtin.common import most_dice_keep
from arena.players.policy import Policy


class GreedyPlayer:
    """Keeps every scoring die and banks as soon as it may.

    The beginner's play 002 warns against ("Nicht alles rauslegen"): it never leaves a scoring
    die in the cup and never risks a bank.  Under an exact target it skips keeps that would pass
    the target, where it can.
    """

    name = "greedy"
    #: This strategy as a declarative policy (what the compiled kernel plays): most dice, and
    #: bank whenever allowed (every total reaches 0).
    policy = Policy(keep="most_dice", bank="threshold", bank_at=0)

    def decide(self, view: TurnView) -> Action:
        keep = most_dice_keep(view)
        return Action(keep.dice, view.may_bank(keep))
