"""The built-in strategies: each acts legally everywhere, each does what its docstring says, and
optimal beats greedy and threshold by a clear margin on every preset."""

from __future__ import annotations

import math
import random

import pytest

from arena.engine import CLASSIC, PRESETS, SHORT, STANDARD, Action, Ruleset, TurnView, legal_keeps
from arena.engine.dice import roll_key, turn_stream
from arena.engine.scoring import score_table
from arena.players import BUILTINS, GameInfo, load_player_spec, play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.optimal import OptimalPlayer
from arena.players.builtin.random_player import RandomPlayer
from arena.players.builtin.tactician import Tactician
from arena.players.builtin.threshold import ThresholdPlayer
from arena.players.solver import solve_turn


def situation(rules: Ruleset, rng: random.Random) -> TurnView:
    """A random but consistent situation after a scoring roll."""
    table = score_table(rules)
    while True:
        n = rng.randint(1, rules.dice)
        key = roll_key(turn_stream(rng.getrandbits(64), 0, 0), 0, n)
        if table.keeps[key]:
            break
    n_players = rng.randint(1, 6)
    seat = rng.randrange(n_players)
    cap = rules.target if rules.exact_target else rules.target * 2
    scores = tuple(50 * rng.randint(0, cap // 50) for _ in range(n_players))
    if rules.exact_target:
        scores = tuple(min(s, rules.target) for s in scores)
    return TurnView(
        rules=rules,
        seat=seat,
        n_players=n_players,
        scores=scores,
        roll=table.faces[key],
        turn_points=50 * rng.randint(0, 60),
        bank_minimum=rng.choice([0, 0, 350, 500, 50 * rng.randint(7, 40)]),
        legal_keeps=table.keeps[key],
        strikes=tuple(rng.randint(0, 2) for _ in range(n_players)),
        farkle_streaks=tuple(rng.randint(0, 2) for _ in range(n_players)),
        entered=tuple(s > 0 or rng.random() < 0.5 for s in scores),
        final_round=rng.random() < 0.2,
        turn=rng.randint(0, 40),
        roll_number=rng.randint(1, 8),
        playoff=rng.random() < 0.05,
    )


def is_legal(view: TurnView, action: Action) -> bool:
    keep = next((k for k in view.legal_keeps if k.dice == tuple(sorted(action.keep))), None)
    if keep is None or not isinstance(action.bank, bool):
        return False
    return not action.bank or view.bank_allowed(keep) or view.overshoots(keep)


VARIANTS = [*PRESETS.values(), CLASSIC.replace(must_roll_after_hot_dice=True, exact_target=True, target=5000)]


@pytest.mark.parametrize(
    "rules", VARIANTS, ids=lambda r: r.name + ("-variant" if r not in PRESETS.values() else "")
)
@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_acts_legally_in_thousands_of_situations(rules: Ruleset, name: str) -> None:
    rng = random.Random(f"{name}/{rules.name}")
    player = BUILTINS[name]()
    if hasattr(player, "start_game"):
        player.start_game(GameInfo(rules, 0, 2, ("a", "b"), 1))
    for _ in range(2000):
        view = situation(rules, rng)
        action = player.decide(view)
        assert is_legal(view, action), (view, action)


@pytest.mark.parametrize("rules", list(PRESETS.values()), ids=lambda r: r.name)
def test_every_builtin_finishes_real_games_without_a_fault(rules: Ruleset) -> None:
    names = sorted(BUILTINS)
    for seed in range(30):
        seated = [BUILTINS[n]() for n in names[seed % 5 :] + names[: seed % 5]][: 2 + seed % 4]
        result = play_match(rules, seated, seed)
        assert result.reason == "target"


# --- one test per strategy's idea -------------------------------------------------------------
def view_of(roll: tuple[int, ...], rules: Ruleset = CLASSIC, **fields: object) -> TurnView:
    base = {
        "rules": rules,
        "seat": 0,
        "n_players": 2,
        "scores": (1000, 1000),
        "roll": roll,
        "turn_points": 0,
        "bank_minimum": 0,
        "legal_keeps": legal_keeps(roll, rules),
        "strikes": (0, 0),
        "farkle_streaks": (0, 0),
        "entered": (True, True),
        "final_round": False,
        "turn": 3,
        "roll_number": 1,
        "playoff": False,
    }
    base.update(fields)
    return TurnView(**base)  # type: ignore[arg-type]


def test_random_is_reproducible_from_its_game_info() -> None:
    def choices(seed: int) -> list[Action]:
        player = RandomPlayer()
        player.start_game(GameInfo(CLASSIC, 0, 2, ("a", "b"), seed))
        rng = random.Random(5)
        return [player.decide(situation(CLASSIC, rng)) for _ in range(200)]

    assert choices(1) == choices(1)
    assert choices(1) != choices(2)
    actions = choices(3)
    assert any(a.bank for a in actions) and not all(a.bank for a in actions)
    assert len({a.keep for a in actions}) > 10


def test_greedy_keeps_every_scoring_die_and_banks_at_once() -> None:
    action = GreedyPlayer().decide(view_of((1, 5, 5, 2, 3)))
    assert action == Action((1, 5, 5), True)
    action = GreedyPlayer().decide(view_of((1, 5, 5, 2, 3), bank_minimum=350))
    assert action == Action((1, 5, 5), False)  # may not bank yet
    # Under an exact target it skips keeps that would pass it: 100 missing, a 1 and a 5 rolled.
    action = GreedyPlayer().decide(view_of((1, 5, 2), STANDARD, scores=(9900, 0)))
    assert action == Action((1,), True)


def test_threshold_banks_at_bank_at_and_needs_min_dice() -> None:
    player = ThresholdPlayer(bank_at=400, min_dice=3)
    assert player.name == "threshold:bank_at=400,min_dice=3"
    assert player.decide(view_of((1, 2, 3, 4, 6), turn_points=250)) == Action((1,), False)  # 350 < 400
    assert player.decide(view_of((1, 2, 3, 4, 6), turn_points=300)) == Action((1,), True)  # 400
    assert player.decide(view_of((1, 5, 2, 3), turn_points=0)) == Action((1, 5), True)  # 2 dice left
    assert ThresholdPlayer(bank_at=400, min_dice=2).decide(view_of((1, 5, 2, 3))) == Action((1, 5), False)
    with pytest.raises(ValueError, match="min_dice"):
        ThresholdPlayer(min_dice=7)


def test_tactician_keeps_a_lone_1_rather_than_1_and_5() -> None:
    # 002: "Liegen eine Eins und eine Fünf, nimm oft nur die Eins."
    action = Tactician().decide(view_of((1, 5, 2, 3, 4)))
    assert action == Action((1,), False)


def test_tactician_banks_by_dice_left() -> None:
    # With one or two dice left it banks once a few hundred points are in the turn.
    assert Tactician().decide(view_of((1, 5, 5, 2, 3), turn_points=100)) == Action((1, 5, 5), True)  # 300
    assert Tactician().decide(view_of((1, 5, 5, 2, 3), turn_points=0)) == Action((1,), False)  # 200
    # With four or five dice left and few points it rolls on.
    assert Tactician().decide(view_of((5, 2, 3, 4, 6), turn_points=0)).bank is False


def test_tactician_in_the_final_round_rolls_until_past_the_leader() -> None:
    behind = view_of((1, 2, 3, 4, 6), turn_points=1500, scores=(8000, 10000), final_round=True)
    assert Tactician().decide(behind).bank is False  # 9600 is not past 10000
    passing = view_of((1, 1, 1, 4, 6), turn_points=1500, scores=(8000, 10000), final_round=True)
    assert Tactician().decide(passing) == Action((1, 1, 1), True)


def test_tactician_risks_more_when_far_behind() -> None:
    level = view_of((1, 2, 3, 4, 6), turn_points=700, scores=(5000, 5000))  # 800 with four dice left
    assert Tactician().decide(level).bank is True
    assert Tactician().decide(level._replace(scores=(1000, 5000))).bank is False  # far behind: 1200
    assert Tactician().decide(level._replace(turn_points=500, scores=(9000, 5000))).bank is True  # ahead: 600


def test_optimal_follows_the_solver() -> None:
    # After hot dice with 6 fresh dice it rolls on even with 1000 in the turn.
    view = view_of((1, 1, 5, 5, 5), turn_points=0)
    action = OptimalPlayer().decide(view)
    solution = solve_turn(CLASSIC)
    assert action.keep == (1, 1, 5, 5, 5) and action.bank is False
    assert solution.value_of_roll(1200, 5) > 1200
    # With one die left and 1000 in the turn it banks.
    assert OptimalPlayer().decide(view_of((1, 2, 3, 4), turn_points=900)) == Action((1,), True)


def test_optimal_respects_an_exact_target() -> None:
    # 150 missing: 1 + 5 hits it exactly and banks, rather than three 1s.
    view = view_of((1, 1, 1, 5, 2, 3), STANDARD, scores=(9850, 0))
    assert OptimalPlayer().decide(view) == Action((1, 5), True)


# --- optimal wins ----------------------------------------------------------------------------
def duel_win_rate(rules: Ruleset, spec_a: str, spec_b: str, deals: int) -> tuple[float, float, float]:
    """Win share of a over both seat orders of each deal, with a 95% Wilson interval."""
    a, b = load_player_spec(spec_a), load_player_spec(spec_b)
    wins = 0.0
    for deal in range(deals):
        wins += play_match(rules, [a.create(), b.create()], deal).win_shares[0]
        wins += play_match(rules, [b.create(), a.create()], deal).win_shares[1]
    n = 2 * deals
    p = wins / n
    z = 1.959964
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, centre - half, centre + half


@pytest.mark.parametrize("rules", [STANDARD, SHORT, CLASSIC], ids=lambda r: r.name)
@pytest.mark.parametrize("opponent", ["greedy", "threshold"])
def test_optimal_beats_greedy_and_threshold(rules: Ruleset, opponent: str) -> None:
    p, low, high = duel_win_rate(rules, "optimal", opponent, deals=1000)
    assert low > 0.5, f"optimal vs {opponent} on {rules.name}: {p:.3f} [{low:.3f}, {high:.3f}]"
