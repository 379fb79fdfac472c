"""Order-free ratings (Plackett-Luce on the Elo scale) and the gauntlet report."""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from arena.analysis.gauntlet import GAUNTLET_COLUMNS
from arena.analysis.ranking import gauntlet_text, ranking_text
from arena.analysis.ratings import ELO_SCALE, Order, bradley_terry_elo, finishing_order, plackett_luce_elo
from arena.analysis.reports import build_reports, write_reports
from arena.analysis.stats import Z95, elo_from_score, score_from_elo
from arena.cli.main import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def log_likelihood(orders: dict[Order, float], elo: dict[str, float]) -> float:
    """The Plackett-Luce log-likelihood with the prior, written out the long way: every order of
    a tied group enumerated with weight 1/m!, and one drawn two-player game per pair that met."""
    theta = {p: e / ELO_SCALE for p, e in elo.items()}

    def linear(order: list[str]) -> float:
        total = 0.0
        for k in range(len(order) - 1):
            total += theta[order[k]] - math.log(sum(math.exp(theta[p]) for p in order[k:]))
        return total

    total = 0.0
    met = set()
    for order, count in orders.items():
        seated = sorted(p for group in order for p in group)
        met.update(itertools.combinations(seated, 2))
        expansions = list(itertools.product(*(itertools.permutations(g) for g in order)))
        for expansion in expansions:
            total += count / len(expansions) * linear([p for group in expansion for p in group])
    for a, b in met:
        total += 0.5 * linear([a, b]) + 0.5 * linear([b, a])
    return total


def test_finishing_order_groups_equal_ranks() -> None:
    assert finishing_order(["c", "a", "b"], [2, 1, 3]) == (("a",), ("c",), ("b",))
    assert finishing_order(["c", "a", "b"], [1, 3, 1]) == (("b", "c"), ("a",))  # a shared win
    assert finishing_order(["x"], [1]) == (("x",),)


def test_plackett_luce_is_the_maximum_of_its_likelihood_with_ties() -> None:
    # The closed form for tied groups (sets of those left, 1/C(m, s) each) against the plain
    # enumeration of every order of a tied group.
    orders: dict[Order, float] = {
        (("a",), ("b",), ("c",), ("d",)): 30,
        (("b",), ("a", "c"), ("d",)): 12,
        (("c", "d"), ("a",), ("b",)): 9,
        (("a", "b", "d"), ("c",)): 4,
        (("d",), ("c",), ("b",), ("a",)): 7,
        (("b",), ("c",)): 5,
    }
    fitted = plackett_luce_elo(orders)
    best = {p: v[0] for p, v in fitted.items()}
    assert sum(best.values()) == pytest.approx(0, abs=1e-6)
    top = log_likelihood(orders, best)
    for player in best:
        for step in (-0.3, 0.3):
            moved = dict(best)
            moved[player] += step
            assert log_likelihood(orders, moved) < top


def test_intervals_come_from_the_curvature_of_the_likelihood() -> None:
    # The Fisher information against a numerical Hessian of the log-likelihood, in the
    # sum-to-zero gauge: the half-width is 1.96 sd on the Elo scale.
    orders: dict[Order, float] = {
        (("a",), ("b",), ("c",)): 40,
        (("b",), ("c",), ("a",)): 25,
        (("c",), ("a", "b")): 10,
        (("a",), ("c",)): 15,
    }
    fitted = plackett_luce_elo(orders)
    players = sorted(fitted)
    base = np.array([fitted[p][0] / ELO_SCALE for p in players])
    h = 1e-4

    def ll(theta: np.ndarray) -> float:
        return log_likelihood(orders, {p: t * ELO_SCALE for p, t in zip(players, theta, strict=True)})

    n = len(players)
    hessian = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * h, np.eye(n)[j] * h
            hessian[i, j] = (
                ll(base + e_i + e_j) - ll(base + e_i - e_j) - ll(base - e_i + e_j) + ll(base - e_i - e_j)
            ) / (4 * h * h)
    covariance = np.linalg.pinv(-hessian, rcond=1e-6, hermitian=True)  # drop the gauge's noise
    for i, player in enumerate(players):
        elo, low, high = fitted[player]
        assert high - elo == pytest.approx(Z95 * ELO_SCALE * math.sqrt(covariance[i, i]), rel=1e-3)
        assert elo - low == pytest.approx(high - elo)


