"""What the ``end_turn`` hook costs: the same games with and without it, in arena's process.

    python benchmarks/turn_end_speed.py [--games 3000]

Two players that play as ``greedy`` does (the cheapest decision a Python strategy makes, so the
hook's share of the time is as large as it gets), on ``classic``, through ``play_match`` as a
tournament's games are played.  Without a hook a game runs in the guard's hot loop; with one
(a method that does nothing) it is played decision by decision and every turn's end is told to
both seats, each hook call guarded.  The baseline, in the same run, is the game without the hook;
the figure is the ratio of the two, with the absolute games per second and the machine.
"""

from __future__ import annotations

import argparse
import time

from bare_loop import machine  # run as a script, benchmarks/ is on the path

from arena.engine import CLASSIC, TurnEnd
from arena.players import play_match
from arena.players.builtin.greedy import GreedyPlayer


class Listening(GreedyPlayer):
    """Greedy, with an ``end_turn`` hook that does nothing."""

    def end_turn(self, turn: TurnEnd) -> None:
        pass


def games_per_second(cls: type, games: int) -> float:
    start = time.perf_counter()
    for seed in range(games):
        play_match(CLASSIC, [cls(), cls()], seed)
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    args = parser.parse_args()
    games_per_second(GreedyPlayer, 200)  # warm: the score table and the imports
    plain = [games_per_second(GreedyPlayer, args.games) for _ in range(3)]
    hooked = [games_per_second(Listening, args.games) for _ in range(3)]
    best_plain, best_hooked = max(plain), max(hooked)
    print(f"machine: {machine()}")
    print(f"without end_turn: {best_plain:8,.0f} games/s (the baseline, best of 3)")
    print(f"with end_turn:    {best_hooked:8,.0f} games/s (best of 3)")
    print(f"ratio: {best_hooked / best_plain:.2f}x the baseline")


if __name__ == "__main__":
    main()
