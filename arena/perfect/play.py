"""Perfect play at the table: the best keep and bank-or-roll, from the solved turn-start chances.

Only turn-start chances are stored (:mod:`arena.perfect.table`).  When ``perfect`` meets a pair of
scores, the turn from there is solved again with those chances at its ends
(:func:`turn_values`), which is what the solver did for that position; the result is cached.
"""

from __future__ import annotations

from functools import lru_cache

from arena.engine import Action, Ruleset, TurnView
from arena.engine.rules import POINT_STEP
from arena.perfect.penalty import PenaltyPositions
from arena.perfect.positions import Positions, why_not_perfect
from arena.perfect.store import win_table
from arena.perfect.table import entered_by_default
from arena.perfect.turn import TurnValues, solve_turn


@lru_cache(maxsize=8)
def positions_of(rules: Ruleset) -> Positions:
    past_target = win_table(rules).past_target
    if rules.has_farkle_penalty():
        return PenaltyPositions(rules, past_target)
    return Positions(rules, past_target)


@lru_cache(maxsize=512)
def turn_values(
    rules: Ruleset,
    own: int,
    opponent: int,
    seat: int,
    streaks: tuple[int, int] = (0, 0),
    entered: tuple[bool, bool] | None = None,
) -> TurnValues:
    """The turn from a position before the final round (scores in points), solved.  Under a
    farkle penalty the position also holds both players' farkle ``streaks`` and whether each has
    ``entered`` (by default: a player with 0 points has not, where there is an entry threshold)."""
    table = win_table(rules)
    positions = positions_of(rules)
    s = seat if positions.seats == 2 else 0
    if isinstance(positions, PenaltyPositions):
        if entered is None:
            entered = (entered_by_default(rules, own), entered_by_default(rules, opponent))
        a, b = table.player_index(own, entered[0]), table.player_index(opponent, entered[1])
        turn = positions.penalty_turn(table.win, table.last_turn_win, a, b, streaks[1], s)
        lost = positions.farkle_value(table.win, a, streaks[0], b, streaks[1], s)
        setup = turn.with_lost(lost)
    else:
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
    playoff, and positions a game can reach (before the target, or in the final round behind a
    leader who reached it)."""
    rules = view.rules
    if view.n_players != 2 or view.playoff or _refused(rules):
        return False
    other = 1 - view.seat
    own, opponent = view.score, view.scores[other]
    table = win_table(rules)
    if not table.reaches(own, view.entered[view.seat]):
        return False  # includes a score at or past the target
    if view.final_round:
        return opponent >= rules.target and (opponent == rules.target or not rules.exact_target)
    return table.reaches(opponent, view.entered[other])


def situation_values(view: TurnView) -> TurnValues:
    """The solved turn the player of ``view`` is in (not for a playoff turn)."""
    own = view.score
    other = 1 - view.seat
    opponent = view.scores[other]
    if view.final_round:
        return last_turn_values(view.rules, opponent - own)
    if not view.rules.has_farkle_penalty():
        return turn_values(view.rules, own, opponent, view.seat)
    streaks = (view.farkle_streaks[view.seat], view.farkle_streaks[other])
    entered = (view.entered[view.seat], view.entered[other])
    return turn_values(view.rules, own, opponent, view.seat, streaks, entered)


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
