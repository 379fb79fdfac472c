"""One turn as a decision problem with win probabilities at its ends: the inner step of the win solver.

A turn (all three documents, "Ein Zug") ends in one of three ways: the player banks ``t`` points,
worth ``bank_value[t / 50]`` (the chance of winning the game from the position banking leads to);
a roll scores nothing (a farkle); or a keep passes an exact target (001: the turn is forfeited).
Both of the latter are worth ``lost``, the chance of winning once the turn is lost (a forfeit
is worth ``forfeit`` instead where a farkle penalty sets the two apart).  With those
ends fixed the turn is solved exactly like :mod:`arena.players.solver`, from the highest turn
total down::

    value(t, n) = farkle(n) * lost + sum over roll groups g of n dice:  P(g) * max over g's choices k:
                  worth(t + k.points, dice rolled next after k)
    worth(t, c) = max(bank_value(t) if banking is allowed there, value(t, c))

``lost_prob`` is the chance, under that best play, that the turn ends lost: the slope of the
turn's value in ``lost``, which the solver's Newton step needs.  Where two choices are worth the
same, the one less often lost counts (banking before rolling on).

Rows at and above ``rows`` are not rolled on: they are banked (``bank_value``), or forfeited if
at or above ``forfeit_from``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from arena.engine.roll_groups import RollGroups

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class TurnSetup:
    """The ends of one turn: what banking at each turn total is worth, and losing the turn."""

    bank_value: np.ndarray  # by turn total / 50; at least rows + the largest keep long
    bank_ok: np.ndarray  # banking allowed at this total (entry threshold met); by row
    rows: int  # totals 0 .. rows-1 are solved; higher ones bank
    forfeit_from: int  # totals from here pass an exact target (a large number if none)
    lost: float  # the chance of winning after a farkle (and a forfeited turn, unless ``forfeit``)
    forfeit: float | None = None  # after a forfeited turn, where it differs (a farkle penalty)

    def with_lost(self, lost: float) -> TurnSetup:
        """The same turn ends, with losing the turn worth ``lost``."""
        return TurnSetup(self.bank_value, self.bank_ok, self.rows, self.forfeit_from, lost, self.forfeit)

    @property
    def forfeit_value(self) -> float:
        return self.lost if self.forfeit is None else self.forfeit

    @property
    def forfeit_lost(self) -> float:
        """How much a forfeit counts in ``lost_prob``: wholly where it is worth ``lost``."""
        return 1.0 if self.forfeit is None else 0.0


@dataclass(frozen=True)
class TurnValues:
    """A solved turn: ``value[i, n]`` is the chance of winning when about to roll ``n`` dice with
    ``50 * i`` points in the turn (column ``dice`` also stands for rolling on after hot dice)."""

    setup: TurnSetup
    value: np.ndarray
    lost_prob: np.ndarray

    def start(self) -> float:
        """The chance of winning from the start of the turn: all dice, no points yet."""
        return float(self.value[0, -1])

    def options(self, total: int, dice_next: int, hot: bool, must_roll: bool) -> tuple[float | None, float]:
        """After a keep that brings the turn to ``total`` points and leaves ``dice_next`` dice:
        the chance of winning if banking now (None where the rules don't allow it), and if
        rolling on (playing best from there)."""
        setup = self.setup
        i = total // 50
        if i >= setup.forfeit_from:
            return None, setup.forfeit_value  # passes the exact target whatever is chosen
        if i >= setup.rows:
            return float(setup.bank_value[i]), 0.0  # beyond the solved totals: bank
        roll = float(self.value[i, dice_next])
        if setup.bank_ok[i] and not (must_roll and hot):
            return float(setup.bank_value[i]), roll
        return None, roll

    def choice(self, total: int, dice_next: int, hot: bool, must_roll: bool) -> tuple[float, bool]:
        """The best of :meth:`options`: its chance of winning, and whether it is to bank
        (banking wins a tie)."""
        bank, roll = self.options(total, dice_next, hot, must_roll)
        if bank is not None and bank >= roll:
            return bank, True
        return roll, False


@lru_cache(maxsize=1)
def compiled_sweep() -> Any | None:
    """The numba-compiled sweep, or None if numba is not installed."""
    try:
        from arena.perfect.kernel import sweep as compiled
    except ImportError:
        return None
    return compiled


def solve_turn(
    groups: RollGroups, must_roll: bool, setup: TurnSetup, *, compiled: bool | None = None
) -> TurnValues:
    """Solve one turn; ``compiled`` None uses numba when it is installed, False never does."""
    import numpy as np

    dice = len(groups.farkle_prob) - 1
    value = np.zeros((setup.rows, dice + 1))
    lost_prob = np.zeros((setup.rows, dice + 1))
    kernel = compiled_sweep() if compiled is not False else None
    if compiled and kernel is None:
        raise RuntimeError("numba is not installed")
    if kernel is not None:
        kernel(
            groups.step,
            groups.column,
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
            setup.forfeit_lost,
            value,
            lost_prob,
        )
    else:
        sweep_numpy(groups, must_roll, setup, value, lost_prob)
    return TurnValues(setup, value, lost_prob)


def sweep_numpy(
    groups: RollGroups, must_roll: bool, setup: TurnSetup, value: np.ndarray, lost_prob: np.ndarray
) -> None:
    """The sweep with numpy, a row at a time (no numba needed; several times slower)."""
    import numpy as np

    dice = value.shape[1] - 1
    rows = setup.rows
    height = rows + groups.max_step + 1
    worth = np.zeros((height, dice + 1))
    worth_lost = np.zeros((height, dice + 1))
    above = np.arange(rows, height)
    banked = above < setup.forfeit_from
    worth[above[banked]] = setup.bank_value[above[banked], None]
    worth[above[~banked]] = setup.forfeit_value
    worth_lost[above[~banked]] = setup.forfeit_lost
    sizes = groups.group_ends - groups.group_starts
    ends = groups.n_starts[:-1]
    bank_columns = np.ones(dice + 1, dtype=bool)
    bank_columns[0] = False
    if must_roll:
        bank_columns[dice] = False
    for i in range(rows - 1, -1, -1):
        here = worth[i + groups.step, groups.column]
        here_lost = worth_lost[i + groups.step, groups.column]
        best = np.maximum.reduceat(here, groups.group_starts)
        at_best = here >= np.repeat(best, sizes)
        best_lost = np.minimum.reduceat(np.where(at_best, here_lost, 2.0), groups.group_starts)
        value[i, 1:] = np.add.reduceat(best * groups.group_prob, ends) + groups.farkle_prob[1:] * setup.lost
        lost_prob[i, 1:] = np.add.reduceat(best_lost * groups.group_prob, ends) + groups.farkle_prob[1:]
        worth[i] = value[i]
        worth_lost[i] = lost_prob[i]
        if setup.bank_ok[i]:
            bank = bank_columns & (setup.bank_value[i] >= value[i])
            worth[i, bank] = setup.bank_value[i]
            worth_lost[i, bank] = 0.0