def test_two_seats_is_bradley_terry_and_a_shared_win_is_half_a_win() -> None:
    orders: dict[Order, float] = {(("a",), ("b",)): 60, (("b",), ("a",)): 20, (("a", "b"),): 20}
    fitted = plackett_luce_elo(orders)
    expected = bradley_terry_elo([("a", "b", 100, 70), ("b", "a", 100, 30)])
    for player in "ab":
        assert fitted[player] == pytest.approx(expected[player], abs=1e-9)
    # With the virtual drawn game: log-odds of 70.5 to 30.5, split over the two players.
    assert fitted["a"][0] - fitted["b"][0] == pytest.approx(400 * math.log10(70.5 / 30.5))


def test_plackett_luce_recovers_the_strengths_of_simulated_games() -> None:
    # Games of five drawn from the model itself (Gumbel-max: sorting strength + Gumbel noise
    # samples a Plackett-Luce order).
    true = {"a": 470.0, "b": 70.0, "c": -830.0, "d": -130.0, "e": 420.0}  # centred on 0
    names = sorted(true)
    theta = np.array([true[p] for p in names]) / ELO_SCALE
    rng = np.random.default_rng(7)
    counts: Counter[Order] = Counter()
    for noise in rng.gumbel(size=(20_000, 5)):
        counts[tuple((names[i],) for i in np.argsort(-(theta + noise)))] += 1
    fitted = plackett_luce_elo(counts)
    for player, elo in true.items():
        value, _, high = fitted[player]
        assert value == pytest.approx(elo, abs=12)
        assert 2 < high - value < 20  # thousands of games: a few Elo


def test_the_fit_does_not_depend_on_the_order_of_its_data() -> None:
    orders: dict[Order, float] = {
        (("a",), ("b",), ("c",)): 7,
        (("c",), ("b", "a")): 3,
        (("b",), ("a",)): 11,
        (("a",), ("c",)): 2,
        (("c",), ("a",), ("b",)): 5,
    }
    first = plackett_luce_elo(orders)
    for seed in range(5):
        items = list(orders.items())
        random.Random(seed).shuffle(items)
        assert plackett_luce_elo(dict(items)) == first  # exactly, to the last bit


def test_players_who_never_win_or_never_meet() -> None:
    fitted = plackett_luce_elo({(("a",), ("b",), ("c",)): 50})
    assert all(math.isfinite(v) for value in fitted.values() for v in value)
    assert fitted["a"][0] > fitted["b"][0] > fitted["c"][0]
    # Two groups that never met: each is centred on 0 by itself; a lone player has no rating.
    apart = plackett_luce_elo({(("a",), ("b",)): 30, (("c",), ("d",)): 10, (("e",),): 4})
    assert apart["a"][0] + apart["b"][0] == pytest.approx(0, abs=1e-9)
    assert apart["c"][0] + apart["d"][0] == pytest.approx(0, abs=1e-9)
    assert apart["a"][0] == pytest.approx(-apart["b"][0]) and apart["a"][0] > apart["c"][0] > 0
    assert all(math.isnan(v) for v in apart["e"])


# --- order-free reports ---------------------------------------------------------------------------
def shuffled_copy(source: Path, target: Path, seed: int) -> None:
    """The run folder with the games of games.csv in another order (each game's rows together,
    the header first)."""
    target.mkdir()
    for name in ("spec.json", "run.json"):
        (target / name).write_bytes((source / name).read_bytes())
    header, *rows = (source / "games.csv").read_text().splitlines(keepends=True)
    games: dict[str, list[str]] = {}
    for row in rows:
        games.setdefault(row.split(",")[1], []).append(row)
    blocks = list(games.values())
    random.Random(seed).shuffle(blocks)
    (target / "games.csv").write_text(header + "".join(line for block in blocks for line in block))


