"""Names a person can tell apart: NFKC, no invisible characters or lone marks, and look-alike
names numbered in a tournament as equal ones are (arena/players/names.py)."""

from __future__ import annotations

import dataclasses

import pytest

from arena.engine.presets import STANDARD
from arena.players.names import name_problem, normal_name, skeleton
from arena.tournaments.spec import TournamentSpec, player_from_class, unique_labels


class Bot:
    name = "bot"

    def decide(self, view):  # pragma: no cover - never played here
        raise NotImplementedError


@pytest.mark.parametrize(
    "name",
    [
        "optimal\ufe0f",  # a variation selector
        "optimal\u034f",  # the combining grapheme joiner
        "optimal\u3164",  # a Hangul filler
        "optimal\u2800",  # the blank Braille cell
        "\u0301optimal",  # a combining mark on no letter
        "optimal \u0301",
        "x" + "\u0301\u0302\u0303\u0304\u0306",  # five marks stacked on one letter
    ],
)
def test_invisible_characters_and_lone_or_stacked_marks_are_refused(name: str) -> None:
    assert name_problem(name) is not None


def test_names_are_nfkc_and_any_script_is_welcome() -> None:
    assert normal_name("\uff4f\uff50\uff54\uff49\uff4d\uff41\uff4c") == "optimal"
    assert normal_name("ﬁsh  bot") == "fish bot"
    for name in ("Jürgen", "小明", "Ολυμπία", "Zoë", "Nguyễn"):
        assert name_problem(name) is None
    assert skeleton("\u043eptimal") == skeleton("optimal") != skeleton("optima")


def test_look_alike_labels_are_numbered_as_equal_ones_are() -> None:
    base = player_from_class(Bot)
    players = [dataclasses.replace(base, label=label) for label in ("optimal", "\u043eptimal", "optimal")]
    assert [p.label for p in unique_labels(tuple(players))] == ["optimal", "\u043eptimal#2", "optimal#3"]
    clash = [dataclasses.replace(base, label=label) for label in ("a", "a#2", "a")]
    assert [p.label for p in unique_labels(tuple(clash))] == ["a", "a#2", "a#3"]  # never a#2 twice
    spec = TournamentSpec(rulesets=(STANDARD,), players=tuple(players))
    assert len(set(spec.labels)) == 3
    assert unique_labels(spec.players) == spec.players  # numbered once: a resumed spec keeps them
