"""Property tests: random legal play on every preset and on random variant mixes keeps every
invariant (scores are multiples of 50 and never negative, a banked turn meets its minimum, an
exact target is never passed, the final round has the documented length, every game ends)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.engine import PRESETS, Action, Ruleset, RulesetError, TurnView, play
from arena.engine import events as ev

MULTIPLE_OF_50 = st.integers(min_value=0, max_value=40).map(lambda x: x * 50)


def random_decider(seed: int):
    rng = random.Random(seed)

    def decide(view: TurnView) -> Action:
        keep = rng.choice(view.legal_keeps)
        return Action(keep.dice, view.bank_allowed(keep) and rng.random() < 0.5)

    return decide


@st.composite
def variant_mixes(draw: Any) -> Ruleset:
    base = draw(st.sampled_from(list(PRESETS.values())))
    changes = {
        "dice": draw(st.sampled_from([5, 6])),
        "target": draw(st.sampled_from([1000, 2000, 3000, 5000])),
        "exact_target": draw(st.booleans()),
        "entry_threshold": draw(st.sampled_from([0, 350, 500, 1000])),
        "kind_scoring": draw(st.sampled_from(["doubling", "fixed_values", "fixed_bonus"])),
        "kind_bonus": draw(MULTIPLE_OF_50),
        "straights": draw(st.booleans()),
        "three_pairs": draw(st.booleans()),
        "two_triplets_bonus": draw(st.sampled_from([0, 500, 1500])),
        "must_roll_after_hot_dice": draw(st.booleans()),
        "farkle_penalty": draw(st.sampled_from([0, 500, 1000])),
        "farkle_penalty_to_zero": draw(st.booleans()),
        "rising_bar": draw(st.booleans()),
        "bar_step": draw(MULTIPLE_OF_50),
        "strikes_to_zero": draw(st.integers(1, 4)),
        "final_round": draw(st.sampled_from(["everyone_else", "rest_of_round"])),
        "ties": draw(st.sampled_from(["share", "playoff"])),
    }
    if changes["dice"] == 5:
        changes["three_pairs"] = False
        changes["two_triplets_bonus"] = 0
    if changes["farkle_penalty_to_zero"]:
        changes["farkle_penalty"] = 0
    try:
        return base.replace(**changes)
    except RulesetError:
        assume(False)
        raise


def check_invariants(rules: Ruleset, n_players: int, seed: int) -> None:
    events: list = []
    deciders = [random_decider(seed * 31 + s) for s in range(n_players)]
    result = play(rules, deciders, seed, on_event=events.append, max_rounds=500)
    scores = [0] * n_players
    minimum = 0
    turns_after_final = None
    final_expected = None
    in_playoff = False
    for e in events:
        if isinstance(e, ev.TurnStarted):
            minimum = e.bank_minimum
            if turns_after_final is not None and not e.playoff:
                turns_after_final += 1
        elif isinstance(e, ev.Banked):
            assert e.points >= minimum and e.points % 50 == 0
            if not in_playoff:  # playoff points decide the tie; they are not added
                scores[e.seat] += e.points
                assert scores[e.seat] == e.score
        elif isinstance(e, (ev.FarklePenalty,)):
            scores[e.seat] = e.score
        elif isinstance(e, ev.StruckOut):
            scores[e.seat] = 0
        elif isinstance(e, ev.PlayoffStarted):
            in_playoff = True
            assert len(e.seats) > 1
        elif isinstance(e, ev.FinalRound):
            assert turns_after_final is None, "the final round starts once"
            turns_after_final, final_expected = 0, e.turns_left
        for score in scores:
            assert score >= 0 and score % 50 == 0
            if rules.exact_target:
                assert score <= rules.target
    assert tuple(scores) == result.scores
    assert isinstance(events[-1], ev.GameOver)
    if result.reason == "target":
        assert turns_after_final == final_expected
        assert max(result.scores) >= rules.target
    assert abs(sum(result.win_shares) - 1) < 1e-9
    top = max(result.scores)
    assert all(result.scores[w] == top for w in result.winners)
    assert all(result.ranks[w] == 1 for w in result.winners)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(list(PRESETS.values())),
    n_players=st.integers(1, 6),
    seed=st.integers(0, 2**63),
)
def test_random_legal_play_on_presets_keeps_the_invariants(rules: Ruleset, n_players: int, seed: int) -> None:
    check_invariants(rules, n_players, seed)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=variant_mixes(), n_players=st.integers(1, 4), seed=st.integers(0, 2**63))
def test_random_legal_play_on_variant_mixes_keeps_the_invariants(
    rules: Ruleset, n_players: int, seed: int
) -> None:
    check_invariants(rules, n_players, seed)
