"""A dynamic-programming solver for one turn: the most expected points this turn can bank.

The turn is a Markov decision process (002 "Taktik: wann sichern?" asks exactly this question,
and notes that the farkle odds alone don't answer it).  Its state is the turn's points so far
``t`` (a multiple of 50) and the number of dice ``n`` about to be rolled:

    V(t, n) = sum over rolls r of n dice:  P(r) * max over legal keeps k of r:  W(t + k.points, k)
    W(t', k) = max(t' if banking is allowed, V(t', dice rolled next))

with a farkle worth 0.  Banking is allowed when ``t' >= minimum`` (entry threshold or bar) and,
under ``must_roll_after_hot_dice``, not right after hot dice.  Under an exact target a keep that
passes the points still missing (``cap``) forfeits the turn: W = 0.  Points only grow within a
turn, so V is computed from high totals down; above ``HORIZON`` points banking is taken as
optimal (rolling on at 50,000 points would risk far more than any roll can add).

Rows at or above the minimum do not depend on the minimum, so a solve for an entry or bar
reuses the solve without one and only computes the rows below it.  Solutions are cached per
(ruleset, minimum, cap): each distinct situation is solved once per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from arena.engine import Action, Ruleset, TurnView
from arena.engine.roll_groups import roll_groups
from arena.engine.rules import POINT_STEP

if TYPE_CHECKING:  # numpy is imported where a turn is solved: `arena --help` needn't load it
    import numpy as np

#: Every situation solved in this process, in order: (ruleset, minimum, cap).  A tournament's
#: template process solves again those its chunk processes needed, so later chunks find them
#: cached (see arena.tournaments.supervisor).
SOLVED: list[tuple[Ruleset, int, int | None]] = []

#: Turn totals above this are banked; far beyond where rolling on can pay (about 20,000 with
#: six dice under the documents' rules).
HORIZON = 50_000


@dataclass(frozen=True)
class TurnSolution:
    """Optimal values of one turn situation.

    ``roll_value[i][n]`` is the expected banked points of rolling ``n`` dice with ``50 * i``
    points in the turn, under optimal play from there; ``rows`` is how many totals are covered
    (beyond them banking is optimal, or under an exact target, impossible).
    """

    rules: Ruleset
    minimum: int
    cap: int | None
    roll_value: list[list[float]]

    @property
    def rows(self) -> int:
        return len(self.roll_value)

    @property
    def expected_turn_points(self) -> float:
        """Expected banked points of a whole turn (rolling all dice with nothing kept yet)."""
        return self.roll_value[0][self.rules.dice]

    def value_of_roll(self, turn_points: int, n_dice: int) -> float:
        """Expected banked points of rolling ``n_dice`` with ``turn_points`` in the turn."""
        if self.cap is not None and turn_points > self.cap:
            return 0.0
        i = turn_points // POINT_STEP
        if i >= self.rows:
            return 0.0 if self.cap is not None else float(turn_points)
        return self.roll_value[i][n_dice]

    def bank_allowed(self, turn_points: int, hot: bool) -> bool:
        if hot and self.rules.must_roll_after_hot_dice:
            return False
        if self.cap is not None and turn_points > self.cap:
            return False
        return turn_points >= self.minimum

    def bank_threshold(self, n_dice: int) -> int | None:
        """The smallest turn total at which banking beats rolling ``n_dice`` (after a non-hot keep),
        or None if rolling on is always at least as good within the solved totals."""
        for i, row in enumerate(self.roll_value):
            t = i * POINT_STEP
            if t >= self.minimum and t >= row[n_dice] and t > 0:
                return t
        return None


def _sweep(rules: Ruleset, minimum: int, cap: int | None, top: int, known: np.ndarray | None) -> np.ndarray:
    """Fill V for rows 0..top-1 (descending), reusing ``known`` rows at and above ``top``."""
    import numpy as np

    opts = roll_groups(rules)
    dice = rules.dice
    must_roll = rules.must_roll_after_hot_dice
    pad = opts.max_step + 1
    rows = (cap // POINT_STEP + 1) if cap is not None else HORIZON // POINT_STEP
    value = np.zeros((rows + pad, dice + 1))
    worth = np.zeros((rows + pad, dice + 1))  # W by column; column `dice` is "after hot dice"
    totals = np.arange(rows + pad, dtype=float) * POINT_STEP
    if cap is None:
        # Beyond the horizon banking is taken as optimal.
        worth[rows:, :] = totals[rows:, None]
    # (Under an exact target rows past the cap stay 0: the turn is forfeited.)
    if known is not None:
        value[top:rows] = known[top:rows]
        for i in range(top, rows):
            _fill_worth(worth, value, i, totals[i], minimum, dice, must_roll)
    start = top - 1
    for i in range(start, -1, -1):
        gathered = worth[i + opts.step, opts.column]
        best = np.maximum.reduceat(gathered, opts.group_starts)
        value[i, 1:] = np.add.reduceat(best * opts.group_prob, opts.n_starts[:-1])
        _fill_worth(worth, value, i, totals[i], minimum, dice, must_roll)
    return value[:rows]


def _fill_worth(
    worth: np.ndarray, value: np.ndarray, i: int, total: float, minimum: int, dice: int, must_roll: bool
) -> None:
    import numpy as np

    row = value[i]
    if total >= minimum and total > 0:
        worth[i, 1:] = np.maximum(row[1:], total)
        if must_roll:
            worth[i, dice] = row[dice]
    else:
        worth[i, 1:] = row[1:]


@lru_cache(maxsize=4096)
def _solved(rules: Ruleset, minimum: int, cap: int | None) -> np.ndarray:
    rows = (cap // POINT_STEP + 1) if cap is not None else HORIZON // POINT_STEP
    if cap is None and minimum > 0:
        base = _solved(rules, 0, None)
        top = min(rows, -(-minimum // POINT_STEP))
        return _sweep(rules, minimum, cap, top, base)
    return _sweep(rules, minimum, cap, rows, None)


@lru_cache(maxsize=4096)
def solve_turn(rules: Ruleset, minimum: int = 0, cap: int | None = None) -> TurnSolution:
    """Optimal values for a turn that needs ``minimum`` points to bank and, under an exact
    target, may bank at most ``cap`` points.  Cached per process."""
    if cap is not None and cap < 0:
        raise ValueError(f"cap must be zero or more, got {cap}")
    SOLVED.append((rules, minimum, cap))
    return TurnSolution(rules, minimum, cap, _solved(rules, minimum, cap).tolist())


def warm(rules: Ruleset) -> None:
    """Solve the situations optimal play meets under ``rules`` that can be listed cheaply: no
    minimum, the entry threshold, every cap under an exact target, every bar of a rising bar
    (not the product of bars and caps).  A tournament does this once before it forks its worker
    processes, which then find them cached (about a second for the three presets)."""
    solve_turn(rules)
    if rules.has_entry():
        solve_turn(rules, rules.entry_threshold, rules.target if rules.exact_target else None)
    if rules.exact_target:
        for cap in range(0, rules.target + 1, POINT_STEP):
            solve_turn(rules, 0, cap)
    elif rules.rising_bar:
        for bar in range(rules.bar_start, rules.target + rules.bar_step + 1, POINT_STEP):
            solve_turn(rules, max(bar, rules.entry_threshold), None)


def optimal_action(view: TurnView) -> Action:
    """The keep and bank of most expected points this turn (the solver's values, compared in
    ``legal_keeps`` order; the first keep of the highest value wins)."""
    rules = view.rules
    cap = view.points_to_target if rules.exact_target and not view.playoff else None
    solution = solve_turn(rules, view.bank_minimum, cap)
    best_value = -1.0
    best = view.legal_keeps[0]
    best_bank = False
    for keep in view.legal_keeps:
        total = view.turn_points + keep.points
        roll_on = solution.value_of_roll(total, keep.dice_left)
        if solution.bank_allowed(total, keep.hot) and total >= roll_on:
            value, bank = float(total), True
        else:
            value, bank = roll_on, False
        if value > best_value:
            best_value, best, best_bank = value, keep, bank
    return Action(best.dice, best_bank)
