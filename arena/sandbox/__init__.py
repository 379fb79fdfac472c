"""Untrusted bots: every seat in a process of its own, behind walls (``--isolate``, ``cmd:``).

The parent holds the game and the dice and sends each seat a serialized view; the seat answers
an action (:mod:`~arena.sandbox.wire`, ``docs/protocol.md``).  A seat process is a fresh
program, confined (:mod:`~arena.sandbox.confine`), limited (:mod:`~arena.sandbox.limits`) and
killed at its deadline (:mod:`~arena.sandbox.process`); :mod:`~arena.sandbox.seats` loads
isolated players and stands in for them in games; :mod:`~arena.sandbox.host` is the seat side
for Python strategies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.sandbox.confine import protect_this_process
    from arena.sandbox.limits import LimitError, SeatLimits
    from arena.sandbox.seats import (
        COMMAND_PREFIX,
        NOWHERE,
        RemoteSeat,
        SeatPlace,
        SeatPool,
        is_command,
        load_isolated_player,
        load_player,
    )

#: Where each name of the package lives.  Imported on first use: a seat process imports
#: arena's host (:mod:`~arena.sandbox.host`), which needs none of the parent's side, and every
#: module it skips makes each seat start sooner (benchmarks/seat_start.py).
_HOMES = {
    "protect_this_process": "confine",
    "LimitError": "limits",
    "SeatLimits": "limits",
    **dict.fromkeys(
        [
            "COMMAND_PREFIX",
            "NOWHERE",
            "RemoteSeat",
            "SeatPlace",
            "SeatPool",
            "is_command",
            "load_isolated_player",
            "load_player",
        ],
        "seats",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'arena.sandbox' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"arena.sandbox.{home}"), name)


__all__ = [
    "COMMAND_PREFIX",
    "NOWHERE",
    "LimitError",
    "RemoteSeat",
    "SeatLimits",
    "SeatPlace",
    "SeatPool",
    "is_command",
    "load_isolated_player",
    "load_player",
    "protect_this_process",
]
