"""Positions and value iteration under a farkle penalty (002 variant), where scores can fall.

002 "Häufige Varianten": "Wer dreimal hintereinander eine Niete wirft, verliert zusätzlich Punkte
vom Stand, zum Beispiel 500 oder 1.000, oder fällt ganz auf null zurück."  A position then also
holds each player's farkles in a row (0 .. ``farkle_penalty_streak`` - 1) and whether each has
entered: the engine lets a player who has banked once bank any amount afterwards, even after a
penalty took the score back to zero (docs/rules.md, reading 6).  A player's state is an
index: the score in units of 50 once entered, or ``target`` (one past the scores) for a player
with nothing banked yet under an entry threshold.

From (own, own streak, opponent, opponent streak, seat) a turn ends (:mod:`arena.perfect.turn`):

- banked: the opponent moves from (their state, own state + turn, streak 0), or the final round
  starts as in :mod:`arena.perfect.positions` (streaks and penalties no longer matter there);
- a farkle: the opponent moves, own streak one higher; at ``farkle_penalty_streak`` the penalty
  is paid (never below zero) and the streak starts again;
- a forfeit (passing an exact target): the opponent moves, own streak back to 0 (no farkle).

Banks raise the sum of scores and farkles keep it, but a penalty lowers it, so no order of the
positions has every turn's ends solved before the turn.  The solver sweeps all positions from the
highest score sum down, as :mod:`arena.perfect.solve` does, and within a sum by falling sum of the
streaks: a farkle without penalty leads to the same scores with one streak higher, so each
position's farkle is solved before it.  Only a penalty (and, under an exact target, a forfeit,
which leads to the same scores with the streak back to 0) reads a value of the sweep before; the
sweeps repeat until no position moves by more than the tolerance (Gauss-Seidel value iteration,
which converges because every turn ends the game, or moves it on, with a chance bounded below).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from arena.engine.roll_groups import RollGroups
from arena.engine.rules import POINT_STEP
from arena.perfect.positions import NEVER, Positions
from arena.perfect.turn import TurnSetup, solve_turn

if TYPE_CHECKING:
    import numpy as np

#: Sweeps stop once none moves a position by more than this (float32 tables hold about 1e-7).
TOLERANCE = 1e-10
#: Sweeps allowed before the solver gives up and reports what it reached.
MAX_SWEEPS = 200


@dataclass(frozen=True)
class PenaltyPositions(Positions):
    """The positions of a ruleset with a farkle penalty: two player states and both streaks."""

    @property
    def streaks(self) -> int:
        """Farkle streaks a position can hold: 0 .. farkle_penalty_streak - 1."""
        return self.rules.farkle_penalty_streak

    @property
    def unentered(self) -> int:
        """The state of a player who has not banked yet under an entry threshold."""
        return self.target

    @cached_property
    def states(self) -> list[int]:
        """Player states a game reaches: not yet entered (under an entry threshold), and every
        score below the target once entered.  Penalties repeat and an entered player banks any
        amount after each, so a penalty smaller than the entry threshold still leads to every
        score below it."""
        scores = list(range(self.target))
        return [self.unentered, *scores] if self.entry else scores

    @property
    def penalty(self) -> int:
        return self.rules.farkle_penalty // POINT_STEP

    def score(self, state: int) -> int:
        """The score of a player state, in units of 50."""
        return 0 if state == self.unentered else state

    def after_penalty(self, state: int) -> int:
        """The state a penalty leaves (a player not yet entered has nothing to lose)."""
        if state == self.unentered:
            return state
        return 0 if self.rules.farkle_penalty_to_zero else max(0, state - self.penalty)

    def empty(self) -> np.ndarray:
        """A table of every position: ``win[seat, own, own streak, opponent, opponent streak]``."""
        import numpy as np

        size = self.target + 1
        return np.zeros((self.seats, size, self.streaks, size, self.streaks))

    def guess(self, without_penalty: np.ndarray) -> np.ndarray:
        """A first guess of every position from the same rules' table without the penalty
        (``win[seat, own, opponent]``): a player entered below the entry threshold is taken as
        one at the threshold, and the streaks are ignored."""
        import numpy as np

        index = np.arange(self.target + 1)
        index[: max(self.entry, 1)] = max(self.entry, 0)  # entered at a score no game without
        index[self.unentered] = 0  # a penalty reaches; not entered is 0 points there
        table = without_penalty[:, index][:, :, index]
        return np.broadcast_to(table[:, :, None, :, None], self.empty().shape).copy()

    def penalty_turn(
        self, win: np.ndarray, last_turn_win: np.ndarray, own: int, opp: int, opp_streak: int, seat: int
    ) -> TurnSetup:
        """The turn from player states ``own`` and ``opp`` (the opponent with ``opp_streak``
        farkles in a row), given every later position's chance in ``win``.  ``lost`` is left at 0:
        it depends on the mover's own streak (:meth:`farkle_value`)."""
        import numpy as np

        target = self.target
        other = self.other(seat)
        exact = self.rules.exact_target
        own_score, opp_score = self.score(own), self.score(opp)
        rows = target - own_score + 1 if exact else target + self.horizon - own_score
        size = rows + self.groups.max_step + 1
        reached = own_score + np.arange(size)
        bank_value = np.zeros(size)
        before = reached < target
        bank_value[before] = 1.0 - win[other, opp, opp_streak, reached[before], 0]
        after = ~before if not exact else reached == target
        if self.ends_game(seat):
            bank_value[after] = 1.0
        else:
            bank_value[after] = 1.0 - last_turn_win[reached[after] - opp_score]
        bank_ok = np.arange(rows) >= (max(self.entry, 1) if own == self.unentered else 1)
        forfeit = 1.0 - float(win[other, opp, opp_streak, own, 0])
        return TurnSetup(bank_value, bank_ok, rows, rows if exact else NEVER, 0.0, forfeit)

    def farkle_value(
        self, win: np.ndarray, own: int, streak: int, opp: int, opp_streak: int, seat: int
    ) -> float:
        """The chance of winning after a farkle from this position (the penalty paid if due)."""
        other = self.other(seat)
        if streak + 1 < self.streaks:
            return 1.0 - float(win[other, opp, opp_streak, own, streak + 1])
        return 1.0 - float(win[other, opp, opp_streak, self.after_penalty(own), 0])


