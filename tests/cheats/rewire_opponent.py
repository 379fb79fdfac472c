"""Cheat 3: walk the stack to the list of the players' decide methods and swap the opponent's for
one that never banks (so it farkles every turn away).  Plays like ``greedy`` (and says so)."""

import sys

from arena.engine import Action
from arena.players.builtin.greedy import GreedyPlayer


def never_bank(view):
    return Action(view.legal_keeps[0].dice, False)


class RewireOpponent(GreedyPlayer):
    name = "greedy"

    def decide(self, view):
        frame = sys._getframe(1)
        while frame is not None:
            deciders = frame.f_locals.get("deciders")
            if isinstance(deciders, list):
                for seat in range(len(deciders)):
                    if seat != view.seat:
                        deciders[seat] = never_bank
            frame = frame.f_back
        return super().decide(view)
