"""Every variant arena ships (arena/engine/variants/) loads by name, says what it changes, and
plays; the example of writing your own (rulesets/) loads from its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine import CLASSIC, RulesetError, load_ruleset
from arena.engine.loading import VARIANTS_FOLDER, variant_names
from arena.players import load_player_spec, play_match

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {
    "house": {"dice": 6, "three_pairs": True, "three_pairs_value": 1500, "farkle_penalty": 1000},
    "six-dice-straights": {"dice": 6, "straights": True, "three_pairs": True, "entry_threshold": 500},
    "five-dice-straights": {"straights": True, "straight_1_to_5": 500, "straight_2_to_6": 750},
    "short-evening": {"target": 5000},
    "strict-entry": {"entry_threshold": 1000},
    "must-roll-after-hot-dice": {"must_roll_after_hot_dice": True},
    "exact-target": {"exact_target": True},
    "three-farkles-to-zero": {"farkle_penalty_to_zero": True},
    "fixed-values": {"kind_scoring": "fixed_values"},
    "playoff": {"ties": "playoff"},
}


def test_every_variant_is_listed() -> None:
    assert set(variant_names()) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_variant_loads_by_name_and_plays(name: str) -> None:
    rules = load_ruleset(name)
    assert rules == load_ruleset(str(VARIANTS_FOLDER / f"{name}.toml"))  # the name is the file
    assert rules.name == name and rules.description.startswith("002 ")
    for key, value in EXPECTED[name].items():
        assert getattr(rules, key) == value, key
    assert rules != CLASSIC
    players = [load_player_spec("optimal").create(), load_player_spec("tactician").create()]
    for seed in range(3):
        assert play_match(rules, players, seed).reason == "target"


# --- TOML: refused naming the key ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('extends = "classic"\ntarget = 5000.0\n', "target"),
        ('extends = "classic"\n[extra]\ndice = 6\n', "extra"),
        ('extends = "classic"\ndice = [6]\n', "dice"),
        ("extends = 1\n", "extends"),
        ('extends = "classic"\nfinal_round = "Everyone_else"\n', "final_round"),
        ('extends = "classic"\nname = 5\n', "name"),
    ],
)
def test_toml_refusals_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset(str(path))
    assert info.value.key == key and str(info.value).startswith(f"{key}: ")


def test_the_example_of_writing_your_own_is_no_second_copy_of_a_variant() -> None:
    examples = sorted((ROOT / "rulesets").glob("*.toml"))
    assert examples
    variants = {load_ruleset(name).replace(name="x", description="x") for name in variant_names()}
    for path in examples:
        rules = load_ruleset(str(path))
        assert rules.name not in variant_names()
        assert rules.replace(name="x", description="x") not in variants
