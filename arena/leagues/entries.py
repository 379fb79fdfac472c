"""Registering an entry: stored by content, checked at once, versioned by name.

An entry is a file (``bot.py:Class``), a module, a built-in or a ``cmd:`` program.  A file's
bytes are copied into the league (``entries/<sha>/``) and the league plays that copy, so an
entry changed on disk after it was added changes nothing until it is added again, as a new
version.  Only the organiser makes a new version: adding other content under an active
entrant's name, or an older version's content again, needs ``--name``; the older versions stay
in the history and stop playing.  A name that looks like another active or retired entrant's
(the same TR39 skeleton, :func:`arena.players.names.skeleton`) is refused, and so is a retired
entrant's own name (:mod:`arena.leagues.retirement`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import shlex
import shutil
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.leagues.entry_paths import anchor_command, command_sha, concrete_command, play_text, relative_words
from arena.leagues.retirement import retired_names, retired_refusal
from arena.players.loading import StrategyError, split_spec
from arena.players.names import look_alike, name_refusal, normal_name, unlike
from arena.safe_files import ENTRY_FILE_LIMIT, SOURCE_FILE_LIMIT, read_entry_bytes
from arena.sandbox import load_player
from arena.sandbox.exposure import link_on_the_way
from arena.sandbox.seats import is_command
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, command_identity

ENTRIES_FOLDER = "entries"
#: The most .py files a module entry's package may hold: each is read to fingerprint it.
MODULE_FILES_LIMIT = 10_000


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
    content_sha256: str = ""


def entry_of(row: sqlite3.Row) -> Entry:
    return Entry(
        row["id"],
        row["name"],
        row["version"],
        row["spec"],
        row["play_spec"],
        row["kind"],
        bool(row["active"]),
        row["content_sha256"],
    )


def _module_bytes(text: str) -> bytes:
    """The bytes of the files a ``module:Class`` spec imports (nothing for a built-in), so a
    module changed on disk is a change of content."""
    from arena.sandbox.exposure import module_paths

    reference, _ = split_spec(text)
    module, colon, _ = reference.partition(":")
    if not colon:
        return b""
    try:
        paths = module_paths(module)
    except StrategyError:
        return b""
    found = (p for path in paths for p in ([path] if path.is_file() else path.rglob("*.py")))
    files = sorted(itertools.islice(found, MODULE_FILES_LIMIT + 1))  # a folder of millions: not listed whole
    if len(files) > MODULE_FILES_LIMIT:
        raise StrategyError(f"{module}: its package holds more than {MODULE_FILES_LIMIT:,} .py files")
    parts: list[bytes] = []
    for file in files:
        try:
            parts.append(read_entry_bytes(file, SOURCE_FILE_LIMIT))
        except FileNotFoundError:
            continue
        except OSError as exc:  # a FIFO named x.py, a source past the cap
            raise StrategyError(f"{module}: cannot read {file}: {exc.strerror}") from None
        if sum(map(len, parts)) > ENTRY_FILE_LIMIT:
            raise StrategyError(f"{module}: its files add up to more than {ENTRY_FILE_LIMIT >> 20} MiB")
    return b"".join(parts)


def _parameter_bytes(text: str) -> bytes:
    """The bytes of the files a spec's parameter values name (a trained policy's table:
    ``arena.envs.table_player:QTablePlayer:table=q.npz``), so a file changed on disk is a
    change of content, as a module's source is; nothing for a spec that names none."""
    from arena.sandbox.exposure import parameter_paths

    parts: list[bytes] = []
    for path in parameter_paths(text, Path.cwd(), ()):
        try:
            parts.append(read_entry_bytes(path, ENTRY_FILE_LIMIT))
        except OSError as exc:
            raise StrategyError(f"{text}: cannot read {path}: {exc.strerror}") from None
    return b"".join(parts)


