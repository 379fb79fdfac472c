"""The Dask worker's side of a run: one chunk host per task thread, started for the run.

A Dask task calls :func:`play_job`, which hands the chunk to this thread's host
(:mod:`arena.tournaments.chunk_host`) and waits for its outcome.  A host is started with the
run's setup at the first chunk a thread gets, kept for that run's next chunks (its template
holds the loaded players and score tables, as a local worker slot does), and replaced if it
dies.  The organiser stops a run's hosts on every worker when the run ends
(:func:`close_hosts`); a host also ends with its worker (Linux's parent-death signal) and when
its pipe closes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import cast

from arena.sandbox import protect_this_process
from arena.tournaments.chunk_host import BOOT, ChunkOutcome, HostSetup
from arena.tournaments.chunks import Job

#: Seconds a host has to stop when told to, before it is killed.
STOP_SECONDS = 5.0


class HostDied(Exception):
    """The host's process ended (or its pipe broke) before it answered."""


class ChunkHost:
    """A host process and the two pipes to it."""

    def __init__(self, setup: HostSetup) -> None:
        commands_r, commands_w = os.pipe()
        results_r, results_w = os.pipe()
        try:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    BOOT,
                    json.dumps([p for p in sys.path if p]),
                    str(os.getpid()),
                    str(commands_r),
                    str(results_w),
                ],
                pass_fds=(commands_r, results_w),
                stdin=subprocess.DEVNULL,
            )
        finally:
            os.close(commands_r)
            os.close(results_w)
        self.commands = Connection(commands_w, readable=False)
        self.results = Connection(results_r, writable=False)
        self.problem: str | None = None  # why it can't play this run here
        try:
            self.commands.send_bytes(pickle.dumps(setup))
            kind, payload = cast(tuple[str, object], self._receive())  # ("ready", None) or ("failed", why)
        except HostDied:
            self.close()
            raise
        if kind != "ready":
            self.problem = str(payload)
            self.close()

    def _receive(self) -> object:
        try:
            return pickle.loads(self.results.recv_bytes())
        except (EOFError, OSError):
            raise HostDied from None

    def play(self, job: Job) -> ChunkOutcome:
        try:
            self.commands.send_bytes(pickle.dumps(job))
        except OSError:
            raise HostDied from None
        outcome = self._receive()
        assert isinstance(outcome, ChunkOutcome)
        return outcome

    def close(self) -> None:
        """Stop the host (and, through it, its template, chunk and seat processes)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.commands.close()
        self.results.close()


_LOCK = threading.Lock()
#: Each task thread's host, with the run it plays for.
_HOSTS: dict[int, tuple[str, ChunkHost]] = {}
#: Runs whose hosts were stopped: a chunk of theirs still running is not retried here.
_CLOSED: set[str] = set()


def _host_for(run: str, setup: HostSetup) -> ChunkHost:
    thread = threading.get_ident()
    with _LOCK:
        held = _HOSTS.pop(thread, None)
    if held is not None:
        if held[0] == run and held[1].process.poll() is None:
            with _LOCK:
                _HOSTS[thread] = held
            return held[1]
        held[1].close()  # another run's, or dead
    host = ChunkHost(setup)
    if host.problem is None:
        with _LOCK:
            _HOSTS[thread] = (run, host)
    return host


def worker_folders() -> tuple[Path, ...]:
    """This Dask worker's own folder (where it may spill data), for seats not to see."""
    try:
        from distributed import get_worker

        return (Path(get_worker().local_directory).resolve(),)
    except (ImportError, ValueError, AttributeError):
        return ()


def play_job(run: str, setup: HostSetup, job: Job) -> ChunkOutcome:
    """Play one chunk (``job``) of ``run`` in this thread's host; a Dask task.

    A host that can't play the run here (a strategy file missing on this machine) gives an
    outcome with that one line as its failure.  A host that dies is replaced once; a second
    death raises, so the scheduler can try the chunk on another worker."""
    if setup.spec.isolated:
        protect_this_process()  # the worker holds the seed: no seat may read its memory
    setup = dataclasses.replace(setup, hidden=(*setup.hidden, *worker_folders()))
    for _ in range(2):
        host = None
        try:
            host = _host_for(run, setup)
            if host.problem is not None:
                return ChunkOutcome((), (), f"on the Dask worker {_where()}: {host.problem}")
            return host.play(job)
        except HostDied:
            if host is not None:
                _drop(host)
            if run in _CLOSED:
                break
    raise RuntimeError(
        f"the process playing games {job.emit_from:,} to {job.stop - 1:,} on {_where()} died twice"
    )


def _drop(host: ChunkHost) -> None:
    with _LOCK:
        for thread, (_, held) in list(_HOSTS.items()):
            if held is host:
                del _HOSTS[thread]
    host.close()


def close_hosts(run: str) -> int:
    """Stop every host of ``run`` in this worker; how many there were."""
    with _LOCK:
        _CLOSED.add(run)
        mine = [thread for thread, (owner, _) in _HOSTS.items() if owner == run]
        hosts = [_HOSTS.pop(thread)[1] for thread in mine]
    for host in hosts:
        host.close()
    return len(hosts)


def _where() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError, AttributeError):
        return os.uname().nodename
