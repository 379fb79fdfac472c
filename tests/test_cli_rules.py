"""The rules commands on the command line: output, --json, and one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_rules_list_names_the_presets_then_every_variant_with_its_document() -> None:
    from arena.engine.loading import variant_names

    code, out, _ = run("rules", "list")
    assert code == 0
    lines = [line.split() for line in out.splitlines()]
    assert [line[0] for line in lines] == ["standard", "short", "classic", *variant_names()]
    assert [line[1] for line in lines] == ["preset"] * 3 + ["variant"] * len(variant_names())
    assert len(variant_names()) == 10
    code, out, _ = run("rules", "list", "--json")
    listed = json.loads(out)
    assert [r["name"] for r in listed] == ["standard", "short", "classic", *variant_names()]
    documents = [r["document"] for r in listed]
    assert documents[:3] == ["001 Standard", "000 Kurze Partie (5000)", "002 the general guide"]
    assert set(documents[3:]) == {"002 the general guide"}


@pytest.mark.parametrize("name", ["house", "exact-target", "three-farkles-to-zero", "playoff"])
def test_a_variant_plays_by_its_name_on_every_command(name: str, tmp_path: Path) -> None:
    code, out, _ = run("rules", "show", name)
    assert code == 0 and out.startswith(f"{name}: 002 ")
    assert run("odds", "--rules", name)[0] == 0
    assert run("score", "--rules", name, "1", "5")[0] == 0
    code, out, err = run("play", "--rules", name, "-p", "greedy", "-p", "threshold", "--seed", "3")
    assert code == 0, err
    code, out, err = run(
        "tournament", "--rules", name, "-p", "greedy", "-p", "threshold", "--games", "4",
        "--out", str(tmp_path / "run"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "run" / "games.csv").read_text().splitlines()[1].startswith(f"{name},")


def test_rules_show_every_value() -> None:
    code, out, _ = run("rules", "show", "short")
    assert code == 0
    assert "rising_bar" in out and "two_triplets_bonus        1500" in out
    data = json.loads(run("rules", "show", "standard", "--json")[1])
    assert data["entry_threshold"] == 500 and data["exact_target"] is True


def test_rules_show_a_file(tmp_path: Path) -> None:
    path = tmp_path / "six.toml"
    path.write_text('extends = "classic"\ndice = 6\n')
    data = json.loads(run("rules", "show", str(path), "--json")[1])
    assert data["name"] == "six" and data["dice"] == 6


@pytest.mark.parametrize(
    ("args", "out"),
    [
        (["1", "1", "1", "5"], "1050  (three 1s 1000 + a 5 50)"),
        (["--rules", "short", "2", "2", "2", "4", "4", "4"], "2100"),
        (["--rules", "classic", "1", "1", "1", "1"], "2000  (four 1s)"),
        (["5"], "50  (a 5)"),
    ],
)
def test_score(args: list[str], out: str) -> None:
    code, stdout, _ = run("score", *args)
    assert code == 0 and stdout.startswith(out)


def test_score_illegal_selection_says_why_with_status_1() -> None:
    code, out, err = run("score", "3", "5")
    assert code == 1 and out == ""
    assert (
        err.strip()
        == "arena: 3 5 is not a legal keep under standard: 3 scores nothing; every kept die must score"
    )
    code, out, _ = run("score", "--json", "2", "2")
    assert code == 1 and json.loads(out)["legal"] is False


def test_score_json() -> None:
    data = json.loads(run("score", "--json", "--rules", "classic", "1", "1", "1", "5")[1])
    assert data["points"] == 1050 and data["legal"] is True
    assert data["reading"] == [{"part": "three 1s", "points": 1000}, {"part": "a 5", "points": 50}]


def test_odds_is_the_002_table() -> None:
    code, out, _ = run("odds", "--rules", "classic")
    assert code == 0
    assert "   1         4 / 6         66.7 %" in out
    assert "   5       600 / 7,776      7.7 %" in out
    data = json.loads(run("odds", "--rules", "standard", "--json")[1])
    assert [(r["dice"], r["farkles"], r["rolls"]) for r in data["odds"]][-1] == (6, 1080, 46656)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["odds", "--rules", "kniffel"], "arena: error: kniffel: unknown ruleset"),
        (["score", "9"], "arena: error: 9 is not a die face (1 to 6)"),
        (
            ["score", "1", "1", "1", "1", "1", "1", "1"],
            "arena: error: 7 dice, but the ruleset 'standard' has 6",
        ),
        (["rules", "show", "missing.toml"], "arena: error: missing.toml: no such ruleset file"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert err.strip() == err.strip().splitlines()[0], "one line, no traceback"
    assert err.startswith(message)


def test_installed_console_script() -> None:
    exe = shutil.which("arena") or str(Path(sys.executable).parent / "arena")
    proc = subprocess.run([exe, "score", "1", "1", "1", "5"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("1050")
