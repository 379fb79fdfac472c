"""A bot that naps 0.2 s before every decision: under a move timeout of 0.5 s, it still stretches
every game it plays (docs/guides/leagues.md, "Time limits")."""

import time

from arena import Action


class Napper:
    name = "napper"

    def decide(self, view):
        time.sleep(0.2)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
