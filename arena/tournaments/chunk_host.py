"""The process a Dask worker starts to play its chunks exactly as the local backend does.

The processes of a Dask run, on each worker machine::

    Dask worker   runs a task per chunk in a thread; never runs strategy code; one host per
    │             task thread, kept for the run
    └─ host       a fresh Python (``execve``), so none of the worker's threads or memory: the
       │          local backend's main process in miniature, a
       │          :class:`~arena.tournaments.supervisor.ChunkPool` of one template
       └─ template as locally: forks a fresh chunk process per chunk (and per re-play) and
          │       kills one whose call overran the move timeout plus the grace
          └─ chunk   plays the games; its isolated players' seat processes start here, on
                     the worker machine, behind the same walls as locally

So a chunk on Dask starts from the same clean state, under the same external deadline, with
the same re-play of a killed call as a timeout, and gives the same bytes.  The host talks to
its worker over two pipes whose descriptors it closes in every process it forks, so no chunk
process can write to the worker.  Isolated players' stderr goes to a private folder of the
host and travels back with the chunk's rows (:mod:`arena.tournaments.seat_logs`).
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import NoReturn

from arena.players.loading import StrategyError
from arena.players.match import one_line
from arena.sandbox import SeatPlace, protect_this_process
from arena.tournaments.chunks import Job
from arena.tournaments.portable import missing_here, rebuilt_spec
from arena.tournaments.results import BatchResult
from arena.tournaments.seat_logs import ChunkLogs, take_logs
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.supervisor import BatchFailed, ChunkPool, die_with_parent

#: How a worker starts a host: its own import path, then ``main``'s arguments.
BOOT = (
    "import sys,json;sys.path[:]=json.loads(sys.argv[1]);"
    "from arena.tournaments.chunk_host import main;main(sys.argv[2:])"
)


@dataclass(frozen=True)
class HostSetup:
    """What a host needs for one run: sent once, when it starts."""

    spec: TournamentSpec  # portable (:func:`arena.tournaments.portable.portable_spec`)
    every: int | None  # games per result (a chunk's results come in pieces of that many)
    hidden: tuple[Path, ...]  # folders no seat may see (the run folder, if this machine has it)
    logs: bool  # bring isolated players' stderr back with each chunk
    cwd: str  # the organiser's working directory: the seats' too, where this machine has it
    apart: tuple[Path, ...] = ()  # folders each seat sees only if its own files are there


@dataclass(frozen=True)
class ChunkOutcome:
    """One chunk's results in game order, its seat logs, and why it stopped short (or None)."""

    results: tuple[BatchResult, ...]
    logs: ChunkLogs = ()
    failure: str | None = None


def main(argv: list[str]) -> None:
    """The host: ``argv`` is the worker's pid and the descriptors of its two pipes."""
    parent, commands_fd, results_fd = (int(a) for a in argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the organiser's to handle
    signal.signal(signal.SIGTERM, _stop)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:  # the worker died before the line above
        return
    for fd in (commands_fd, results_fd):
        os.set_inheritable(fd, False)  # no seat program inherits them
    commands = Connection(commands_fd, writable=False)
    results = Connection(results_fd, readable=False)

    def forget_pipes() -> None:  # in every fork: templates, chunks, seats' reapers
        commands.close()
        results.close()

    os.register_at_fork(after_in_child=forget_pipes)
    _Host(commands, results).serve()


def _stop(signum: int, frame: object) -> NoReturn:
    # Once: a second SIGTERM (the worker's, after its death signal) must not cut the clean-up.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(0)  # the pool and the private folder are cleaned up on the way out


class _Host:
    def __init__(self, commands: Connection, results: Connection) -> None:
        self.commands = commands
        self.results = results

    def _send(self, message: object) -> None:
        self.results.send_bytes(pickle.dumps(message))

    def serve(self) -> None:
        setup: HostSetup = pickle.loads(self.commands.recv_bytes())
        if setup.spec.isolated:
            protect_this_process()  # as arena's main process: seats can't read its memory
        if Path(setup.cwd).is_dir():
            os.chdir(setup.cwd)
        try:
            spec = rebuilt_spec(setup.spec)
            problem = missing_here(spec)
        except StrategyError as exc:
            problem = str(exc)
        if problem is not None:
            self._send(("failed", problem))
            return
        cap = spec.seat_limits.file_size_mb * 1024 * 1024 if spec.seat_limits is not None else 0
        pool: ChunkPool | None = None
        private: Path | None = None
        try:
            private = Path(tempfile.mkdtemp(prefix="arena-host-"))
            place = SeatPlace(
                private / "seat-logs" if setup.logs else None, (*setup.hidden, private), apart=setup.apart
            )
            self._send(("ready", None))
            while True:
                try:
                    job: Job | None = pickle.loads(self.commands.recv_bytes())
                except (EOFError, OSError):
                    return
                if job is None:
                    return
                played: tuple[BatchResult, ...] = ()
                failure: str | None = None
                try:
                    if pool is None:
                        pool = ChunkPool(spec, 1, setup.every, place)
                    played, failure = _play(pool, job)
                except Exception as exc:  # arena's own failure, never a strategy's: those are faults
                    failure = f"arena failed on games {job.emit_from:,} to {job.stop - 1:,}: {one_line(exc)}"
                if failure is not None and pool is not None:
                    # Its template may be gone: the next chunk gets a new pool.
                    pool.close(graceful=False)
                    pool = None
                self._send(ChunkOutcome(played, take_logs(place.log_folder, spec.labels, cap), failure))
        finally:
            if pool is not None:
                pool.close(graceful=False)
            if private is not None:
                shutil.rmtree(private, ignore_errors=True)


def _play(pool: ChunkPool, job: Job) -> tuple[tuple[BatchResult, ...], str | None]:
    """The results of ``job``'s games, and why they stop short of its end (None if they don't)."""
    played: list[BatchResult] = []
    try:
        for result in pool.results(job.emit_from, job.stop):
            played.append(result)
    except BatchFailed as exc:
        return tuple(played), str(exc)
    return tuple(played), None
