"""Dice streams: deterministic, duplicate across seat swaps, and fair."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from arena.engine import CLASSIC, STANDARD, Action, ScriptedDice, TurnView, derive_seed, play
from arena.engine import events as ev
from arena.engine.dice import (
    FACE_KEY,
    OUTCOME_KEYS,
    POW6,
    all_multisets,
    counts_of,
    faces_of,
    key_of,
    roll_key,
    turn_stream,
)
from arena.engine.scoring import score_table


def greedy(view: TurnView) -> Action:
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep) and not view.overshoots(keep))


def cautious(view: TurnView) -> Action:
    keep = min(view.legal_keeps, key=lambda k: len(k.dice))
    return Action(keep.dice, view.bank_allowed(keep) and keep.dice_left < 4)


def rolls_by_turn(events: list) -> dict[tuple[int, int], list[tuple[int, ...]]]:
    turns: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    counter: Counter[int] = Counter()
    current = None
    for e in events:
        if isinstance(e, ev.TurnStarted):
            current = (e.seat, counter[e.seat])
            counter[e.seat] += 1
            turns[current] = []
        elif isinstance(e, ev.Rolled):
            turns[current].append(e.dice)
    return turns


def test_there_are_923_multisets_of_one_to_six_dice() -> None:
    assert sum(len(all_multisets(n)) for n in range(1, 7)) == 923
    for key in all_multisets(4):
        assert key_of(faces_of(key)) == key and sum(counts_of(key)) == 4


def test_outcome_tables_enumerate_every_ordered_roll() -> None:
    for n in range(1, 7):
        assert len(OUTCOME_KEYS[n]) == POW6[n]
        # The n-dice table is the low base-6 digits of the 6-dice table.
        assert all(OUTCOME_KEYS[n][i % POW6[n]] == OUTCOME_KEYS[n][i % POW6[n]] for i in range(0, 46656, 97))
    counts = Counter(OUTCOME_KEYS[3])
    assert counts[key_of((1, 2, 3))] == 6 and counts[key_of((4, 4, 4))] == 1


def test_fewer_dice_are_the_first_dice_of_the_same_draw() -> None:
    for stream in range(200):
        six = Counter(faces_of(roll_key(stream, 0, 6)))
        for n in range(1, 6):
            assert not Counter(faces_of(roll_key(stream, 0, n))) - six


def test_same_seed_same_game_and_other_seeds_differ() -> None:
    runs = []
    for seed in (11, 11, 12):
        events: list = []
        play(STANDARD, [greedy, cautious], seed, on_event=events.append)
        runs.append(events)
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_swapping_seats_gives_each_seat_position_the_same_dice() -> None:
    # Duplicate play: the dice of a seat position's k-th turn depend on (seed, seat, k) only.
    a: list = []
    b: list = []
    play(CLASSIC, [greedy, cautious], 5, on_event=a.append)
    play(CLASSIC, [cautious, greedy], 5, on_event=b.append)
    turns_a, turns_b = rolls_by_turn(a), rolls_by_turn(b)
    common = turns_a.keys() & turns_b.keys()
    assert len(common) > 20
    for turn in common:
        assert turns_a[turn][0] == turns_b[turn][0]  # the first roll of a turn: all dice
    differing = sum(turns_a[t] != turns_b[t] for t in common)
    assert differing > 0, "different decisions should lead to different later rolls"


def test_derive_seed_depends_on_every_part_and_order() -> None:
    seen = {derive_seed(*p) for p in [(1, 2), (2, 1), (1, 2, 0), (1,), (0, 1, 2), (-1, 2), (2**70, 2)]}
    assert len(seen) == 7
    assert all(0 <= s < 2**64 for s in seen)
    assert derive_seed(3, 4) == derive_seed(3, 4)


def test_turn_streams_differ_by_seat_and_turn() -> None:
    streams = {turn_stream(99, seat, turn) for seat in range(8) for turn in range(100)}
    assert len(streams) == 800


def test_faces_are_uniform() -> None:
    # Chi-square with 5 degrees of freedom; 20.5 is the 0.1 % critical value.
    faces = Counter()
    for seat in range(10):
        for turn in range(600):
            stream = turn_stream(2024, seat, turn)
            for index in range(10):
                faces.update(faces_of(roll_key(stream, index, 1)))
    total = sum(faces.values())
    chi2 = sum((faces[f] - total / 6) ** 2 / (total / 6) for f in FACE_KEY)
    assert chi2 < 20.5, faces


def test_farkle_frequency_matches_the_exact_odds() -> None:
    table = score_table(STANDARD)
    n, farkles = 40_000, 0
    for i in range(n):
        farkles += not table.keeps[roll_key(turn_stream(7, 0, i), 0, 6)]
    p = table.farkle_rolls[6] / 46656
    assert abs(farkles / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_scripted_dice_must_fit_the_cup() -> None:
    dice = ScriptedDice([(1, 2, 3)])
    with pytest.raises(ValueError, match="but 2 dice"):
        dice(0, 0, 2)
    dice = ScriptedDice([])
    with pytest.raises(LookupError, match="ran out"):
        dice(0, 0, 1)


def test_seat_streams_are_the_turn_streams() -> None:
    from arena.engine.dice import next_turn_stream, seat_streams

    bases = seat_streams(derive_seed(77), 4)
    for seat in range(4):
        for turn in range(50):
            assert next_turn_stream(bases[seat], turn) == turn_stream(derive_seed(77), seat, turn)
