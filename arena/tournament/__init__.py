"""Tournaments: many games per ruleset between pluggable strategies, in parallel, reproducibly.

Data flows one way: a :class:`TournamentSpec` -> a :class:`Schedule` of numbered games ->
batches played by workers -> CSV rows written in game order -> statistics
(:mod:`arena.analysis`).

Called, the package is the Python API's ``arena.tournament(...)`` (:func:`arena.api.tournament`):
the name ``arena.tournament`` is this package once anything imports it, so the package itself
takes the call rather than hiding the function.
"""

import sys
import types
from typing import Any

from arena.tournament.runner import RunOutcome, run_tournament
from arena.tournament.schedule import GameSlot, Schedule
from arena.tournament.spec import FORMATS, TournamentSpec, player_from_class

__all__ = [
    "FORMATS",
    "GameSlot",
    "RunOutcome",
    "Schedule",
    "TournamentSpec",
    "player_from_class",
    "run_tournament",
]


class _CallablePackage(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """:func:`arena.api.tournament` (imported on call: the API sits above this layer)."""
        from arena.api.runs import tournament

        return tournament(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
