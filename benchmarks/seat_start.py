"""What starting an isolated seat costs: from fork to its hello, against a bare Python start.

    python benchmarks/seat_start.py [--starts 10] [--player greedy]

A tournament under ``--isolate`` starts a seat process per player, seat order and chunk of
1,000 games, so this is paid a few times per thousand games.  The baseline, measured in the
same run, is the floor of any seat that runs Python: ``python -c pass`` with the same
interpreter and flags.  Both are given as the median wall time and the CPU time (user and
system) of the started processes, per start.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from bare_loop import machine  # run as a script, benchmarks/ is on the path

from arena.sandbox import SeatLimits, load_player


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(start: Callable[[], object], starts: int) -> tuple[float, float]:
    """(median wall seconds, CPU seconds of the started processes) per start."""
    start()  # warm the file cache
    walls = []
    cpu = children_cpu()
    for _ in range(starts):
        began = time.perf_counter()
        start()
        walls.append(time.perf_counter() - began)
    return statistics.median(walls), (children_cpu() - cpu) / starts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--player", default="greedy")
    args = parser.parse_args()
    print(f"machine: {machine()}; {args.starts} starts each")

    def bare() -> None:
        subprocess.run([sys.executable, "-B", "-c", "pass"], check=True)

    def seat() -> None:
        load_player(args.player, isolate=True, limits=SeatLimits(), move_timeout=10.0)

    bare_wall, bare_cpu = measured(bare, args.starts)
    seat_wall, seat_cpu = measured(seat, args.starts)
    print(f"baseline: python -c pass   {bare_wall * 1e3:6.0f} ms wall  {bare_cpu * 1e3:6.0f} ms CPU")
    print(
        f"seat to hello ({args.player}) {seat_wall * 1e3:6.0f} ms wall  {seat_cpu * 1e3:6.0f} ms CPU"
        f"  = {seat_wall / bare_wall:.1f}x and {seat_cpu / bare_cpu:.1f}x the baseline"
    )


if __name__ == "__main__":
    main()
