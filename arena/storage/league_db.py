"""A league's database: one SQLite file, embedded, nothing to start.

The database is the league's journal.  Every batch of games is written in one transaction
together with how far its plan has got, so a run killed at any moment (even by SIGKILL) leaves
either the whole batch or none of it, and a rerun goes on from the plan's next game: no game is
lost and none is stored twice (``UNIQUE`` on a game's identity makes doubling impossible).

The schema is versioned from the start (``meta.schema_version``): a later arena reads the
version and upgrades an older league in place; a newer league is refused in one line.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

#: The schema this arena writes.
SCHEMA_VERSION = 4
DATABASE_NAME = "league.sqlite"
#: The folder of a league that holds its database and its seats' logs: hidden from every seat.
PRIVATE_FOLDER = "data"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    spec TEXT NOT NULL,          -- the spec as the organiser gave it
    play_spec TEXT NOT NULL,     -- the spec the league plays: a stored copy for a file
    kind TEXT NOT NULL,          -- file, module, built-in or command
    content_sha256 TEXT NOT NULL,
    source BLOB,                 -- a file entry's bytes
    description TEXT NOT NULL DEFAULT '',
    added TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    UNIQUE (name, version),
    UNIQUE (name, content_sha256)
);
CREATE TABLE plans (
    id INTEGER PRIMARY KEY,
    players TEXT NOT NULL,       -- JSON list of entry ids, the gauntlet's head first
    total INTEGER NOT NULL,
    next_game INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    plan INTEGER NOT NULL REFERENCES plans(id),
    plan_game INTEGER NOT NULL,
    ruleset TEXT NOT NULL,
    deal INTEGER NOT NULL,
    seat_order INTEGER NOT NULL,
    seed TEXT NOT NULL,          -- 64-bit: text, as SQLite integers are signed
    low INTEGER NOT NULL,        -- the pair's entry ids, lower first
    high INTEGER NOT NULL,
    UNIQUE (plan, plan_game),
    UNIQUE (low, high, ruleset, deal, seat_order)
);
CREATE TABLE seats (
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    entry INTEGER NOT NULL REFERENCES entries(id),
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    win REAL NOT NULL,
    turns INTEGER NOT NULL,
    farkles INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (game, seat)
);
CREATE TABLE faults (
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    entry INTEGER NOT NULL REFERENCES entries(id),
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    traceback TEXT NOT NULL,
    replay TEXT NOT NULL
);
CREATE INDEX seats_by_entry ON seats (entry);
"""

#: What brings a league of schema ``n`` to ``n + 1``; a new league gets them all.
_UPGRADES: dict[int, str] = {
    # 2: whole games for the game viewer (arena.tournaments.event_records), a JSON text each.
    1: """
CREATE TABLE records (
    game INTEGER PRIMARY KEY REFERENCES games(id),
    events TEXT NOT NULL
);
""",
    # 3: how each game ended (games.csv's end column); '' for a game stored before, which did
    # not record it.
    2: """
ALTER TABLE games ADD COLUMN ending TEXT NOT NULL DEFAULT ''
""",
    # 4: each seat's time deciding (seconds, as arena's process timed it) and its decisions;
    # NULL for a seat stored before, which was not timed.
    3: """
ALTER TABLE seats ADD COLUMN seconds REAL;
ALTER TABLE seats ADD COLUMN decisions INTEGER
""",
}


class LeagueDatabaseError(Exception):
    """A league folder that can't be opened; the message is one line."""


def database_path(folder: Path) -> Path:
    return Path(folder) / PRIVATE_FOLDER / DATABASE_NAME


def create(folder: Path, settings: dict[str, Any]) -> sqlite3.Connection:
    """A new league's database in ``folder`` (made if missing), with ``settings`` stored."""
    folder = Path(folder)
    path = database_path(folder)
    if path.exists():
        raise LeagueDatabaseError(f"{folder} already holds a league; choose another folder")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = _connect(path)
    except (OSError, sqlite3.Error) as exc:
        raise LeagueDatabaseError(f"cannot create a league in {folder}: {exc}") from None
    with connection:
        connection.executescript(_SCHEMA)
        connection.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("schema_version", "1"), ("settings", json.dumps(settings, sort_keys=True))],
        )
    _upgrade(connection, 1)
    return connection


def open_league(folder: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """The database of the league in ``folder``; ``read_only`` for the web pages, which never
    write.  Refuses, in one line, a folder with no league and a league of a newer schema."""
    path = database_path(Path(folder))
    if not path.is_file():
        raise LeagueDatabaseError(f"{folder} holds no league (create one with `arena league init {folder}`)")
    try:
        if read_only:
            connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
            connection.row_factory = sqlite3.Row
        else:
            connection = _connect(path)
        version = _version(connection)
    except (sqlite3.Error, ValueError) as exc:
        raise LeagueDatabaseError(f"{path} is not a league database this arena can read: {exc}") from None
    if version > SCHEMA_VERSION:
        raise LeagueDatabaseError(
            f"{path} was written by a newer arena (schema {version}; this one reads up to "
            f"{SCHEMA_VERSION}): upgrade arena"
        )
    if version < 1:
        raise LeagueDatabaseError(f"{path} is not a league database (no schema version)")
    if version < SCHEMA_VERSION:
        # An older league is upgraded in place, once, even by a reader (the web pages).
        writer = connection if not read_only else _connect(path)
        try:
            _upgrade(writer, version)
        except sqlite3.Error as exc:
            raise LeagueDatabaseError(
                f"{path} has schema {version} and could not be upgraded to {SCHEMA_VERSION}: {exc}"
            ) from None
        finally:
            if writer is not connection:
                writer.close()
    return connection


def _version(connection: sqlite3.Connection) -> int:
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def _upgrade(connection: sqlite3.Connection, version: int) -> None:
    """Bring the database from ``version`` to :data:`SCHEMA_VERSION`, one step per
    transaction; a step another process took first is not taken twice."""
    while version < SCHEMA_VERSION:
        with connection:
            connection.execute("BEGIN IMMEDIATE")  # one upgrader at a time
            now = _version(connection)
            if now == version:
                for statement in _UPGRADES[version].split(";"):
                    if statement.strip():
                        connection.execute(statement)
                now = version + 1
                connection.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(now),))
        version = now


def settings(connection: sqlite3.Connection) -> dict[str, Any]:
    """The league's settings; LeagueDatabaseError if they are missing or damaged."""
    row = connection.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
    try:
        data = json.loads(row[0]) if row is not None else None
    except (TypeError, ValueError):
        data = None
    keys = ("rulesets", "games", "seed")
    if not isinstance(data, dict) or not all(k in data for k in keys):
        raise LeagueDatabaseError("the league database is damaged: its settings are missing")
    return data


def store_settings(connection: sqlite3.Connection, settings: dict[str, Any]) -> None:
    """Replace the league's settings (``league run`` changing its clock), in one transaction."""
    with connection:
        connection.execute(
            "UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings, sort_keys=True),)
        )


def _connect(path: Path) -> sqlite3.Connection:
    # WAL: the web server reads while a run writes; synchronous=FULL: a committed batch is on
    # disk before the run goes on, so a power cut loses nothing that was reported.
    connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = FULL")
    connection.execute("PRAGMA foreign_keys = ON")
    connection.isolation_level = "DEFERRED"  # `with connection:` is then one transaction
    return connection
