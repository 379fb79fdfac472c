"""A solved ruleset: the chance of winning from every position at the start of a turn."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.engine.rules import POINT_STEP, Ruleset

if TYPE_CHECKING:
    import numpy as np

#: Changes whenever the solver's model changes, so tables solved before are solved again.
MODEL_VERSION = 1


def ruleset_key(rules: Ruleset, past_target: int) -> str:
    """What a table depends on: every rule field but the name and description, and the model."""
    fields = {k: v for k, v in rules.as_dict().items() if k not in ("name", "description")}
    text = json.dumps([MODEL_VERSION, past_target, fields], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class WinTable:
    """Win chances under mutual perfect play, two players.

    ``win[s, a, b]``: the chance that the player to move wins, with ``50 * a`` points against
    ``50 * b``, moving from seat ``s`` (``s`` is always 0 when the seat makes no difference, under
    the ``everyone_else`` final round).  ``last_turn_win[d]``: the chance of the last player of
    the final round, ``50 * d`` points behind the leader.
    """

    rules: Ruleset
    past_target: int
    win: np.ndarray
    last_turn_win: np.ndarray
    residual: float  # the largest change a further iteration would make to any position
    seconds: float  # how long the solve took
    solved_with: str  # "numba" or "numpy"

    @property
    def first_player_win(self) -> float:
        """Seat 0's chance of winning from the first turn of the game."""
        return float(self.win[0, 0, 0])

    def chance(self, own: int, opponent: int, seat: int) -> float:
        """The chance of winning for the player to move with ``own`` points against ``opponent``
        (both below the target), from ``seat`` (0 or 1)."""
        s = seat if self.win.shape[0] == 2 else 0
        return float(self.win[s, own // POINT_STEP, opponent // POINT_STEP])

    def save(self, path: Path) -> None:
        """Write the table (float32: a few hundred kilobytes), atomically."""
        import numpy as np

        meta = {
            "rules": self.rules.as_dict(),
            "past_target": self.past_target,
            "residual": self.residual,
            "seconds": self.seconds,
            "solved_with": self.solved_with,
            "model": MODEL_VERSION,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with partial.open("wb") as out:
            np.savez_compressed(
                out,
                win=self.win.astype(np.float32),
                last_turn_win=self.last_turn_win,
                meta=np.array(json.dumps(meta)),
            )
        partial.replace(path)

    @classmethod
    def load(cls, path: Path, rules: Ruleset) -> WinTable:
        """Read a table saved by :meth:`save` for ``rules`` (whose name it takes)."""
        import numpy as np

        with np.load(path) as data:
            meta: dict[str, Any] = json.loads(str(data["meta"]))
            win = data["win"].astype(np.float64)
            last = data["last_turn_win"]
        return cls(
            rules, meta["past_target"], win, last, meta["residual"], meta["seconds"], meta["solved_with"]
        )
