"""Cheat 4: when this file is imported, replace ``OptimalPlayer.decide`` with a method that never
banks, for every game of the process, including games this bot never plays.  Plays like
``greedy`` (and says so)."""

from arena.engine import Action
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.optimal import OptimalPlayer


def _never_bank(self, view):
    return Action(view.legal_keeps[0].dice, False)


OptimalPlayer.decide = _never_bank


class PatchRival(GreedyPlayer):
    name = "greedy"
