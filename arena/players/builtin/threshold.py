"""``threshold``: the classic rule of thumb, bank at a fixed turn total."""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.players.builtin.common import best_keep, hits_target
from arena.players.policy import Policy


class ThresholdPlayer:
    """Keeps the most points; banks once the turn reaches ``bank_at`` points, and rolls on only
    with at least ``min_dice`` dice in the cup.

    The rule of thumb of 002's "Taktik" ("Hier sichern die meisten, sobald ein paar hundert
    Punkte im Zug liegen") with two knobs.  It banks whenever that reaches the target.
    """

    def __init__(self, bank_at: int = 300, min_dice: int = 3) -> None:
        if bank_at < 0:
            raise ValueError(f"bank_at must be zero or more, got {bank_at}")
        if not 1 <= min_dice <= 6:
            raise ValueError(f"min_dice must be 1 to 6, got {min_dice}")
        self.bank_at = bank_at
        self.min_dice = min_dice
        self.name = f"threshold:bank_at={bank_at},min_dice={min_dice}"

    @property
    def policy(self) -> Policy:
        """This strategy as a declarative :class:`~arena.players.policy.Policy` (what the compiled
        kernel plays; tests/test_compiled.py checks that it equals ``decide``)."""
        return Policy(keep="most_points", bank="threshold", bank_at=self.bank_at, min_dice=self.min_dice)

    def decide(self, view: TurnView) -> Action:
        keep = best_keep(view)
        total = view.turn_points + keep.points
        wants_bank = total >= self.bank_at or keep.dice_left < self.min_dice or hits_target(view, keep)
        return Action(keep.dice, wants_bank and view.may_bank(keep))
