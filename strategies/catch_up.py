"""Risk more when behind, bank early when ahead: the score-aware tip of 002's "Taktik"."""

from __future__ import annotations

from arena.players import Action, TurnView


class CatchUp:
    """Banks at 300 when leading and at 300 plus half the gap to the leader when behind.

    From 002: "Wer weit zurückliegt, muss mehr riskieren. Wer vorne liegt, sichert früher und
    lässt die anderen kommen."
    """

    def __init__(self, base: int = 300, share_of_gap: float = 0.5) -> None:
        self.base = base
        self.share_of_gap = share_of_gap
        self.name = f"catch-up:base={base},share_of_gap={share_of_gap}"

    def decide(self, view: TurnView) -> Action:
        leader = (
            max(s for seat, s in enumerate(view.scores) if seat != view.seat) if view.n_players > 1 else 0
        )
        gap = max(0, leader - view.score)
        bank_at = self.base + self.share_of_gap * gap
        keep = next((k for k in view.legal_keeps if not view.overshoots(k)), view.legal_keeps[0])
        total = view.turn_points + keep.points
        bank = (total >= bank_at or keep.dice_left < 2) and view.bank_allowed(keep)
        return Action(keep.dice, bank and not view.overshoots(keep))
