"""Tournament speed, end to end with CSV writing: games per second on one and two workers.

    python benchmarks/tournament_speed.py [--games 20000]

Two `threshold` bots on `standard` (the issue's benchmark).  Prints games/s for --workers 1 and
--workers 2, the speed-up, and what shipping batches costs against playing them.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import dill

from arena.engine import STANDARD
from arena.players import load_player_spec
from arena.tournament import TournamentSpec, run_tournament
from arena.tournament.batch import BatchPlayer
from arena.tournament.run_folder import RunFolder


def timed_run(spec: TournamentSpec, workers: int) -> float:
    folder_path = Path(tempfile.mkdtemp()) / "run"
    try:
        folder = RunFolder.create(folder_path, spec)
        began = time.perf_counter()
        outcome = run_tournament(spec, folder, workers=workers, progress=False)
        seconds = time.perf_counter() - began
        assert outcome.games_written == outcome.games_total
        return seconds
    finally:
        shutil.rmtree(folder_path.parent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    args = parser.parse_args()
    threshold = load_player_spec("threshold")
    spec = TournamentSpec((STANDARD,), (threshold, threshold), games=args.games, seed=1)
    timed_run(TournamentSpec((STANDARD,), (threshold, threshold), games=200), 1)  # warm caches
    one = timed_run(spec, 1)
    two = timed_run(spec, 2)
    n = spec.games
    print(f"two threshold bots on standard, {n:,} games, end to end with CSV writing")
    print(f"  --workers 1: {n / one:8,.0f} games/s  ({one:.2f} s)")
    print(f"  --workers 2: {n / two:8,.0f} games/s  ({two:.2f} s)")
    print(f"  speed-up:    {one / two:8.2f}x")
    # What a task costs to ship (dill, both ways) against what it costs to play.
    player = BatchPlayer(spec)
    began = time.perf_counter()
    result = player.play(0, 1000)
    play = time.perf_counter() - began
    began = time.perf_counter()
    for _ in range(100):
        dill.loads(dill.dumps((0, 1000)))
        dill.loads(dill.dumps(result))
    ship = (time.perf_counter() - began) / 100
    print(
        f"  a 1,000-game task: {play * 1000:.0f} ms to play, {ship * 1000:.2f} ms to pickle and unpickle "
        f"({ship / play * 100:.2f}% overhead)"
    )


if __name__ == "__main__":
    main()
