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
                        w = lost
                        wl = 1.0
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
