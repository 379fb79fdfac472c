"""Run a tournament's batches on a Dask distributed cluster.

Same tasks as the local backend (ranges of game numbers), same results in the same order, so
the files are byte-identical to a local run.  A worker that dies mid-batch costs nothing: the
scheduler runs its batch again elsewhere (a batch is deterministic, so the retry plays the same
games), and each batch is written once, when its turn in game order comes.

``dask[distributed]`` is an optional extra, imported only here.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.distribution import install_hint
from arena.players import PlayerSpec, load_player_spec, match
from arena.tournament.batch import BatchPlayer, BatchResult
from arena.tournament.runner import BatchFailed
from arena.tournament.spec import TournamentSpec
from arena.tournament.warm import warm_solvers

INSTALL_HINT = f"--backend dask needs dask.distributed: {install_hint('dask')}"
#: How long to try reaching a scheduler before giving up.
CONNECT_TIMEOUT = "10s"
#: Tasks in flight per worker thread: enough to keep every worker busy, few enough that finished
#: batches waiting for their turn stay small.
TASKS_PER_THREAD = 4


class DaskBackendError(Exception):
    """The Dask backend can't be used; the message is one line."""


@dataclasses.dataclass(frozen=True)
class _FilePlayer:
    """A strategy from a file, sent as its absolute path: workers load the file themselves."""

    text: str
    label: str


def _portable(spec: TournamentSpec) -> TournamentSpec:
    players: list[PlayerSpec | _FilePlayer] = []
    for player in spec.players:
        if player.source == "file":
            ref, sep, rest = player.text.partition(".py")
            text = str(Path(ref + ".py").resolve()) + rest if sep else str(Path(player.text).resolve())
            players.append(_FilePlayer(text, player.label))
        else:
            players.append(player)
    portable = object.__new__(TournamentSpec)  # skip validation: the spec was validated already
    for f in dataclasses.fields(TournamentSpec):
        object.__setattr__(portable, f.name, getattr(spec, f.name))
    object.__setattr__(portable, "players", tuple(players))
    return portable


def _rebuild(portable: TournamentSpec) -> TournamentSpec:
    players = []
    for player in portable.players:
        if isinstance(player, _FilePlayer):
            loaded = load_player_spec(player.text)
            player = dataclasses.replace(loaded, label=player.label)
        players.append(player)
    return dataclasses.replace(portable, players=tuple(players))


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


_PLAYERS: dict[str, BatchPlayer] = {}


def _play_on_worker(portable: TournamentSpec, tag: str, start: int, stop: int) -> BatchResult:
    match.strategy_interrupts_are_faults = True  # a Dask worker's KeyboardInterrupt is a strategy's
    if tag not in _PLAYERS:  # one spec per worker at a time, keyed by its fingerprint
        _PLAYERS.clear()
        _PLAYERS[tag] = BatchPlayer(_rebuild(portable))
    return _PLAYERS[tag].play(start, stop)


@contextmanager
def dask_batch_results(
    spec: TournamentSpec, tasks: list[tuple[int, int]], *, scheduler: str | None, workers: int
) -> Iterator[Iterator[BatchResult]]:
    """Like the local backend's batch results, computed on a Dask cluster: the one at
    ``scheduler``, or a LocalCluster of ``workers`` processes on this machine."""
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
    try:
        # The spec travels with every task (a few kilobytes against a thousand games): scattered
        # once, it would be lost if every worker holding it died.
        threads = sum(client.nthreads().values()) or 1
        yield _in_order(client, _portable(spec), tasks, TASKS_PER_THREAD * threads, spec.fingerprint()[:16])
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _in_order(client, portable, tasks: list[tuple[int, int]], window: int, tag: str) -> Iterator[BatchResult]:
    """Submit tasks a window ahead and yield their results in task order."""
    pending: deque = deque()
    queued = iter(tasks)

    def submit_next() -> None:
        task = next(queued, None)
        if task is not None:
            start, stop = task
            future = client.submit(
                _play_on_worker,
                portable,
                tag,
                start,
                stop,
                key=f"arena-{tag}-{start}-{stop}",
                retries=3,
                pure=False,
            )
            pending.append((start, stop, future))

    for _ in range(window):
        submit_next()
    try:
        while pending:
            start, stop, future = pending.popleft()
            try:
                result = future.result()
            except Exception as exc:  # the cluster gave up: retries spent, or workers kept dying
                detail = " ".join(str(exc).split()) or type(exc).__name__
                raise BatchFailed(
                    f"the Dask cluster could not play games {start:,} to {stop - 1:,}: "
                    f"{type(exc).__name__}: {detail}"
                ) from None
            future.release()
            submit_next()
            yield result
    finally:
        for _, _, future in pending:
            future.cancel()
