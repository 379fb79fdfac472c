"""The shortest complete strategy: bank at 500 (the README's example)."""

from arena.players import Action


class BankAt500:
    """Keeps the most points and banks once the turn holds 500."""

    name = "bank-at-500"

    def decide(self, view):
        keep = view.legal_keeps[0]
        done = view.turn_points + keep.points >= 500
        return Action(keep.dice, done and view.bank_allowed(keep))
