"""Cheat 1, foresight: find the live Game in a caller's stack frame, copy it, and look at the
next roll before deciding to roll on, so it never farkles.  Plays like ``greedy`` (and says it
is greedy) wherever it finds no game."""

import copy
import sys

from arena.engine import Action, Game
from arena.players.builtin.greedy import GreedyPlayer


def find_game() -> Game | None:
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if isinstance(value, Game):
                return value
        frame = frame.f_back
    return None


class Foresight(GreedyPlayer):
    name = "greedy"

    def decide(self, view):
        honest = super().decide(view)
        game = find_game()
        if game is None or not honest.bank:
            return honest
        future = copy.deepcopy(game)
        future.apply(Action(honest.keep, False))  # roll on, in the copy: does the next roll score?
        if not future.over and future.seat == view.seat and future.view().legal_keeps:
            return Action(honest.keep, False)
        return honest
