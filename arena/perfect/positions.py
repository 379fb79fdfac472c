"""Positions of a two-player game at the start of a turn, and the ends of the turn played from each.

A position is (own score, the opponent's score, own seat), in units of 50 points, before the
target is reached.  From it a turn ends (see :mod:`arena.perfect.turn`):

- banked: the opponent moves next from (their score, own score + turn); once own score reaches
  the target (exactly, under ``exact_target``) the final round starts instead (001 "jeder andere
  Spieler noch genau einen Zug"; 000/002 only those still to play in the round).  With two seats
  the opponent then has one last turn, except under ``rest_of_round`` when seat 1 reached it:
  the round is over and seat 1 has won;
- lost (a farkle, or passing an exact target): the opponent moves from (their score, own score).

A player who has never banked (own score 0) must bank at least ``entry_threshold`` (001, 002).
The last turn of the final round is a race to pass the leader: its value is the chance of
ending above them, plus half the chance of ending level.  A tie is worth half a win whether it is
shared (002) or played off: a playoff turn each, neither seeing the other's, is the same game
for both seats, so each wins it half the time under equal play.

The game is modelled as the engine plays it (``arena.engine.game``) for the rules listed in
:func:`why_not_perfect`; the round limit (``max_rounds``, a safety valve) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from arena.engine.roll_groups import RollGroups, roll_groups
from arena.engine.rules import POINT_STEP, Ruleset
from arena.perfect.turn import TurnSetup

if TYPE_CHECKING:
    import numpy as np

#: Under a target that need not be hit exactly, a turn more than this past the target banks.
#: Rolling on there risks a winning turn for a fraction of a percent (checked by the tests).
PAST_TARGET = 5000
#: A tie at the end of the game is worth half a win to each (see the module's docstring).
TIE = 0.5
#: Forfeit rows beyond any table: a number larger than every row.
NEVER = 1 << 40


def why_not_perfect(rules: Ruleset, n_players: int) -> str | None:
    """Why ``perfect`` can't play this game, as the end of a sentence ("perfect can't ..."),
    or None if it can."""
    if n_players != 2:
        return (
            f"can't play {n_players} seats: its solver's positions hold two scores; "
            "use optimal, which plays any number"
        )
    if rules.rising_bar:
        return (
            f"can't play the rising bar of {rules.name!r} (000): a position would also need the bar "
            "and both players' strikes; use optimal, which plays the bar"
        )
    return None


@dataclass(frozen=True)
class Positions:
    """The positions of one ruleset, and the turn ends of each (``win`` filled from the top)."""

    rules: Ruleset
    past_target: int = PAST_TARGET

    @cached_property
    def groups(self) -> RollGroups:
        return roll_groups(self.rules)

    @property
    def target(self) -> int:
        """The target in units of 50."""
        return self.rules.target // POINT_STEP

    @property
    def entry(self) -> int:
        """The entry threshold in units of 50 (0 for none)."""
        return -(-self.rules.entry_threshold // POINT_STEP)

    @property
    def seats(self) -> int:
        """Seat positions that differ: 1 if the seat doesn't matter (``everyone_else``), else 2."""
        return 1 if self.rules.final_round == "everyone_else" else 2

    @property
    def scores(self) -> list[int]:
        """Scores a player can have before the target: 0, then the entry threshold and up."""
        return [0, *range(max(self.entry, 1), self.target)]

    @property
    def horizon(self) -> int:
        """Rows above the target a turn is solved for (0 under an exact target)."""
        return 0 if self.rules.exact_target else self.past_target // POINT_STEP

    @property
    def largest_need(self) -> int:
        """The most points (in units) a last turn can need to tie the leader."""
        return self.target + self.horizon + self.groups.max_step + 1

    def other(self, seat: int) -> int:
        return (seat + 1) % self.seats

    def ends_game(self, seat: int) -> bool:
        """Reaching the target from ``seat`` ends the game at once (seat 1 under rest_of_round)."""
        return self.seats == 2 and seat == 1

    def last_turn(self, need: int) -> TurnSetup:
        """The last turn of the final round, ``need`` units behind the leader (who has the
        target or more): banking above the leader wins, level ties, below loses."""
        import numpy as np

        exact = self.rules.exact_target
        margin = 1 if exact or not self.rules.must_roll_after_hot_dice else 3 * self.groups.max_step
        rows = need + 1 if exact else need + 1 + margin
        size = rows + self.groups.max_step + 1
        bank_value = np.zeros(size)
        bank_value[need] = TIE
        bank_value[need + 1 :] = 0.0 if exact else 1.0
        bank_ok = np.ones(rows, dtype=bool)
        bank_ok[0] = False
        return TurnSetup(bank_value, bank_ok, rows, need + 1 if exact else NEVER, 0.0)

    def turn(self, win: np.ndarray, last_turn_win: np.ndarray, own: int, opp: int, seat: int) -> TurnSetup:
        """The turn from position (own, opp, seat), given the win chances of every position after
        it: ``win[seat, own, opp]`` for the player to move, ``last_turn_win[need]``."""
        import numpy as np

        target = self.target
        other = self.other(seat)
        exact = self.rules.exact_target
        rows = target - own + 1 if exact else target + self.horizon - own
        size = rows + self.groups.max_step + 1
        reached = own + np.arange(size)
        bank_value = np.zeros(size)
        before = reached < target
        bank_value[before] = 1.0 - win[other, opp, reached[before]]
        after = ~before if not exact else reached == target
        if self.ends_game(seat):
            bank_value[after] = 1.0
        else:
            bank_value[after] = 1.0 - last_turn_win[reached[after] - opp]
        bank_ok = np.arange(rows) >= (max(self.entry, 1) if own == 0 else 1)
        lost = 1.0 - float(win[other, opp, own])
        return TurnSetup(bank_value, bank_ok, rows, rows if exact else NEVER, lost)
