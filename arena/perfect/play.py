"""Perfect play at the table: the best keep and bank-or-roll, from the solved turn-start chances.

Only turn-start chances are stored (:mod:`arena.perfect.table`).  When ``perfect`` meets a pair of
scores, the turn from there is solved again with those chances at its ends
(:func:`turn_values`), which is what the solver did for that position; the result is cached.
"""

from __future__ import annotations

from functools import lru_cache

from arena.engine import Action, Ruleset, TurnView
from arena.engine.rules import POINT_STEP
from arena.perfect.positions import Positions, why_not_perfect
from arena.perfect.store import win_table
from arena.perfect.turn import TurnValues, solve_turn


@lru_cache(maxsize=8)
def positions_of(rules: Ruleset) -> Positions:
    return Positions(rules, win_table(rules).past_target)


@lru_cache(maxsize=512)
def turn_values(rules: Ruleset, own: int, opponent: int, seat: int) -> TurnValues:
    """The turn from a position before the final round (scores in points), solved."""
    table = win_table(rules)
    positions = positions_of(rules)
    s = seat if positions.seats == 2 else 0
    setup = positions.turn(table.win, table.last_turn_win, own // POINT_STEP, opponent // POINT_STEP, s)
    return solve_turn(positions.groups, rules.must_roll_after_hot_dice, setup)


@lru_cache(maxsize=512)
def last_turn_values(rules: Ruleset, behind: int) -> TurnValues:
    """The last turn of the final round, ``behind`` points behind the leader, solved."""
    positions = positions_of(rules)
    setup = positions.last_turn(behind // POINT_STEP)
    return solve_turn(positions.groups, rules.must_roll_after_hot_dice, setup)


@lru_cache(maxsize=32)
def _refused(rules: Ruleset) -> bool:
    return why_not_perfect(rules, 2) is not None


def in_model(view: TurnView) -> bool:
    """True if ``view`` is a situation the solver has values for: two seats, rules it plays, not a
    playoff, and scores a game can reach (0 or at least the entry threshold; below the target, or
    in the final round behind a leader who reached it)."""
    rules = view.rules
    if view.n_players != 2 or view.playoff or _refused(rules):
        return False
    own, opponent = view.score, view.scores[1 - view.seat]
    if own % POINT_STEP or opponent % POINT_STEP or own < 0 or own >= rules.target:
        return False
    if 0 < own < rules.entry_threshold or 0 < opponent < rules.entry_threshold:
        return False  # no game reaches it: a first bank meets the entry threshold
    if view.final_round:
        return opponent >= rules.target and (opponent == rules.target or not rules.exact_target)
    return 0 <= opponent < rules.target


def situation_values(view: TurnView) -> TurnValues:
    """The solved turn the player of ``view`` is in (not for a playoff turn)."""
    own = view.score
    opponent = view.scores[1 - view.seat]
    if view.final_round:
        return last_turn_values(view.rules, opponent - own)
    return turn_values(view.rules, own, opponent, view.seat)


def choices(view: TurnView, values: TurnValues | None = None) -> list[tuple[float, bool]]:
    """For each of ``view.legal_keeps``: the chance of winning after it, and whether to bank."""
    values = values or situation_values(view)
    must_roll = view.rules.must_roll_after_hot_dice
    found = []
    for keep in view.legal_keeps:
        chance, bank = values.choice(view.turn_points + keep.points, keep.dice_left, keep.hot, must_roll)
        found.append((chance, bank and view.may_bank(keep)))
    return found


def advice(view: TurnView) -> list[str]:
    """For a person at the table: each legal keep's chance of winning if banked and if rolled on
    (for the player of ``view``, against a perfect opponent), one line per keep."""
    if not in_model(view):
        return []
    values = situation_values(view)
    must_roll = view.rules.must_roll_after_hot_dice
    lines = []
    for keep in view.legal_keeps:
        bank, roll = values.options(view.turn_points + keep.points, keep.dice_left, keep.hot, must_roll)
        if view.overshoots(keep):
            lines.append(f"passes the target: {100 * roll:.1f}% after the lost turn")
            continue
        if bank is not None and not view.may_bank(keep):
            bank = None
        shown = f"bank {100 * bank:.1f}%, " if bank is not None else ""
        lines.append(f"{shown}roll on {100 * roll:.1f}%")
    return lines


def perfect_action(view: TurnView) -> Action:
    """The keep and bank with the highest chance of winning (the first such keep in
    ``legal_keeps`` order)."""
    best = -1.0
    action = None
    for keep, (chance, bank) in zip(view.legal_keeps, choices(view), strict=True):
        if chance > best:
            best, action = chance, Action(keep.dice, bank)
    assert action is not None
    return action
