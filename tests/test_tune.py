"""arena tune: parsing --param, the racing statistics, and whole races (a synthetic strategy
whose best setting is known by construction, reproducibility, resume, the API, compiled play)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
from arena.cli.main import cli
from arena.engine import load_ruleset
from arena.tuning import TuneSettings, parse_param
from arena.tuning.race import elo_gap, judge_round, round_level
from arena.tuning.runner import CANDIDATES, GAMES, SUMMARY, run_tune
from arena.tuning.space import SpaceError, make_grid

# Plays like `optimal` at q=3 and banks at a fixed total elsewhere, the further from 3 the
# lower: the best setting is q=3 by construction.  Declarative, so it runs compiled.
SYNTH = '''
from arena.players.builtin.optimal import OptimalPlayer
from arena.players.builtin.threshold import ThresholdPlayer


class Synth:
    """Optimal at q=3, a poor threshold elsewhere."""

    def __init__(self, q: int = 0) -> None:
        self.q = q
        self.name = f"synth:q={q}"
        worse = ThresholdPlayer(bank_at=350 - 50 * abs(q - 3), min_dice=2)
        self._inner = OptimalPlayer() if q == 3 else worse

    @property
    def policy(self):
        return self._inner.policy

    def decide(self, view):
        return self._inner.decide(view)
'''

# The same strategy without a policy: it plays in Python only.
PLAIN = SYNTH.replace("    @property\n    def policy(self):\n        return self._inner.policy\n\n", "")


def _load(text: str):
    from arena.sandbox import load_player

    return load_player(text, isolate=False, limits=None, move_timeout=None)


def invoke(*args: str):
    return CliRunner().invoke(cli, ["tune", *args])


def files(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in (GAMES, CANDIDATES, SUMMARY)}


# --- parsing --param ---------------------------------------------------------------------


def test_param_ranges_of_whole_numbers_decimals_and_lists() -> None:
    assert parse_param("bank_at=200..400/100").values == ("200", "300", "400")
    assert parse_param("min_dice=1..4").values == ("1", "2", "3", "4")
    assert parse_param("bank_at=200..450/100").values == ("200", "300", "400")  # HI not on a step
    assert parse_param("risk=0.1..0.3/0.1").values == ("0.1", "0.2", "0.3")  # exact, no 0.30000000000000004
    assert parse_param("risk=0..1/0.5").values == ("0.0", "0.5", "1.0")
    assert parse_param("keep=most_points, most_dice").values == ("most_points", "most_dice")
    grid = make_grid("threshold:min_dice=3", [parse_param("bank_at=200..300/100")])
    assert [grid.spec_text(v) for v in grid.settings()] == [
        "threshold:min_dice=3,bank_at=200",
        "threshold:min_dice=3,bank_at=300",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bank_at", "expected NAME=LO..HI/STEP"),
        ("bank_at=a..b", "is not a number"),
        ("bank_at=300..200", "is empty"),
        ("bank_at=200..300/0", "step must be positive"),
        ("bank_at=1,1", "listed twice"),
        ("bank_at=", "no values"),
    ],
)
def test_bad_params_are_refused(text: str, message: str) -> None:
    with pytest.raises(SpaceError, match=message):
        parse_param(text)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["threshold", "--param", "bank_at=a..b"], "is not a number"),
        (["threshold", "--param", "min_dice=0..2"], "min_dice must be 1 to 6"),
        (["threshold", "--param", "risk=1..2"], "unknown parameter 'risk'"),
        (["threshold", "--param", "bank_at=1.5,2"], "bank_at must be int"),
        (["threshold:bank_at=300", "--param", "bank_at=1..2"], "is fixed in the spec"),
        (["threshold"], "at least one --param"),
        (["threshold", "--param", "bank_at=300"], "one setting: nothing to race"),
        (["threshold", "--param", "min_dice=1..2", "--rules", "nope"], "nope"),
        (["threshold", "--param", "min_dice=1..2", "--budget", "10"], "too small"),
        (["threshold", "--param", "min_dice=1..2", "--tolerance", "0"], "--tolerance"),
        ([], "give the strategy to tune"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    result = invoke(*args, "--out", str(tmp_path / "run"), "--against", "greedy")
    assert result.exit_code == 2, result.output
    assert result.output.startswith("arena: error: ") and message in result.output
    assert result.output.count("\n") == 1
    assert not (tmp_path / "run").exists() or message == "too small"


# --- the racing statistics -----------------------------------------------------------------


def test_a_clearly_worse_candidate_is_dropped_and_equal_ones_kept() -> None:
    rng = random.Random(1)
    base = [rng.random() for _ in range(400)]
    scores = {
        0: base,
        1: [min(1.0, x + rng.gauss(0, 0.05)) for x in base],  # the same, with noise
        2: [max(0.0, x - 0.1 + rng.gauss(0, 0.05)) for x in base],  # 0.1 worse on every deal
    }
    verdict = judge_round(scores, alpha=0.05, round_number=1)
    assert verdict.dropped == (2,)
    assert verdict.leader in (0, 1)
    assert verdict.level == pytest.approx(0.05 / 2 / 2)  # alpha * 2**-1 / (3 - 1)


def test_identical_candidates_are_never_dropped_and_too_few_deals_decide_nothing() -> None:
    same = [0.5, 1.0, 0.0, 0.75] * 10
    assert judge_round({0: same, 1: list(same), 2: list(same)}, 0.05, 1).dropped == ()
    assert judge_round({0: [1.0] * 9, 1: [0.0] * 9}, 0.05, 1).dropped == ()  # below MIN_DEALS
    assert judge_round({0: [1.0] * 10, 1: [0.0] * 10}, 0.05, 1).dropped == (1,)


def test_the_levels_spend_alpha_over_rounds_and_elo_gaps_grow_with_the_gap() -> None:
    assert sum(round_level(0.05, r, 2) for r in range(1, 30)) < 0.05
    assert elo_gap(0.5, 0.0) == 0.0
    assert 6.9 < elo_gap(0.5, 0.01) < 7.0  # 400 log10(0.5/0.49 * 0.51/0.5)


def test_the_best_survives_equal_candidates_in_most_races() -> None:
    """Four equal candidates raced for six rounds: each is a best one, and a given one (here
    candidate 0) is dropped in at most about alpha of the races (the rule's error rate, checked
    by simulation).  Some candidate is dropped more often: up to four times alpha."""
    rng = random.Random(7)
    drops = 0
    for _ in range(200):
        scores: dict[int, list[float]] = {c: [] for c in range(4)}
        alive = list(scores)
        for r in range(1, 7):
            for _deal in range(16 * 2 ** (r - 1)):
                luck = rng.random()
                for c in alive:
                    scores[c].append(min(1.0, max(0.0, luck + rng.choice((-0.25, 0.0, 0.0, 0.25)))))
            verdict = judge_round({c: scores[c] for c in alive}, 0.05, r)
            alive = [c for c in alive if c not in verdict.dropped]
        drops += 0 not in alive
    assert drops <= 20  # 10% of 200 races: alpha is 5%, a test at the leader's level would drop 20%


# --- whole races ---------------------------------------------------------------------------


@pytest.fixture
def synth(tmp_path: Path) -> str:
    path = tmp_path / "synth.py"
    path.write_text(SYNTH, encoding="utf-8")
    return str(path)


def test_tune_finds_the_best_setting_known_by_construction(synth: str, tmp_path: Path) -> None:
    frame = arena.tune(
        f"{synth}:Synth",
        ["q=0..6"],
        against=["greedy"],
        rules=["classic"],
        budget=20_000,
        out=tmp_path / "run",
        workers=1,
    )
    summary = frame.attrs["tune"]
    assert summary["best"]["params"] == {"q": 3}
    assert summary["stop"] == "significantly best"
    assert summary["games"] <= 20_000
    assert list(frame["q"]) == list(range(7))
    assert frame.loc[frame["q"] != 3, "eliminated"].notna().all()
    assert frame.loc[frame["q"] == 3, "best"].item()
    assert {"candidate", "deals", "games", "score", "low", "high", "elo", "eliminated"} <= set(frame)


@pytest.mark.slow
def test_same_seed_same_bytes_with_one_or_two_workers(tmp_path: Path) -> None:
    args = ["threshold", "--param", "bank_at=300..600/100", "--param", "min_dice=2,3", "--against", "greedy"]
    # 2,000 games still race three rounds (candidates dropped in the first two): enough for the
    # rounds to be split between the workers differently.
    args += ["--rules", "classic", "--rules", "standard", "--budget", "2000", "--seed", "5"]
    one = invoke(*args, "--workers", "1", "--out", str(tmp_path / "one"))
    two = invoke(*args, "--workers", "2", "--out", str(tmp_path / "two"))
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert files(tmp_path / "one") == files(tmp_path / "two")
    assert "best      threshold:" in one.output and "runner-up" in one.output
    other = invoke(*args[:-1], "6", "--out", str(tmp_path / "other"))
    assert other.exit_code == 0, other.output
    assert files(tmp_path / "other")[GAMES] != files(tmp_path / "one")[GAMES]


def test_every_candidate_plays_the_same_deals(tmp_path: Path) -> None:
    import pandas as pd

    arena.tune(
        "threshold",
        ["bank_at=300,500"],
        against=["greedy", "optimal"],
        rules=["classic"],
        budget=1000,
        out=tmp_path / "run",
    )
    games = pd.read_csv(tmp_path / "run" / GAMES)
    seeds = games.groupby("candidate")["seed"].apply(tuple)
    assert len(seeds) == 2 and seeds.iloc[0] == seeds.iloc[1]
    assert set(games.loc[games["side"] == "candidate", "player"]) == set(seeds.index)


@pytest.mark.slow
def test_resume_after_an_interruption_gives_the_same_bytes(tmp_path: Path) -> None:
    settings = TuneSettings(
        spec="threshold",
        params=(parse_param("bank_at=200..600/100"),),
        against=("greedy",),
        rules=(load_ruleset("classic"),),
        budget=2000,  # three rounds: the cut after round one leaves two to resume
    )
    whole = run_tune(settings, tmp_path / "whole", load=_load)
    assert whole.summary["rounds"] >= 3

    def stop_after_round_one(race) -> None:
        raise KeyboardInterrupt

    cut = run_tune(settings, tmp_path / "cut", load=_load, on_round=stop_after_round_one)
    assert cut.interrupted and not (tmp_path / "cut" / SUMMARY).exists()
    # A block cut short by a kill, too: its lines are dropped and it is played again.
    games = tmp_path / "cut" / GAMES
    games.write_bytes(games.read_bytes() + b"2,threshold:bank_at=200,min_dice=3,candidate,cla")
    resumed = invoke("--resume", str(tmp_path / "cut"))
    assert resumed.exit_code == 0, resumed.output
    assert files(tmp_path / "cut") == files(tmp_path / "whole")
    again = invoke("--resume", str(tmp_path / "cut"), "--json")  # a finished run: nothing to play
    assert again.exit_code == 0 and '"best"' in again.output
    assert files(tmp_path / "cut") == files(tmp_path / "whole")
    refused = invoke("--resume", str(tmp_path / "cut"), "--seed", "3")
    assert refused.exit_code == 2 and "leave out --seed" in refused.output


def test_the_compiled_path_plays_declarative_strategies_with_the_same_games(
    tmp_path: Path, synth: str
) -> None:
    pytest.importorskip("numba")
    args = ["threshold", "--param", "bank_at=300,400", "--against", "optimal", "--rules", "classic"]
    args += ["--budget", "400"]
    on = invoke(*args, "--compiled", "on", "--out", str(tmp_path / "on"))
    off = invoke(*args, "--compiled", "off", "--out", str(tmp_path / "off"))
    assert on.exit_code == 0 and off.exit_code == 0, on.output + off.output
    assert files(tmp_path / "on") == files(tmp_path / "off")
    plain = tmp_path / "plain.py"
    plain.write_text(PLAIN, encoding="utf-8")
    refused = invoke(
        f"{plain}:Synth",
        "--param",
        "q=1,2",
        "--against",
        "greedy",
        "--compiled",
        "on",
        "--out",
        str(tmp_path / "refused"),
    )
    assert refused.exit_code == 2 and "--compiled on:" in refused.output
    assert not (tmp_path / "refused").exists()


def test_plot_and_json(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    result = invoke(
        "threshold",
        "--param",
        "bank_at=300,500",
        "--param",
        "min_dice=2,3",
        "--against",
        "greedy",
        "--rules",
        "classic",
        "--budget",
        "2000",
        "--plot",
        "--json",
        "--out",
        str(tmp_path / "run"),
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "run" / "plot.png").read_bytes()[:4] == b"\x89PNG"
    import json

    summary = json.loads(result.output)
    assert summary == json.loads((tmp_path / "run" / SUMMARY).read_text())
    assert summary["games"] <= 2000


def test_the_race_stops_when_the_rest_are_within_tolerance() -> None:
    from arena.tuning.race import within_tolerance

    rng = random.Random(3)
    base = [rng.choice((0.0, 0.5, 1.0)) for _ in range(4000)]
    # Wins and losses turned into draws in 1% of the deals (no gap), or wins in 20% (about 23 Elo).
    near = {0: base, 1: [0.5 if x != 0.5 and rng.random() < 0.01 else x for x in base]}
    far = {0: base, 1: [0.5 if x == 1.0 and rng.random() < 0.2 else x for x in base]}
    verdict = judge_round(near, 0.05, 1)
    assert within_tolerance(verdict, 0.5, 5.0) and not within_tolerance(verdict, 0.5, 0.1)
    verdict = judge_round(far, 0.05, 1)
    assert verdict.dropped == (1,)  # 23 Elo worse: dropped (the race then stops with one left)


BUGGY = '''
from arena.players import Action


class Buggy:
    """Banks at bank_at; raises once a turn passes 300 when bank_at is 600."""

    name = "buggy"

    def __init__(self, bank_at: int = 400) -> None:
        self.bank_at = bank_at

    def decide(self, view):
        if self.bank_at == 600 and view.turn_points > 300:
            raise RuntimeError("boom")
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= self.bank_at and view.may_bank(keep))
'''


def test_a_setting_that_faults_is_reported_not_hidden(tmp_path: Path) -> None:
    bot = tmp_path / "buggy.py"
    bot.write_text(BUGGY)
    out = tmp_path / "run"
    result = invoke(
        str(bot), "--param", "bank_at=400..600/200", "--against", "greedy", "--rules", "classic",
        "--budget", "2000", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "warning   buggy:bank_at=600 faulted in" in result.output and "RuntimeError: boom" in result.output
    assert "buggy:bank_at=400 faulted" not in result.output
    rows = {line.split(",")[0]: line.split(",") for line in (out / "candidates.csv").read_text().splitlines()}
    faults = rows["candidate"].index("faults")
    assert rows["buggy:bank_at=400"][faults] == "0" and int(rows["buggy:bank_at=600"][faults]) > 0
    summary = json.loads((out / "tune.json").read_text())
    assert list(summary["faults"]) == ["buggy:bank_at=600"]
    assert summary["faults"]["buggy:bank_at=600"]["first"] == "error: RuntimeError: boom"


def test_a_best_setting_on_the_edge_of_the_grid_says_widen_the_range() -> None:
    from arena.cli.tune_command import edge_lines
    from arena.tuning import ParamRange

    grid = [ParamRange("bank_at", ("200", "250", "300")), ParamRange("min_dice", ("1", "2", "3"))]
    lines = edge_lines({"bank_at": 300, "min_dice": 2}, grid)
    assert lines == [
        "edge      bank_at=300 is the highest value raced: the best may lie beyond it; widen the "
        "range of --param bank_at and tune again"
    ]
    assert "lowest" in edge_lines({"bank_at": 200, "min_dice": 2}, grid)[0]
    assert edge_lines({"bank_at": 250, "min_dice": 2}, grid) == []  # inside the grid
    two = [ParamRange("bank_at", ("250", "300"))]
    assert edge_lines({"bank_at": 300}, two) == []  # two values have no inside
    assert edge_lines({"mode": "b"}, [ParamRange("mode", ("a", "b", "c"))]) == []  # not a number


def _row(label: str, score: float, deals: int, eliminated: int | None, best: bool = False, **params) -> dict:
    return {
        "candidate": label, **params, "deals": deals, "games": 2 * deals, "faults": 0, "score": score,
        "low": score - 0.01, "high": score + 0.01, "elo": 0.0, "eliminated": eliminated, "best": best,
    }  # fmt: skip


def test_the_runner_up_is_said_in_plain_words() -> None:
    from arena.cli.tune_command import runner_up_lines

    close = {"candidate": "t:b=400", "deals": 2016, "gap": 0.0015, "gap_interval": [-0.001, 0.004]}
    close["elo_gap"] = 1.1
    assert runner_up_lines(close) == [
        "runner-up t:b=400: 0.15 behind the best in percentage points on the 2,016 deals both played",
        "          (95% interval: 0.10 ahead to 0.40 behind; about 1.1 Elo), too close to tell apart",
    ]
    clear = {**close, "gap": 0.03, "gap_interval": [0.01, 0.05]}
    assert runner_up_lines(clear)[1].endswith(
        "1.00 behind to 5.00 behind; about 1.1 Elo), the best is clearly ahead"
    )


def test_a_dropped_setting_with_a_higher_score_is_explained() -> None:
    from arena.cli.tune_command import dropped_higher_lines

    best = _row("t:b=900", 0.401, 4064, None, best=True)
    rows = [best, _row("t:b=700", 0.402, 992, 5), _row("t:b=300", 0.31, 96, 2)]
    lines = dropped_higher_lines(rows, best)
    assert lines[0] == "note      t:b=700 scores higher than the best, but was dropped in round 5:"
    assert "its 40.2% is over its first 992 deals only" in lines[1] and "paired comparison" in lines[2]
    assert dropped_higher_lines([best, rows[2]], best) == []  # dropped, but lower: nothing to explain
    kept_higher = _row("t:b=800", 0.405, 4064, None)  # not dropped: the table shows why it lost
    assert dropped_higher_lines([best, kept_higher], best) == []


@pytest.mark.parametrize("params", [["bank_at"], ["bank_at", "min_dice"]])
def test_the_plot_marks_the_best_and_names_the_opponents(params: list[str]) -> None:
    pytest.importorskip("matplotlib")
    from arena.analysis.plots import _pyplot
    from arena.tuning.plot import candidates_figure

    rows = [
        _row("t:b=300,m=2", 0.30, 96, 2, bank_at=300, min_dice=2),
        _row("t:b=600,m=3", 0.41, 992, None, best=True, bank_at=600, min_dice=3),
        _row("t:b=900,m=2", 0.43, 192, 3, bank_at=900, min_dice=2),  # higher, but dropped
    ]
    plt = _pyplot()
    figure = candidates_figure(plt, rows, params, against=["optimal", "greedy"], rules=["classic"])
    axes = figure.axes[0]
    title = axes.get_title()
    stars = [line for line in axes.get_lines() if line.get_marker() == "*"]
    plt.close(figure)
    assert title == "best (red star): t:b=600,m=3\nscore against optimal, greedy on classic"
    (star,) = stars
    if params == ["bank_at"]:
        assert (list(star.get_xdata()), list(star.get_ydata())) == ([600], [41.0])
    else:  # cells by position: bank_at 300, 600, 900 across, min_dice 2, 3 up
        assert (list(star.get_xdata()), list(star.get_ydata())) == ([1], [1])


def test_a_compiled_race_forks_one_pool_and_loads_the_kernel_once_per_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: every block of a compiled race is a variant of one pool's games, with the bytes
    of a pool per block (labels with commas, two rulesets, several rounds, two workers)."""
    pytest.importorskip("numba")
    import os

    from arena.tournaments import supervisor
    from arena.tournaments.compiled_games import CompiledGames
    from arena.tuning.race_pool import RacePool

    pools: list[int] = []
    loads = tmp_path / "loads"
    real_init, real_load = supervisor.ChunkPool.__init__, CompiledGames.load

    def init(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        pools.append(1)
        real_init(self, *args, **kwargs)

    def load(self: CompiledGames) -> None:
        with open(loads, "a") as file:
            file.write(f"{os.getpid()}\n")
        real_load(self)

    monkeypatch.setattr(supervisor.ChunkPool, "__init__", init)
    monkeypatch.setattr(CompiledGames, "load", load)
    args = ["threshold", "--param", "bank_at=250,650", "--param", "min_dice=2,3", "--against", "greedy"]
    args += ["--against", "optimal", "--rules", "classic", "--rules", "short", "--budget", "4000"]
    args += ["--first-deals", "10", "--workers", "2", "--compiled", "on"]
    shared = invoke(*args, "--out", str(tmp_path / "shared"))
    assert shared.exit_code == 0, shared.output
    rounds = {line.split(",")[0] for line in (tmp_path / "shared" / GAMES).read_text().splitlines()[1:]}
    assert len(rounds) >= 3 and pools == [1]
    assert len(set(loads.read_text().split())) == 2  # each worker once
    monkeypatch.setattr(RacePool, "_variant", lambda self, spec: None)  # a pool per block
    apart = invoke(*args, "--out", str(tmp_path / "apart"))
    assert apart.exit_code == 0, apart.output
    assert len(pools) > 3
    assert files(tmp_path / "shared") == files(tmp_path / "apart")
