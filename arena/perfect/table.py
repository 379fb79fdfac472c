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


def entered_by_default(rules: Ruleset, score: int) -> bool:
    """Whether a player with ``score`` points is taken to have entered when nobody says: yes
    with points or without an entry threshold (at 0 points under a penalty it may be either)."""
    return score > 0 or not rules.has_entry()


@dataclass(frozen=True)
class WinTable:
    """Win chances under mutual perfect play, two players.

    ``win[s, a, b]``: the chance that the player to move wins, with ``50 * a`` points against
    ``50 * b``, moving from seat ``s`` (``s`` is always 0 when the seat makes no difference, under
    the ``everyone_else`` final round).  Under a farkle penalty it is ``win[s, a, m, b, n]``,
    with ``m`` and ``n`` the players' farkles in a row and ``a``, ``b`` player states
    (:mod:`arena.perfect.penalty`: the index one past the scores is "not entered yet").
    ``last_turn_win[d]``: the chance of the last player of the final round, ``50 * d`` points
    behind the leader.
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
        start = self.player_index(0, entered=not self.rules.has_entry())
        return float(self.win[(0, start, 0, start, 0)[: self.win.ndim]])

    def player_index(self, score: int, entered: bool) -> int:
        """A player's index in ``win``: the score in units of 50, or under a farkle penalty the
        last index for a player not entered yet (see :mod:`arena.perfect.penalty`)."""
        return score // POINT_STEP if entered or self.win.ndim == 3 else self.win.shape[1] - 1

    def reaches(self, score: int, entered: bool) -> bool:
        """True if a player can have ``score`` points (entered or not) at the start of a turn:
        the positions the table holds."""
        rules = self.rules
        if score < 0 or score >= rules.target or score % POINT_STEP:
            return False
        if not entered:
            return score == 0 and rules.has_entry()
        # Without a penalty only a bank changes a score, and the first meets the entry threshold;
        # with one, every score below the target is reached (arena.perfect.penalty).
        return self.win.ndim == 5 or score >= rules.entry_threshold or not rules.has_entry()

    def chance(
        self,
        own: int,
        opponent: int,
        seat: int,
        *,
        streaks: tuple[int, int] = (0, 0),
        entered: tuple[bool, bool] | None = None,
    ) -> float:
        """The chance of winning for the player to move with ``own`` points against ``opponent``
        (both below the target), from ``seat`` (0 or 1).  Under a farkle penalty the position
        also holds both players' ``streaks`` of farkles and whether each has ``entered`` (by
        default, a player with 0 points has not, where there is an entry threshold)."""
        s = seat if self.win.shape[0] == 2 else 0
        if self.win.ndim == 3:
            return float(self.win[s, own // POINT_STEP, opponent // POINT_STEP])
        if entered is None:
            entered = (entered_by_default(self.rules, own), entered_by_default(self.rules, opponent))
        a, b = self.player_index(own, entered[0]), self.player_index(opponent, entered[1])
        return float(self.win[s, a, streaks[0], b, streaks[1]])

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
