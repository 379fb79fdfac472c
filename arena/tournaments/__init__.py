"""Tournaments: many games per ruleset between pluggable strategies, in parallel, reproducibly.

Data flows one way: a :class:`TournamentSpec` -> a :class:`Schedule` of numbered games ->
batches played by workers -> CSV rows written in game order -> statistics
(:mod:`arena.analysis`).
"""

from arena.tournaments.runner import RunOutcome, run_tournament
from arena.tournaments.schedule import GameSlot, Schedule
from arena.tournaments.spec import FORMATS, TournamentSpec, player_from_class

__all__ = [
    "FORMATS",
    "GameSlot",
    "RunOutcome",
    "Schedule",
    "TournamentSpec",
    "player_from_class",
    "run_tournament",
]
