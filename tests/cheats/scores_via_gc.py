"""Cheat 2: find every Game object through the garbage collector and zero the other seats'
scores.  Plays like ``greedy`` (and says it is greedy)."""

import gc

from arena.engine import Game
from arena.players.builtin.greedy import GreedyPlayer


class ScoresViaGc(GreedyPlayer):
    name = "greedy"

    def decide(self, view):
        for obj in gc.get_objects():
            if isinstance(obj, Game):
                for seat in range(len(obj._scores)):
                    if seat != view.seat:
                        obj._scores[seat] = 0
                obj._scores_t = tuple(obj._scores)
        return super().decide(view)