def solve_with_penalty(
    positions: PenaltyPositions,
    last_turn_win: np.ndarray,
    *,
    compiled: bool,
    progress: Callable[[int, int], None] | None = None,
    tolerance: float = TOLERANCE,
    on_sweep: Callable[[int, float], None] | None = None,
    initial: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Sweep every position until none moves by more than ``tolerance``; returns the table and
    the largest move of the last sweep.  ``progress(done, total)`` counts positions swept, with
    ``total`` an estimate (the number of sweeps is not known in advance).  ``initial`` is a
    first guess of every position (:meth:`PenaltyPositions.guess`); it saves sweeps, not accuracy."""
    start = turn_start_value(positions.groups, positions.rules.must_roll_after_hot_dice, compiled)
    states = positions.states
    seats = positions.seats
    streaks = positions.streaks
    win = positions.empty()
    if initial is None:
        win.fill(0.5)
    else:
        win[...] = initial
    by_level: dict[int, list[tuple[int, int]]] = {}
    for own in states:
        for opp in states:
            by_level.setdefault(positions.score(own) + positions.score(opp), []).append((own, opp))
    levels = sorted(by_level, reverse=True)
    per_sweep = len(states) ** 2 * streaks**2 * seats
    # Within a level, by falling streak sum: a farkle's next position has a streak sum one higher.
    streak_order = sorted(
        ((m, o) for m in range(streaks) for o in range(streaks)), key=lambda mo: -(mo[0] + mo[1])
    )
    change = previous = 1.0
    done = 0
    expected_total = per_sweep * 12
    for sweep in range(MAX_SWEEPS):
        change = 0.0
        for level in levels:
            setups: dict[tuple[int, int, int, int], TurnSetup] = {}
            for m, o in streak_order:
                for own, opp in by_level[level]:
                    for seat in range(seats):
                        key = (own, opp, o, seat)
                        setup = setups.get(key)
                        if setup is None:
                            setup = setups[key] = positions.penalty_turn(
                                win, last_turn_win, own, opp, o, seat
                            )
                        lost = positions.farkle_value(win, own, m, opp, o, seat)
                        value = start(setup.with_lost(lost))
                        change = max(change, abs(value - win[seat, own, m, opp, o]))
                        win[seat, own, m, opp, o] = value
            done += len(by_level[level]) * streaks**2 * seats
            if progress is not None:
                progress(done, max(done, expected_total))
        if on_sweep is not None:
            on_sweep(sweep, change)
        if change <= tolerance:
            break
        # The moves shrink about geometrically: guess the sweeps left from the last two.
        if 0.0 < change < previous:
            left = math.ceil(math.log(tolerance / change) / math.log(change / previous))
            expected_total = done + per_sweep * min(left, MAX_SWEEPS - sweep - 1)
        previous = change
    return win, change


def turn_start_value(groups: RollGroups, must_roll: bool, compiled: bool) -> Callable[[TurnSetup], float]:
    """A function giving a turn's chance of winning from its start: the compiled
    :func:`~arena.perfect.kernel.start_value`, or :func:`~arena.perfect.turn.solve_turn` with numpy."""
    import numpy as np

    if not compiled:
        return lambda setup: solve_turn(groups, must_roll, setup, compiled=False).start()
    from arena.perfect.kernel import start_value

    width = len(groups.farkle_prob)
    offset = (groups.step * width + groups.column).astype(np.int64)
    buffers: dict[int, np.ndarray] = {}

    def start(setup: TurnSetup) -> float:
        size = len(setup.bank_value)
        worth = buffers.get(size)
        if worth is None:
            worth = buffers[size] = np.empty(size * width)
        return start_value(
            offset,
            groups.group_starts,
            groups.group_ends,
            groups.group_prob,
            groups.n_starts,
            groups.farkle_prob,
            must_roll,
            setup.bank_value,
            setup.bank_ok,
            setup.rows,
            setup.forfeit_from,
            setup.lost,
            setup.forfeit_value,
            worth,
        )

    return start
