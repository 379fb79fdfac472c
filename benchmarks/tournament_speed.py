"""Tournament speed, end to end with CSV writing, and what the supervised chunk processes cost.

    python benchmarks/tournament_speed.py [--games 20000]

1. Two `threshold` bots on `standard` (the issue's benchmark): games/s for --workers 1 and
   --workers 2, and the speed-up.
2. Fork per chunk: `threshold` against `greedy` on `standard` on one worker, all games in one
   chunk process against the default chunk size (and a smaller one): games/s and CPU seconds
   (this process and every child), best of three, and the cost of one chunk process.
3. The shared-memory board: the two integer stores per strategy call a supervisor reads,
   against the time of one decision.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
import timeit
from pathlib import Path

from arena.engine import STANDARD
from arena.players import load_player_spec
from arena.players.match import Guard
from arena.tournament import TournamentSpec, run_tournament
from arena.tournament.batch import BatchPlayer
from arena.tournament.run_folder import RunFolder
from arena.tournament.spec import DEFAULT_CHUNK_GAMES


def cpu_seconds() -> float:
    """CPU time of this process and of every child it has reaped."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_run(spec: TournamentSpec, workers: int) -> tuple[float, float]:
    """Wall and CPU seconds of one run, end to end."""
    folder_path = Path(tempfile.mkdtemp()) / "run"
    try:
        folder = RunFolder.create(folder_path, spec)
        cpu = cpu_seconds()
        began = time.perf_counter()
        outcome = run_tournament(spec, folder, workers=workers, progress=False)
        seconds = time.perf_counter() - began
        assert outcome.games_written == outcome.games_total
        return seconds, cpu_seconds() - cpu
    finally:
        shutil.rmtree(folder_path.parent)


def best_of(runs: int, spec: TournamentSpec, workers: int) -> tuple[float, float]:
    results = [timed_run(spec, workers) for _ in range(runs)]
    return min(r[0] for r in results), min(r[1] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    args = parser.parse_args()
    n = args.games
    threshold, greedy = load_player_spec("threshold"), load_player_spec("greedy")
    spec = TournamentSpec((STANDARD,), (threshold, threshold), games=n, seed=1)
    timed_run(TournamentSpec((STANDARD,), (threshold, threshold), games=200), 1)  # warm caches
    one, _ = timed_run(spec, 1)
    two, _ = timed_run(spec, 2)
    print(f"two threshold bots on standard, {n:,} games, end to end with CSV writing")
    print(f"  --workers 1: {n / one:8,.0f} games/s  ({one:.2f} s)")
    print(f"  --workers 2: {n / two:8,.0f} games/s  ({two:.2f} s)")
    print(f"  speed-up:    {one / two:8.2f}x")

    print(f"\nfork per chunk: threshold vs greedy on standard, {n:,} games, one worker, best of 3")
    sizes = (n, DEFAULT_CHUNK_GAMES, DEFAULT_CHUNK_GAMES // 4)
    measured = {}
    for size in sizes:
        chunked = TournamentSpec((STANDARD,), (threshold, greedy), games=n, seed=1, chunk_games=size)
        measured[size] = best_of(3, chunked, 1)
    _, base_cpu = measured[n]
    for size in sizes:
        wall, cpu = measured[size]
        chunks = -(-n // size)
        label = "all games in one chunk process" if size == n else f"chunks of {size:,} games"
        line = f"  {label + ':':32}{n / wall:7,.0f} games/s, {cpu:5.2f} s CPU"
        if size != n:
            per_chunk = (cpu - base_cpu) / (chunks - 1) * 1000
            line += f"  ({(cpu / base_cpu - 1) * 100:+.1f}% CPU, {per_chunk:.1f} ms per chunk process)"
        print(line)

    # The board: what a strategy call writes for the supervisor, against one decision.
    player = BatchPlayer(TournamentSpec((STANDARD,), (threshold, greedy), games=2000, seed=1))
    player.play(0, 200)  # warm
    began = time.perf_counter()
    calls_before = player.guard.calls if player.guard is not None else 0
    player.play(0, 2000)
    elapsed = time.perf_counter() - began
    assert player.guard is not None
    per_call = elapsed / (player.guard.calls - calls_before)
    board = Guard(None).board
    stores = min(timeit.repeat("board[0] = k + k + 1; board[0] = k + k + 2", globals={"board": board, "k": 7},
                               number=200_000, repeat=5)) / 200_000  # fmt: skip
    print(
        f"\nshared-memory board: two stores per strategy call, {stores * 1e9:.0f} ns, "
        f"{stores / per_call * 100:.1f}% of a call ({per_call * 1e6:.2f} us per call with the engine's work)"
    )


if __name__ == "__main__":
    main()
