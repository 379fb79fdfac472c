"""The compiled kernel plays exactly the Python engine's games: a differential test.

For every preset and every variant arena ships (arena/engine/variants/), with every built-in
that declares a policy, and for random rulesets x random declarative policies (hypothesis),
``CompiledGames.play`` must give the same games.csv bytes and win shares as ``BatchPlayer.play``.
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.compiled import compilable_players, why_not_compiled
from arena.engine import PRESETS, Action, Ruleset, TurnView
from arena.engine.loading import VARIANTS_FOLDER, load_ruleset
from arena.players import load_player_spec
from arena.players.builtin.common import keeps_within_target
from arena.players.builtin.tactician import Tactician
from arena.players.policy import Policy, PolicyPlayer, RandomStream, decide_by_policy, leader_score, policy_of
from arena.tournaments.batch import BatchPlayer
from arena.tournaments.spec import TournamentSpec, player_from_class

pytest.importorskip("numba")
from arena.tournaments.compiled_games import CompiledGames

ROOT = Path(__file__).resolve().parent.parent
RULESET_FILES = sorted(VARIANTS_FOLDER.glob("*.toml"))
BUILTINS = ["threshold", "threshold:bank_at=600,min_dice=2", "greedy", "random", "optimal", "tactician"]
#: A strategy file without a policy (it plays in Python only).
NO_POLICY = str(ROOT / "strategies" / "catch_up.py")

#: Rules built to reach the rare branches: a low exact target with a rising bar (overshoots,
#: strikes), playoffs, farkle penalties, hot dice that must be rolled, a round limit.
RARE = (
    Ruleset(
        name="rare-exact-bar",
        target=1000,
        exact_target=True,
        rising_bar=True,
        bar_start=300,
        bar_step=100,
        strikes_to_zero=2,
        ties="playoff",
        final_round="everyone_else",
        must_roll_after_hot_dice=True,
        farkle_penalty=100,
        farkle_penalty_streak=1,
    ),
    Ruleset(
        name="rare-playoff",
        dice=5,
        target=350,
        entry_threshold=100,
        ties="playoff",
        farkle_penalty_to_zero=True,
        farkle_penalty_streak=2,
        straights=True,
    ),
    Ruleset(
        name="rare-share", target=400, kind_scoring="fixed_bonus", three_pairs=True, two_triplets_bonus=500
    ),
)


def _spec(rules: tuple[Ruleset, ...], players: list, **kw) -> TournamentSpec:
    specs = tuple(p if not isinstance(p, str) else load_player_spec(p) for p in players)
    return TournamentSpec(rulesets=rules, players=specs, seed=kw.pop("seed", 11), **kw)


def _same(spec: TournamentSpec) -> str:
    """Play every game of ``spec`` both ways and assert equality; return the rows."""
    compiled = CompiledGames(spec)
    n = len(compiled.schedule)
    fast = compiled.play(0, n)
    slow = BatchPlayer(spec).play(0, n)
    if fast.rows != slow.rows:  # show the first differing row, not two walls of text
        for a, b in zip(fast.rows.splitlines(), slow.rows.splitlines(), strict=True):
            assert a == b
    assert fast.rows == slow.rows
    assert fast.shares == slow.shares
    return fast.rows


@pytest.mark.parametrize("fmt,seats", [("round-robin", None), ("free-for-all", 4), ("free-for-all", 3)])
def test_every_preset_and_ruleset_file_plays_the_same_games(fmt: str, seats: int | None) -> None:
    rules = tuple(PRESETS.values()) + tuple(load_ruleset(p) for p in RULESET_FILES)
    games = 6 if fmt == "round-robin" else 12
    spec = _spec(rules, BUILTINS, format=fmt, seats=seats, games=games)
    assert why_not_compiled(spec) is None
    rows = _same(spec)
    assert len(rows.splitlines()) == len(CompiledGames(spec).schedule) * (seats or 2)


def test_rare_branches_play_the_same_games_and_are_reached() -> None:
    spec = _spec(RARE, BUILTINS, format="free-for-all", seats=3, games=150, max_rounds=6)
    rows = list(csv.reader(io.StringIO(_same(spec))))
    games: dict[str, list[list[str]]] = {}
    for row in rows:
        games.setdefault(row[1], []).append(row)
    by_rules = {r.name: r for r in RARE}
    playoff_decided = shared = round_limit = 0
    for seats in games.values():
        scores = [int(r[6]) for r in seats]
        top = max(scores)
        tied = [r for r in seats if int(r[6]) == top]
        if len(tied) > 1 and sorted(r[8] for r in tied)[-1] == "1":
            playoff_decided += 1
        if any(r[8] not in ("0", "1") for r in seats):
            shared += 1
        ends = {r[13] for r in seats}  # the end column: the same in every row of a game
        if top < by_rules[seats[0][0]].target:
            round_limit += 1
            assert ends == {"round_limit"}
        else:
            assert ends == {"target"}
    assert playoff_decided and shared and round_limit


def test_a_chunked_run_equals_one_piece_and_game_lists() -> None:
    spec = _spec((PRESETS["standard"],), ["threshold", "greedy", "random"], games=10)
    compiled = CompiledGames(spec)
    whole = compiled.play(0, 30)
    assert "".join(p.rows for p in compiled.pieces(0, 30, every=7)) == whole.rows
    picked = compiled.play_games([3, 17, 29])
    lines = whole.rows.splitlines(keepends=True)
    assert picked == ["".join(lines[2 * g : 2 * g + 2]) for g in (3, 17, 29)]


_KEEPS = st.sampled_from(["most_points", "most_dice", "fewest_dice", "random", "weighted"])
_FRACTIONS = st.tuples(st.integers(0, 8), st.integers(1, 8))


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    keep = draw(_KEEPS)
    bank = draw(st.sampled_from(["threshold", "table", "random"]))
    kw: dict = {"keep": keep, "bank": bank}
    if bank == "threshold":
        at = st.integers(0, 40).map(lambda x: 50 * x)
        kw["bank_at"] = draw(st.one_of(at, st.tuples(*[at] * 6)))
    if bank == "table":
        cols = draw(st.integers(1, 30))
        row = st.lists(st.booleans(), min_size=cols, max_size=cols).map(tuple)
        kw["table"] = tuple(draw(row) for _ in range(6))
    kw["min_dice"] = draw(st.integers(1, 6))
    kw["bank_on_target"] = draw(st.booleans())
    kw.update(draw(score_aware(bank, keep)))
    if draw(st.integers(0, 5)) == 0:
        return Policy(keep="optimal", bank="optimal")
    return Policy(**kw)


@st.composite
def score_aware(draw: st.DrawFn, bank: str, keep: str) -> dict:
    """Values for the score-aware fields (lead_margin, behind/ahead_scale, catch_up, roll_keep,
    die_worth) that go with ``bank`` and ``keep``; often none of them."""
    kw: dict = {}
    if bank == "threshold" and draw(st.booleans()):
        kw["lead_margin"] = draw(_FRACTIONS)
        kw["behind_scale"] = draw(_FRACTIONS)
        kw["ahead_scale"] = draw(_FRACTIONS)
        if kw["behind_scale"] == kw["ahead_scale"] == (1, 1):
            kw["behind_scale"] = (3, 2)
    if bank != "random":
        kw["catch_up"] = draw(st.booleans())
    roll_keep = draw(st.one_of(st.none(), _KEEPS))
    kw["roll_keep"] = roll_keep
    if "weighted" in (keep, roll_keep):
        kw["die_worth"] = draw(st.integers(0, 400))
    return kw


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    dice = draw(st.sampled_from([5, 6]))
    target = 50 * draw(st.integers(4, 60))
    fields = {
        "name": "hyp",
        "dice": dice,
        "target": target,
        "exact_target": draw(st.booleans()),
        "entry_threshold": 50 * draw(st.integers(0, min(10, target // 50))),
        "kind_scoring": draw(st.sampled_from(["doubling", "fixed_values", "fixed_bonus"])),
        "straights": draw(st.booleans()),
        "must_roll_after_hot_dice": draw(st.booleans()),
        "rising_bar": draw(st.booleans()),
        "bar_start": 50 * draw(st.integers(1, min(8, target // 50))),
        "bar_step": 50 * draw(st.integers(0, 3)),
        "strikes_to_zero": draw(st.integers(1, 4)),
        "final_round": draw(st.sampled_from(["everyone_else", "rest_of_round"])),
        "ties": draw(st.sampled_from(["share", "playoff"])),
        "farkle_penalty_streak": draw(st.integers(1, 3)),
    }
    penalty = draw(st.sampled_from(["none", "points", "zero"]))
    if penalty == "points":
        fields["farkle_penalty"] = 50 * draw(st.integers(1, 20))
    elif penalty == "zero":
        fields["farkle_penalty_to_zero"] = True
    if dice == 6:
        fields["three_pairs"] = draw(st.booleans())
        fields["two_triplets_bonus"] = 50 * draw(st.integers(0, 10))
    return Ruleset(**fields)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), chosen=st.lists(policies(), min_size=2, max_size=3), seed=st.integers(0, 2**70))
def test_random_rulesets_and_policies_play_the_same_games(
    rules: Ruleset, chosen: list[Policy], seed: int
) -> None:
    players = []
    for i, policy in enumerate(chosen):
        cls = type(f"Drawn{i}", (PolicyPlayer,), {"name": f"drawn,{i}", "policy": policy})
        players.append(player_from_class(cls))
    fmt = "free-for-all" if len(players) > 2 else "round-robin"
    _same(_spec((rules,), players, format=fmt, games=4, seed=seed, max_rounds=40))


def test_the_declarative_example_plays_the_same_games() -> None:
    spec = _spec((PRESETS["standard"], PRESETS["short"]), ["strategies/declarative.py", "greedy"], games=30)
    assert compilable_players(spec) == [True, True]
    _same(spec)


def test_players_without_a_policy_are_named() -> None:
    spec = _spec((PRESETS["standard"],), ["greedy", NO_POLICY], games=2)
    assert compilable_players(spec) == [True, False]
    reason = why_not_compiled(spec)
    assert reason is not None and "'catch-up:" in reason and "\n" not in reason
    compiled = CompiledGames(spec)
    assert compiled.compilable([0, 1]).tolist() == [False, False]
    with pytest.raises(ValueError, match="without a declarative policy"):
        compiled.play(0, 2)


def test_a_policy_is_validated_in_one_line() -> None:
    for bad in (
        {"keep": "best"},
        {"bank_at": (100, 200)},
        {"bank_at": -50},
        {"min_dice": 7},
        {"bank": "table", "table": ((True,),) * 5},
        {"bank": "table", "table": ((1,),) * 6},
        {"keep": "optimal"},
        {"table": ((True,),) * 6},
        {"bank_at": 10**9 + 1},
        {"lead_margin": (1, 0), "behind_scale": (3, 2)},
        {"behind_scale": (3, 2, 1)},
        {"ahead_scale": (-1, 4)},
        {"bank": "table", "table": ((True,),) * 6, "behind_scale": (3, 2)},
        {"lead_margin": (1, 5)},
        {"catch_up": 1},
        {"bank": "random", "catch_up": True},
        {"roll_keep": "optimal"},
        {"keep": "optimal", "bank": "optimal", "roll_keep": "most_dice"},
        {"keep": "weighted", "die_worth": -150},
        {"die_worth": 150},
    ):
        with pytest.raises(ValueError) as caught:
            Policy(**bad)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("policy ")


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_without_numba_why_not_compiled_says_how_to_install_and_python_still_plays() -> None:
    out = _run(
        """
        import sys
        sys.modules["numba"] = None
        from arena.compiled import why_not_compiled
        from arena.engine import PRESETS
        from arena.players import load_player_spec
        from arena.tournaments.batch import BatchPlayer
        from arena.tournaments.spec import TournamentSpec
        players = (load_player_spec("greedy"), load_player_spec("random"))
        spec = TournamentSpec((PRESETS["standard"],), players, games=2)
        print(why_not_compiled(spec))
        print(len(BatchPlayer(spec).play(0, 2).rows.splitlines()))
        """
    )
    hint = "numba is not installed: pip install numba (in a checkout of arena: pip install -e '.[fast]')"
    assert out.splitlines() == [hint, "4"]


def test_the_compiled_kernel_is_loaded_from_the_disk_cache() -> None:
    code = """
        from arena.tournaments.compiled_games import CompiledGames
        from arena.compiled import kernel
        from arena.engine import PRESETS
        from arena.players import load_player_spec
        from arena.tournaments.spec import TournamentSpec
        players = (load_player_spec("greedy"), load_player_spec("threshold"))
        CompiledGames(TournamentSpec((PRESETS["standard"],), players, games=2)).play(0, 2)
        stats = kernel.play_games.stats
        print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
        """
    _run(code)  # the first run may compile and write the cache
    hits, misses = map(int, _run(code).split())
    assert hits == 1 and misses == 0


def test_tactician_plays_its_policy_at_every_decision() -> None:
    """Tactician's hand-written decide and the interpreter of its policy agree decision by
    decision, and the games reach every step the policy adds (catch-up, gap scaling, the
    keep to roll on)."""
    policy = Tactician.policy
    assert policy_of(Tactician()) == policy
    reached = {"catch_up": 0, "behind": 0, "ahead": 0, "roll_keep": 0}
    differ: list[tuple[TurnView, Action]] = []  # not an assert in decide: the match catches errors

    class Checked(Tactician):
        name = "checked"

        def decide(self, view: TurnView) -> Action:
            action = super().decide(view)
            if decide_by_policy(policy, view, RandomStream(0)) != action:
                differ.append((view, action))
            leader = leader_score(view)
            margin = view.rules.target // 5
            reached["catch_up"] += view.final_round and view.score < leader
            reached["behind"] += leader - view.score > margin
            reached["ahead"] += view.score - leader > margin
            reached["roll_keep"] += not action.bank and action.keep != keeps_within_target(view)[0].dice
            return action

    rules = tuple(PRESETS.values()) + RARE
    spec = _spec(rules, [player_from_class(Checked), "greedy", "optimal"], format="free-for-all", games=20)
    result = BatchPlayer(spec).play(0, len(CompiledGames(spec).schedule))
    assert result.faults == 0 and differ == []
    assert all(count > 0 for count in reached.values()), reached
