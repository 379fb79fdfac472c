"""``optimal``: the turn that maximises expected points, solved by dynamic programming."""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.players.policy import Policy
from arena.players.solver import solve_turn


def optimal_action(view: TurnView) -> Action:
    """The keep and bank of most expected points this turn (the solver's values, compared in
    ``legal_keeps`` order; the first keep of the highest value wins)."""
    rules = view.rules
    cap = view.points_to_target if rules.exact_target and not view.playoff else None
    solution = solve_turn(rules, view.bank_minimum, cap)
    best_value = -1.0
    best = view.legal_keeps[0]
    best_bank = False
    for keep in view.legal_keeps:
        total = view.turn_points + keep.points
        roll_on = solution.value_of_roll(total, keep.dice_left)
        if solution.bank_allowed(total, keep.hot) and total >= roll_on:
            value, bank = float(total), True
        else:
            value, bank = roll_on, False
        if value > best_value:
            best_value, best, best_bank = value, keep, bank
    return Action(best.dice, best_bank)


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
