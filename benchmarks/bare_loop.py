"""The baseline every speed figure is a ratio to: a bare hand-written Python game loop.

    python benchmarks/bare_loop.py [--games 5000]

What a programmer would write by hand on arena's building blocks to play ``threshold`` (bank
at 300, roll on with at least 3 dice) against ``greedy`` on the ``standard`` preset (001: six
dice, exactly 10,000, entry 500, everyone else gets one more turn, ties shared), and nothing
else: strategies as two plain functions, no Player protocol, no views, no guard, no rows, no
output.  Scoring is table-driven (arena's score table: the legal keeps of each roll, looked up
by roll key), and the dice are arena's own counter-based streams (``seat_streams``,
``next_turn_stream``, ``roll_key``), so it plays exactly the games arena plays:
:func:`check_against_arena` compares every game's scores, turns and farkles with arena's engine.
(A loop tuned further by hand, with the hash inlined and the keeps as plain tuples, is faster
still; the ratios are to this plain one.)

Other benchmarks import :func:`bare_turn_seconds` and report their speed per turn as a multiple
of it, measured in the same run (machines here are shared and noisy: a figure from another day
or machine is not comparable).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Sequence

from arena.engine import STANDARD, Keep, Ruleset, derive_seed, score_table
from arena.engine.dice import next_turn_stream, roll_key, seat_streams

BANK_AT, MIN_DICE = 300, 3


def play_bare(seeds: Sequence[int], rules: Ruleset = STANDARD) -> tuple[int, list[tuple]]:
    """Play one game per seed, threshold in seat 0 of even games and greedy in seat 0 of odd
    ones.  Returns the turns played in all and per game (scores, turns, farkles)."""
    if (
        rules.rising_bar
        or rules.has_farkle_penalty()
        or rules.must_roll_after_hot_dice
        or rules.ties != "share"
        or rules.final_round != "everyone_else"
    ):
        raise ValueError("the bare loop plays the standard preset's kind of rules only")
    keeps_of = score_table(rules).keeps  # roll key -> legal keeps, most points first
    dice, target, entry = rules.dice, rules.target, rules.entry_threshold
    exact = rules.exact_target

    def within_target(keeps: tuple[Keep, ...], room: int) -> tuple[Keep, ...]:
        if not exact or keeps[0].points <= room:
            return keeps
        return tuple(k for k in keeps if k.points <= room) or keeps

    def threshold(score: int, points: int, minimum: int, keeps: tuple[Keep, ...]) -> tuple[Keep, bool]:
        keep = within_target(keeps, target - score - points)[0]
        total = points + keep.points
        reaches = score + total == target if exact else score + total >= target
        return keep, total >= minimum and (total >= BANK_AT or keep.dice_left < MIN_DICE or reaches)

    def greedy(score: int, points: int, minimum: int, keeps: tuple[Keep, ...]) -> tuple[Keep, bool]:
        keep = max(within_target(keeps, target - score - points), key=lambda k: (len(k.dice), k.points))
        return keep, points + keep.points >= minimum

    all_turns = 0
    results = []
    for g, seed in enumerate(seeds):
        bases = seat_streams(derive_seed(seed), 2)
        deciders = (threshold, greedy) if g % 2 == 0 else (greedy, threshold)
        scores = [0, 0]
        turns = [0, 0]
        farkles = [0, 0]
        entered = [entry == 0, entry == 0]
        final_left = -1  # turns still to play once someone reached the target
        seat = 1
        rounds = 0
        while final_left != 0:
            if final_left > 0:
                final_left -= 1
            seat = 1 - seat
            if seat == 0:
                if rounds >= 1000 and final_left < 0:
                    break
                rounds += 1
            stream = next_turn_stream(bases[seat], turns[seat])
            turns[seat] += 1
            score = scores[seat]
            minimum = 0 if entered[seat] else entry
            decide = deciders[seat]
            points = 0
            n = dice
            index = 0
            while True:
                keeps = keeps_of[roll_key(stream, index, n)]
                index += 1
                if not keeps:
                    farkles[seat] += 1
                    break
                keep, bank = decide(score, points, minimum, keeps)
                points += keep.points
                if exact and score + points > target:
                    break  # the keep passes the target: the turn is forfeited
                if bank:
                    score += points
                    scores[seat] = score
                    entered[seat] = True
                    if score >= target and final_left < 0:
                        final_left = 1
                    break
                n = keep.dice_left
        all_turns += turns[0] + turns[1]
        results.append((tuple(scores), tuple(turns), tuple(farkles)))
    return all_turns, results


def check_against_arena(games: int = 300) -> None:
    """Raise if the bare loop's games differ from arena's engine on the same seeds."""
    from arena.players import play_match
    from arena.players.builtin.greedy import GreedyPlayer
    from arena.players.builtin.threshold import ThresholdPlayer

    seeds = [derive_seed(7, g) for g in range(games)]
    _, bare = play_bare(seeds)
    for g, seed in enumerate(seeds):
        pair = [ThresholdPlayer(BANK_AT, MIN_DICE), GreedyPlayer()]
        if g % 2:
            pair.reverse()
        result = play_match(STANDARD, pair, seed)
        if bare[g] != (result.scores, result.turns, result.farkles):
            raise AssertionError(f"game {g}: bare loop {bare[g]}, arena {result}")


def bare_turn_seconds(games: int = 3000, repeats: int = 3) -> tuple[float, float]:
    """Seconds per turn and games per second of the bare loop, best of ``repeats``."""
    seeds = [derive_seed(1, g) for g in range(games)]
    best = float("inf")
    turns = 0
    for _ in range(repeats):
        began = time.perf_counter()
        turns, _ = play_bare(seeds)
        best = min(best, time.perf_counter() - began)
    return best / turns, games / best


def machine() -> str:
    """The CPU model and core count, for labelling figures."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    args = parser.parse_args()
    check_against_arena()
    per_turn, games_per_second = bare_turn_seconds(args.games)
    print(f"machine: {machine()}")
    print("bare loop, threshold vs greedy on standard (checked game by game against arena's engine)")
    print(f"  {games_per_second:,.0f} games/s, {per_turn * 1e6:.2f} µs per turn")


if __name__ == "__main__":
    main()
