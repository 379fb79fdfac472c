"""Withdrawing an entrant from a league, and bringing it back (``arena league retire`` and
``reinstate``; docs/league.md, "Retired entrants").

Retirement is the entrant's, not a version's: the name is kept in the ``retirements`` table
(schema 5) with the time it was retired.  Its current version stays the current one, so:

- it plays no new game: :func:`arena.leagues.entries.active_entries`, the entries a run
  plays, leaves retired names out, and a plan that seats it waits;
- its stored games stay in the history and in the standings, where it is shown as retired,
  so the others' ratings keep counting the games they played against it;
- its name stays reserved: a look-alike or the same name is refused to anyone else, and a new
  version under it waits until it is reinstated;
- reinstated, it plays again as the same version, and the next run plays the games it missed
  (against the entries added meanwhile).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime

from arena.players.names import normal_name


class RetirementRefused(ValueError):
    """A retire or reinstate that can't be done; the message is one line."""


@dataclass(frozen=True)
class Retirement:
    """What ``retire`` or ``reinstate`` found and did: the entrant's current version, whether it
    is now retired, since when (None: it plays), and whether anything changed."""

    name: str
    version: int
    retired: bool
    since: str | None
    changed: bool
    games: int


def retired_names(connection: sqlite3.Connection) -> dict[str, str]:
    """Every retired entrant's name, with the time it was retired (ISO 8601, UTC)."""
    return {r[0]: r[1] for r in connection.execute("SELECT name, retired FROM retirements ORDER BY name")}


def _current(connection: sqlite3.Connection, name: str, folder: str) -> sqlite3.Row:
    row = connection.execute(
        "SELECT id, name, version FROM entries WHERE name = ? AND active = 1", (name,)
    ).fetchone()
    if row is None:
        raise RetirementRefused(
            f"{folder} has no entrant named {name!r} (`arena league table {folder}` lists them)"
        )
    return row


#: An entry's games that the standings count: those against the others' current versions (a
#: game against a replaced version stays in the history only, arena.leagues.standings).
_STANDING_GAMES = """
SELECT COUNT(*) FROM seats s JOIN games g ON g.id = s.game
WHERE s.entry = ?
  AND g.low IN (SELECT id FROM entries WHERE active = 1)
  AND g.high IN (SELECT id FROM entries WHERE active = 1)
"""


def _games(connection: sqlite3.Connection, entry_id: int) -> int:
    """The games of ``entry_id`` that stay in the standings, as its row there counts them."""
    return int(connection.execute(_STANDING_GAMES, (entry_id,)).fetchone()[0])


def retire(connection: sqlite3.Connection, name: str, folder: str) -> Retirement:
    """Retire the entrant ``name``: it plays no new game, its games stay counted and its name
    reserved.  Retiring a retired entrant changes nothing (``changed`` False)."""
    name = normal_name(name)
    row = _current(connection, name, folder)
    with connection:
        cursor = connection.execute(
            "INSERT OR IGNORE INTO retirements (name, retired) VALUES (?, ?)",
            (name, datetime.now(UTC).isoformat(timespec="seconds")),
        )
    since = retired_names(connection)[name]
    return Retirement(name, row["version"], True, since, cursor.rowcount == 1, _games(connection, row["id"]))


def reinstate(connection: sqlite3.Connection, name: str, folder: str) -> Retirement:
    """Bring the retired entrant ``name`` back: its current version plays again.  Reinstating an
    entrant that plays changes nothing (``changed`` False)."""
    name = normal_name(name)
    row = _current(connection, name, folder)
    with connection:
        cursor = connection.execute("DELETE FROM retirements WHERE name = ?", (name,))
    return Retirement(name, row["version"], False, None, cursor.rowcount == 1, _games(connection, row["id"]))


def retired_refusal(
    connection: sqlite3.Connection, spec: str, name: str, named: bool, folder: str
) -> str | None:
    """Why ``spec`` may not be added under the retired entrant's ``name`` (None if ``name`` is
    not retired).  ``named``: the organiser gave ``--name`` (a new version for that entrant),
    which waits until it is reinstated; else the entry calls itself by a reserved name."""
    since = retired_names(connection).get(name)
    if since is None:
        return None
    if named:
        return (
            f"{name} is retired (since {since}): reinstate it first with "
            f"`arena league reinstate {folder} {name}`, then add its new version"
        )
    return (
        f"{spec} calls itself {name!r}, the name of an entrant retired since {since}; a retired "
        "entrant's name stays reserved: give it another --name"
    )
