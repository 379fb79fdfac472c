"""The Python path's cost per turn, as a multiple of the bare loop measured in the same run.

    python benchmarks/python_path_speed.py [--games 3000] [--rounds 5]

Plays ``threshold`` against ``greedy`` (and ``optimal`` against ``greedy``) on ``standard`` in
this process with :class:`~arena.tournaments.batch.BatchPlayer`: every strategy call guarded,
every game's rows formatted, as a chunk process plays them, but without the chunk processes or
the CSV file.  Beside it, the same games of the engine and the two strategies alone (the
game's generator fed by ``decide``, without the guard, the player set-up per game or the rows):
what the tournament machinery adds is the difference.  The per-turn time is set against
:func:`bare_loop.bare_turn_seconds`: the bare loop and each pairing take turns, ``--rounds``
times, and each keeps its best (the machine's load shifts within a minute; a figure measured
apart from its baseline would carry the shift).
"""

from __future__ import annotations

import argparse
import csv
import io
import time

from bare_loop import bare_turn_seconds, machine

from arena.engine import STANDARD
from arena.players import load_player_spec
from arena.tournaments import TournamentSpec
from arena.tournaments.batch import BatchPlayer


def turns_in(rows: str) -> int:
    """Turns played in all, from the rows' turns column."""
    return sum(int(row[9]) for row in csv.reader(io.StringIO(rows)))


def engine_turn_seconds(games: int) -> float:
    """Seconds per turn of threshold against greedy played straight through :class:`Game`:
    ``decide`` answers each view, nothing else runs."""
    from arena.engine import Game, TurnView, derive_seed
    from arena.players.builtin.greedy import GreedyPlayer
    from arena.players.builtin.threshold import ThresholdPlayer

    seeds = [derive_seed(1, g) for g in range(games)]
    a, b = ThresholdPlayer().decide, GreedyPlayer().decide
    began = time.perf_counter()
    turns = 0
    for g, seed in enumerate(seeds):
        game = Game(STANDARD, 2, seed)
        deciders = (a, b) if g % 2 == 0 else (b, a)
        view = game.view()
        send = game.sender()
        while view is not None:
            view = send(deciders[view.seat](view))
            if type(view) is not TurnView:
                view = game.answer(view)
        turns += sum(game.result().turns)
    return (time.perf_counter() - began) / turns


def batch_turn_seconds(a: str, b: str, games: int, repeats: int = 1) -> tuple[float, float]:
    """Seconds per turn and games per second of a BatchPlayer run of ``a`` against ``b``."""
    spec = TournamentSpec((STANDARD,), (load_player_spec(a), load_player_spec(b)), games=games, seed=1)
    best = float("inf")
    turns = 0
    for _ in range(repeats):
        player = BatchPlayer(spec)
        began = time.perf_counter()
        result = player.play(0, games)
        best = min(best, time.perf_counter() - began)
        turns = turns_in(result.rows)
    return best / turns, games / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    n = args.games
    BatchPlayer(
        TournamentSpec((STANDARD,), (load_player_spec("optimal"), load_player_spec("greedy")), games=50)
    ).play(0, 50)  # solve optimal's common situations before the clock starts
    pairings = (("threshold", "greedy"), ("optimal", "greedy"))
    bare, bare_rate = float("inf"), 0.0
    engine = float("inf")
    best: dict[tuple[str, str], tuple[float, float]] = {}
    for _ in range(args.rounds):
        per_turn, rate = bare_turn_seconds(n, repeats=1)
        if per_turn < bare:
            bare, bare_rate = per_turn, rate
        engine = min(engine, engine_turn_seconds(n))
        for pairing in pairings:
            measured = batch_turn_seconds(*pairing, n)
            if pairing not in best or measured[0] < best[pairing][0]:
                best[pairing] = measured
    print(f"machine: {machine()}")
    print(f"standard, {n:,} games each, in one process, best of {args.rounds}, taking turns")
    print(f"  bare loop:            {bare * 1e6:6.2f} µs per turn  {bare_rate:8,.0f} games/s   1.00x")
    print(f"  engine alone, threshold vs greedy: {engine * 1e6:6.2f} µs per turn  {engine / bare:5.2f}x")
    for a, b in pairings:
        per_turn, rate = best[(a, b)]
        label = f"{a} vs {b}:"
        print(
            f"  {label:<21} {per_turn * 1e6:6.2f} µs per turn  {rate:8,.0f} games/s  {per_turn / bare:5.2f}x"
        )


if __name__ == "__main__":
    main()
