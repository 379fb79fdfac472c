"""Small helpers the built-in strategies share (and any strategy may use).

Each is one call that reads a few fields of the view: a decision is made millions of times in a
tournament, so they take the cheap route where there is one (the first keep is the one with
most points; :attr:`~arena.engine.scoring.Keeps.most_dice` is worked out once per ruleset).
"""

from __future__ import annotations

from arena.engine import Keep, TurnView


def room(view: TurnView) -> int | None:
    """The points this turn may still add without passing an exact target (001); None where the
    target need not be hit exactly (or in a playoff turn, where only the turn's points count)."""
    rules = view.rules
    if not rules.exact_target or view.playoff:
        return None
    return rules.target - view.scores[view.seat] - view.turn_points


def keeps_within_target(view: TurnView) -> tuple[Keep, ...]:
    """The legal keeps that do not forfeit the turn by passing an exact target (001); all keeps
    if every one of them does (one must be kept anyway)."""
    keeps = view.legal_keeps
    left = room(view)
    if left is None or keeps[0].points <= left:
        return keeps  # the first keep has the most points: if it fits, all do
    safe = tuple(k for k in keeps if k.points <= left)
    return safe or keeps


def best_keep(view: TurnView) -> Keep:
    """The keep with most points that does not pass an exact target (001); the first legal keep
    if every one does.  ``keeps_within_target(view)[0]`` without building the tuple."""
    keeps = view.legal_keeps
    rules = view.rules
    if rules.exact_target and not view.playoff:  # room(view), written out: asked at every decision
        left = rules.target - view.scores[view.seat] - view.turn_points
        if keeps[0].points > left:
            for keep in keeps:
                if keep.points <= left:
                    return keep
    return keeps[0]


def most_dice_keep(view: TurnView) -> Keep:
    """The keep with most dice, then most points, that does not pass an exact target (001); the
    one with most dice of all if every keep does.  The same keep as
    ``max(keeps_within_target(view), key=lambda k: (len(k.dice), k.points))``."""
    keeps = view.legal_keeps.most_dice
    rules = view.rules
    if rules.exact_target and not view.playoff:  # room(view), written out: asked at every decision
        left = rules.target - view.scores[view.seat] - view.turn_points
        if view.legal_keeps[0].points > left:
            for keep in keeps:
                if keep.points <= left:
                    return keep
    return keeps[0]


def hits_target(view: TurnView, keep: Keep) -> bool:
    """True if banking after ``keep`` reaches the target (exactly, under an exact target)."""
    rules = view.rules
    total = view.scores[view.seat] + view.turn_points + keep.points
    return total == rules.target if rules.exact_target else total >= rules.target
