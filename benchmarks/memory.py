"""Peak memory of a tournament run as the number of games grows: it should not grow.

    python benchmarks/memory.py [--million]

Each run is a fresh `arena tournament` process (one worker, threshold vs greedy on standard),
on the Python path (10,000 and 100,000 games) and on the compiled path (10,000, 100,000 and,
with ``--million``, 1,000,000 games).  The peak resident set sizes come from the operating
system: the main process (getrusage of itself), and the largest of its worker processes
(getrusage of its children, which reports the largest).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

RUN = """
import resource, sys
from arena.cli.main import cli
try:
    cli(["tournament", "--rules", "standard", "-p", "threshold", "-p", "greedy", "--workers", "1",
         "--games", sys.argv[1], "--out", sys.argv[2], "--compiled", sys.argv[3], "--no-progress"],
        standalone_mode=False)
finally:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(own, workers, file=sys.stderr)
"""


def peak_kib(games: int, compiled: str) -> tuple[int, int]:
    """Peak KiB of the main process and of its largest worker process."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", RUN, str(games), str(Path(tmp) / "run"), compiled],
            capture_output=True,
            text=True,
            check=True,
        )
        own, workers = done.stderr.strip().splitlines()[-1].split()
        return int(own), int(workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--million", action="store_true", help="also a 1,000,000-game compiled run")
    args = parser.parse_args()
    print("peak resident memory of `arena tournament --workers 1` (threshold vs greedy on standard)")
    print(f"  {'':28}{'main process':>14}{'worker':>10}")
    runs = [("off", 10_000), ("off", 100_000), ("on", 10_000), ("on", 100_000)]
    if args.million:
        runs.append(("on", 1_000_000))
    for compiled, games in runs:
        own, workers = peak_kib(games, compiled)
        path = "compiled" if compiled == "on" else "Python"
        label = f"{path}, {games:,} games:"
        print(f"  {label:28}{own / 1024:10.1f} MiB{workers / 1024:6.1f} MiB")


if __name__ == "__main__":
    main()
