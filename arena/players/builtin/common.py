"""Small helpers the built-in strategies share."""

from __future__ import annotations

from arena.engine import Keep, TurnView


def keeps_within_target(view: TurnView) -> tuple[Keep, ...]:
    """The legal keeps that do not forfeit the turn by passing an exact target (001); all keeps
    if every one of them does (one must be kept anyway)."""
    keeps = view.legal_keeps
    if not view.rules.exact_target or not view.overshoots(keeps[0]):
        return keeps  # the first keep has the most points: if it fits, all do
    safe = tuple(k for k in keeps if not view.overshoots(k))
    return safe or keeps


def hits_target(view: TurnView, keep: Keep) -> bool:
    """True if banking after ``keep`` reaches the target (exactly, under an exact target)."""
    total = view.score + view.turn_points + keep.points
    return total == view.rules.target if view.rules.exact_target else total >= view.rules.target
