"""The Dask backend's overhead against the local one, for the same tournament on this machine.

    python benchmarks/dask_overhead.py [--games 2000]

Two threshold bots and optimal on standard, round-robin, two workers either way.  Both start
cold (fresh worker processes); the Dask figure is with its LocalCluster already running (as with
a cluster you point --scheduler at), and the time to start one (what `--backend dask` alone
pays) is printed separately.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from arena.engine import STANDARD
from arena.players import load_player_spec
from arena.tournaments import TournamentSpec, run_tournament
from arena.tournaments.run_folder import RunFolder


def timed(spec: TournamentSpec, **options: object) -> float:
    root = Path(tempfile.mkdtemp())
    try:
        folder = RunFolder.create(root / "run", spec)
        began = time.perf_counter()
        run_tournament(spec, folder, progress=False, **options)
        return time.perf_counter() - began
    finally:
        shutil.rmtree(root)


def dask_timed(spec: TournamentSpec) -> tuple[float, float]:
    """(cluster start-up, run) on a fresh LocalCluster: cold workers, as the local pool's are."""
    from dask.distributed import Client, LocalCluster

    began = time.perf_counter()
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        start_up = time.perf_counter() - began
        return start_up, timed(spec, backend="dask", scheduler=cluster.scheduler_address)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    players = tuple(load_player_spec(p) for p in ("threshold", "threshold:bank_at=400", "optimal"))
    spec = TournamentSpec((STANDARD,), players, games=args.games, seed=1)
    total = 3 * spec.games
    local, remote, start_ups = [], [], []
    for _ in range(args.repeat):  # alternate, so load on the machine hits both alike
        local.append(timed(spec, workers=2))
        start_up, run = dask_timed(spec)
        start_ups.append(start_up)
        remote.append(run)
    best_local, best_remote = min(local), min(remote)
    print(f"{total:,} games (round-robin of 3 on standard), 2 workers, best of {args.repeat}")
    print(f"  local (supervised):   {best_local:6.2f} s  {total / best_local:7,.0f} games/s")
    print(
        f"  dask (LocalCluster):  {best_remote:6.2f} s  {total / best_remote:7,.0f} games/s  "
        f"overhead {100 * (best_remote / best_local - 1):+.1f}%"
    )
    print(f"  starting the LocalCluster: {min(start_ups):.2f} s (paid once by --backend dask alone)")


if __name__ == "__main__":
    main()
