"""The record of a league's latest ``league run``, for the live page: is a run playing now, how
far has it got, and when did the league last change.

The record is one JSON value in the database's ``meta`` table (key :data:`RUN_KEY`), so no
schema change: the process id and host of the run, its process's start time (as the kernel
counts it, ``/proc/PID/stat``), when it started, when it last stored games, how many it planned
and stored, and when and how it ended.  A run killed by ``kill -9`` never writes its end, so the
record alone can't say a run is playing: :func:`run_state` also asks whether that process is
still alive and is still the same process (a process id can be reused; the start time tells
them apart).  A run is written at its start, at most every :data:`WRITE_SECONDS` while it
stores games, and at its end (docs/league.md, "The live page").
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

#: The ``meta`` key of the run record.
RUN_KEY = "run"
#: Seconds between two writes of a run's progress (each write is a transaction on disk).
WRITE_SECONDS = 1.0


@dataclass(frozen=True)
class RunRecord:
    """A ``league run`` as the database remembers it; times are ISO 8601 in UTC."""

    pid: int
    host: str
    process_start: int | None  # the kernel's start time of the process, or None where unknown
    started: str
    updated: str  # when games were last stored: by this run, else by the run before (or its start)
    planned: int  # games the run set out to play
    stored: int  # games it has stored so far
    ended: str | None = None
    outcome: str | None = None  # "finished" or "stopped" (Ctrl-C, SIGTERM, an error)


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks since boot (``/proc/PID/stat``'s 22nd
    field), or None if there is no such process or no ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()  # the command name may hold spaces and brackets
    try:
        return int(fields[19])  # field 22, counting from the state (field 3)
    except (IndexError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    except (OSError, OverflowError):  # OverflowError: an id no process can have
        return False
    return True


def run_state(record: RunRecord) -> str:
    """``"running"``, ``"finished"``, ``"stopped"`` (it said it stopped), ``"killed"`` (it ended
    without saying so: its process is gone, or the id now names another process) or
    ``"elsewhere"`` (not ended, on another host: this machine can't tell whether it runs)."""
    if record.ended is not None:
        return "finished" if record.outcome == "finished" else "stopped"
    if record.host != socket.gethostname():
        return "elsewhere"
    if record.pid <= 0 or not _alive(record.pid):
        return "killed"
    if record.process_start is not None and process_start(record.pid) != record.process_start:
        return "killed"
    return "running"


def read_run(connection: sqlite3.Connection) -> RunRecord | None:
    """The latest run's record; None if the league was never run (or the record is damaged: a
    hand-edited or hostile database shows no run rather than failing a page)."""
    row = connection.execute("SELECT value FROM meta WHERE key = ?", (RUN_KEY,)).fetchone()
    if row is None:
        return None
    try:
        data = json.loads(row[0])
        record = RunRecord(**data)
    except (TypeError, ValueError):
        return None
    ints = (record.pid, record.planned, record.stored)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in ints):
        return None
    texts = (record.host, record.started, record.updated)
    if not all(isinstance(v, str) for v in texts):
        return None
    return record


def _write(connection: sqlite3.Connection, record: RunRecord) -> None:
    with connection:
        connection.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", (RUN_KEY, json.dumps(asdict(record), sort_keys=True))
        )


class RunRecorder:
    """Writes the record of the run this process plays: :meth:`stored` after each batch (at
    most every :data:`WRITE_SECONDS`), :meth:`end` once."""

    def __init__(self, connection: sqlite3.Connection, planned: int) -> None:
        self.connection = connection
        started = now_text()
        before = read_run(connection)  # a run that stores nothing leaves the last change alone
        self.record = RunRecord(
            pid=os.getpid(),
            host=socket.gethostname(),
            process_start=process_start(os.getpid()),
            started=started,
            updated=started if before is None else before.updated,
            planned=planned,
            stored=0,
        )
        self._written = time.monotonic()
        _write(connection, self.record)

    def _replace(self, **changes: Any) -> None:
        self.record = RunRecord(**{**asdict(self.record), **changes})

    def planned(self, games: int) -> None:
        """The entries are loaded and ``games`` are planned: written at once."""
        self._replace(planned=games)
        _write(self.connection, self.record)
        self._written = time.monotonic()

    def plan_more(self, games: int) -> None:
        """``games`` more are planned: a ladder plans a round at a time (arena.leagues.ladder)."""
        self._replace(planned=self.record.planned + games)
        _write(self.connection, self.record)
        self._written = time.monotonic()

    def stored(self, games: int) -> None:
        """``games`` more are stored."""
        self._replace(stored=self.record.stored + games, updated=now_text())
        if time.monotonic() - self._written >= WRITE_SECONDS:
            _write(self.connection, self.record)
            self._written = time.monotonic()

    def end(self, finished: bool) -> None:
        """The run ends: ``finished`` (it played what it planned) or stopped."""
        self._replace(ended=now_text(), outcome="finished" if finished else "stopped")
        _write(self.connection, self.record)
