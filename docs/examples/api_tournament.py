import arena
from arena import Action


class Steady:
    """Banks once the turn is worth bank_at points."""

    name = "steady"

    def __init__(self, bank_at: int = 350) -> None:
        self.bank_at = bank_at

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= self.bank_at)


run = arena.tournament(
    rules=["classic"],
    players=[Steady, (Steady, {"bank_at": 500}), "greedy", "optimal"],
    games=50,
    workers=2,
    seed=1,
    out="results/api",
)
print(run)
print(run.summary[["player", "games", "win_rate", "elo", "points_per_turn"]])
