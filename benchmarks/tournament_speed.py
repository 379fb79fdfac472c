"""Whole `arena tournament` runs, as multiples of the bare loop measured in the same run.

    python benchmarks/tournament_speed.py [--games 20000] [--compiled-games 200000] [--large 2000000]

1. The baseline: :mod:`bare_loop` (a bare hand-written Python loop, threshold vs greedy on
   standard), in µs per turn.
2. Whole runs, end to end, each a fresh `arena tournament` process (imports, the run folder,
   games.csv, every report): threshold vs greedy on standard, one worker, on the Python path
   (`--compiled off`) and on the compiled path (`--compiled on`), and both on two workers.
   Each is timed (best of three) per turn played (the turns column of games.csv) and set
   against the bare loop:
   "0.04x" is 25 times faster than the bare loop, "4.3x" 4.3 times slower.
   Each run takes turns with the bare loop and keeps its best, so each ratio is to the bare
   loop of the same minute.
3. With ``--large N``: compiled runs of N games on one worker and on two (best of two), and
   what the second worker gains.
4. What the Python path's fork per chunk costs, and the shared-memory board per strategy call.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import pandas as pd
from bare_loop import bare_turn_seconds, machine

from arena.engine import STANDARD
from arena.players import load_player_spec
from arena.players.match import Guard
from arena.tournaments import TournamentSpec, run_tournament
from arena.tournaments.batch import BatchPlayer
from arena.tournaments.run_folder import RunFolder
from arena.tournaments.spec import DEFAULT_CHUNK_GAMES


def cpu_seconds() -> float:
    """CPU time of this process and of every child it has reaped."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def whole_run(games: int, workers: int, compiled: str) -> tuple[float, int]:
    """Wall seconds of one `arena tournament` process, and the turns its games played."""
    folder = Path(tempfile.mkdtemp()) / "run"
    command = [
        sys.executable, "-m", "arena.cli", "tournament", "-p", "threshold", "-p", "greedy",
        "--rules", "standard", "--games", str(games), "--seed", "1", "--workers", str(workers),
        "--compiled", compiled, "--out", str(folder), "--no-progress",
    ]  # fmt: skip
    try:
        began = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - began
        turns = int(pd.read_csv(folder / "games.csv", usecols=["turns"])["turns"].sum())
        return seconds, turns
    finally:
        shutil.rmtree(folder.parent)


def timed_run(spec: TournamentSpec, workers: int) -> tuple[float, float]:
    """Wall and CPU seconds of one in-process run (no reports)."""
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
    parser.add_argument("--games", type=int, default=20_000, help="games of the Python-path runs")
    parser.add_argument("--compiled-games", type=int, default=200_000, help="games of the compiled runs")
    parser.add_argument("--large", type=int, default=0, help="games of the large compiled runs (0: none)")
    args = parser.parse_args()
    n, big = args.games, args.compiled_games
    print(f"machine: {machine()}")
    whole_run(200, 1, "on")  # numba's disk cache, warm
    print("\nwhole `arena tournament` runs, threshold vs greedy on standard, reports included; each run")
    print("takes turns with the bare loop, 3 times, and each keeps its best (the machine's load shifts)")
    print(f"  {'':24}{'games':>9} {'seconds':>8} {'games/s':>9} {'µs/turn':>8} {'bare':>6}  vs bare loop")
    configs = [
        ("Python path, 1 worker", n, 1, "off"),
        ("Python path, 2 workers", n, 2, "off"),
        ("compiled, 1 worker", big, 1, "on"),
        ("compiled, 2 workers", big, 2, "on"),
    ]
    if args.large:
        configs += [
            ("compiled, 1 worker", args.large, 1, "on"),
            ("compiled, 2 workers", args.large, 2, "on"),
        ]
    walls: dict[tuple[int, int], float] = {}
    for label, games, workers, compiled in configs:
        bare = seconds = float("inf")
        turns = 0
        for _ in range(3 if games < 1_000_000 else 2):
            bare = min(bare, bare_turn_seconds(repeats=1)[0])
            wall, turns = whole_run(games, workers, compiled)
            seconds = min(seconds, wall)
        walls[(games, workers)] = seconds
        per_turn = seconds / turns
        ratio = per_turn / bare
        verdict = f"{1 / ratio:5.1f}x faster" if ratio < 1 else f"{ratio:5.2f}x the cost"
        print(
            f"  {label:24}{games:9,} {seconds:8.2f} {games / seconds:9,.0f} {per_turn * 1e6:8.3f} "
            f"{bare * 1e6:6.2f}  {ratio:6.3f}x ({verdict})"
        )
    for games in sorted({g for g, _ in walls}):
        if (games, 1) in walls and (games, 2) in walls and games >= big:
            gain = walls[(games, 1)] / walls[(games, 2)]
            print(f"  two workers against one, {games:,} games compiled: {gain:.2f}x")

    threshold, greedy = load_player_spec("threshold"), load_player_spec("greedy")
    print(
        f"\nPython path, fork per chunk: threshold vs greedy on standard, {n:,} games, one worker, best of 3"
    )
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
        f"{stores / per_call * 100:.1f}% of a call ({per_call * 1e6:.2f} µs per call with the engine's work)"
    )


if __name__ == "__main__":
    main()
