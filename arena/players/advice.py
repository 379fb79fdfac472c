"""Advice for a person at the table: what ``optimal`` or ``perfect`` thinks of each legal keep.

An adviser takes the view of a decision and returns one :class:`KeepAdvice` per legal keep (in
``view.legal_keeps`` order), or an empty list where it has nothing to say.  The human seat shows
the notes beside the keeps and takes the adviser's best choice as the default on Enter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.engine import TurnView
from arena.players.solver import solve_turn


@dataclass(frozen=True)
class KeepAdvice:
    """An adviser's reading of one legal keep.

    ``value`` is what the better of banking and rolling on is worth after the keep (expected
    points for ``optimal``, the chance of winning for ``perfect``), comparable between the keeps
    of one roll; ``bank`` says whether that better choice is to bank; ``note`` is the line shown
    beside the keep."""

    note: str
    value: float
    bank: bool


#: A function from a decision's view to advice on each of its legal keeps (or ``[]``).
Adviser = Callable[[TurnView], list[KeepAdvice]]

#: The header printed once before a game, per adviser name.
HEADERS = {
    "optimal": "optimal's advice: the points you can expect to bank this turn after each keep, "
    "if you bank and if you roll on",
    "perfect": "perfect's advice: your chance of winning after each keep, if you bank and if you roll on",
}


def optimal_advice(view: TurnView) -> list[KeepAdvice]:
    """For each legal keep: the points banked now, and the expected points banked this turn
    if the player rolls on and plays on as ``optimal`` does (the one-turn dynamic program of
    :mod:`arena.players.solver`, after Neller and Presser, "Optimal Play of Farkle and
    Two-Player Farkle", 2012).  Its best choice is ``optimal``'s decision."""
    rules = view.rules
    cap = view.points_to_target if rules.exact_target and not view.playoff else None
    solution = solve_turn(rules, view.bank_minimum, cap)
    found = []
    for keep in view.legal_keeps:
        total = view.turn_points + keep.points
        if view.overshoots(keep):
            found.append(KeepAdvice("passes the target: the turn is lost", 0.0, False))
            continue
        roll = solution.value_of_roll(total, keep.dice_left)
        if view.may_bank(keep):
            # On a tie optimal banks (it compares ``total >= roll``): so does the advice.
            bank = total >= roll
            found.append(KeepAdvice(f"bank {total:,}, roll on {roll:,.1f}", max(float(total), roll), bank))
        else:
            found.append(KeepAdvice(f"roll on {roll:,.1f}", roll, False))
    return found


def perfect_advice(view: TurnView) -> list[KeepAdvice]:
    """For each legal keep: the chance of winning if the player banks and if it rolls on,
    against a perfect opponent (:func:`arena.perfect.advice`); ``[]`` where ``perfect`` has no
    values (more than two seats, a playoff, rules it refuses).  Its best choice is ``perfect``'s
    decision."""
    from arena.perfect import advice, choices, in_model  # numpy and the tables: only when asked

    if not in_model(view):
        return []
    notes = advice(view)
    return [KeepAdvice(note, chance, bank) for note, (chance, bank) in zip(notes, choices(view), strict=True)]


ADVISERS: dict[str, Adviser] = {"optimal": optimal_advice, "perfect": perfect_advice}


def best_choice(advice: Sequence[KeepAdvice]) -> int:
    """The index of the keep of the highest value (the first of equals, as the strategies pick)."""
    best = 0
    for index, item in enumerate(advice):
        if item.value > advice[best].value:
            best = index
    return best
