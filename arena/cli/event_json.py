"""``arena play --json``: a game's events as JSON lines, one object per line, for programs."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import Ruleset
from arena.engine import events as ev
from arena.engine.events import event_type
from arena.engine.scoring import explain
from arena.players.text import json_visible


class EventLines:
    """An ``on_event`` callback that writes each event as one line of JSON.

    Each object has ``type`` (the event's class in snake case) and the event's fields, tuples as
    lists; an event of one seat also names its ``player``, ``turn_started`` carries the
    ``round`` (counted as ``arena play`` counts it: a round starts with seat 0's turn, or the
    first seat still in when seat 0 is out) and ``kept`` its ``reading`` (the parts the points
    come from)."""

    def __init__(self, rules: Ruleset, names: Sequence[str], write: Callable[[str], None]) -> None:
        self.rules = rules
        self.names = list(names)
        self.write = write
        self.round = 0
        self._last_seat = len(self.names)  # the seat of the last turn before a playoff

    def line(self, data: dict[str, Any]) -> None:
        self.write(json_visible(json.dumps(data, ensure_ascii=False)))

    def start(self, seed: int) -> None:
        """The first line: the game's ruleset, seed and players, seat by seat."""
        self.line(
            {
                "type": "game",
                "rules": self.rules.name,
                "description": self.rules.description,
                "seed": seed,
                "players": self.names,
            }
        )

    def __call__(self, event: ev.Event) -> None:
        data: dict[str, Any] = {"type": event_type(event)}
        for field in dataclasses.fields(event):
            value = getattr(event, field.name)
            data[field.name] = list(value) if isinstance(value, tuple) else value
        if "seat" in data:
            data["player"] = self.names[data["seat"]]
        if isinstance(event, ev.TurnStarted):
            if not event.playoff:
                if event.seat <= self._last_seat:  # seat 0, or the first seat still in
                    self.round += 1
                self._last_seat = event.seat
            data["round"] = self.round
        if isinstance(event, ev.Kept):  # why the keep scored, as `arena score --json` says it
            reading = explain(event.dice, self.rules) or ()
            data["reading"] = [{"part": label, "points": points} for label, points in reading]
        if isinstance(event, ev.GameOver):
            data["winner_names"] = [self.names[s] for s in event.winners]
        self.line(data)

    def fault(self, seat: int, status: str, reason: str) -> None:
        """A seat's player broke the game: who, how and why.  Written when it happens; the seat
        is out and the others play on (docs/faults.md), so the game's other events follow."""
        self.line(
            {"type": "fault", "seat": seat, "player": self.names[seat], "status": status, "reason": reason}
        )
