"""Value iteration for the chance of winning: every turn-start position, from the target down.

Banking only raises a score, so a position's turn leads to positions of a higher score sum, except
a lost turn, which hands the move to the opponent at the same scores.  Positions are therefore
solved by falling sum of scores, two at a time: (a, b, seat) and (b, a, other seat), each the
other's value after a lost turn.  For the pair, the turn's value is a convex, piecewise linear
function of the value of losing it (:mod:`arena.perfect.turn` gives its slope), so Newton's
method solves the pair exactly once the best play stops changing, in two or three sweeps.
This is Neller and Presser's approach for Pig ("Optimal Play of Two-Player Pig", 2004), ordered
by score sum as in their Farkle work.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.engine.rules import Ruleset
from arena.perfect.penalty import PenaltyPositions, solve_with_penalty
from arena.perfect.positions import PAST_TARGET, Positions, why_not_perfect
from arena.perfect.table import WinTable
from arena.perfect.turn import TurnSetup, compiled_sweep, solve_turn

if TYPE_CHECKING:
    import numpy as np

#: A pair of positions is solved when another Newton step would move neither by more than this.
TOLERANCE = 1e-12
#: Newton steps allowed per pair; two or three are the rule.
MAX_STEPS = 60


class NotSolvable(ValueError):
    """A ruleset (or a number of seats) ``perfect`` does not play; the message is one line."""


def solve(
    rules: Ruleset,
    *,
    past_target: int = PAST_TARGET,
    compiled: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_sweep: Callable[[int, float], None] | None = None,
) -> WinTable:
    """Solve ``rules`` for two players.  ``compiled`` None uses numba if it is installed;
    ``progress(done, total)`` is told how many positions are solved, and under a farkle penalty
    ``on_sweep(sweep, change)`` how far each sweep moved the table (:mod:`arena.perfect.penalty`)."""
    import numpy as np

    refusal = why_not_perfect(rules, 2)
    if refusal:
        raise NotSolvable(f"perfect {refusal}")
    if compiled is None:
        compiled = compiled_sweep() is not None
    started = time.perf_counter()
    positions = (
        PenaltyPositions(rules, past_target) if rules.has_farkle_penalty() else Positions(rules, past_target)
    )
    groups = positions.groups
    must_roll = rules.must_roll_after_hot_dice
    last_turn_win = np.array(
        [0.0]
        + [
            solve_turn(groups, must_roll, positions.last_turn(d), compiled=compiled).start()
            for d in range(1, positions.largest_need + 1)
        ]
    )
    if isinstance(positions, PenaltyPositions):
        # The same rules without the penalty solve in a fraction of the time and are a good
        # first guess, which saves the slowest, first sweeps.
        plain = rules.replace(farkle_penalty=0, farkle_penalty_to_zero=False)
        guess = positions.guess(solve(plain, past_target=past_target, compiled=compiled).win)
        win, residual = solve_with_penalty(
            positions, last_turn_win, compiled=compiled, progress=progress, on_sweep=on_sweep, initial=guess
        )
    else:
        win, residual = _solve_by_pairs(positions, last_turn_win, compiled, progress)
    return WinTable(
        rules,
        past_target,
        win,
        last_turn_win,
        residual,
        time.perf_counter() - started,
        "numba" if compiled else "numpy",
    )


def _solve_by_pairs(
    positions: Positions,
    last_turn_win: np.ndarray,
    compiled: bool,
    progress: Callable[[int, int], None] | None,
) -> tuple[np.ndarray, float]:
    """Every position, by falling score sum, a pair at a time (the module's docstring)."""
    import numpy as np

    groups = positions.groups
    must_roll = positions.rules.must_roll_after_hot_dice
    target = positions.target
    win = np.zeros((positions.seats, target, target))
    scores = positions.scores
    valid = set(scores)
    total = len(scores) ** 2 * positions.seats
    done = 0
    residual = 0.0

    def value(setup: TurnSetup, lost: float) -> tuple[float, float]:
        solved = solve_turn(groups, must_roll, setup.with_lost(lost), compiled=compiled)
        return float(solved.value[0, -1]), float(solved.lost_prob[0, -1])

    for level in range(2 * (target - 1), -1, -1):
        for a in scores:
            b = level - a
            if b not in valid or (positions.seats == 1 and a > b):
                continue
            first = positions.turn(win, last_turn_win, a, b, 0)
            if positions.seats == 1 and a == b:  # the position is its own partner
                w, gap = _solve_alone(value, first)
                win[0, a, a] = w
                done += 1
            else:
                second = positions.turn(win, last_turn_win, b, a, positions.other(0))
                w1, w2, gap = _solve_pair(value, first, second)
                win[0, a, b] = w1
                win[positions.other(0), b, a] = w2
                done += 2
            residual = max(residual, gap)
        if progress is not None:
            progress(done, total)
    return win, residual


def _solve_pair(
    value: Callable[[TurnSetup, float], tuple[float, float]], first: TurnSetup, second: TurnSetup
) -> tuple[float, float, float]:
    """Two positions, each the other's after a lost turn: w1 = f1(1 - w2), w2 = f2(1 - w1)."""
    w1 = w2 = 0.5
    gap = 1.0
    for _ in range(MAX_STEPS):
        v1, s1 = value(first, 1.0 - w2)
        v2, s2 = value(second, 1.0 - w1)
        gap = max(abs(v1 - w1), abs(v2 - w2))
        if gap <= TOLERANCE:
            return v1, v2, gap
        # Each value is linear in the other's under the current best play: v = c + s * (1 - w).
        c1 = v1 - s1 * (1.0 - w2)
        c2 = v2 - s2 * (1.0 - w1)
        w1 = (c1 + s1 * (1.0 - c2 - s2)) / (1.0 - s1 * s2)
        w2 = c2 + s2 * (1.0 - w1)
    return w1, w2, gap


def _solve_alone(
    value: Callable[[TurnSetup, float], tuple[float, float]], setup: TurnSetup
) -> tuple[float, float]:
    """A position that is its own partner (level scores, seat not mattering): w = f(1 - w)."""
    w = 0.5
    gap = 1.0
    for _ in range(MAX_STEPS):
        v, s = value(setup, 1.0 - w)
        gap = abs(v - w)
        if gap <= TOLERANCE:
            return v, gap
        c = v - s * (1.0 - w)
        w = (c + s) / (1.0 + s)
    return w, gap
