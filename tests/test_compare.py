"""`arena compare`: paired deal by deal when two runs played the same deals, refused when the
fields differ, the strategy files that changed, and headers that line up."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.analysis.compare import (
    COLUMNS,
    MIN_DEALS,
    NEWCOMBE,
    PAIRED_DEALS,
    Comparison,
    Pairing,
    compare_summaries,
    field_differences,
)
from arena.cli.main import cli
from arena.cli.report_commands import compare_text

BOT = """
from arena.players import Action


class Bot:
    name = "bot"

    def decide(self, view):
        keep = view.legal_keeps[0]
        done = view.turn_points + keep.points >= {bank_at}
        return Action(keep.dice, done and view.bank_allowed(keep))
"""
GAMES = 200  # per pairing: 100 deals per table, 200 per player in a round-robin of three


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def tournament(out: Path, *players: str, seed: int = 3) -> None:
    # A fresh process would import the strategy file anew; in this one, forget the cached module.
    for name in [m for m in sys.modules if m.startswith("arena_user_strategy_")]:
        del sys.modules[name]
    args = ["tournament", "--rules", "classic", "--games", str(GAMES), "--seed", str(seed)]
    for player in players:
        args += ["-p", player]
    code, _, err = run(*args, "--out", str(out), "--workers", "1", "--no-progress")
    assert code == 0, err


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    """Run A, then run B with the bot's file rewritten at the same path (its label, "bot", stays),
    then run C, whose field differs (tactician instead of threshold)."""
    root = tmp_path_factory.mktemp("compare")
    bot = root / "bot.py"
    bot.write_text(BOT.format(bank_at=500))
    sha_a = hashlib.sha256(bot.read_bytes()).hexdigest()
    tournament(root / "a", str(bot), "greedy", "threshold")
    bot.write_text(BOT.format(bank_at=300))
    sha_b = hashlib.sha256(bot.read_bytes()).hexdigest()
    tournament(root / "b", str(bot), "greedy", "threshold")
    tournament(root / "c", str(bot), "greedy", "tactician")
    return {
        "a": root / "a",
        "b": root / "b",
        "c": root / "c",
        "bot": str(bot),
        "sha_a": sha_a,
        "sha_b": sha_b,
    }


def compare_json(*args: str) -> dict:
    code, out, err = run("compare", *map(str, args), "--json")
    assert code == 0, err
    return json.loads(out)


def per_deal_rates(folder: Path) -> pd.DataFrame:
    """Each player's mean win share per deal of a table, computed here from games.csv alone."""
    games = pd.read_csv(folder / "games.csv", keep_default_na=False)
    tables = games.groupby("game")["player"].agg(lambda p: "|".join(sorted(p))).rename("table")
    games = games.join(tables, on="game")
    return games.groupby(["ruleset", "table", "deal", "player"]).agg(
        rate=("win", "mean"), seed=("seed", "first"), games=("win", "size")
    )


@pytest.mark.slow
def test_runs_that_share_their_deals_are_compared_deal_by_deal(runs: dict) -> None:
    data = compare_json(runs["a"], runs["b"])
    assert data["forced"] is False and data["differences"] == []
    (pairing,) = data["rulesets"]
    assert pairing == {
        "ruleset": "classic",
        "paired": True,
        "deals": 300,
        "deals_a": 300,
        "deals_b": 300,
        "mismatched": 0,
        "reason": "",
    }
    assert {row["player"] for row in data["rows"]} == {"bot", "greedy", "threshold:bank_at=300,min_dice=3"}
    for row in data["rows"]:
        assert row["paired"] is True and row["deals"] == 200 and row["games_a"] == row["games_b"] == 400
        assert row["significant"] == (not row["diff_low"] <= 0 <= row["diff_high"])


def test_paired_difference_is_the_mean_of_the_per_deal_differences(runs: dict) -> None:
    a, b = per_deal_rates(runs["a"]), per_deal_rates(runs["b"])
    both = a.merge(b, left_index=True, right_index=True, suffixes=("_a", "_b"))
    assert len(both) == len(a) == len(b) and (both["seed_a"] == both["seed_b"]).all()  # the same dice
    d = (both["rate_b"] - both["rate_a"]).groupby("player")
    expected_mean, expected_sd, deals = d.mean(), d.std(), d.size()
    rows = {row["player"]: row for row in compare_json(runs["a"], runs["b"])["rows"]}
    for player, row in rows.items():
        assert row["difference"] == pytest.approx(expected_mean[player], abs=1e-12)
        assert row["difference"] == pytest.approx(row["win_rate_b"] - row["win_rate_a"], abs=1e-12)
        assert row["deals"] == deals[player] >= MIN_DEALS and row["interval"] == PAIRED_DEALS
        half = 1.959964 * expected_sd[player] / deals[player] ** 0.5
        assert row["diff_low"] == pytest.approx(expected_mean[player] - half, abs=1e-6)
        assert row["diff_high"] == pytest.approx(expected_mean[player] + half, abs=1e-6)
    assert rows["bot"]["difference"] != 0  # the rewritten bot plays differently


