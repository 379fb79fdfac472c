"""Peak memory of a tournament run, for 10,000 and 100,000 games: it should not grow.

    python benchmarks/memory.py

Each run is a fresh `arena tournament` process (one worker, two threshold bots on standard);
its peak resident set size comes from the operating system (getrusage of the child).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

RUN = """
import resource, sys
from arena.cli.main import cli
try:
    cli(["tournament", "--rules", "standard", "-p", "threshold", "-p", "threshold", "--workers", "1",
         "--games", sys.argv[1], "--out", sys.argv[2], "--no-progress"], standalone_mode=False)
finally:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def peak_kib(games: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-c", RUN, str(games), str(Path(tmp) / "run")],
            capture_output=True,
            text=True,
            check=True,
        )
        return int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    print("peak resident memory of `arena tournament --workers 1` (two threshold bots on standard)")
    for games in (10_000, 100_000):
        print(f"  {games:>7,} games: {peak_kib(games) / 1024:6.1f} MiB")


if __name__ == "__main__":
    main()
