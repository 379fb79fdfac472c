"""Whole games kept turn by turn, for a game viewer: a sample of every pairing and every game
with a fault.

games.csv keeps how a game ended; a *record* keeps everything that happened in it, the
engine's events (:mod:`arena.engine.events`) in order, with each fault where it happened.  A
tournament keeps them only when asked (``TournamentSpec.record_deals``): recording costs a list
append per event, and a record is about a hundred times the size of the game's rows.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from arena.engine.events import Event, event_type
from arena.players import PlayerFault


def record_json(players: Sequence[str], happened: Sequence[Event | PlayerFault]) -> str:
    """The JSON text of a game's record (:class:`~arena.tournaments.results.GameRecord`) from
    its events and faults, in the order they came."""
    return json.dumps({"players": list(players), "events": [_event_data(e) for e in happened]})


def _event_data(event: Event | PlayerFault) -> dict[str, Any]:
    if isinstance(event, PlayerFault):
        return {"type": "fault", "seat": event.seat, "status": event.status, "reason": event.reason}
    data: dict[str, Any] = {"type": event_type(event)}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        data[field.name] = list(value) if isinstance(value, tuple) else value
    return data
