"""``perfect``: the keep and bank that maximise the chance of winning the game, for two players."""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.perfect import in_model, perfect_action
from arena.players.solver import optimal_action


class PerfectPlayer:
    """Maximises its chance of winning the game, exactly, in two-player games.

    Every decision weighs both scores, the turn total, the dice left and every rule in force
    (entry threshold, exact target, final round, ties, farkle penalties with both players'
    farkles in a row) by the chance of winning that follows,
    under perfect play by both players: a value iteration over the positions at the start of a
    turn (:mod:`arena.perfect`), as Neller and Presser solved Pig (2004) and Busche and Neller
    solved Farkle.  Behind near the end it keeps rolling; ahead, it banks small.

    A playoff turn (``ties = "playoff"``) is played for most expected points, as ``optimal``
    plays: neither player sees the other's playoff turn, so no position there is better known.
    Refuses, when the games are set up, a rising bar (000) and more than two seats; handed such
    a game anyway (from Python), it plays as ``optimal``.
    """

    name = "perfect"

    def decide(self, view: TurnView) -> Action:
        if not in_model(view):  # a playoff turn, or a game it was not set up for
            return optimal_action(view)
        return perfect_action(view)
