"""The time per 1,000 games of `arena league run` against `arena tournament` of the same games,
measured in one run, both from the command line (start-up included), trusted and isolated.

    python benchmarks/league_speed.py [--games 250]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare_loop import machine

PLAYERS = ["greedy", "random", "threshold:bank_at=300", "threshold:bank_at=600"]
ARENA = [sys.executable, "-m", "arena.cli"]


def timed(args: list[str]) -> float:
    began = time.perf_counter()
    subprocess.run([*ARENA, *args], check=True, capture_output=True)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=250, help="games per pair")
    games = parser.parse_args().games
    pairs = len(PLAYERS) * (len(PLAYERS) - 1) // 2
    total = pairs * games
    print(f"{machine()}; {len(PLAYERS)} entries, {pairs} pairs, {total:,} games")
    with tempfile.TemporaryDirectory() as tmp:  # untimed: the compiled kernel's one-time build
        players = [a for p in PLAYERS for a in ("-p", p)]
        timed(["tournament", *players, "--games", "2", "--out", str(Path(tmp) / "warm")])
    for mode, flag in (("trusted", []), ("isolated", ["--isolate"])):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            players = [a for p in PLAYERS for a in ("-p", p)]
            tournament = timed(
                [
                    "tournament",
                    *players,
                    "--games",
                    str(games),
                    "--workers",
                    "1",
                    "--out",
                    str(folder / "run"),
                    *flag,
                ]
            )
            subprocess.run(
                [*ARENA, "league", "init", str(folder / "lg"), "--games", str(games)],
                check=True,
                capture_output=True,
            )
            for p in PLAYERS:
                subprocess.run(
                    [*ARENA, "league", "add", str(folder / "lg"), p], check=True, capture_output=True
                )
            run = ["league", "run", str(folder / "lg")] + (["--trusted"] if mode == "trusted" else [])
            league = timed(run)
        per = 1000 / total
        print(
            f"{mode:>8}: tournament {tournament * per:6.2f} s per 1,000 games, league run "
            f"{league * per:6.2f} s per 1,000 games: {league / tournament:.2f}x"
        )


if __name__ == "__main__":
    main()
