"""The optimal-turn solver: equal to a plain second implementation, and its expected points
equal a Monte Carlo estimate of its own policy."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache

import pytest

from arena.engine import CLASSIC, SHORT, STANDARD, Ruleset
from arena.engine import events as ev
from arena.engine.dice import OUTCOME_KEYS
from arena.engine.scoring import score_table
from arena.players import play_match
from arena.players import solver as solver_module
from arena.players.builtin.optimal import OptimalPlayer
from arena.players.solver import solve_turn

SMALL_HORIZON = 3000


def reference_values(
    rules: Ruleset, minimum: int, cap: int | None, horizon: int
) -> dict[tuple[int, int], float]:
    """V(t, n) by plain recursion over multisets, written without the solver's grouping."""
    table = score_table(rules)
    rolls = {n: Counter(OUTCOME_KEYS[n]) for n in range(1, rules.dice + 1)}

    def after_keep(t: int, left: int, hot: bool) -> float:
        if cap is not None and t > cap:
            return 0.0
        if cap is None and t >= horizon:
            return float(t)
        roll_on = value(t, left)
        can_bank = t >= minimum and t > 0 and not (hot and rules.must_roll_after_hot_dice)
        return max(roll_on, float(t)) if can_bank else roll_on

    @cache
    def value(t: int, n: int) -> float:
        total = 0.0
        for key, count in rolls[n].items():
            keeps = table.keeps[key]
            if keeps:
                best = max(after_keep(t + k.points, k.dice_left, k.hot) for k in keeps)
                total += count * best
        return total / 6**n

    rows = (cap // 50 + 1) if cap is not None else horizon // 50
    return {(i * 50, n): value(i * 50, n) for i in range(rows - 1, -1, -1) for n in range(1, rules.dice + 1)}


CASES = [
    (CLASSIC, 0, None),
    (CLASSIC, 350, None),
    (CLASSIC.replace(must_roll_after_hot_dice=True), 0, None),
    (CLASSIC.replace(straights=True), 1000, None),
    (STANDARD, 500, 800),
    (STANDARD, 0, 1500),
    (SHORT, 650, None),
]


@pytest.mark.parametrize(("rules", "minimum", "cap"), CASES)
def test_solver_equals_a_plain_recursion(
    monkeypatch: pytest.MonkeyPatch, rules: Ruleset, minimum: int, cap: int | None
) -> None:
    monkeypatch.setattr(solver_module, "HORIZON", SMALL_HORIZON)
    solver_module._solved.cache_clear()
    solve_turn.cache_clear()
    try:
        solution = solve_turn(rules, minimum, cap)
        expected = reference_values(rules, minimum, cap, SMALL_HORIZON)
        for (t, n), v in expected.items():
            assert solution.value_of_roll(t, n) == pytest.approx(v, rel=1e-9, abs=1e-9), (t, n)
    finally:
        solver_module._solved.cache_clear()
        solve_turn.cache_clear()


def test_expected_turn_points_of_the_presets() -> None:
    # Worth recording: the numbers `arena solve` prints, and their order (six dice with three
    # pairs and straights score more per turn than five dice).
    values = {r.name: solve_turn(r).expected_turn_points for r in (STANDARD, SHORT, CLASSIC)}
    assert 500 < values["standard"] < values["short"]
    assert 250 < values["classic"] < values["standard"]


def test_a_minimum_never_raises_the_expected_points() -> None:
    free = solve_turn(CLASSIC).expected_turn_points
    assert solve_turn(CLASSIC, 350).expected_turn_points < free
    assert solve_turn(CLASSIC, 1000).expected_turn_points < solve_turn(CLASSIC, 350).expected_turn_points


def test_banking_table_is_the_first_total_where_banking_wins() -> None:
    solution = solve_turn(CLASSIC)
    for n in range(1, 6):
        t = solution.bank_threshold(n)
        assert t is not None and t >= solution.value_of_roll(t, n)
        assert all(s < solution.value_of_roll(s, n) for s in range(50, t, 50))


@pytest.mark.parametrize(
    "rules",
    [
        CLASSIC.replace(entry_threshold=0, target=10_000_000),
        STANDARD.replace(entry_threshold=0, exact_target=False, target=10_000_000),
        SHORT.replace(rising_bar=False, target=10_000_000),
    ],
    ids=["classic", "standard", "short"],
)
def test_expected_points_match_a_monte_carlo_of_the_policy(rules: Ruleset) -> None:
    # One long one-player game with no entry and an unreachable target: every turn is an
    # independent draw of the policy's turn points.
    turns = points = 0
    squares = 0.0
    for seed in range(4):
        game_points: list[int] = []

        def record(event: object, sink: list[int] = game_points) -> None:
            if isinstance(event, ev.Banked):
                sink.append(event.points)
            elif isinstance(event, (ev.Farkled, ev.Overshot)):
                sink.append(0)

        result = play_match(rules, [OptimalPlayer()], seed, on_event=record, max_rounds=6000)
        assert result.reason == "round_limit" and len(game_points) == result.turns[0]
        turns += len(game_points)
        points += sum(game_points)
        squares += sum(p * p for p in game_points)
    mean = points / turns
    sd = math.sqrt(squares / turns - mean * mean)
    expected = solve_turn(rules).expected_turn_points
    assert abs(mean - expected) < 4 * sd / math.sqrt(turns), (mean, expected, turns)
