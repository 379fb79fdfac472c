"""`arena tune` per turn against `arena tournament`, and both against the bare loop.

    python benchmarks/tune_speed.py [--budget 60000] [--workers 1] [--repeat 3]

A race of ``threshold`` over a grid of 27 settings (``bank_at=200..1000/100``, ``min_dice=1..3``)
against ``greedy`` on ``standard``, then a tournament of threshold against greedy with as many
games as the race played, each a whole run in a fresh process (imports, run folder, every file
written), interleaved, best of ``--repeat``; on the compiled path (the default, as both
commands run threshold and greedy) and with ``--compiled off``.  Issue 26's target: a race
costs at most 2x a tournament of the same games.  The race's settings play longer or shorter
games than threshold's default, so costs are compared per turn played (the turns column of
games.csv).  The bare loop (:mod:`bare_loop`) is measured in the same run, so each figure is
also given as a multiple of it.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare_loop import bare_turn_seconds, machine

ROOT = Path(__file__).resolve().parent.parent
GRID = ("--param", "bank_at=200..1000/100", "--param", "min_dice=1..3")


def timed(command: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - began


def counts(games_csv: Path, turns_column: str = "turns") -> tuple[int, int]:
    """Games (two rows each) and turns in a games.csv."""
    with open(games_csv, encoding="utf-8", newline="") as file:
        reader = csv.reader(file)
        column = next(reader).index(turns_column)
        rows = turns = 0
        for row in reader:
            rows += 1
            turns += int(row[column])
    return rows // 2, turns


def tune(budget: int, workers: int, compiled: str, out: Path) -> tuple[float, int, int]:
    """Seconds of a whole race, and the games and turns it played."""
    shutil.rmtree(out, ignore_errors=True)
    command = [
        sys.executable, "-m", "arena.cli", "tune", "threshold", *GRID, "--against", "greedy",
        "--rules", "standard", "--budget", str(budget), "--workers", str(workers),
        "--compiled", compiled, "--out", str(out), "--no-progress",
    ]  # fmt: skip
    return (timed(command), *counts(out / "games.csv"))


def tournament(games: int, workers: int, compiled: str, out: Path) -> tuple[float, int]:
    """Seconds of a whole run, and the turns it played."""
    shutil.rmtree(out, ignore_errors=True)
    command = [
        sys.executable, "-m", "arena.cli", "tournament", "-p", "threshold", "-p", "greedy",
        "--rules", "standard", "--games", str(games), "--seed", "1", "--workers", str(workers),
        "--compiled", compiled, "--out", str(out), "--no-progress",
    ]  # fmt: skip
    return timed(command), counts(out / "games.csv")[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=60_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp())
    bare, _ = bare_turn_seconds(3000)
    print(f"machine: {machine()}")
    print(f"bare loop: {bare * 1e6:.2f} µs per turn")
    print(f"threshold, 27 settings, vs greedy on standard, {args.workers} worker(s), best of {args.repeat}")
    print("                    games  tune s  tournament s  tune µs/turn  tournament µs/turn  tune/tourn.")
    for compiled, budget in (("auto", args.budget), ("off", args.budget // 10)):
        best_tune = best_tour = float("inf")
        games = tune_turns = tour_turns = 0
        for _ in range(args.repeat):
            seconds, games, tune_turns = tune(budget, args.workers, compiled, scratch / "tune")
            best_tune = min(best_tune, seconds)
            seconds, tour_turns = tournament(games, args.workers, compiled, scratch / "tour")
            best_tour = min(best_tour, seconds)
        per_tune, per_tour = best_tune / tune_turns, best_tour / tour_turns
        label = "compiled" if compiled == "auto" else "--compiled off"
        print(
            f"  {label:<15} {games:7,}  {best_tune:6.2f}  {best_tour:12.2f}  {per_tune * 1e6:12.3f}"
            f"  {per_tour * 1e6:18.3f}  {per_tune / per_tour:11.2f}x"
        )
        print(
            f"  {'':<15} per turn against the bare loop: tune {per_tune / bare:.3f}x,"
            f" tournament {per_tour / bare:.3f}x"
        )
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
