"""A Q-table over what a decision leads to, saved as a plain NumPy ``.npz`` file (NumPy only).

The table values each legal decision by the situation it leaves the turn in (an "afterstate"):
the turn's points after the keep (in steps of ``bucket`` points, the last step holding
everything above), the dice left to roll, whether those points are still below the turn's
bank minimum (entry threshold or bar), and whether the decision banks.  Q-learning over it
(:mod:`arena.envs.train_q`) learns the value of each in points; a player picks the legal
decision of highest value, the first of the engine's order on a tie.

The file holds ``q`` (float64, shape ``(steps, dice + 1, 2, 2)``), ``bucket`` and ``rules``
(the ruleset's name, for the record).  It is read with ``allow_pickle=False``: a table is
numbers only, so loading one runs no code.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass

import numpy as np

from arena.engine import Action, Ruleset, TurnView
from arena.envs.spaces import may_bank_after

#: Default step of the turn's points, and how many steps (totals from steps*bucket up share the last).
BUCKET = 50
STEPS = 61


class TableError(ValueError):
    """A file that is not a Q-table of this module; the message is one line."""


@dataclass
class QTable:
    """The values (see the module docstring) and the step they count points in."""

    q: np.ndarray
    bucket: int
    rules: str

    @classmethod
    def empty(cls, rules: Ruleset, bucket: int = BUCKET, steps: int = STEPS) -> QTable:
        return cls(np.zeros((steps, rules.dice + 1, 2, 2)), bucket, rules.name)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> QTable:
        """The table saved at ``path``; :class:`TableError` in one line if it is not one."""
        if not os.path.exists(path):
            raise TableError(f"{path}: no such file")
        if not zipfile.is_zipfile(path):  # np.load would read a .npy (an array) or call it pickled
            raise TableError(f"{path}: not a Q-table (an .npz file with q, bucket, rules)")
        try:
            with np.load(path, allow_pickle=False) as data:
                q, bucket, rules = data["q"], int(data["bucket"]), str(data["rules"])
        except FileNotFoundError:
            raise TableError(f"{path}: no such file") from None
        except (OSError, ValueError, KeyError) as exc:
            raise TableError(f"{path}: not a Q-table (.npz with q, bucket, rules): {exc}") from None
        if q.ndim != 4 or q.shape[2:] != (2, 2) or q.shape[0] < 1 or bucket < 1 or not np.isfinite(q).all():
            raise TableError(f"{path}: not a Q-table: q has shape {q.shape}, bucket {bucket}")
        return cls(q.astype(np.float64), bucket, rules)

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "wb") as file:
            np.savez(file, q=self.q, bucket=np.int64(self.bucket), rules=np.str_(self.rules))

    def options(self, view: TurnView) -> list[tuple[int, tuple[int, int, int, int]]]:
        """Each legal decision of ``view`` as (action number of :mod:`arena.envs.spaces`, its
        index into ``q``), in the engine's order, roll on before bank."""
        last = self.q.shape[0] - 1
        found = []
        for k, keep in enumerate(view.legal_keeps):
            total = view.turn_points + keep.points
            index = (min(total // self.bucket, last), keep.dice_left, int(total < view.bank_minimum))
            found.append((2 * k, (*index, 0)))
            if may_bank_after(view, keep):
                found.append((2 * k + 1, (*index, 1)))
        return found

    def best(self, view: TurnView) -> tuple[int, tuple[int, int, int, int]]:
        """The legal decision of highest value (the first on a tie)."""
        q = self.q
        return max(self.options(view), key=lambda option: q[option[1]])

    def action(self, view: TurnView) -> Action:
        """:meth:`best` as the engine's :class:`Action`."""
        number, _ = self.best(view)
        keep = view.legal_keeps[number // 2]
        return Action(keep.dice, bool(number % 2))
