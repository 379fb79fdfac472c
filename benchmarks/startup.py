"""How fast the ``arena`` command starts: wall time of light commands, and what the imports cost.

    python benchmarks/startup.py [--repeat 5]

Each command runs as a fresh process, best of ``--repeat``; ``python -c pass`` is the floor that
no command can go under.  Then the import of ``arena.cli.main`` and of pandas, as
``python -X importtime`` reports them (cumulative microseconds), and the heavy packages that
loading the CLI pulled in (none is the goal: they are imported by the commands that use them).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ARENA = str(Path(sys.executable).parent / "arena")
COMMANDS = [
    [sys.executable, "-c", "pass"],
    [ARENA, "--help"],
    [ARENA, "score", "1", "1", "1", "5"],
    [ARENA, "rules", "list"],
    [ARENA, "tournament", "--help"],
]
HEAVY = (
    "pandas",
    "numpy",
    "openskill",
    "dask",
    "distributed",
    "matplotlib",
    "msgspec",
    "multiprocess",
    "dill",
)


def best_wall(command: list[str], repeat: int) -> float:
    """The shortest wall time of ``repeat`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best = min(best, time.perf_counter() - start)
    return best


def import_time(module: str, repeat: int) -> float:
    """The cumulative import time of ``module`` in a fresh interpreter (seconds, best of ``repeat``)."""
    best = float("inf")
    for _ in range(repeat):
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True
        ).stderr
        for line in err.splitlines():
            match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$", line)
            if match and match.group(2) == module:
                best = min(best, int(match.group(1)) / 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; best of {args.repeat}")
    for command in COMMANDS:
        shown = " ".join(Path(command[0]).name if i == 0 else part for i, part in enumerate(command))
        print(f"  {shown:<32} {best_wall(command, args.repeat):6.3f} s")
    for module in ("arena.cli.main", "pandas"):
        print(f"  import {module:<25} {import_time(module, args.repeat):6.3f} s")
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, arena.cli.main; "
            f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"  heavy packages loaded with the CLI: {loaded or 'none'}")


if __name__ == "__main__":
    main()
