"""Every roll of 1..dice dice, grouped by the choices it offers: the table the solvers sweep.

A solver does not care which faces a roll shows, only what it allows: the points, dice left and
hot dice of each legal keep (002 "Wertung").  Rolls that allow the same choices form one group,
weighted by how many of the ``6**n`` ordered rolls fall in it; a farkle allows nothing and only
counts in ``farkle_prob``.  Under the standard rules the 923 multisets of 1 to 6 dice make 228
groups with 1,091 choices between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from arena.engine.dice import OUTCOME_KEYS, POW6
from arena.engine.rules import POINT_STEP, Ruleset
from arena.engine.scoring import score_table

if TYPE_CHECKING:  # numpy is imported where a solver runs: `arena --help` needn't load it
    import numpy as np


@dataclass(frozen=True)
class RollGroups:
    """Per ruleset: the choices of every roll of 1..dice dice, grouped, as flat arrays."""

    step: np.ndarray  # a choice's points / 50
    column: np.ndarray  # dice rolled next if rolling on (hot dice: all dice, column ``dice``)
    hot: np.ndarray  # the choice used every die
    group_starts: np.ndarray  # first choice of each group
    group_ends: np.ndarray  # one past the last choice of each group
    group_prob: np.ndarray  # probability of the group's rolls among all rolls of its n dice
    n_starts: np.ndarray  # first group of each n = 1..dice (and, last, the number of groups)
    farkle_prob: np.ndarray  # by n = 0..dice: the chance that n dice score nothing
    max_step: int


@lru_cache(maxsize=32)
def roll_groups(rules: Ruleset) -> RollGroups:
    import numpy as np

    table = score_table(rules)
    steps: list[int] = []
    columns: list[int] = []
    hots: list[bool] = []
    group_starts: list[int] = []
    group_prob: list[float] = []
    n_starts: list[int] = []
    farkle_prob = [0.0]
    for n in range(1, rules.dice + 1):
        n_starts.append(len(group_prob))
        groups: dict[tuple[tuple[int, int, bool], ...], int] = {}
        farkles = 0
        for key in OUTCOME_KEYS[n]:
            options = tuple(sorted({(k.points, k.dice_left, k.hot) for k in table.keeps[key]}))
            if options:
                groups[options] = groups.get(options, 0) + 1
            else:
                farkles += 1
        farkle_prob.append(farkles / POW6[n])
        for options, count in groups.items():
            group_starts.append(len(steps))
            group_prob.append(count / POW6[n])
            for points, left, hot in options:
                steps.append(points // POINT_STEP)
                columns.append(left)
                hots.append(hot)
    n_starts.append(len(group_prob))
    return RollGroups(
        np.array(steps, dtype=np.int64),
        np.array(columns, dtype=np.int64),
        np.array(hots, dtype=bool),
        np.array(group_starts, dtype=np.int64),
        np.array([*group_starts[1:], len(steps)], dtype=np.int64),
        np.array(group_prob),
        np.array(n_starts, dtype=np.int64),
        np.array(farkle_prob),
        max(steps),
    )
