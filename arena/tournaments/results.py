"""What playing a range of games gives back: the rows of games.csv and what goes with them.

Kept apart from :mod:`arena.tournaments.batch` (the Python path) so that the compiled kernel
(:mod:`arena.compiled`), which makes the same results, imports it without importing the
Python path.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any


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
class GameColumns:
    """The numbers of a batch's rows, as the compiled kernel left them: what the reports sum,
    so that the main process need not parse the rows it writes (numpy arrays, small integer
    types: they travel from the worker with the rows).  Per game: ``ruleset`` (index in the
    spec), ``deal``, ``end`` (1 target, 2 round limit, 3 forfeit) and ``winners``; per game and
    seat, in row order: ``player`` (index in the spec), ``score``, ``rank``, ``won``, ``turns``
    and ``farkles``.  Every seat's status is ok (the kernel's games have no faults)."""

    ruleset: Any
    deal: Any
    end: Any
    winners: Any
    player: Any
    score: Any
    rank: Any
    won: Any
    turns: Any
    farkles: Any


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
    #: Per game of the batch, in order, each seat's (seconds deciding, decisions), when the
    #: spec asks (time_decisions); () for a game the compiled kernel played; empty otherwise.
    game_times: tuple[tuple[tuple[float, int], ...], ...] = ()
    #: The rows' numbers, where the kernel played every game of the batch; None otherwise.
    columns: GameColumns | None = None
    #: The journal's checksum of the rows' UTF-8 bytes (:func:`rows_digest`), made where they
    #: were played, so the main process need not hash every byte it writes; None: not made.
    digest: str | None = None


def rows_digest(data: bytes | memoryview) -> str:
    """The checksum games.idx keeps of a batch's bytes: BLAKE2b, 16 bytes, as hex."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()
