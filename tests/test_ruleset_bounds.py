"""Bounded rulesets: a value that could overflow a score or a sum is refused at load, in one
line naming the field and the bound; the largest allowed values play the same games compiled
and in Python, and their reports are written without error."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import STANDARD, Ruleset, RulesetError, load_ruleset
from arena.engine.rules import MAX_VALUE

#: Every whole-number field but ``dice`` (5 or 6).
BOUNDED = [f.name for f in dataclasses.fields(Ruleset) if f.type == "int" and f.name != "dice"]
NEAR_2_63 = 2**63 - 50  # a multiple of 50 (2**63 - 8 is not), so only the bound refuses it


def test_every_whole_number_field_is_bounded() -> None:
    assert set(BOUNDED) >= {"target", "entry_threshold", "three_pairs_value", "kind_bonus", "bar_step"}
    for key in BOUNDED:
        with pytest.raises(RulesetError) as info:
            STANDARD.replace(**{key: NEAR_2_63})
        assert info.value.key == key
        assert str(info.value) == (
            f"{key}: must be at most {MAX_VALUE:,} (so no score or sum can pass 2**63 - 1), got {NEAR_2_63:,}"
        )


def test_the_bound_itself_is_allowed() -> None:
    rules = STANDARD.replace(target=MAX_VALUE, three_pairs_value=MAX_VALUE, strikes_to_zero=MAX_VALUE)
    assert rules.target == MAX_VALUE
    with pytest.raises(RulesetError, match="target: must be at most"):
        STANDARD.replace(target=MAX_VALUE + 50)


def test_a_toml_file_past_the_bound_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(f'extends = "classic"\nkind_bonus = {NEAR_2_63}\n', encoding="utf-8")
    with pytest.raises(RulesetError, match=r"kind_bonus: must be at most 1,000,000,000 .*\(in .*huge.toml\)"):
        load_ruleset(str(path))
    result = CliRunner().invoke(
        cli,
        ["tournament", "--rules", str(path), "--out", str(tmp_path / "run"), "--no-progress", "--games", "2"],
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "kind_bonus: must be at most 1,000,000,000" in lines[0], result.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda spec: spec["rulesets"][0].update(target=NEAR_2_63),
            "rulesets[0]: target: must be at most 1,000,000,000",
        ),
        (
            lambda spec: spec.update(max_rounds=NEAR_2_63),
            f"max_rounds must be at most 1,000,000,000, got {NEAR_2_63:,}",
        ),
    ],
)
def test_a_spec_json_past_the_bound_is_refused_on_resume(tmp_path: Path, edit: Any, message: str) -> None:
    out = tmp_path / "run"
    runner = CliRunner()
    result = runner.invoke(cli, ["tournament", "--out", str(out), "--no-progress", "--games", "2"])
    assert result.exit_code == 0, result.stderr
    spec = json.loads((out / "spec.json").read_text(encoding="utf-8"))
    edit(spec)
    (out / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    result = runner.invoke(cli, ["tournament", "--resume", str(out), "--no-progress"])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_a_spec_past_the_round_bound_is_refused_from_python() -> None:
    from arena.players import load_player_spec
    from arena.tournaments.spec import TournamentSpec

    players = (load_player_spec("greedy"), load_player_spec("random"))
    with pytest.raises(ValueError, match="max_rounds must be 1 to 1,000,000,000"):
        TournamentSpec(rulesets=(STANDARD,), players=players, max_rounds=NEAR_2_63)
    assert TournamentSpec(rulesets=(STANDARD,), players=players, max_rounds=MAX_VALUE).max_rounds == MAX_VALUE


def _largest(tmp_path: Path, name: str, target: int, **more: object) -> Path:
    """A ruleset file with every bounded value at :data:`MAX_VALUE` but ``target`` (and the
    values that may not pass it)."""
    values: dict[str, object] = {key: MAX_VALUE for key in BOUNDED}
    values.update(target=target, entry_threshold=target, bar_start=target, **more)
    lines = ['extends = "standard"', f'name = "{name}"'] + [
        f"{key} = {json.dumps(value)}" for key, value in values.items()
    ]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_largest_values_play_the_same_games_compiled_and_in_python(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    from arena.compiled import MAX_TARGET

    target = MAX_TARGET // 50 * 50  # the kernel's largest target
    files = [
        _largest(tmp_path, "bonus", target, kind_scoring="fixed_bonus", exact_target=False),
        _largest(tmp_path, "bar", target, rising_bar=True, farkle_penalty_streak=1, strikes_to_zero=1),
        _largest(tmp_path, "values", target, kind_scoring="fixed_values", two_triplets_bonus=0),
    ]
    common = ["--no-progress", "-p", "threshold:bank_at=450,min_dice=2", "-p", "greedy", "--games", "12"]
    for path in files:
        common += ["--rules", str(path)]
    runner = CliRunner()
    for mode in ("off", "on"):
        result = runner.invoke(
            cli, ["tournament", "--out", str(tmp_path / mode), "--compiled", mode, *common]
        )
        assert result.exit_code == 0, result.stderr
    for name in ("games.csv", "summary.csv", "pairwise.csv"):
        assert (tmp_path / "off" / name).read_bytes() == (tmp_path / "on" / name).read_bytes(), name
    with (tmp_path / "on" / "games.csv").open(newline="", encoding="utf-8") as file:
        scores = [int(row["score"]) for row in csv.DictReader(file)]
    assert max(scores) >= MAX_VALUE  # the big values were scored, not just allowed


def test_the_largest_target_plays_in_python_and_its_reports_are_written(tmp_path: Path) -> None:
    path = _largest(tmp_path, "huge", MAX_VALUE, kind_scoring="fixed_bonus", exact_target=False)
    result = CliRunner().invoke(
        cli,
        ["tournament", "--out", str(tmp_path / "run"), "--no-progress", "--compiled", "off",
         "-p", "greedy", "-p", "random", "--rules", str(path), "--games", "4"],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "run" / "summary.csv").read_text().count("\n") == 3  # a header, two players
