"""Registering an entry: stored by content, checked at once, versioned by name.

An entry is a file (``bot.py:Class``), a module, a built-in or a ``cmd:`` program.  A file's
bytes are copied into the league (``entries/<sha>/``) and the league plays that copy, so an
entry changed on disk after it was added changes nothing until it is added again, as a new
version.  Adding the same name with other content makes a new version of that entrant; the
older versions stay in the history and stop playing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.players.loading import StrategyError, split_spec
from arena.players.names import fold_spaces, name_refusal
from arena.sandbox import load_player
from arena.sandbox.seats import is_command
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, command_identity

ENTRIES_FOLDER = "entries"


class EntryRefused(ValueError):
    """An entry that can't be added; the message is one line and nothing was stored."""


@dataclass(frozen=True)
class Entry:
    id: int
    name: str
    version: int
    spec: str
    play_spec: str
    kind: str
    active: bool


def entry_of(row: sqlite3.Row) -> Entry:
    return Entry(
        row["id"],
        row["name"],
        row["version"],
        row["spec"],
        row["play_spec"],
        row["kind"],
        bool(row["active"]),
    )


def _file_part(text: str) -> tuple[Path, str] | None:
    """(the .py file, the rest of the spec after it) of a file spec, or None."""
    reference, params = split_spec(text)
    path_text, _, class_name = reference.partition(":") if ".py:" in reference else (reference, "", "")
    if not path_text.endswith(".py"):
        return None
    rest = (f":{class_name}" if class_name else "") + (f":{params}" if params is not None else "")
    return Path(path_text), rest


def add_entry(
    folder: Path, connection: sqlite3.Connection, text: str, name: str | None = None
) -> tuple[Entry, bool]:
    """Register ``text`` in the league; (the entry, True if it is new).  The entry is loaded
    in a seat process of its own before anything is stored: one that can't load is refused."""
    text = text.strip()
    if not text:
        raise EntryRefused("empty player spec")
    source: bytes | None = None
    file_part = None if is_command(text) else _file_part(text)
    if is_command(text):
        kind = "command"
        try:
            identity = json.dumps(command_identity(text), sort_keys=True)
        except StrategyError as exc:
            raise EntryRefused(str(exc)) from None
        sha = hashlib.sha256(f"{text}\0{identity}".encode()).hexdigest()
    elif file_part is not None:
        kind = "file"
        path, rest = file_part
        try:
            source = path.read_bytes()
        except OSError as exc:
            raise EntryRefused(f"{text}: cannot read {path}: {exc.strerror}") from None
        sha = hashlib.sha256(source + b"\0" + rest.encode()).hexdigest()
    else:
        kind = "module-or-built-in"
        sha = hashlib.sha256(text.encode()).hexdigest()
    # Absolute: a later run may start in another folder (a Dask worker needs the same path).
    store = Path(folder).resolve() / ENTRIES_FOLDER / sha[:16]
    play_spec = text
    if file_part is not None and source is not None:
        store.mkdir(parents=True, exist_ok=True)
        copy = store / file_part[0].name
        copy.write_bytes(source)
        play_spec = f"{copy}{file_part[1]}"
    try:
        loaded = load_player(play_spec, isolate=True, limits=None, move_timeout=DEFAULT_MOVE_TIMEOUT)
    except StrategyError as exc:
        if file_part is not None:
            shutil.rmtree(store, ignore_errors=True)
        raise EntryRefused(str(exc).replace(play_spec, text)) from None
    chosen = fold_spaces(name) if name is not None else loaded.label
    refusal = name_refusal(chosen)
    if refusal is not None:
        raise EntryRefused(f"--name {chosen!r}: {refusal}")
    same = connection.execute(
        "SELECT * FROM entries WHERE name = ? AND content_sha256 = ?", (chosen, sha)
    ).fetchone()
    if same is not None:
        return entry_of(same), False
    with connection:
        row = connection.execute("SELECT MAX(version) FROM entries WHERE name = ?", (chosen,)).fetchone()
        version = (row[0] or 0) + 1
        connection.execute("UPDATE entries SET active = 0 WHERE name = ?", (chosen,))
        cursor = connection.execute(
            "INSERT INTO entries (name, version, spec, play_spec, kind, content_sha256, source, "
            "description, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                chosen,
                version,
                text,
                play_spec,
                kind,
                sha,
                source,
                loaded.description,
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )
        entry_id = cursor.lastrowid
    row = connection.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
    return entry_of(row), True


def active_entries(connection: sqlite3.Connection) -> list[Entry]:
    rows = connection.execute("SELECT * FROM entries WHERE active = 1 ORDER BY id").fetchall()
    return [entry_of(r) for r in rows]
