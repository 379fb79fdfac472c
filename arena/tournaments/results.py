"""What playing a range of games gives back: the rows of games.csv and what goes with them.

Kept apart from :mod:`arena.tournaments.batch` (the Python path) so that the compiled kernel
(:mod:`arena.compiled`), which makes the same results, imports it without importing the
Python path.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FaultDetail:
    """One fault, with what is needed to debug it (games.csv keeps only the one-line reason)."""

    game: int
    seat: int
    player: str  # the player's label
    status: str  # error, illegal or timeout
    reason: str  # the one-line reason, as in games.csv
    traceback: str  # the full traceback where the strategy raised; "" otherwise


@dataclass(frozen=True)
class GameRecord:
    """One game's events as JSON text: an object with ``players`` (labels by seat) and
    ``events``, each ``{"type": "rolled", "seat": 0, "dice": [...]}`` and so on, with a
    ``{"type": "fault", "seat", "status", "reason"}`` where a seat broke the game."""

    game: int
    events: str


@dataclass(frozen=True)
class BatchResult:
    start: int
    stop: int
    rows: str  # CSV text of the games start..stop-1, in order
    faults: int
    shares: tuple[tuple[float, ...], ...]  # per game, each seat's win share
    fault_details: tuple[FaultDetail, ...] = ()  # one per fault, in game order
    records: tuple[GameRecord, ...] = ()  # whole games, when the spec asks (record_deals)
    #: Per player (spec order): seconds spent deciding and decisions, in the games played in
    #: Python, when the spec asks (time_decisions); empty otherwise.
    decision_times: tuple[tuple[float, int], ...] = ()
