"""``optimal``: the turn that maximises expected points, solved by dynamic programming."""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.players.policy import Policy
from arena.players.solver import optimal_action


class OptimalPlayer:
    """Maximises the expected points of the current turn, exactly.

    Each decision looks up a dynamic-programming solution of the turn (see
    :mod:`arena.players.solver`) for the situation in play: the points needed before banking
    (entry threshold or bar), the points still missing under an exact target, and the
    must-roll-after-hot-dice rule.  The idea is Neller and Presser's optimal Farkle play
    ("Optimal Play of Farkle and Two-Player Farkle", 2012) restricted to one turn: it ignores the
    other scores, so it is optimal for points per turn, not for winning.
    """

    name = "optimal"
    #: This strategy as a declarative policy (what the compiled kernel plays).
    policy = Policy(keep="optimal", bank="optimal")

    def decide(self, view: TurnView) -> Action:
        return optimal_action(view)
