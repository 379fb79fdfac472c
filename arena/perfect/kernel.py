"""The in-turn sweep of :mod:`arena.perfect.turn`, compiled with numba (the ``fast`` extra).

The same arithmetic as :func:`arena.perfect.turn.sweep_numpy`, as loops numba compiles: the win
solver runs it a few hundred thousand times, and each run visits every choice of every roll at
every turn total.  Imported only when numba is installed; compiled once and cached on disk.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def sweep(
    step: np.ndarray,
    column: np.ndarray,
    group_starts: np.ndarray,
    group_ends: np.ndarray,
    group_prob: np.ndarray,
    n_starts: np.ndarray,
    farkle_prob: np.ndarray,
    must_roll: bool,
    bank_value: np.ndarray,
    bank_ok: np.ndarray,
    rows: int,
    forfeit_from: int,
    lost: float,
    forfeit: float,
    forfeit_lost: float,
    value: np.ndarray,
    lost_prob: np.ndarray,
) -> None:
    """Fill ``value`` and ``lost_prob`` (rows x dice+1) from the top turn total down."""
    dice = value.shape[1] - 1
    worth = np.empty((rows, dice + 1))
    worth_lost = np.empty((rows, dice + 1))
    for i in range(rows - 1, -1, -1):
        for n in range(1, dice + 1):
            v = farkle_prob[n] * lost
            f = farkle_prob[n]
            for g in range(n_starts[n - 1], n_starts[n]):
                best = -1.0
                best_lost = 2.0
                for k in range(group_starts[g], group_ends[g]):
                    j = i + step[k]
                    if j >= forfeit_from:
                        w = forfeit
                        wl = forfeit_lost
                    elif j >= rows:
                        w = bank_value[j]
                        wl = 0.0
                    else:
                        c = column[k]
                        w = worth[j, c]
                        wl = worth_lost[j, c]
                    if w > best or (w == best and wl < best_lost):
                        best = w
                        best_lost = wl
                v += group_prob[g] * best
                f += group_prob[g] * best_lost
            value[i, n] = v
            lost_prob[i, n] = f
        for c in range(1, dice + 1):
            roll = value[i, c]
            if bank_ok[i] and not (must_roll and c == dice) and bank_value[i] >= roll:
                worth[i, c] = bank_value[i]
                worth_lost[i, c] = 0.0
            else:
                worth[i, c] = roll
                worth_lost[i, c] = lost_prob[i, c]


@njit(cache=True)
def start_value(
    offset: np.ndarray,
    group_starts: np.ndarray,
    group_ends: np.ndarray,
    group_prob: np.ndarray,
    n_starts: np.ndarray,
    farkle_prob: np.ndarray,
    must_roll: bool,
    bank_value: np.ndarray,
    bank_ok: np.ndarray,
    rows: int,
    forfeit_from: int,
    lost: float,
    forfeit: float,
    worth: np.ndarray,
) -> float:
    """The turn's chance of winning from its start: :func:`sweep`'s ``value[0, dice]`` alone, for
    the solver under a farkle penalty, which needs no slope.  ``worth`` is a scratch buffer of
    at least ``len(bank_value) * (dice + 1)``; ``offset[k]`` is choice k's ``step * (dice + 1) +
    column``, so each choice is one load from the flat table."""
    dice = len(farkle_prob) - 1
    width = dice + 1
    for j in range(rows, len(bank_value)):
        w = forfeit if j >= forfeit_from else bank_value[j]
        for c in range(width):
            worth[j * width + c] = w
    roll = 0.0
    for i in range(rows - 1, -1, -1):
        base = i * width
        for n in range(1, dice + 1):
            roll = farkle_prob[n] * lost
            for g in range(n_starts[n - 1], n_starts[n]):
                best = -1.0
                for k in range(group_starts[g], group_ends[g]):
                    w = worth[base + offset[k]]
                    if w > best:
                        best = w
                roll += group_prob[g] * best
            if bank_ok[i] and not (must_roll and n == dice) and bank_value[i] >= roll:
                worth[base + n] = bank_value[i]
            else:
                worth[base + n] = roll
    return roll
