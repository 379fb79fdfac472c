from arena import Action


class Steady:
    """Banks once the turn is worth bank_at points."""

    name = "steady"

    def __init__(self, bank_at: int = 350) -> None:
        self.bank_at = bank_at

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= self.bank_at)
