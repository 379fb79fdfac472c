"""The first player's chance of winning under perfect play: the solver's figure against play.

    python benchmarks/perfect_first_player.py [--games 100000] [--workers 2] [--rules R ...]

For each ruleset (by default the presets `perfect` plays, classic and standard, and the two
ruleset files with a farkle penalty whose tables ship): the chance the solver gives seat 0 at
the start of the game (`arena solve --win`), and the share of wins seat 0 takes in ``--games``
games of `perfect` against `perfect` (seeds 0, 1, ...), with its 95% interval.  Also prints
how fast `perfect` plays on this machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bare_loop import machine
from multiprocess import Pool

from arena.engine import Ruleset, load_ruleset
from arena.engine.game import play
from arena.perfect import perfect_action, why_not_perfect, win_table

REPO = Path(__file__).resolve().parents[1]
RULES = ("classic", "standard", "house", "three-farkles-to-zero")


def rules_named(name: str) -> Ruleset:
    return load_ruleset(REPO / name if name.endswith(".toml") else name)


def first_seat_wins(job: tuple[str, int, int]) -> float:
    name, start, stop = job
    rules = rules_named(name)
    seats = [perfect_action, perfect_action]
    return sum(play(rules, seats, seed).win_shares[0] for seed in range(start, stop))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rules", action="append", help="a preset or a ruleset file (repeatable)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{'rules':<22} {'solver':>8} {'perfect vs perfect':>26} {'games':>8} {'games/s':>8}")
    step = 2_000
    for name in args.rules or RULES:
        rules = rules_named(name)
        if why_not_perfect(rules, 2):
            print(f"{rules.name:<22} not solved: perfect {why_not_perfect(rules, 2)}")
            continue
        predicted = win_table(rules).first_player_win
        jobs = [(name, start, min(start + step, args.games)) for start in range(0, args.games, step)]
        started = time.perf_counter()
        with Pool(args.workers) as pool:
            wins = sum(pool.map(first_seat_wins, jobs))
        seconds = time.perf_counter() - started
        share = wins / args.games
        half = 1.96 * (share * (1 - share) / args.games) ** 0.5
        print(
            f"{rules.name:<22} {100 * predicted:>7.2f}% {100 * share:>9.2f}% [{100 * (share - half):.2f}, "
            f"{100 * (share + half):.2f}] {args.games:>8,} {args.games / seconds:>8,.0f}"
        )


if __name__ == "__main__":
    main()
