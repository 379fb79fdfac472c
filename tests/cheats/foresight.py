"""Cheat 1, foresight: find the live game in a caller's stack frame, read its dice stream, and
compute the next roll before deciding to roll on, so it never farkles.  Plays like ``greedy``
(and says it is greedy) wherever it finds no game."""

import sys

from arena.engine import Action, Game
from arena.engine.dice import roll_key
from arena.engine.scoring import score_table
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
        keep = next(k for k in view.legal_keeps if k.dice == honest.keep)
        # The roll after this keep, from the game's own stream (a local of the generator that
        # runs the game): roll on whenever it scores.
        turn = game._steps.gi_frame.f_locals
        following = roll_key(turn["stream"], turn["roll_index"], keep.dice_left)
        if score_table(view.rules).keeps[following]:
            return Action(honest.keep, False)
        return honest
