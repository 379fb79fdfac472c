"""Run a tournament: batches of games on worker processes, written in game order.

Workers are ``multiprocess`` processes (dill pickling, so strategy classes defined in a user's
own script travel too).  The spec goes to each worker once; a task is only a range of game
numbers, so the pickling cost stays far below the games' (about 1,000 games a task).  Results
are written strictly in game order, whatever order workers finish in, so the same spec and
seed give the same bytes for any number of workers or batch size.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tqdm import tqdm

from arena.players import match
from arena.tournament.batch import BatchPlayer, BatchResult
from arena.tournament.run_folder import RunFolder
from arena.tournament.schedule import Schedule
from arena.tournament.spec import TournamentSpec

#: Games per task, at most.  Large enough that shipping a task costs well under 1% of playing
#: it; small enough that progress is smooth and an interruption loses little.
MAX_BATCH = 1000


@dataclass(frozen=True)
class RunOutcome:
    games_total: int
    games_written: int  # in games.csv now, including games from before a resume
    games_played: int  # by this call
    seconds: float
    faults: int
    interrupted: bool  # stopped before its last game: Ctrl-C, SIGTERM or an error
    error: str | None = None  # why the run stopped early, if not by a signal
    terminated: bool = False  # stopped by SIGTERM (kill, a batch system's time limit)

    @property
    def games_per_second(self) -> float:
        return self.games_played / self.seconds if self.seconds > 0 else 0.0


def batch_ranges(
    start: int, stop: int, workers: int, batch_size: int | None = None
) -> Iterator[tuple[int, int]]:
    """Split games start..stop-1 into tasks: ``batch_size`` each, or about eight per worker up
    to :data:`MAX_BATCH` games."""
    remaining = stop - start
    size = batch_size or max(1, min(MAX_BATCH, -(-remaining // (8 * workers))))
    for first in range(start, stop, size):
        yield first, min(stop, first + size)


_WORKER: BatchPlayer | None = None


def _init_worker(spec: TournamentSpec) -> None:
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    # A forked worker inherits the main process's SIGTERM handler; the pool stops its workers
    # with SIGTERM, which must end them, not raise in them.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    match.strategy_interrupts_are_faults = True
    _WORKER = BatchPlayer(spec)


def _play(task: tuple[int, int]) -> BatchResult:
    assert _WORKER is not None
    return _WORKER.play(*task)


BACKENDS = ("local", "dask")


@contextmanager
def batch_results(
    spec: TournamentSpec,
    tasks: list[tuple[int, int]],
    workers: int,
    *,
    backend: str = "local",
    scheduler: str | None = None,
) -> Iterator[Iterator[BatchResult]]:
    """The results of ``tasks`` in task order, computed on ``workers`` processes (in this process
    for one), or on a Dask cluster with ``backend="dask"``.  Leaving the block early stops the
    workers."""
    if backend == "dask":
        from arena.tournament.dask_backend import dask_batch_results

        with dask_batch_results(spec, tasks, scheduler=scheduler, workers=workers) as results:
            yield results
        return
    # Games always run in worker processes, even with one worker: a strategy that kills its
    # process (os._exit, a crash in C) then takes a worker down, never arena itself.
    import multiprocess as multiprocessing  # imported here: a serial run doesn't pay for it
    from multiprocess import Pool

    pool = Pool(max(1, min(workers, len(tasks))), initializer=_init_worker, initargs=(spec,))
    drained = False

    def in_order() -> Iterator[BatchResult]:
        nonlocal drained
        results = pool.imap(_play, tasks)  # in task order, computed in parallel
        workers_at_start = _worker_pids(pool)
        for start, stop in tasks:
            while True:
                try:
                    yield results.next(timeout=0.5)
                    break
                except multiprocessing.TimeoutError:
                    # The pool replaces a worker that died (a strategy called os._exit or crashed
                    # the interpreter) but its task is lost: waiting longer would hang forever.
                    if _worker_pids(pool) != workers_at_start:
                        raise BatchFailed(
                            f"a worker process died while playing games {start:,} to {stop - 1:,} "
                            "(a strategy may have called os._exit or crashed Python)"
                        ) from None
        drained = True

    try:
        yield in_order()
    finally:
        # Close gracefully only when every task was consumed; a caller that stopped early
        # (a decided duel, Ctrl-C) doesn't wait for the tasks still queued.
        if drained:
            pool.close()
        else:
            pool.terminate()
        pool.join()


class BatchFailed(RuntimeError):
    """A batch could not be played (its worker process died, or a Dask cluster gave up on it);
    the message is one line."""


def _worker_pids(pool: object) -> set[int]:
    return {process.pid for process in pool._pool}  # type: ignore[attr-defined]


class Terminated(BaseException):
    """SIGTERM arrived: the run stops as it does for Ctrl-C.  A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` on the way (a Dask wait) swallows it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextmanager
def sigterm_stops_the_run() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (in the main thread only: elsewhere
    Python can't set a handler, and SIGTERM keeps its effect)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_tournament(
    spec: TournamentSpec,
    folder: RunFolder,
    *,
    workers: int = 1,
    batch_size: int | None = None,
    progress: bool | None = None,
    on_batch: Callable[[BatchResult], None] | None = None,
    backend: str = "local",
    scheduler: str | None = None,
) -> RunOutcome:
    """Play every game of ``spec`` not yet in ``folder`` and write it there.

    ``progress``: a tqdm bar on stderr (None: only when stderr is a terminal).  Ctrl-C and
    SIGTERM stop cleanly: every batch written so far is kept and the outcome says
    ``interrupted`` (and ``terminated`` for SIGTERM).
    """
    schedule = Schedule(spec)
    total = len(schedule)
    start = folder.completed_games
    tasks = list(batch_ranges(start, total, workers, batch_size))
    bar = tqdm(
        total=total,
        initial=start,
        unit="game",
        file=sys.stderr,
        smoothing=0.1,
        dynamic_ncols=True,
        disable=(not sys.stderr.isatty()) if progress is None else not progress,
    )
    written = start
    faults = 0
    began = time.perf_counter()
    interrupted = terminated = False
    error = None
    try:
        with (
            sigterm_stops_the_run(),
            batch_results(spec, tasks, workers, backend=backend, scheduler=scheduler) as results,
        ):
            for result in results:
                folder.append(result.rows, result.fault_details)
                written = result.stop
                faults += result.faults
                bar.update(result.stop - result.start)
                if on_batch is not None:
                    on_batch(result)
    except KeyboardInterrupt:
        interrupted = True
    except Terminated:
        interrupted = terminated = True
    except BatchFailed as exc:
        interrupted, error = True, str(exc)
    finally:
        bar.close()
        folder.close()
    seconds = time.perf_counter() - began
    return RunOutcome(total, written, written - start, seconds, faults, interrupted, error, terminated)
