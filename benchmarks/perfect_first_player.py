"""The first player's chance of winning under perfect play: the solver's figure against play.

    python benchmarks/perfect_first_player.py [--games 100000] [--workers 2]

For each preset `perfect` plays (classic, standard): the chance the solver gives seat 0 at the
start of the game (`arena solve --win`), and the share of wins seat 0 takes in ``--games``
games of `perfect` against `perfect` (seeds 0, 1, ...), with its 95% interval.  Also prints
how fast `perfect` plays on this machine.
"""

from __future__ import annotations

import argparse
import time

from bare_loop import machine
from multiprocess import Pool

from arena.engine import PRESETS
from arena.engine.game import play
from arena.perfect import perfect_action, why_not_perfect, win_table


def first_seat_wins(job: tuple[str, int, int]) -> float:
    name, start, stop = job
    rules = PRESETS[name]
    seats = [perfect_action, perfect_action]
    return sum(play(rules, seats, seed).win_shares[0] for seed in range(start, stop))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"{'rules':<9} {'solver':>8} {'perfect vs perfect':>26} {'games':>8} {'games/s':>8}")
    step = 2_000
    for name, rules in PRESETS.items():
        if why_not_perfect(rules, 2):
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
            f"{name:<9} {100 * predicted:>7.2f}% {100 * share:>9.2f}% [{100 * (share - half):.2f}, "
            f"{100 * (share + half):.2f}] {args.games:>8,} {args.games / seconds:>8,.0f}"
        )


if __name__ == "__main__":
    main()
