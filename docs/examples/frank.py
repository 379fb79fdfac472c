"""A bot with a bug: it compares the keep's points with the turn's points so far, which are 0 at
the first roll of every turn, so it raises ZeroDivisionError on line 12 at its first decision."""

from arena import Action


class Frank:
    name = "frank"

    def decide(self, view):
        keep = view.legal_keeps[0]
        growth = keep.points / view.turn_points
        return Action(keep.dice, view.bank_allowed(keep) and growth < 0.5)