def content_sha(
    text: str, kind: str, source: bytes | None = None, rest: str = "", league_folder: Path | None = None
) -> str:
    """What an entry's identity hashes: a file's bytes (and the spec after the file name); a
    ``cmd:`` program's command text as stored and fingerprint (its program and the files its
    arguments name, :func:`arena.leagues.entry_paths.command_sha`); a module's spec text and
    files; a built-in's spec text; with the files a module's or a built-in's parameter values
    name.  Raises StrategyError where a program can't be found."""
    if kind == "command":
        if league_folder is not None:
            return command_sha(text, league_folder)
        identity = json.dumps(command_identity(text), sort_keys=True)
        return hashlib.sha256(f"{text}\0{identity}".encode()).hexdigest()
    if kind == "file":
        return hashlib.sha256((source or b"") + b"\0" + rest.encode()).hexdigest()
    module = _module_bytes(text) + _parameter_bytes(text)
    return hashlib.sha256(text.encode() + (b"\0" + module if module else b"")).hexdigest()


def changed_since_added(entry: Entry, league_folder: Path) -> str | None:
    """Why ``entry`` is no longer the code it was added with (a ``cmd:`` program or module
    changed on disk), or None.  A file entry plays its own stored copy: it can't change.  A
    command is checked as stored (:mod:`arena.leagues.entry_paths`): from any folder, in the
    league folder wherever it is now."""
    if entry.kind == "file":
        return None
    what = "program" if entry.kind == "command" else "module"
    try:
        if entry.kind == "command":
            now = content_sha(entry.play_spec, entry.kind, league_folder=league_folder)
        else:
            now = content_sha(entry.spec, entry.kind)
    except StrategyError as exc:
        return f"{entry.name} version {entry.version}: {exc}{_relative_hint(entry)}"
    if now != entry.content_sha256:
        hint = _relative_hint(entry)
        if hint:
            what_now = "the files its command names changed or are not found"
            return f"{entry.name} version {entry.version}: {what_now}{hint}"
        missing = _relative_parameter_files(entry)
        if missing:
            return (
                f"{entry.name} version {entry.version}: {', '.join(missing)} not found from this folder "
                "(its spec names it relative to the folder it was added from: run the league from "
                "there, or arena league add it again by its absolute path)"
            )
        return (
            f"{entry.name} version {entry.version}: its {what} changed since it was added "
            f"(arena league add it again to play the new version{_path_hint(entry)})"
        )
    return None


def _path_hint(entry: Entry) -> str:
    """For a command whose program is a bare name (``python3``, ``node``): which program PATH
    finds now.  Another PATH (another virtual environment activated, or none) finds another
    interpreter, a change of the entry's program as its identity sees it, though no file of
    the student's changed."""
    if entry.kind != "command":
        return ""
    try:
        program = shlex.split(entry.play_spec.strip()[len("cmd:") :])[0]
    except (ValueError, IndexError):
        return ""
    if "/" in program:
        return ""
    found = shutil.which(program)
    now = f"it finds {found} now" if found else "it finds none now"
    return f"; if no file changed, PATH may find another {program} than when it was added: {now}"


def _relative_parameter_files(entry: Entry) -> list[str]:
    """The parameter values of a module's or a built-in's spec that look like relative file
    names (``table=q.npz``) and name nothing from the current folder: a league run from another
    folder than ``add`` misses them (the spec is stored as typed)."""
    if entry.kind in ("command", "file"):
        return []
    _, params = split_spec(entry.spec)
    values = [item.partition("=")[2].strip() for item in (params or "").split(",")]
    return [
        value
        for value in values
        if value
        and not os.path.isabs(value)
        and ("/" in value or os.path.splitext(value)[1][1:].isalpha())
        and not os.path.lexists(value)
    ]


def _relative_hint(entry: Entry) -> str:
    """For a command stored with relative paths (added before ``add`` anchored them): where
    it can still be played from."""
    if entry.kind != "command" or not relative_words(entry.play_spec):
        return ""
    return (
        " (it was added with paths relative to the folder it was added from: run the league "
        "from there, or arena league add it again, which stores its paths for any folder)"
    )


