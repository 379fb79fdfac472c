"""What a player sees and what it answers: :class:`TurnView` and :class:`Action`.

Both are tuples, so they are immutable and cheap to build once per decision.  A view holds only
values (numbers, tuples, the frozen ruleset and the shared, frozen :class:`Keep` records), never
the game or its dice, so nothing reachable from it can change the game.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.engine.rules import Ruleset
from arena.engine.scoring import Keep, Keeps


class IllegalAction(ValueError):
    """A decision the rules do not allow; the message says what was wrong."""


def short_repr(value: object) -> str:
    """``repr(value)``, cut at 100 characters: an object a strategy chose, in a one-line reason."""
    text = repr(value)
    return text if len(text) <= 100 else text[:99] + "…"


def not_an_action(action: object) -> str:
    """Why a decision that is not a pair (keep, bank) is refused: the one wording of every path
    (in arena's processes and in a seat's), its object's repr cut at 100 characters."""
    return f"a decision must be Action(keep, bank), got {short_repr(action)}"


def bank_not_bool(bank: object) -> str:
    """Why a decision whose ``bank`` is neither True nor False is refused (1 and 0 included: a
    decision says what it means)."""
    return f"bank must be True or False, got {short_repr(bank)}"


class Action(NamedTuple):
    """One decision after a roll: the dice to set aside, then bank (True) or roll on (False)."""

    keep: tuple[int, ...]
    bank: bool


class TurnView(NamedTuple):
    """The situation after a scoring roll, as the player to move may know it."""

    rules: Ruleset
    seat: int
    n_players: int
    scores: tuple[int, ...]
    roll: tuple[int, ...]
    turn_points: int  # points set aside earlier in this turn, before this roll
    bank_minimum: int  # turn total needed before banking is allowed (entry or bar); 0 for none
    legal_keeps: Keeps  # best points first; each knows the dice rolled next (see Keeps)
    strikes: tuple[int, ...]  # per seat, with the rising bar (000)
    farkle_streaks: tuple[int, ...]  # farkles in a row per seat
    entered: tuple[bool, ...]  # per seat: the entry threshold no longer applies (banked once, or none)
    final_round: bool  # someone has reached the target; this is one of the last turns
    turn: int  # this seat's turn number, from 0
    roll_number: int  # rolls so far in this turn, this one included
    playoff: bool  # a tie-break turn: only this turn's points count

    @property
    def score(self) -> int:
        """The player's own banked score."""
        return self.scores[self.seat]

    @property
    def points_to_bank(self) -> int:
        """Points this turn still needs before banking is allowed (entry or bar); 0 if none."""
        return max(0, self.bank_minimum - self.turn_points)

    @property
    def points_to_target(self) -> int:
        return self.rules.target - self.scores[self.seat]

    def overshoots(self, keep: Keep) -> bool:
        """True if keeping ``keep`` forfeits the turn by passing an exact target (001)."""
        return (
            self.rules.exact_target
            and not self.playoff
            and self.scores[self.seat] + self.turn_points + keep.points > self.rules.target
        )

    def may_bank(self, keep: Keep) -> bool:
        """True if banking after ``keep`` is allowed and counts: :meth:`bank_allowed` and not
        :meth:`overshoots`, in one call (what a strategy asks before it banks)."""
        rules = self.rules
        if keep.hot and rules.must_roll_after_hot_dice:
            return False
        total = self.turn_points + keep.points
        if total < self.bank_minimum:
            return False
        return not rules.exact_target or self.playoff or self.scores[self.seat] + total <= rules.target

    def bank_allowed(self, keep: Keep) -> bool:
        """True if banking after ``keep`` is allowed: the turn meets the minimum, and the keep is
        not hot dice under ``must_roll_after_hot_dice``.  (A keep that overshoots an exact target
        forfeits the turn whatever ``bank`` says; see :meth:`overshoots`.)"""
        if keep.hot and self.rules.must_roll_after_hot_dice:
            return False
        return self.turn_points + keep.points >= self.bank_minimum
