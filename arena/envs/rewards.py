"""The rewards of the environments: win/loss by default, or points."""

from __future__ import annotations

from arena.engine import GameResult

#: The reward kinds an environment takes.
REWARDS = ("win", "points")


def final_reward(result: GameResult, seat: int) -> float:
    """``2 * share - 1`` for ``seat``: +1 for a sole win, -1 for a loss (a retired seat's too),
    0 for a win shared by two (its ``win_shares``: 1/k each for k who share)."""
    return 2.0 * result.win_shares[seat] - 1.0
