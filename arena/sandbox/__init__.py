"""Untrusted bots: every seat in a process of its own, behind walls (``--isolate``, ``cmd:``).

The parent holds the game and the dice and sends each seat a serialized view; the seat answers
an action (:mod:`~arena.sandbox.wire`, ``docs/protocol.md``).  A seat process is a fresh
program, confined (:mod:`~arena.sandbox.confine`), limited (:mod:`~arena.sandbox.limits`) and
killed at its deadline (:mod:`~arena.sandbox.process`); :mod:`~arena.sandbox.seats` loads
isolated players and stands in for them in games; :mod:`~arena.sandbox.host` is the seat side
for Python strategies.
"""

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
