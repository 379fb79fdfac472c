"""A league's database: one SQLite file, embedded, nothing to start.

The database is the league's journal.  Every batch of games is written in one transaction
together with how far its plan has got, so a run killed at any moment (even by SIGKILL) leaves
either the whole batch or none of it, and a rerun goes on from the plan's next game: no game is
lost and none is stored twice (``UNIQUE`` on a game's identity makes doubling impossible).

A league folder may come from someone else, so it is hostile (docs/security.md): before
SQLite opens anything, :func:`check_folder` refuses in one line a ``data`` folder, database or
SQLite companion file (``-wal``, ``-shm``, ``-journal``) that is a link, a FIFO, a device or
(for a command that writes) a file with a second name, and a command that writes refuses any
such entry anywhere under ``data/`` and ``entries/`` (the run lock, the seats' logs, the stored
entries).  SQLite itself follows a link at the database's own name, and writes its companions
beside the link's target.  What goes wrong in SQLite is said as what it is
(:func:`describe_error`): read-only, busy, not a database, or damaged.

The schema is versioned from the start (``meta.schema_version``): a later arena reads the
version and upgrades an older league in place; a newer league is refused in one line.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

from arena.safe_files import HARD_LINK, FileRefused, refuse_unsafe

#: The schema this arena writes.
SCHEMA_VERSION = 5
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
    # 5: retired entrants (arena.leagues.retirement), by name, with the time each was retired:
    # a retired entrant plays no new game.  An older arena would ignore the table and play it,
    # so it refuses a league of this schema, as it refuses any newer one.
    4: """
CREATE TABLE IF NOT EXISTS retirements (
    name TEXT PRIMARY KEY,
    retired TEXT NOT NULL
)
""",
}


#: The files SQLite keeps beside the database, by suffix.
COMPANIONS = ("-wal", "-shm", "-journal")
#: The league's folders that arena writes in (the run lock, seat logs; the stored entries).
WRITTEN_FOLDERS = (PRIVATE_FOLDER, "entries")


class LeagueDatabaseError(Exception):
    """A league folder that can't be opened; the message is one line."""


class ReadOnlyLeague(LeagueDatabaseError):
    """A league that can be read but not written (a read-only file, folder or mount)."""


def database_path(folder: Path) -> Path:
    return Path(folder) / PRIVATE_FOLDER / DATABASE_NAME


def check_folder(folder: Path, *, writing: bool) -> None:
    """Refuse, in one line (:class:`LeagueDatabaseError`), a league folder whose ``data``
    folder, database or SQLite companion file is a link, a file with a second name or not what
    it should be, before SQLite opens it; ``writing``: also any link, second name or special
    file anywhere under the folders arena writes in (:data:`WRITTEN_FOLDERS`).  The league folder
    itself is the user's own naming and may be a link, as the folders above it."""
    folder = Path(folder)
    private = folder / PRIVATE_FOLDER
    database = database_path(folder)
    folders = [folder / name for name in WRITTEN_FOLDERS] if writing else [private]
    for path in [*folders, *(database.with_name(DATABASE_NAME + s) for s in ("", *COMPANIONS))]:
        try:
            found = os.lstat(path)
        except OSError:
            continue  # missing, or can't be looked at: SQLite's own error says why
        why = None
        if stat.S_ISLNK(found.st_mode):
            why = "it is a symbolic link, and arena never opens a league's files through one"
        elif path in folders and not stat.S_ISDIR(found.st_mode):
            why = "it is not a folder"
        elif path not in folders and not stat.S_ISREG(found.st_mode):
            why = "it is not a regular file"
        elif path not in folders and found.st_nlink > 1:  # SQLite may truncate a companion
            why = HARD_LINK
        if why is not None:
            raise LeagueDatabaseError(_planted(path, why))
    for path in folders if writing else ():
        try:
            if path.is_dir():
                refuse_unsafe(path, hard_links=True)
        except FileRefused as exc:
            raise LeagueDatabaseError(_planted(exc.filename, exc.strerror or str(exc))) from None


def _planted(path: object, why: str) -> str:
    return f"{path}: {why}; a league folder received from someone else may hold planted links: remove it"


def create(folder: Path, settings: dict[str, Any]) -> sqlite3.Connection:
    """A new league's database in ``folder`` (made if missing), with ``settings`` stored."""
    folder = Path(folder)
    path = database_path(folder)
    if path.exists() or path.is_symlink():
        raise LeagueDatabaseError(f"{folder} already holds a league; choose another folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        check_folder(folder, writing=True)
        (folder / PRIVATE_FOLDER).mkdir(exist_ok=True)
        connection = _connect(path)
    except (OSError, sqlite3.Error) as exc:
        raise LeagueDatabaseError(f"cannot create a league in {folder}: {_reason(exc, path)}") from None
    with connection:
        connection.executescript(_SCHEMA)
        connection.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("schema_version", "1"), ("settings", json.dumps(settings, sort_keys=True))],
        )
    _upgrade(connection, 1)
    return connection


