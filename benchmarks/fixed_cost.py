"""What a compiled run costs before its first game and after its last, against ``--compiled off``.

    python benchmarks/fixed_cost.py [--repeat 5]

1. Whole `arena tournament` runs of 2 games (threshold vs greedy on standard, one worker), each a
   fresh process, with ``--compiled off`` and ``--compiled on`` interleaved, best of
   ``--repeat``: the difference is the compiled path's fixed cost above the Python path's (the
   target of issue 26: at most 0.5 s).
2. Where it goes, each part timed in a fresh process after what comes before it is imported:
   numpy; numba beyond numpy; the kernel module (its dispatchers) beyond numba and the modules
   both paths import; loading the
   cached kernel (numba's CPU target set-up and the cached machine code); pandas, which the
   reports import on both paths.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare_loop import machine

ROOT = Path(__file__).resolve().parent.parent

PARTS = {
    "numpy": ("", "import numpy"),
    "numba beyond numpy": ("import numpy", "import numba"),
    # (arena's engine and players first: both paths import them)
    "the kernel module beyond numba": (
        "import numba, arena.engine, arena.players",
        "import arena.compiled.kernel",
    ),
    "loading the cached kernel": (
        "from arena.tournaments.compiled_games import CompiledGames\n"
        "from arena.engine import STANDARD\n"
        "from arena.players import load_player_spec\n"
        "from arena.tournaments.spec import TournamentSpec\n"
        "players = (load_player_spec('threshold'), load_player_spec('greedy'))\n"
        "spec = TournamentSpec((STANDARD,), players, games=2)\n"
        "games = CompiledGames(spec)",
        "games.load()",
    ),
    "pandas (both paths, for the reports)": ("import numpy", "import pandas"),
}


def whole_run(compiled: str) -> float:
    folder = Path(tempfile.mkdtemp()) / "run"
    command = [
        sys.executable, "-m", "arena.cli", "tournament", "-p", "threshold", "-p", "greedy",
        "--rules", "standard", "--games", "2", "--seed", "1", "--workers", "1",
        "--compiled", compiled, "--out", str(folder), "--no-progress",
    ]  # fmt: skip
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - began


def part(before: str, timed: str) -> float:
    code = f"{before}\nimport time\nt = time.perf_counter()\n{timed}\nprint(time.perf_counter() - t)"
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT)
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    whole_run("on")  # the kernel in numba's disk cache, the imports in the OS's file cache
    runs: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(args.repeat):
        for mode in ("off", "on"):
            runs[mode].append(whole_run(mode))
    off, on = min(runs["off"]), min(runs["on"])
    print(f"machine: {machine()}")
    print(f"a 2-game run, best of {args.repeat}: --compiled off {off:.2f} s, --compiled on {on:.2f} s")
    print(f"  the compiled path's fixed cost above the Python path's: {on - off:.2f} s (target: 0.5 s)")
    print("where it goes (best of 3, each in a fresh process):")
    for name, (before, timed) in PARTS.items():
        print(f"  {name:40} {min(part(before, timed) for _ in range(3)):.3f} s")


if __name__ == "__main__":
    main()