def test_the_paired_interval_is_narrower_than_the_unpaired_one(runs: dict) -> None:
    for row in compare_json(runs["a"], runs["b"])["rows"]:
        paired = row["diff_high"] - row["diff_low"]
        unpaired = row["unpaired_high"] - row["unpaired_low"]
        assert paired < 0.75 * unpaired, row  # the shared dice take most of the luck out


def test_identical_runs_differ_by_exactly_zero(runs: dict, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(runs["a"], copy)
    data = compare_json(runs["a"], copy)
    assert data["changed"] == []
    for row in data["rows"]:
        assert row["difference"] == 0.0 and row["win_rate_a"] == row["win_rate_b"]
        # Every deal's difference is 0: no variance to build on, so the safe interval is shown.
        assert row["interval"] == NEWCOMBE and row["diff_low"] < 0 < row["diff_high"]
        assert row["significant"] is False
    code, out, _ = run("compare", str(runs["a"]), str(copy))
    assert code == 0 and "no strategy changed between the runs" in out
    assert "* fewer than 30 deals, or every deal gave the same difference" in out


def test_a_changed_strategy_file_is_named_with_its_hashes(runs: dict) -> None:
    data = compare_json(runs["a"], runs["b"])
    assert data["changed"] == [
        {
            "player": "bot",
            "spec_a": runs["bot"],
            "spec_b": runs["bot"],
            "sha256_a": runs["sha_a"],
            "sha256_b": runs["sha_b"],
        }
    ]
    _, out, _ = run("compare", str(runs["a"]), str(runs["b"]))
    shas = f"sha256 {runs['sha_a'][:12]}… -> {runs['sha_b'][:12]}…"
    expected = f"changed between the runs: bot ({runs['bot']}, {shas})"
    assert expected in out.splitlines()
    assert "classic: paired on 300 deals, each played on the same dice in both runs" in out


def test_other_opponents_are_refused_unless_forced(runs: dict) -> None:
    code, out, err = run("compare", str(runs["b"]), str(runs["c"]))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("arena: error: ")
    assert "only in A: threshold:bank_at=300,min_dice=3; only in B: tactician" in err and "--force" in err
    data = compare_json(runs["b"], runs["c"], "--force")
    assert data["forced"] is True and data["differences"]
    assert {row["player"] for row in data["rows"]} == {"bot", "greedy"}
    assert all(row["paired"] is False and row["interval"] == NEWCOMBE for row in data["rows"])
    assert {(o["run"], o["player"]) for o in data["only_in_one_run"]} == {
        ("A", "threshold:bank_at=300,min_dice=3"),
        ("B", "tactician"),
    }
    code, out, _ = run("compare", str(runs["b"]), str(runs["c"]), "--force")
    assert code == 0 and out.splitlines()[2].startswith("forced: different players")


def test_rules_of_one_name_that_differ_are_refused_unless_forced(runs: dict, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(runs["a"], other)
    spec = json.loads((other / "spec.json").read_text())
    spec["rulesets"][0]["dice"] = 6
    (other / "spec.json").write_text(json.dumps(spec))
    code, _, err = run("compare", str(runs["a"]), str(other))
    assert code == 2 and "ruleset classic has other rules in B (dice 5 -> 6)" in err
    assert len(err.splitlines()) == 1
    data = compare_json(runs["a"], other, "--force")
    assert (
        data["rulesets"][0]["paired"] is False
        and data["rulesets"][0]["reason"] == "the players or rules differ"
    )


def test_another_seed_is_compared_game_by_game_and_says_so(runs: dict, tmp_path: Path) -> None:
    tournament(tmp_path / "seed4", runs["bot"], "greedy", "threshold", seed=4)
    data = compare_json(runs["b"], tmp_path / "seed4")
    (pairing,) = data["rulesets"]
    assert pairing["paired"] is False and pairing["mismatched"] == 300
    assert pairing["reason"].startswith("300 of 300 deals were dealt other dice")
    assert all(row["paired"] is False and row["deals"] is None for row in data["rows"])
    _, out, _ = run("compare", str(runs["b"]), str(tmp_path / "seed4"))
    assert "classic: not paired: 300 of 300 deals were dealt other dice" in out


def test_the_players_in_another_order_still_meet_on_the_same_dice(runs: dict, tmp_path: Path) -> None:
    tournament(tmp_path / "reordered", "threshold", runs["bot"], "greedy")
    data = compare_json(runs["b"], tmp_path / "reordered")
    (pairing,) = data["rulesets"]
    assert pairing["paired"] is True and pairing["mismatched"] == 0 and pairing["deals"] == 300
    # Same deals, same strategies: every per-deal difference is zero.
    assert all(row["difference"] == 0 for row in data["rows"])


def test_an_interrupted_run_is_paired_on_its_complete_deals(runs: dict, tmp_path: Path) -> None:
    cut = tmp_path / "cut"
    shutil.copytree(runs["a"], cut)
    (cut / "run.json").unlink()
    lines = (cut / "games.csv").read_bytes().splitlines(keepends=True)
    prefix = b"".join(lines[: 1 + 2 * 51])  # the header and 51 games
    (cut / "games.csv").write_bytes(prefix + b"classic,51,")  # and a torn line
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "games.csv").write_bytes(prefix)
    rates = per_deal_rates(clean).reset_index()
    # A complete deal: both players, each in both seat orders.
    expected = int(rates[rates["games"] == 2].groupby(["table", "deal"]).size().eq(2).sum())
    data = compare_json(cut, runs["b"])
    (pairing,) = data["rulesets"]
    assert pairing["paired"] is True and pairing["deals"] == pairing["deals_a"] == expected
    assert 0 < expected < 51 / 2 + 1 and pairing["deals_b"] == 300
    rows = {row["player"]: row for row in data["rows"]}
    assert sum(row["games_a"] for row in rows.values()) == 2 * 2 * expected  # two players, two games a deal


def test_damaged_players_in_spec_json_are_one_line(runs: dict, tmp_path: Path) -> None:
    odd = tmp_path / "odd"
    shutil.copytree(runs["a"], odd)
    spec = json.loads((odd / "spec.json").read_text())
    spec["players"] = ["bot", "greedy"]
    (odd / "spec.json").write_text(json.dumps(spec))
    code, out, err = run("compare", str(runs["a"]), str(odd))
    assert (
        code == 2
        and out == ""
        and err
        == f"arena: error: {odd / 'spec.json'} is damaged (its players are not the ones arena saved)\n"
    )


def test_field_differences() -> None:
    players = ["x", "y", "z"]
    rr, gauntlet = {"format": "round-robin", "seats": None}, {"format": "gauntlet", "seats": None}
    assert field_differences(rr, dict(rr), players, list(reversed(players))) == []
    assert field_differences(rr, gauntlet, players, players) == ["format round-robin in A, gauntlet in B"]
    assert field_differences(gauntlet, gauntlet, players, ["y", "x", "z"]) == [
        "the gauntlet's first player is x in A, y in B"
    ]
    assert field_differences({}, {}, ["x", "y"], ["x", "w"]) == [
        "different players (only in A: y; only in B: w)"
    ]


# --- the text table ------------------------------------------------------------------------------
def _row(player: str, deals: int | None, games: int, a: float, b: float, low: float, high: float) -> dict:
    return {
        "ruleset": "house",
        "player": player,
        "paired": deals is not None,
        "deals": deals,
        "games_a": games,
        "wins_a": a * games,
        "win_rate_a": a,
        "games_b": games,
        "wins_b": b * games,
        "win_rate_b": b,
        "difference": b - a,
        "diff_low": low,
        "diff_high": high,
        "significant": not low <= 0 <= high,
        "interval": PAIRED_DEALS if deals and deals >= MIN_DEALS else NEWCOMBE,
        "unpaired_low": low - 0.05,
        "unpaired_high": high + 0.05,
    }


TOKEN = re.compile(r"\[[^\]]*\]\*?|\S+ %|\S+")


def spans(header: str, labels: list[str], lines: list[str]) -> list[list[tuple[int, int]]]:
    """(start, end) of every cell: header labels found in order, values as tokens."""
    found, cursor = [], 0
    for label in labels:
        start = header.index(label, cursor)
        found.append((start, start + len(label)))
        cursor = start + len(label)
    table = [found]
    for line in lines:
        cells = [(m.start(), m.end()) for m in TOKEN.finditer(line)]
        assert len(cells) == len(labels), line
        table.append(cells)
    return table


@pytest.mark.parametrize("paired", [True, False])
def test_headers_line_up_with_their_values(paired: bool) -> None:
    deals = 12_345 if paired else None
    rows = [
        _row(
            "a-strategy-with-a-really-rather-long-name:bank_at=450",
            deals,
            24_690,
            0.123,
            0.0,
            -0.1302,
            -0.1158,
        ),
        _row("x", 7 if paired else None, 14, 1.0, 0.5, -0.75, -0.25),
        _row("mid", deals, 99_999, 0.5, 0.5, -0.004, 0.004),
    ]
    pairing = Pairing("house", paired, 12_345 if paired else 0, 12_345, 12_345, 0, "" if paired else "why")
    text = compare_text(Comparison(pd.DataFrame(rows, columns=COLUMNS), [pairing]))
    lines = text.splitlines()
    header, body = lines[1], lines[2:5]
    if paired:
        labels = ["player", "deals", "win rate A", "win rate B", "B - A", "95% interval", "significant"]
        labels.append("unpaired interval")
        right = {"deals", "win rate A", "win rate B", "B - A"}
    else:
        labels = ["player", "games A", "win rate A", "games B", "win rate B", "B - A", "95% interval"]
        labels.append("significant")
        right = {"games A", "win rate A", "games B", "win rate B", "B - A"}
    table = spans(header, labels, body)
    for i, label in enumerate(labels):
        column = [cells[i] for cells in table]
        if label in right:
            assert len({end for _, end in column}) == 1, (label, text)
        else:
            assert len({start for start, _ in column}) == 1, (label, text)
        if i + 1 < len(labels):  # no cell runs into the next column
            assert max(end for _, end in column) + 2 <= min(cells[i + 1][0] for cells in table), (label, text)
    assert ("12,345" if paired else "24,690") in text and "-12.3" in text


# --- compare against an exact test --------------------------------------------------------------
def test_compare_is_not_significant_where_an_exact_test_is_not() -> None:
    # 0 wins of 100 against 4 of 100: Fisher's exact test p = 0.12, and Newcombe's interval
    # from two Wilson intervals (stats.wilson_interval is right there) is [-0.004, +0.098].  The
    # Wald interval used has zero width on the 0-of-100 side and calls it significant.
    a = pd.DataFrame([{"ruleset": "r", "player": "x", "games": 100, "win_rate": 0.0}])
    b = pd.DataFrame([{"ruleset": "r", "player": "x", "games": 100, "win_rate": 0.04}])
    row = compare_summaries(a, b).iloc[0]
    assert not row["significant"], (row["diff_low"], row["diff_high"])


def test_an_unchanged_player_that_moved_is_explained() -> None:
    rows = [
        _row("steady", 100, 200, 0.6, 0.5, -0.15, -0.05),  # changed, significant
        _row("greedy", 100, 200, 0.4, 0.5, 0.05, 0.15),  # unchanged, significant: it played steady
        _row("random", 100, 200, 0.1, 0.1, -0.02, 0.02),  # unchanged, not significant
    ]
    pairing = Pairing("classic", True, 100, 100, 100, 0, "")
    comparison = Comparison(pd.DataFrame(rows, columns=COLUMNS), [pairing])
    text = compare_text(comparison, [{"player": "steady"}])
    assert text.splitlines()[-1] == (
        "greedy did not change, yet moved significantly: they played steady, whose change moved "
        "their win rates too"
    )
    assert "did not change" not in compare_text(comparison, [])  # nothing changed: nothing to explain
    assert "did not change" not in compare_text(comparison, None)  # unknown (no spec.json)


def test_isolated_runs_without_a_seed_say_they_play_on_secret_seeds(tmp_path: Path) -> None:
    outs = []
    for name in ("a", "b"):
        args = ["tournament", "--isolate", "--rules", "classic", "-p", "greedy", "-p", "random"]
        code, _, err = run(*args, "--games", "4", "--workers", "1", "--out", str(tmp_path / name))
        assert code == 0, err
        assert "the dice come from a secret seed, kept in the run folder's spec.json" in err
        outs.append(json.loads((tmp_path / name / "spec.json").read_text())["seed"])
    assert outs[0] != outs[1]
    code, out, _ = run("compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 0 and "a run with isolated players and no --seed draws a secret seed of its own" in out
    code, _, err = run(
        "tournament", "--isolate", "--rules", "classic", "-p", "greedy", "-p", "random",
        "--games", "4", "--workers", "1", "--seed", "5", "--out", str(tmp_path / "c"),
    )  # fmt: skip
    assert code == 0 and "the dice come from a secret seed" not in err