def where_it_plays(entry: Entry, league_folder: Path) -> Entry:
    """``entry`` with the spec a run plays now (:func:`arena.leagues.entry_paths.play_text`):
    its command's league paths, or its stored copy, in the league folder where it is now."""
    text = play_text(entry.kind, entry.play_spec, entry.content_sha256, league_folder, ENTRIES_FOLDER)
    return dataclasses.replace(entry, play_spec=text)


def _file_part(text: str) -> tuple[Path, str] | None:
    """(the .py file, the rest of the spec after it) of a file spec, or None."""
    reference, params = split_spec(text)
    path_text, _, class_name = reference.partition(":") if ".py:" in reference else (reference, "", "")
    if not path_text.endswith(".py"):
        return None
    rest = (f":{class_name}" if class_name else "") + (f":{params}" if params is not None else "")
    return Path(path_text), rest


def _entry_source(text: str, path: Path) -> bytes:
    """The bytes of a file entry, read as every file an entry names is
    (:func:`arena.safe_files.read_entry_bytes`: a regular file of at most
    :data:`~arena.safe_files.SOURCE_FILE_LIMIT` bytes, opened without blocking) and never
    through a symbolic link (the league stores and plays a copy, which must be the entry's own
    file, not whatever a link in a handed folder points at); EntryRefused in one line."""
    if not os.path.lexists(path):
        raise EntryRefused(f"{text}: cannot read {path}: no such file")
    link = link_on_the_way(str(path), Path.cwd())
    if link is not None:
        raise EntryRefused(
            f"{text}: {link} is a symbolic link; a league copies an entry's own file, so name the real path"
        )
    try:
        return read_entry_bytes(path, SOURCE_FILE_LIMIT)
    except OSError as exc:
        raise EntryRefused(f"{text}: cannot read {path}: {exc.strerror}") from None


#: The file name an uploaded entry is stored and loaded under (``league serve --submit``): never
#: a name the upload chose, so no path from the upload reaches the disk.
UPLOAD_FILE = "submission.py"


