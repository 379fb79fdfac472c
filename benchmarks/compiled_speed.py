"""How fast the compiled kernel plays, what its compile costs, and that its memory stays flat.

Prints, for 2-player standard games: games/s and microseconds per turn of
``CompiledGames.pieces`` (threshold vs greedy, and optimal vs greedy) and of the Python path
(``BatchPlayer.play`` in one process), each as a multiple of the bare loop
(:mod:`bare_loop`) measured in the same run: the bare loop and each of the four take turns,
``--rounds`` times, and each keeps its best (the machine's load shifts within a minute); the
time of a first compile (with the disk cache cleared, in a fresh process) and of a cached load
(a second fresh process), and the peak memory (ru_maxrss of a fresh process) after playing 10,000 and
1,000,000 games in pieces (``CompiledGames.pieces``, the rows of each piece dropped).

    python benchmarks/compiled_speed.py [--games N] [--rounds 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from bare_loop import bare_turn_seconds, machine
from python_path_speed import batch_turn_seconds

ROOT = Path(__file__).resolve().parent.parent

SETUP = """
import resource, sys, time
t0 = time.perf_counter()
from arena.tournaments.compiled_games import CompiledGames
from arena.engine import PRESETS
from arena.players import load_player_spec
from arena.tournaments.spec import TournamentSpec
def spec(a, b, games):
    players = (load_player_spec(a), load_player_spec(b))
    return TournamentSpec((PRESETS["standard"],), players, games=games, seed=1)
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SETUP + textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return done.stdout.strip()


def compile_times() -> tuple[float, float]:
    """Seconds to the first game in a fresh process: with the cache cleared, then cached."""
    cache = ROOT / "arena" / "compiled" / "__pycache__"
    for entry in cache.glob("kernel.*"):
        if entry.suffix in (".nbi", ".nbc"):
            entry.unlink()
    code = """
        CompiledGames(spec("threshold", "greedy", 2)).play(0, 2)
        print(time.perf_counter() - t0)
        """
    return float(_run(code)), float(_run(code))


def speed(a: str, b: str, games: int) -> tuple[float, float]:
    """Games/s and microseconds per turn of CompiledGames.pieces (rows and shares of 20,000
    games at a time, as a tournament asks for them), after a warm-up; counting the turns is
    left out of the time."""
    out = _run(
        f"""
        compiled = CompiledGames(spec({a!r}, {b!r}, {games}))
        compiled.play(0, 200)
        took = 0.0
        turns = 0
        started = time.perf_counter()
        for piece in compiled.pieces(0, {games}):  # as a tournament plays them: piece by piece
            took += time.perf_counter() - started
            turns += sum(int(line.rsplit(",", 5)[1]) for line in piece.rows.splitlines())
            started = time.perf_counter()
        print(took, turns)
        """
    )
    took, turns = out.split()
    return games / float(took), 1e6 * float(took) / int(turns)


def peak_memory(games: int) -> float:
    """Peak resident MB of a fresh process that plays ``games`` games in pieces."""
    out = _run(
        f"""
        compiled = CompiledGames(spec("threshold", "greedy", {games}))
        rows = 0
        for piece in compiled.pieces(0, {games}):
            rows += piece.rows.count("\\n")
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        """
    )
    return float(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300_000, help="games per kernel measurement")
    parser.add_argument("--rounds", type=int, default=3, help="turns each measurement takes")
    args = parser.parse_args()
    first, cached = compile_times()
    print(f"machine: {machine()}")
    print(f"first compile (fresh process, cache cleared): {first:.1f} s; cached load: {cached:.2f} s")
    pairings = (("threshold", "greedy"), ("optimal", "greedy"))
    bare, bare_rate = float("inf"), 0.0
    kernel: dict[tuple[str, str], tuple[float, float]] = {}  # games/s, µs per turn
    python: dict[tuple[str, str], tuple[float, float]] = {}  # s per turn, games/s
    for _ in range(args.rounds):
        per_turn, rate = bare_turn_seconds(repeats=1)
        if per_turn < bare:
            bare, bare_rate = per_turn, rate
        for pairing in pairings:
            measured = speed(*pairing, args.games)
            if pairing not in kernel or measured[1] < kernel[pairing][1]:
                kernel[pairing] = measured
            timed = batch_turn_seconds(*pairing, 3000)
            if pairing not in python or timed[0] < python[pairing][0]:
                python[pairing] = timed
    print(f"standard, in one process, best of {args.rounds} taking turns; the ratio is the cost per turn")
    print("against the bare loop")
    print(f"  {'bare loop':34}{bare_rate:11,.0f} games/s {bare * 1e6:7.3f} µs/turn   1.000x")
    for a, b in pairings:
        rate, per_turn = kernel[(a, b)]
        label = f"compiled, {a} vs {b}"
        print(f"  {label:34}{rate:11,.0f} games/s {per_turn:7.3f} µs/turn  {per_turn / (bare * 1e6):6.3f}x"
              f"  ({bare * 1e6 / per_turn:.0f}x faster)")  # fmt: skip
    for a, b in pairings:
        per_turn_s, rate = python[(a, b)]
        label = f"Python path, {a} vs {b}"
        print(f"  {label:34}{rate:11,.0f} games/s {per_turn_s * 1e6:7.3f} µs/turn  {per_turn_s / bare:6.3f}x")
    for games in (10_000, 1_000_000):
        started = time.perf_counter()
        mb = peak_memory(games)
        print(f"peak memory, {games:,} games in pieces: {mb:.0f} MB ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
