"""Which games of a plan the league does not hold yet, and which games wait for a later run.

A game's identity in a league is its pair, ruleset, deal and seat order (``UNIQUE`` in
:mod:`arena.storage.league_db`), whatever plan played it.  A plan dropped by a kill or by a new
version leaves games of pairs that a later plan meets again; that plan plays only the deals the
league lacks (:func:`missing_ranges`), so a run stores every game it plays (docs/league.md,
"Journal").  A deal is played whole, both seat orders, as every batch is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.tournaments.schedule import Schedule

#: A stored game's identity: (low entry id, high entry id, ruleset name, deal, seat order).
GameKey = tuple[int, int, str, int, int]


def stored_games(connection: sqlite3.Connection, pairs: Iterable[tuple[int, int]]) -> set[GameKey]:
    """The identities of the games stored for ``pairs`` (each (low, high))."""
    found: set[GameKey] = set()
    for low, high in set(pairs):
        rows = connection.execute(
            "SELECT low, high, ruleset, deal, seat_order FROM games WHERE low = ? AND high = ?", (low, high)
        )
        found.update((r[0], r[1], r[2], r[3], r[4]) for r in rows)
    return found


def game_key(schedule: Schedule, entry_ids: Sequence[int], game: int) -> GameKey:
    """The identity game ``game`` of a plan's schedule would be stored under."""
    slot = schedule.slot(game)
    ids = [entry_ids[i] for i in slot.seats]
    low, high = sorted(ids)
    return low, high, schedule.spec.rulesets[slot.ruleset].name, slot.deal, 0 if ids[0] == low else 1


def missing_ranges(
    schedule: Schedule, entry_ids: Sequence[int], start: int, stored: set[GameKey]
) -> list[tuple[int, int]]:
    """The ranges (start, stop) of games from ``start`` on whose deal the league lacks a game
    of: whole deals, in order, with the deals it holds in full left out."""
    orders = schedule.orders
    ranges: list[tuple[int, int]] = []
    first = start - start % orders  # a deal's games are numbered together, from a multiple
    for deal_start in range(first, len(schedule), orders):
        games = range(deal_start, deal_start + orders)
        if all(game_key(schedule, entry_ids, g) in stored for g in games):
            continue
        if ranges and ranges[-1][1] == deal_start:
            ranges[-1] = (ranges[-1][0], deal_start + orders)
        else:
            ranges.append((deal_start, deal_start + orders))
    return ranges


def next_after(ranges: Sequence[tuple[int, int]], stop: int, total: int) -> int:
    """A plan's next game once games up to ``stop`` are stored: the first game of the next
    range to play (the games between are stored already), or ``total`` when none is left."""
    return next((begin for begin, end in ranges if end > stop), total) if stop < total else total


@dataclass(frozen=True)
class Waiting:
    """An entry whose games wait for a later run, how many, and why."""

    name: str
    version: int
    games: int
    why: str
    skipped: bool  # left out by the organiser (``league run --skip``)


def pair_missing(
    connection: sqlite3.Connection, active: Sequence[int], per_pair: int
) -> dict[tuple[int, int], int]:
    """Games each pair of active entries (low, high) still lacks, where it lacks any."""
    counts = {
        (r[0], r[1]): r[2]
        for r in connection.execute("SELECT low, high, COUNT(*) FROM games GROUP BY low, high")
    }
    ids = sorted(active)
    missing: dict[tuple[int, int], int] = {}
    for k, low in enumerate(ids):
        for high in ids[k + 1 :]:
            lack = per_pair - counts.get((low, high), 0)
            if lack > 0:
                missing[(low, high)] = lack
    return missing


def waiting_games(missing: dict[tuple[int, int], int], held: set[int]) -> tuple[dict[int, int], int]:
    """(games that wait for each entry of ``held``, games that wait in all): the missing games
    of every pair one of whose entries can't play in this run.  A pair of two such entries
    counts for each, once in all."""
    each = {e: 0 for e in held}
    total = 0
    for (low, high), lack in missing.items():
        if low in held or high in held:
            total += lack
            for e in (low, high):
                if e in held:
                    each[e] += lack
    return each, total