RUNS = {
    "round-robin": ["--rules", "classic", "-p", "optimal", "-p", "greedy", "-p", "threshold", "-p", "random"],
    "free-for-all": [
        "--rules",
        "short",
        "--format",
        "free-for-all",
        "--seats",
        "3",
        "-p",
        "optimal",
        "-p",
        "greedy",
        "-p",
        "threshold",
        "-p",
        "random",
        "--games",
        "300",
    ],
    "gauntlet": [
        "--rules",
        "standard",
        "--format",
        "gauntlet",
        "-p",
        "threshold",
        "-p",
        "greedy",
        "-p",
        "random",
    ],
}


@pytest.fixture(scope="module", params=sorted(RUNS))
def a_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / request.param
    args = RUNS[request.param]
    games = [] if "--games" in args else ["--games", "100"]
    code, _, err = run("tournament", *args, *games, "--seed", "3", "--out", str(out), "--no-progress")
    assert code == 0, err
    return out


def test_report_of_shuffled_games_gives_identical_numbers(a_run: Path, tmp_path: Path) -> None:
    shuffled = tmp_path / "shuffled"
    shuffled_copy(a_run, shuffled, seed=1)
    assert (shuffled / "games.csv").read_bytes() != (a_run / "games.csv").read_bytes()
    code, before, _ = run("report", str(a_run), "--json")
    code2, after, _ = run("report", str(shuffled), "--json")
    assert code == code2 == 0
    a, b = json.loads(before), json.loads(after)
    for key in ("summary", "pairwise", "seats", "gauntlet"):
        assert a[key] == b[key], key
    assert a["summary"] and all(row["elo"] is not None for row in a["summary"])
    # The text report too, and the files, to the last bit: any chunk size, any order.
    assert run("report", str(a_run))[1].split("\n", 1)[1] == run("report", str(shuffled))[1].split("\n", 1)[1]
    tested = json.loads((a_run / "spec.json").read_text())["players"][0]["label"]
    tested = tested if "gauntlet" in a_run.name else None
    whole = build_reports(a_run / "games.csv", tested=tested)
    for chunk_rows in (97,):  # games and game pairs cut across chunks
        part = build_reports(shuffled / "games.csv", tested=tested, chunk_rows=chunk_rows)
        for name in ("summary", "pairwise", "seats", "gauntlet"):
            pd.testing.assert_frame_equal(getattr(whole, name), getattr(part, name), check_exact=True)
    rulesets = [r["name"] for r in json.loads((a_run / "spec.json").read_text())["rulesets"]]
    write_reports(shuffled, rulesets, tested=tested)
    for name in ("summary.csv", "pairwise.csv", *(["gauntlet.csv"] if tested else [])):
        assert (shuffled / name).read_bytes() == (a_run / name).read_bytes(), name


def test_shared_wins_of_three_sum_exactly(tmp_path: Path) -> None:
    # 0.333333 three times in one order and another: float sums differ in the last bits, the
    # totals in millionths do not.
    header = "ruleset,game,deal,seed,seat,player,score,rank,win,turns,farkles,status,reason,end\n"
    rows = []
    for game in range(30):
        shares = [("1", 1), ("0", 2), ("0", 3)] if game % 3 else [("0.333333", 1)] * 3
        for seat, (win, rank) in enumerate(shares):
            player = "xyz"[(seat + game) % 3]
            rows.append(f"r,{game},{game // 3},1,{seat},{player},100,{rank},{win},5,1,ok,,target\n")
    forward = tmp_path / "forward.csv"
    forward.write_text(header + "".join(rows))
    backward = tmp_path / "backward.csv"
    blocks = [rows[i : i + 3] for i in range(0, len(rows), 3)]
    backward.write_text(header + "".join(line for block in reversed(blocks) for line in block))
    a, b = build_reports(forward, chunk_rows=5), build_reports(backward, chunk_rows=11)
    pd.testing.assert_frame_equal(a.summary, b.summary, check_exact=True)
    pd.testing.assert_frame_equal(a.seats, b.seats, check_exact=True)
    assert a.summary["wins"].sum() == pytest.approx(30 - 10 * 3 * 1e-6)


