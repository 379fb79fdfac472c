"""What the reports cost per game: ``write_reports`` (summary.csv, pairwise.csv, errors.csv and the
ratings) on real runs, wall time divided by the games.

    python benchmarks/report_speed.py [--cache DIR] [--repeat 3]

The runs: two-player games of ``threshold`` against ``greedy`` on ``standard`` (one run of
200,000 games; the 10,000- and 100,000-game runs are its first games, read as an interrupted
run is), and a four-player free-for-all of 20,000 games.  Playing them takes a minute or two on
two cores; ``--cache DIR`` keeps them for the next time.  Each report is timed best of
``--repeat`` after one untimed pass (imports, the page cache), on the machine printed first.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare_loop import machine

from arena.analysis.reports import write_reports

ARENA = str(Path(sys.executable).parent / "arena")
TWO = ["-p", "threshold", "-p", "greedy", "--rules", "standard", "--games", "200000", "--seed", "1"]
FOUR = ["-p", "threshold", "-p", "greedy", "-p", "tactician", "-p", "random", "--rules", "standard"]
FOUR += ["--format", "free-for-all", "--games", "20000", "--seed", "3"]


def played(folder: Path, args: list[str]) -> Path:
    """A run folder of the tournament ``args``, played now unless ``folder`` holds it already."""
    if not (folder / "run.json").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        print(f"  playing {folder.name} ...", flush=True)
        subprocess.run(
            [ARENA, "tournament", *args, "--out", str(folder), "--no-progress"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    return folder


def first_games(source: Path, target: Path, games: int, seats: int) -> Path:
    """A run folder holding the first ``games`` games of ``source`` (games.csv and spec.json)."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(source / "spec.json", target / "spec.json")
    with open(source / "games.csv", "rb") as whole, open(target / "games.csv", "wb") as part:
        for _ in range(1 + games * seats):
            part.write(whole.readline())
    return target


def cost(folder: Path, games: int, repeat: int) -> tuple[float, float]:
    """Best wall seconds of write_reports over ``repeat`` runs, and microseconds per game."""
    write_reports(folder, ["standard"])
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        write_reports(folder, ["standard"])
        best = min(best, time.perf_counter() - start)
    return best, best / games * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=None, help="Keep the played runs in this folder.")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    scratch = Path(tempfile.mkdtemp(prefix="report-speed-"))
    cache = args.cache or scratch
    try:
        two = played(cache / "two-200k", TWO)
        four = played(cache / "ffa4-20k", FOUR)
        runs = [
            ("2 players, 10,000 games", first_games(two, scratch / "two-10k", 10_000, 2), 10_000, 2),
            ("2 players, 100,000 games", first_games(two, scratch / "two-100k", 100_000, 2), 100_000, 2),
            ("2 players, 200,000 games", two, 200_000, 2),
            ("4-player free-for-all, 5,000", first_games(four, scratch / "ffa4-5k", 5_000, 4), 5_000, 4),
            ("4-player free-for-all, 20,000", four, 20_000, 4),
        ]
        print(f"{'run':<32} {'seconds':>8} {'us/game':>8} {'us/row':>7}")
        seconds = {}
        for label, folder, games, seats in runs:
            seconds[label], per_game = cost(folder, games, args.repeat)
            print(f"{label:<32} {seconds[label]:8.3f} {per_game:8.2f} {per_game / seats:7.2f}")
        # What each further game costs: the growth between two sizes of one run, without the
        # fixed cost of a report (reading the spec, fitting the ratings, writing the files).
        for small, big, games, seats in (
            ("2 players, 100,000 games", "2 players, 200,000 games", 100_000, 2),
            ("4-player free-for-all, 5,000", "4-player free-for-all, 20,000", 15_000, 4),
        ):
            growth = (seconds[big] - seconds[small]) / games * 1e6
            print(f"growth per game, {small.split(',')[0]}: {growth:.2f} us ({growth / seats:.2f} per row)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
