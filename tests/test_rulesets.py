"""Rulesets: presets are the documents' values, variants are validated, TOML files load or are
refused with a message naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine import CLASSIC, PRESETS, SHORT, STANDARD, Ruleset, RulesetError, load_ruleset


def test_presets_by_name() -> None:
    assert set(PRESETS) == {"standard", "short", "classic"}
    assert load_ruleset("standard") is STANDARD


def test_standard_is_001() -> None:
    assert (STANDARD.dice, STANDARD.target, STANDARD.exact_target, STANDARD.entry_threshold) == (
        6,
        10_000,
        True,
        500,
    )
    assert STANDARD.straights and STANDARD.straight_1_to_6 == 1500
    assert STANDARD.three_pairs and STANDARD.three_pairs_value == 750
    assert STANDARD.final_round == "everyone_else" and not STANDARD.rising_bar


def test_short_is_000() -> None:
    assert (SHORT.dice, SHORT.target, SHORT.exact_target) == (6, 5000, False)
    assert SHORT.straight_1_to_6 == 3000 and SHORT.three_pairs_value == 2000
    assert SHORT.two_triplets_bonus == 1500
    assert SHORT.rising_bar and (SHORT.bar_start, SHORT.bar_step, SHORT.strikes_to_zero) == (350, 50, 3)
    assert SHORT.final_round == "rest_of_round"


def test_classic_is_the_002_base_form() -> None:
    assert (CLASSIC.dice, CLASSIC.target, CLASSIC.exact_target, CLASSIC.entry_threshold) == (
        5,
        10_000,
        False,
        350,
    )
    assert not (CLASSIC.straights or CLASSIC.three_pairs or CLASSIC.must_roll_after_hot_dice)
    assert CLASSIC.ties == "share" and CLASSIC.final_round == "rest_of_round"


def test_rulesets_are_immutable_and_hashable() -> None:
    with pytest.raises(AttributeError):
        STANDARD.target = 5000  # type: ignore[misc]
    assert hash(STANDARD) == hash(STANDARD.replace())


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"dice": 5, "three_pairs": True}, "three_pairs"),
        ({"dice": 5, "two_triplets_bonus": 1500}, "two_triplets_bonus"),
        ({"dice": 4}, "dice"),
        ({"entry_threshold": 333}, "entry_threshold"),
        ({"entry_threshold": -50}, "entry_threshold"),
        ({"target": 0}, "target"),
        ({"target": 10_020}, "target"),
        ({"entry_threshold": 20_000}, "entry_threshold"),
        ({"three_pairs_value": 725}, "three_pairs_value"),
        ({"kind_scoring": "tripling"}, "kind_scoring"),
        ({"final_round": "sudden_death"}, "final_round"),
        ({"ties": "coin"}, "ties"),
        ({"farkle_penalty": 500, "farkle_penalty_to_zero": True}, "farkle_penalty_to_zero"),
        ({"strikes_to_zero": 0}, "strikes_to_zero"),
        ({"dice": True}, "dice"),
        ({"exact_target": 1}, "exact_target"),
    ],
)
def test_impossible_rulesets_are_refused_naming_the_key(changes: dict, key: str) -> None:
    with pytest.raises(RulesetError) as info:
        CLASSIC.replace(**changes)
    assert info.value.key == key
    assert str(info.value).startswith(f"{key}: ")


@pytest.mark.parametrize("entry", [0, 350, 500, 1000, 750])
def test_any_entry_threshold_in_steps_of_50(entry: int) -> None:
    assert CLASSIC.replace(entry_threshold=entry).entry_threshold == entry


def write(tmp_path: Path, text: str, name: str = "house.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_toml_extends_a_preset(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'extends = "classic"\ndice = 6\nthree_pairs = true\nthree_pairs_value = 1500\n'
        "target = 5000\nfarkle_penalty = 1000\n",
    )
    rules = load_ruleset(str(path))
    assert isinstance(rules, Ruleset)
    assert rules.name == "house"  # the file name, unless the file says otherwise
    assert (rules.dice, rules.three_pairs_value, rules.target, rules.farkle_penalty) == (6, 1500, 5000, 1000)
    assert rules.entry_threshold == 350  # from the preset
    named = load_ruleset(write(tmp_path, 'extends = "standard"\nname = "mine"\n', "x.toml"))
    assert (
        named.name == "mine" and named.replace(name="standard", description=STANDARD.description) == STANDARD
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dice = 6\n", "extends: missing"),
        ('extends = "kniffel"\n', "extends: must name one of"),
        ('extends = "classic"\nthree_pair = true\n', "three_pair: unknown rule; did you mean 'three_pairs'?"),
        ('extends = "classic"\ndice = "6"\n', "dice: must be int, got str"),
        ('extends = "classic"\nstraights = 1\n', "straights: must be bool, got int"),
        ('extends = "classic"\nthree_pairs = true\n', "three_pairs: needs six dice"),
        ('extends = "classic"\nentry_threshold = 375\n', "entry_threshold: must be a multiple of 50"),
        ('extends = "classic"\ntarget = \n', "not valid TOML"),
    ],
)
def test_toml_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(RulesetError, match=message.replace("(", r"\(").replace("?", r"\?")):
        load_ruleset(str(path))


def test_unknown_name_and_missing_file(tmp_path: Path) -> None:
    preset_or_variant = r"unknown ruleset: use a preset \(standard, short, classic\), a variant"
    with pytest.raises(RulesetError, match=preset_or_variant):
        load_ruleset("kniffel")
    with pytest.raises(RulesetError, match=r"unknown ruleset \(did you mean 'classic'\?\): use a preset"):
        load_ruleset("clasic")
    with pytest.raises(RulesetError, match="no such ruleset file"):
        load_ruleset(str(tmp_path / "nope.toml"))