def add_entry(
    folder: Path,
    connection: sqlite3.Connection,
    text: str,
    name: str | None = None,
    *,
    upload: bytes | None = None,
) -> tuple[Entry, str]:
    """Register ``text`` in the league; (the entry, ``"added"``, ``"again"`` for an earlier
    version that plays again, or ``"same"`` if that name already plays this content).  The
    entry is loaded in a seat process of its own before anything is stored: one that can't
    load is refused, and so is one whose own name is another entrant's (unless ``name``).
    ``upload``: the bytes of a Python file sent to ``league serve --submit``, stored as
    :data:`UPLOAD_FILE` and checked exactly as a file entry is (``text`` is then only how
    messages and pages name it)."""
    text = text.strip()
    if not text:
        raise EntryRefused("empty player spec")
    source: bytes | None = None
    file_part = None if is_command(text) or upload is not None else _file_part(text)
    rest = ""
    text_stored = text  # what the entries table keeps as the entry's play spec
    if upload is not None:
        kind, source, file_part = "file", upload, (Path(UPLOAD_FILE), "")
    elif is_command(text):
        kind = "command"
        try:  # stored for any folder a run starts in, and a moved league (entry_paths)
            text_stored = anchor_command(text, Path.cwd(), Path(folder))
        except StrategyError as exc:
            raise EntryRefused(str(exc)) from None
    elif file_part is not None:
        kind = "file"
        path, rest = file_part
        source = _entry_source(text, path)
    else:
        kind = "module-or-built-in"
    try:
        if kind == "command":
            sha = content_sha(text_stored, kind, league_folder=Path(folder))
        else:
            sha = content_sha(text, kind, source, rest)
    except StrategyError as exc:
        typed = concrete_command(text_stored, Path(folder)) if kind == "command" else text
        raise EntryRefused(str(exc).replace(typed, text)) from None
    # Absolute: a later run may start in another folder (a Dask worker needs the same path).
    store = Path(folder).resolve() / ENTRIES_FOLDER / sha[:16]
    made = file_part is not None and not store.exists()  # an active entry's copy stays put
    play_spec = text_stored if kind == "command" else text
    loads = concrete_command(play_spec, Path(folder)) if kind == "command" else play_spec
    if file_part is not None and source is not None:
        store.mkdir(parents=True, exist_ok=True)
        copy = store / file_part[0].name
        copy.write_bytes(source)
        play_spec = loads = f"{copy}{file_part[1]}"

    def refuse(message: str) -> EntryRefused:
        if made:
            shutil.rmtree(store, ignore_errors=True)
        return EntryRefused(message)

    try:
        loaded = load_player(loads, isolate=True, limits=None, move_timeout=DEFAULT_MOVE_TIMEOUT)
    except StrategyError as exc:
        raise refuse(str(exc).replace(loads, text)) from None
    chosen = normal_name(name) if name is not None else loaded.label
    refusal = name_refusal(chosen)
    if refusal is not None:
        raise refuse(f"--name {chosen!r}: {refusal}")
    active = [
        row["name"] for row in connection.execute("SELECT name FROM entries WHERE active = 1 ORDER BY id")
    ]
    twin = look_alike(chosen, active)
    if twin is not None:
        # A person must tell the rows of the table apart (docs/league.md, "Names").
        raise refuse(
            f"{text}: its name {chosen!r} looks like the {_standing(connection, twin)} entrant {twin!r}"
            f"{unlike(chosen, twin)}; "
            "give it a name that reads differently with --name"
        )
    retired = retired_refusal(connection, text, chosen, name is not None, str(folder))
    if retired is not None:  # a retired entrant's name stays reserved (docs/league.md)
        raise refuse(retired)
    same = connection.execute(
        "SELECT * FROM entries WHERE name = ? AND content_sha256 = ?", (chosen, sha)
    ).fetchone()
    if same is not None and not same["active"] and name is None:
        raise refuse(
            f"{text} is an earlier version of the entrant {chosen!r}: to make it play again in place "
            f"of the current one, add it with --name {chosen!r}"
        )
    if same is not None:
        if not same["active"]:  # an earlier version given again, by the organiser: it plays again
            with connection:
                connection.execute("UPDATE entries SET active = 0 WHERE name = ?", (chosen,))
                connection.execute("UPDATE entries SET active = 1 WHERE id = ?", (same["id"],))
            same = connection.execute("SELECT * FROM entries WHERE id = ?", (same["id"],)).fetchone()
            return entry_of(same), "again"
        return entry_of(same), "same"
    current = connection.execute(
        "SELECT spec FROM entries WHERE name = ? AND active = 1", (chosen,)
    ).fetchone()
    if current is not None and name is None:
        # An entry's own name never replaces an entrant, not even from the same path (a second
        # submission saved over the first): only the organiser's --name makes a new version.
        raise refuse(
            f"{text} calls itself {chosen!r}, the name of the entrant added from {current['spec']}: "
            f"to make it {chosen}'s new version, add it with --name {chosen!r}; else give it another --name"
        )
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
    return entry_of(row), "added"


def _standing(connection: sqlite3.Connection, name: str) -> str:
    """The word for the entrant ``name`` in a message: retired or active."""
    return "retired" if name in retired_names(connection) else "active"


def active_entries(connection: sqlite3.Connection) -> list[Entry]:
    """The entries that play: each entrant's current version, retired entrants' left out
    (:mod:`arena.leagues.retirement`)."""
    rows = connection.execute(
        "SELECT * FROM entries WHERE active = 1 AND name NOT IN (SELECT name FROM retirements) ORDER BY id"
    ).fetchall()
    return [entry_of(r) for r in rows]


def all_entries(connection: sqlite3.Connection) -> list[Entry]:
    """Every version of every entrant, retired ones too (a run's lookups: an entry a plan seats
    may be retired while the run plays, by an add or an upload)."""
    rows = connection.execute("SELECT * FROM entries ORDER BY id").fetchall()
    return [entry_of(r) for r in rows]
