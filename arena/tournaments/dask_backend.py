"""Run a tournament's chunks on a Dask distributed cluster, with the local backend's guarantees.

The unit of work is the local backend's: a chunk of ``spec.chunk_games`` consecutive games.
Each Dask task hands one chunk to a fresh host process on its worker
(:mod:`arena.tournaments.chunk_host`), which plays it in a fresh, supervised chunk process as a
local worker does: the same reset of class and module state at every chunk, the same hard
deadline (a call past the move timeout plus the grace is killed and the chunk re-played with
that call as a timeout), isolated players' seat processes started on the worker machine.  The
results come back in game order, so the files are byte-identical to a local run.  A worker
that dies mid-chunk costs nothing: the scheduler runs its chunk again elsewhere (a chunk is
deterministic), and each chunk is written once, when its turn in game order comes.  Seat logs
travel back with their chunk and are appended here (:mod:`arena.tournaments.seat_logs`).

``dask[distributed]`` is an optional extra, imported only here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import signal
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from arena.distribution import install_hint
from arena.sandbox import NOWHERE, SeatPlace
from arena.tournaments.batch import BatchResult
from arena.tournaments.chunk_host import ChunkOutcome, HostSetup
from arena.tournaments.chunks import Job, chunk_jobs
from arena.tournaments.portable import portable_spec
from arena.tournaments.seat_logs import append_logs
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.supervisor import BatchFailed
from arena.tournaments.warm import warm_solvers
from arena.tournaments.worker_hosts import close_hosts, play_job

INSTALL_HINT = f"--backend dask needs dask.distributed: {install_hint('dask')}"
#: How long to try reaching a scheduler before giving up.
CONNECT_TIMEOUT = "10s"
#: Chunks in flight per worker thread: enough to keep every worker busy, few enough that
#: finished chunks waiting for their turn stay small.
TASKS_PER_THREAD = 2


class DaskBackendError(Exception):
    """The Dask backend can't be used; the message is one line."""


def _local_cluster(local_cluster: type, workers: int):
    """A LocalCluster whose worker processes ignore Ctrl-C: as with the local backend, the main
    process handles it and stops them (an ignored SIGINT is inherited, and Python keeps it)."""
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if in_main else None
    try:
        return local_cluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)


@contextmanager
def dask_batch_results(
    spec: TournamentSpec,
    start: int,
    stop: int,
    *,
    batch_size: int | None = None,
    scheduler: str | None,
    workers: int,
    place: SeatPlace = NOWHERE,
) -> Iterator[Iterator[BatchResult]]:
    """Like the local backend's batch results, computed on a Dask cluster: the one at
    ``scheduler``, or a LocalCluster of ``workers`` processes on this machine.  ``place``: the
    run's seat-log folder (logs are appended there, here) and the folders seats must not see
    (hidden on every worker that has them)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise DaskBackendError(INSTALL_HINT) from None
    # Solved here, perfect's tables are on this machine's disk for a LocalCluster's workers.
    warm_solvers(spec, forking=False)
    cluster = None
    try:
        if scheduler is None:
            cluster = _local_cluster(LocalCluster, workers)
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        where = f"the Dask scheduler at {scheduler}" if scheduler else "a local Dask cluster"
        raise DaskBackendError(f"cannot reach {where}: {' '.join(str(exc).split())}") from None
    setup = HostSetup(
        portable_spec(spec),
        batch_size,
        tuple(place.hidden),
        place.log_folder is not None,
        os.getcwd(),
        tuple(place.apart),
    )
    # One name per run: its hosts are its own, even beside another run of the same spec.
    run = hashlib.sha256(f"{spec.fingerprint()}:{secrets.token_hex(8)}".encode()).hexdigest()[:20]
    try:
        # The setup travels with every task (a few kilobytes against a chunk of games):
        # scattered once, it would be lost if every worker holding it died.
        threads = sum(client.nthreads().values()) or 1
        jobs = chunk_jobs(start, stop, spec.chunk_games)
        yield _in_order(client, run, setup, jobs, TASKS_PER_THREAD * threads, spec, place)
    finally:
        with contextlib.suppress(Exception):
            client.run(close_hosts, run)
        client.close()
        if cluster is not None:
            cluster.close()


def _in_order(
    client,
    run: str,
    setup: HostSetup,
    jobs: Iterator[Job],
    window: int,
    spec: TournamentSpec,
    place: SeatPlace,
) -> Iterator[BatchResult]:
    """Submit chunks a window ahead and yield their results in game order; append each
    chunk's seat logs before its last result."""
    pending: deque = deque()
    cap = spec.seat_limits.file_size_mb * 1024 * 1024 if spec.seat_limits is not None else 0

    def submit_next() -> None:
        job = next(jobs, None)
        if job is not None:
            future = client.submit(
                play_job,
                run,
                setup,
                job,
                key=f"arena-{run}-{job.first}-{job.emit_from}",
                retries=3,
                pure=False,
            )
            pending.append((job, future))

    for _ in range(window):
        submit_next()
    try:
        while pending:
            job, future = pending.popleft()
            try:
                outcome: ChunkOutcome = future.result()
            except Exception as exc:  # the cluster gave up: retries spent, or workers kept dying
                detail = " ".join(str(exc).split()) or type(exc).__name__
                raise BatchFailed(
                    f"the Dask cluster could not play games {job.emit_from:,} to {job.stop - 1:,}: "
                    f"{type(exc).__name__}: {detail}"
                ) from None
            future.release()
            submit_next()
            *pieces, last = outcome.results or (None,)
            yield from pieces
            append_logs(place.log_folder, spec.labels, outcome.logs, cap)
            if last is not None:
                yield last
            if outcome.failure is not None:
                raise BatchFailed(outcome.failure)
    finally:
        for _, future in pending:
            future.cancel()
