"""Seat logs that travel: what isolated players wrote to stderr on a worker machine, brought
back with the chunk that made it and appended to the run's ``seat-logs/`` by the main process.

A worker may share no filesystem with the organiser, so its seat processes log to a private
folder of the process that plays its chunks (:mod:`arena.tournaments.chunk_host`), which hands
each chunk's logs back with its rows.  The main process appends them in game order (so the
logs of a run are the same whatever worker played what) and holds each player's whole log to
the same cap as a local run: ``SeatLimits.file_size_mb``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from arena.safe_files import make_folder, open_file, open_read
from arena.sandbox.seats import log_name

#: Written once where a player's log reaches its cap (the words of a local run's logs).
LEFT_OUT = b"\n[arena: the rest of this player's stderr is left out]\n"

#: One chunk's logs: (player index, what its seat processes wrote), players in index order.
ChunkLogs = tuple[tuple[int, bytes], ...]


def take_logs(folder: Path | None, labels: tuple[str, ...], cap: int) -> ChunkLogs:
    """What each player's seats wrote to ``folder`` since the last call (at most ``cap`` bytes
    each, as the seats capped it), removed from ``folder`` so the next chunk starts afresh."""
    if folder is None:
        return ()
    logs = []
    for index, label in enumerate(labels):
        path = folder / log_name(label)
        try:
            with open_read(path) as log:
                data = log.read(cap + len(LEFT_OUT))
            path.unlink()
        except OSError:
            continue
        if data:
            logs.append((index, data))
    return tuple(logs)


def append_logs(folder: Path | None, labels: tuple[str, ...], logs: ChunkLogs, cap: int) -> None:
    """Append one chunk's ``logs`` to each player's log in ``folder``, none past ``cap`` bytes
    (the rest is left out, and :data:`LEFT_OUT` says so once).  Labels come from the spec, so a
    log's name is never one a worker chose; logs are written as every file of a run folder is
    (:mod:`arena.safe_files`: never through a link, never into anything but a regular file)."""
    if folder is None or not logs:
        return
    make_folder(folder)
    for index, data in logs:
        if not 0 <= index < len(labels):
            continue
        path = folder / log_name(labels[index])
        with contextlib.suppress(OSError), open_file(path, "ab") as log:
            room = cap - log.tell()
            if room <= 0:
                continue
            if len(data) > room:
                data = data[:room] + LEFT_OUT
            log.write(data)