# --- gauntlet --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gauntlet_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("gauntlet") / "run"
    code, stdout, err = run(
        "tournament",
        "--rules",
        "classic",
        "--format",
        "gauntlet",
        "-p",
        "threshold",
        "-p",
        "tactician",
        "-p",
        "greedy",
        "-p",
        "random",
        "--games",
        "80",
        "--seed",
        "5",
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 0, err
    return out, stdout


def test_gauntlet_prints_the_tested_player_against_each_opponent(gauntlet_run: tuple[Path, str]) -> None:
    out, stdout = gauntlet_run
    assert "classic: threshold:bank_at=300,min_dice=3 against each opponent" in stdout
    assert "rank" not in stdout  # no ranking mixing 240 games of one player with 80 of the others
    block = stdout.split("against each opponent\n", 1)[1].split("\n\n", 1)[0].splitlines()
    head, *rows = block
    assert head.split() == [
        "opponent",
        "score",
        "95%",
        "interval",
        "Elo",
        "difference",
        "[95%]",
        "LOS",
        "games",
        "interval",
        "from",
    ]
    assert sorted(r.split()[0] for r in rows) == ["greedy", "random", "tactician"]
    end = head.index("games") + len("games")
    for row in rows:  # the columns line up
        assert row[end - 2 : end] == "80" and row[end] == " "
        assert row[head.index("LOS") + 3 - 1] == "%"
    code, report, _ = run("report", str(out))
    assert code == 0 and "\n".join(block) in report


def test_gauntlet_numbers_from_game_pairs(gauntlet_run: tuple[Path, str]) -> None:
    out, _ = gauntlet_run
    games = pd.read_csv(out / "games.csv", keep_default_na=False)
    tested = "threshold:bank_at=300,min_dice=3"
    table = pd.read_csv(out / "gauntlet.csv").set_index("opponent")
    for opponent, row in table.iterrows():
        ids = set(games.loc[games["player"] == opponent, "game"])
        mine = games[(games["player"] == tested) & games["game"].isin(ids)]
        assert row["games"] == len(mine) == 80 and row["pairs"] == 40
        assert row["score"] == pytest.approx(mine["win"].mean(), abs=1e-6)
        pair_scores = mine.groupby("deal")["win"].mean()  # the two seat orders of each deal
        assert len(pair_scores) == 40 and (mine.groupby("deal").size() == 2).all()
        # The duel's pair interval: half a pseudo-pair on each of the five outcomes (Jeffreys),
        # normal around the smoothed mean with the real number of pairs.
        counts = [(pair_scores == q / 4).sum() + 0.5 for q in range(5)]
        centre = sum(c * q / 4 for q, c in enumerate(counts)) / sum(counts)
        spread = sum(c * (q / 4 - centre) ** 2 for q, c in enumerate(counts)) / sum(counts)
        error = math.sqrt(spread / 40)
        assert row["interval"] == "pairs"
        assert row["score_low"] == pytest.approx(
            max(0, min(centre - Z95 * error, pair_scores.mean())), abs=1e-6
        )
        assert row["score_high"] == pytest.approx(
            min(1, max(centre + Z95 * error, pair_scores.mean())), abs=1e-6
        )
        assert row["elo"] == pytest.approx(elo_from_score(row["score"]), abs=1e-4)
        z = (centre - 0.5) / error
        assert row["los"] == pytest.approx(statistics.NormalDist().cdf(z), abs=1e-6)
    # A pair straddling two chunks (and any chunk size) gives the same table.
    whole = build_reports(out / "games.csv", tested=tested).gauntlet
    for chunk_rows in (37,):
        pd.testing.assert_frame_equal(
            build_reports(out / "games.csv", tested=tested, chunk_rows=chunk_rows).gauntlet, whole
        )


def test_gauntlet_json_has_no_infinity(gauntlet_run: tuple[Path, str]) -> None:
    out, _ = gauntlet_run
    code, stdout, _ = run("report", str(out), "--json")

    def reject(token: str) -> None:
        raise AssertionError(f"{token} in JSON")

    data = json.loads(stdout, parse_constant=reject)
    assert code == 0 and {row["opponent"] for row in data["gauntlet"]} == {"tactician", "greedy", "random"}


# --- the ranking ------------------------------------------------------------------------------------
def test_ranking_lines_up_and_shows_a_missing_rating_as_a_dash() -> None:
    nan = float("nan")
    summary = pd.DataFrame(
        [
            (
                "r",
                "long-player-name",
                400,
                0.995,
                0.99,
                1.0,
                1234.5,
                -5.0,
                2500.0,
                0.2,
                0,
                1200.4,
                1100.2,
                1300.9,
            ),
            ("r", "b", 12, 0.5, 0.2, 0.8, 300.0, 10.0, 30.0, 0.25, 3, -5.2, -80.0, 70.0),
            ("r", "alone", 7, 1.0, 0.6, 1.0, 350.0, 8.0, 40.0, 0.1, 0, nan, nan, nan),
        ],
        columns=[
            "ruleset",
            "player",
            "games",
            "win_rate",
            "ci_low",
            "ci_high",
            "points_per_turn",
            "mean_turns",
            "mean_score",
            "farkle_rate",
            "errors",
            "elo",
            "elo_low",
            "elo_high",
        ],
    )
    lines = ranking_text(summary).splitlines()
    assert lines[0] == "r" and len({len(line) for line in lines[1:]}) == 1  # every column aligned
    assert "[99.0, 100.0]" in lines[2] and "+1200 [+1100, +1301]" in lines[2]
    assert "-5 [  -80,   +70]" in lines[3]
    start = lines[1].index("Elo [95% interval]")
    assert lines[4][start : start + len("Elo [95% interval]")].strip() == "-"  # no Elo: a dash


def test_gauntlet_text_shows_infinite_elo() -> None:
    inf = math.inf
    table = pd.DataFrame(
        [("r", "me", "you", 40, 40.0, 1.0, 20, 0.91, 1.0, "games", inf, 400.0, inf, 1.0)],
        columns=GAUNTLET_COLUMNS,
    )
    text = gauntlet_text(table)
    assert "r: me against each opponent" in text and "+inf [+400, +inf]" in text
    assert "100.0 %" in text and text.splitlines()[2].rstrip().endswith("games")


# --- Bradley-Terry against a direct likelihood maximum ------------------------------------------
def test_bradley_terry_matches_a_direct_likelihood_maximum() -> None:
    # Checked: the MM fit is the maximum of the Bradley-Terry likelihood (with the virtual draw),
    # for unequal numbers of games and shared wins.
    results = [
        ("a", "b", 300, 200.5),
        ("b", "a", 300, 99.5),
        ("a", "c", 100, 80),
        ("c", "a", 100, 20),
        ("b", "c", 50, 29),
        ("c", "b", 50, 21),
    ]
    fitted = bradley_terry_elo(results)

    def log_likelihood(elo: dict[str, float]) -> float:
        total = 0.0
        for player, opponent, games, wins in results:
            p = score_from_elo(elo[player] - elo[opponent])
            total += (wins + 0.5) * math.log(p) + (games + 1 - wins - 0.5) * math.log(1 - p)
        return total

    best = {p: v[0] for p, v in fitted.items()}
    assert sum(best.values()) == pytest.approx(0, abs=1e-6)
    for player in best:
        for step in (-0.5, 0.5):
            moved = dict(best)
            moved[player] += step
            assert log_likelihood(moved) < log_likelihood(best)