def open_league(folder: Path, *, read_only: bool = False) -> sqlite3.Connection:
    """The database of the league in ``folder``; ``read_only`` for the commands that only read
    (the web pages, the table), which then work on a read-only league too.  Refuses, in one
    line, a folder with no league, a league of a newer schema, planted links
    (:func:`check_folder`), and says what SQLite found wrong (:func:`describe_error`)."""
    path = database_path(Path(folder))
    check_folder(Path(folder), writing=not read_only)
    if not path.is_file():
        raise LeagueDatabaseError(f"{folder} holds no league (create one with `arena league init {folder}`)")
    try:
        connection = _connect_read_only(path) if read_only else _connect(path)
        version = _version(connection)
    except sqlite3.Error as exc:
        raise LeagueDatabaseError(describe_error(exc, path)) from None
    except ValueError as exc:
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
        try:
            if read_only:
                check_folder(Path(folder), writing=True)
            writer = connection if not read_only else _connect(path)
        except sqlite3.Error as exc:
            raise LeagueDatabaseError(describe_error(exc, path)) from None
        try:
            _upgrade(writer, version)
        except sqlite3.Error as exc:
            raise LeagueDatabaseError(
                f"{path} has schema {version} and could not be upgraded to {SCHEMA_VERSION}: "
                f"{describe_error(exc, path)}"
            ) from None
        finally:
            if writer is not connection:
                writer.close()
    return connection


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes the database.  A WAL database needs its ``-shm`` file:
    where that is missing and can't be made (a read-only folder or mount), no writer has the
    league open (a writer makes it), so the file is read as immutable."""
    try:
        connection = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True, timeout=30)
        connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.OperationalError as exc:
        if _code(exc) != "SQLITE_CANTOPEN" or read_only_reason(path) is None:
            raise
        connection = sqlite3.connect(f"file:{_uri_path(path)}?immutable=1", uri=True, timeout=30)
    connection.row_factory = sqlite3.Row
    return connection


def _uri_path(path: Path) -> str:
    """``path`` absolute, with the characters a URI gives a meaning escaped."""
    from urllib.parse import quote

    return quote(str(Path(path).absolute()))


def _code(exc: sqlite3.Error) -> str:
    return str(getattr(exc, "sqlite_errorname", "") or "")


def read_only_reason(path: Path) -> str | None:
    """Why the database at ``path`` can't be written (a read-only mount, file or folder), or
    None if it can.  As root, file modes don't bind, but a read-only mount and an immutable
    file (``chattr +i``) do: the file is opened for writing (nothing is written) to find out."""
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "it is on a read-only mount"
    except OSError:
        pass
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY))
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return "the file is read-only"
    if not os.access(folder, os.W_OK):
        return "its folder is read-only"
    return None


def read_only_message(path: Path, why: str | None) -> str:
    """The one line for a league that can be read but not written."""
    because = f" ({why})" if why else ""
    return (
        f"{path} is read-only{because}: `league table`, `games`, `export` and `serve` can read it; "
        "to add entries or play, copy the league to a folder you can write"
    )


def describe_error(exc: sqlite3.Error, path: Path) -> str:
    """One line that says what SQLite's ``exc`` means for the league database at ``path``:
    read-only, busy, not a database, damaged, or the disk full; else SQLite's words."""
    code = _code(exc)
    said = " ".join(str(exc).split())
    read_only = read_only_reason(path)
    if code in ("SQLITE_READONLY_ROLLBACK", "SQLITE_READONLY_RECOVERY") and read_only is None:
        return (
            f"{path} holds an interrupted write that only a command that writes can finish "
            f"(`arena league run` finishes it); reading alone can't ({said})"
        )
    if code.startswith("SQLITE_READONLY") or (code in ("SQLITE_CANTOPEN", "SQLITE_PERM") and read_only):
        return read_only_message(path, read_only)
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return f"{path} is busy (another process holds it locked: {said}); try again when it is done"
    if code == "SQLITE_NOTADB":
        return f"{path} is not a league database (not an SQLite file: {said})"
    if code.startswith("SQLITE_CORRUPT"):
        return f"the league database is damaged ({said}); restore {path} from a copy"
    if code == "SQLITE_FULL":
        return f"{path} can't be written: the disk is full ({said})"
    if code.startswith("SQLITE_IOERR"):
        return f"{path} can't be read or written: an input/output error ({said})"
    return f"{path} can't be used: {said}"


def _reason(exc: BaseException, path: Path) -> str:
    """What went wrong making a league, in words."""
    if isinstance(exc, sqlite3.Error):
        return describe_error(exc, path)
    if isinstance(exc, LeagueDatabaseError):
        return str(exc)
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "the folder is read-only"
    return " ".join(str(exc).split())


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
