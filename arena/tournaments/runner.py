"""Run a tournament: chunks of games in fresh processes, written in game order.

The unit of work is a chunk of ``spec.chunk_games`` consecutive games, each played in a fresh
process forked from a clean template (see :mod:`arena.tournaments.supervisor`), so a chunk always
starts from the same state and the same spec and seed give the same bytes for any number of
workers or batch size.  Chunks are generated lazily and only a few per worker are in flight, so
memory does not grow with ``--games``.  Results are written strictly in game order, whatever
order workers finish in.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tqdm import tqdm

from arena.sandbox import NOWHERE, SeatPlace
from arena.sandbox.cgroups import sweep_stale_groups
from arena.tournaments.batch import BatchResult
from arena.tournaments.chunks import chunk_count
from arena.tournaments.interrupts import StopState, stop_signals
from arena.tournaments.run_folder import RunFolder
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.supervisor import BatchFailed, ChunkPool

# The main process forks the templates: it must not have started tqdm's monitor thread (forking
# a process with threads is unsafe).  Bars here are updated at every chunk anyway.
tqdm.monitor_interval = 0

#: The folder of a run where each isolated player's stderr goes, one file per player.
SEAT_LOGS = "seat-logs"

__all__ = ["BACKENDS", "BatchFailed", "RunOutcome", "batch_results", "run_tournament"]


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


BACKENDS = ("local", "dask")


@contextmanager
def batch_results(
    spec: TournamentSpec,
    start: int,
    stop: int,
    workers: int,
    *,
    batch_size: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    place: SeatPlace = NOWHERE,
    while_waiting: Callable[[], object] | None = None,
) -> Iterator[Iterator[BatchResult]]:
    """The results of games start..stop-1 in game order, played in chunks on ``workers``
    processes, or on a Dask cluster with ``backend="dask"``.  ``batch_size``: games per result
    (a chunk's results come in pieces of that many; default: one per chunk).  Leaving the block
    early stops every process.  ``place``: where isolated players' seat processes write their
    stderr, and what they must not see.  ``while_waiting``: called once while the workers
    start, before the first result is in (local backend only)."""
    if backend == "dask":
        from arena.tournaments.dask_backend import dask_batch_results

        with dask_batch_results(
            spec, start, stop, batch_size=batch_size, scheduler=scheduler, workers=workers, place=place
        ) as results:
            yield results
        return
    if start >= stop:  # nothing left to play (a finished run resumed): nothing to fork
        yield iter(())
        return
    # Games always run in chunk processes, even with one worker: a strategy that kills its
    # process (os._exit, a crash in C) takes down a chunk process, never arena itself.
    pool = ChunkPool(
        spec, min(workers, max(1, chunk_count(start, stop, spec.chunk_games))), batch_size, place
    )
    drained = False

    def in_order() -> Iterator[BatchResult]:
        nonlocal drained
        yield from pool.results(start, stop, while_waiting)
        drained = True

    try:
        yield in_order()
    finally:
        # Close gracefully only when every game was consumed; a caller that stopped early
        # (a decided duel, Ctrl-C) doesn't wait for the chunks still in play.
        pool.close(graceful=drained)


def seat_place(folder: RunFolder | None) -> SeatPlace:
    """Seat processes of a run log to ``seat-logs/`` in its folder, and can't see the folder
    (with no folder, they log nowhere)."""
    if folder is None:
        return NOWHERE
    return SeatPlace(folder.path / SEAT_LOGS, (folder.path.resolve(),))


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
    while_waiting: Callable[[], object] | None = None,
) -> RunOutcome:
    """Play every game of ``spec`` not yet in ``folder`` and write it there.

    ``progress``: a tqdm bar on stderr (None: only when stderr is a terminal).  ``batch_size``:
    games per write (default: a chunk).  ``while_waiting``: the caller's own work, done once while
    the workers start (the CLI imports what its reports need).  Ctrl-C and SIGTERM stop cleanly:
    every batch written so far is kept and the outcome says ``interrupted`` (and ``terminated``
    for SIGTERM).
    """
    schedule = Schedule(spec)
    total = len(schedule)
    start = folder.completed_games
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
    stop = StopState()
    error = None
    try:
        with (
            stop_signals() as stop,
            batch_results(
                spec,
                start,
                total,
                workers,
                batch_size=batch_size,
                backend=backend,
                scheduler=scheduler,
                place=seat_place(folder),
                while_waiting=while_waiting,
            ) as results,
        ):
            for result in results:
                folder.append(result.rows, result.fault_details, result.stop - result.start, result.digest)
                written = result.stop
                faults += result.faults
                bar.update(result.stop - result.start)
                if on_batch is not None:
                    on_batch(result)
                if stop.stopped:  # a Ctrl-C whose exception Python lost (see interrupts.py)
                    raise KeyboardInterrupt
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (stop_signals makes it one)
        interrupted, terminated = True, stop.terminated
    except BatchFailed as exc:
        interrupted, error = True, str(exc)
    finally:
        # The folder's count, not the loop's: a signal held while a batch was appended fires as
        # soon as the append ends, before the loop could count that batch.
        written = folder.completed_games
        bar.close()
        folder.close()
        if spec.isolated:  # a run stopped by a signal may leave its seats' cgroups behind
            sweep_stale_groups()
    seconds = time.perf_counter() - began
    return RunOutcome(total, written, written - start, seconds, faults, interrupted, error, terminated)
