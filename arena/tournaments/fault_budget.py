"""How much a faulty player can make a run store: a bounded number of tracebacks per player.

Each fault of a run is one line in games.csv and errors.csv (its reason, at most 300
characters), and the journal (games.idx) lists it by key.  What is unbounded otherwise is the
text kept per *distinct* fault: the journal's ``new`` entries, which errors.log is made from,
each hold a traceback of up to 20,000 characters.  A strategy can make every fault distinct
(a new exception class, a new call depth, a new message from a ``cmd:`` bot each game), so the
first :data:`TRACEBACKS_PER_PLAYER` distinct faults of a player are kept in full, and every
later one of that player is counted under one more entry of its own, stored once, with a
reason that says so and no traceback.  So a player can add at most
``TRACEBACKS_PER_PLAYER + 1`` entries to games.idx and errors.log in the whole run.

The count is made from what the journal already holds (:meth:`FaultBudget.learn`, given the
entries of a resumed run), and only the main process writes the journal, so the cap holds
across chunks, workers and ``--resume``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arena.tournaments.fault_log import (
    TRACEBACKS_PER_PLAYER,
    clip_traceback,
    fault_key,
    overflow_key,
    overflow_reason,
)


class FaultBudget:
    """The distinct faults a run's journal holds, and how many per player.

    ``known``: fault key -> player, for the entries already in the journal."""

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        self.known: dict[str, str] = {}
        self.per_player: Counter[str] = Counter()
        self.learn(known or {})

    def learn(self, stored: Mapping[str, Any]) -> None:
        """Count entries now in the journal: key -> player, or key -> its ``new`` detail."""
        for key, about in stored.items():
            if key not in self.known:
                player = str(about.get("player", "")) if isinstance(about, Mapping) else str(about)
                self.known[key] = player
                self.per_player[player] += 1

    def plan(self, faults: Sequence[Any]) -> tuple[list[list[Any]], dict[str, dict[str, str]]]:
        """For a batch's :class:`~arena.tournaments.results.FaultDetail` records: each fault's
        ``[game, seat, key]`` and the ``new`` entries to store with them.  Nothing is counted
        until :meth:`learn` is given the entries once they are written."""
        keys: list[list[Any]] = []
        new: dict[str, dict[str, str]] = {}
        adding: Counter[str] = Counter()
        for f in faults:
            key = fault_key(f.player, f.status, f.reason, f.traceback)
            if key not in self.known and key not in new:
                if self.per_player[f.player] + adding[f.player] < TRACEBACKS_PER_PLAYER:
                    new[key] = _detail(f.player, f.status, f.reason, f.traceback)
                    adding[f.player] += 1
                else:
                    key = overflow_key(f.player)
                    if key not in self.known and key not in new:
                        new[key] = _detail(f.player, f.status, overflow_reason(f.player), "")
                        adding[f.player] += 1
            keys.append([f.game, f.seat, key])
        return keys, new


def _detail(player: str, status: str, reason: str, traceback: str) -> dict[str, str]:
    return {
        "player": player,
        "status": status,
        "reason": clip_traceback(reason),
        "traceback": clip_traceback(traceback),
    }
