"""The rules of 10,000 as data.

A :class:`Ruleset` holds every rule the three rule documents describe, one field per rule.
The engine reads fields; it never branches on a preset's name.  The documents are cited by
their short names:

- *001* "Standard" (``docs/rules/001_209120025ead4072.txt``),
- *000* "Kurze Partie (5000)" (``docs/rules/000_4463a352ab184aa6.txt``),
- *002* the general guide with its base form ("Grundform") and "Verbreitete Varianten"
  (``docs/rules/002_f6080ed1a31f3547.txt``).

Where the documents leave a point open, the reading chosen is written in ``docs/rules.md``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal

KindScoring = Literal["doubling", "fixed_values", "fixed_bonus"]
FinalRound = Literal["everyone_else", "rest_of_round"]
TieRule = Literal["share", "playoff"]

KIND_SCORINGS: tuple[str, ...] = ("doubling", "fixed_values", "fixed_bonus")
FINAL_ROUNDS: tuple[str, ...] = ("everyone_else", "rest_of_round")
TIE_RULES: tuple[str, ...] = ("share", "playoff")

#: Every scoring value in the documents is a multiple of this.
POINT_STEP = 50

#: The largest value of any whole-number field (points, target, thresholds, penalties, bar,
#: bonuses, streak and strike counts).  The documents' largest value is 10,000.
#:
#: Why this bound keeps every number below 2**63 - 1 (the compiled kernel's int64, and the
#: int64 columns pandas reads games.csv into):
#:
#: - One roll scores at most 3 * MAX_VALUE + 1000 < 2**32: six of a kind under ``fixed_bonus``
#:   (a triple of 1s, 1000, plus three bonuses); every other reading is smaller (doubling gives
#:   at most 8 x 1000, a straight, three pairs or a fixed value at most MAX_VALUE, two triplets
#:   MAX_VALUE + 1000 + 600).
#: - A score is below ``target`` until the turn that reaches it, after which each player has at
#:   most one more turn; penalties and strikes only lower it.  So a score is at most
#:   target + one turn, whatever the round limit, and a playoff turn is one turn.
#: - A turn of k scoring rolls is at most k * 2**32, so a turn near 2**62 needs 2**30 rolls in a
#:   row without a farkle.  Every roll farkles with chance at least 1080/46656 (six dice showing
#:   two pairs and two singles of 2, 3, 4, 6; fewer dice farkle more often), so the chance of
#:   such a turn is below (1 - 1/44)**(2**30), about e**-24,000,000: it does not happen.
#: - A report's sums (scores over the games of a run) stay below 2**63 for tens of millions of
#:   games even of such extreme rulesets (a turn of 50 rolls of 3 * 10**9 each), and for 10**13
#:   games of the documents' rulesets.
#: - The bar is a banked turn plus ``bar_step``: one turn and one value.
MAX_VALUE = 10**9


class RulesetError(ValueError):
    """A ruleset is refused: an unknown key, a wrong type or an impossible combination.

    The message always names the offending key first.
    """

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.detail = message


def _rule(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One complete set of rules for a game of 10,000.

    Immutable and hashable, so the engine can cache what it precomputes per ruleset.
    Build variants with :meth:`replace`, which validates the result.
    """

    name: str = _rule("custom", "Name shown in results and reports.")
    description: str = _rule("", "One line saying what this ruleset is.")
    dice: int = _rule(6, "Dice in the cup: 5 (002 Grundform) or 6 (001, 000, 002 variant).")
    target: int = _rule(10_000, "Points that end the game (001: 10000, 000: 5000, 002: either).")
    exact_target: bool = _rule(
        False, "The target must be hit exactly; a turn that would overshoot is forfeited (001)."
    )
    entry_threshold: int = _rule(
        0, "Points one turn must reach before a player's first bank counts (001: 500, 002: 350)."
    )
    kind_scoring: KindScoring = _rule(
        "doubling",
        "Four or more of a kind: 'doubling' (each further die doubles, 001/000/002), "
        "'fixed_values' (four/five/six of a kind are worth fixed points) or "
        "'fixed_bonus' (each die beyond three adds kind_bonus) (002 variant).",
    )
    four_of_a_kind: int = _rule(1000, "Points for four of a kind under kind_scoring 'fixed_values'.")
    five_of_a_kind: int = _rule(2000, "Points for five of a kind under kind_scoring 'fixed_values'.")
    six_of_a_kind: int = _rule(3000, "Points for six of a kind under kind_scoring 'fixed_values'.")
    kind_bonus: int = _rule(1000, "Points each die beyond three adds under kind_scoring 'fixed_bonus'.")
    straights: bool = _rule(
        False, "A roll of all dice showing a run of faces scores as a straight (001, 000, 002 variant)."
    )
    straight_1_to_5: int = _rule(500, "Straight 1-2-3-4-5, five dice only (002 variant).")
    straight_2_to_6: int = _rule(750, "Straight 2-3-4-5-6, five dice only (002 variant).")
    straight_1_to_6: int = _rule(1500, "Straight 1-2-3-4-5-6, six dice only (001: 1500, 000: 3000).")
    three_pairs: bool = _rule(
        False,
        "Three pairs of three different faces in one roll of six dice score (001, 000, 002 variant); "
        "a four of a kind is not two pairs.",
    )
    three_pairs_value: int = _rule(750, "Points for three pairs (001: 750, 000: 2000, 002: 1500).")
    two_triplets_bonus: int = _rule(
        0,
        "Bonus for two triplets of different faces in one roll of six dice, on top of both "
        "triplets (000: 1500); 0 turns it off.",
    )
    must_roll_after_hot_dice: bool = _rule(
        False, "After hot dice (every die scored) the player must roll all dice again (002 variant)."
    )
    farkle_penalty: int = _rule(
        0, "Points lost after farkle_penalty_streak farkles in a row (002 variant: 500 or 1000)."
    )
    farkle_penalty_to_zero: bool = _rule(
        False, "The farkle streak sets the score back to zero instead (002 variant)."
    )
    farkle_penalty_streak: int = _rule(3, "Farkles in a row that trigger the farkle penalty (002).")
    rising_bar: bool = _rule(
        False,
        "Each turn must bank at least the previous player's banked turn plus bar_step; a miss is a "
        "strike and resets the bar to bar_start (000).",
    )
    bar_start: int = _rule(350, "The bar for the first turn and after a miss (000: 350).")
    bar_step: int = _rule(50, "How far the bar rises above the previous banked turn (000: 50).")
    strikes_to_zero: int = _rule(3, "Strikes in a row that set the score to zero (000: 3).")
    final_round: FinalRound = _rule(
        "rest_of_round",
        "Once someone reaches the target: 'everyone_else' gets exactly one more turn (001), or "
        "only the players still to play in this round ('rest_of_round', 000 and 002).",
    )
    ties: TieRule = _rule(
        "share",
        "Equal top scores at the end: 'share' the win, or play a 'playoff' turn each (002).",
    )

    def __post_init__(self) -> None:
        validate(self)

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with ``changes`` applied, validated like any other ruleset."""
        return dataclasses.replace(self, **changes)

    # Derived values used by the engine; cheap and kept out of the fields.
    def has_entry(self) -> bool:
        return self.entry_threshold > 0

    def has_farkle_penalty(self) -> bool:
        return self.farkle_penalty_to_zero or self.farkle_penalty > 0

    def as_dict(self) -> dict[str, Any]:
        """Every field by name, in declaration order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def rule_docs() -> dict[str, str]:
    """Each field's one-line explanation, in declaration order."""
    return {f.name: f.metadata.get("doc", "") for f in dataclasses.fields(Ruleset)}


def rule_types() -> dict[str, type]:
    """The Python type each field takes (``Literal`` fields take ``str``)."""
    result: dict[str, type] = {}
    for f in dataclasses.fields(Ruleset):
        default = f.default
        result[f.name] = type(default)
    return result


def _check_points(rules: Ruleset, key: str, *, positive: bool = False) -> None:
    value = getattr(rules, key)
    if value < 0 or (positive and value == 0):
        raise RulesetError(key, f"must be {'positive' if positive else 'zero or more'}, got {value}")
    if value % POINT_STEP:
        raise RulesetError(key, f"must be a multiple of {POINT_STEP}, got {value}")


def _check_bound(key: str, value: int) -> None:
    """Refuse a value above :data:`MAX_VALUE` (see there why the bound exists)."""
    if value > MAX_VALUE:
        raise RulesetError(
            key, f"must be at most {MAX_VALUE:,} (so no score or sum can pass 2**63 - 1), got {value:,}"
        )


def validate(rules: Ruleset) -> None:
    """Refuse a ruleset that no table could play, naming the key at fault."""
    types = rule_types()
    for name, expected in types.items():
        value = getattr(rules, name)
        # bool is a subclass of int: refuse True where a number is meant and vice versa.
        if type(value) is not expected:
            raise RulesetError(name, f"must be {expected.__name__}, got {type(value).__name__} {value!r}")
        if type(value) is int:  # as `expected is int` here, and it narrows value for mypy
            _check_bound(name, value)
    for key in ("name", "description"):
        if any(c in getattr(rules, key) for c in "\r\n"):
            raise RulesetError(key, "must be one line")
    if not rules.name.strip():
        raise RulesetError("name", "must not be empty")
    if rules.dice not in (5, 6):
        raise RulesetError("dice", f"must be 5 or 6, got {rules.dice}")
    for key in (
        "target",
        "bar_start",
        "straight_1_to_5",
        "straight_2_to_6",
        "straight_1_to_6",
        "three_pairs_value",
        "four_of_a_kind",
        "five_of_a_kind",
        "six_of_a_kind",
    ):
        _check_points(rules, key, positive=True)
    for key in ("entry_threshold", "kind_bonus", "two_triplets_bonus", "farkle_penalty", "bar_step"):
        _check_points(rules, key)
    if rules.kind_scoring not in KIND_SCORINGS:
        raise RulesetError(
            "kind_scoring", f"must be one of {', '.join(KIND_SCORINGS)}, got {rules.kind_scoring!r}"
        )
    if rules.final_round not in FINAL_ROUNDS:
        raise RulesetError(
            "final_round", f"must be one of {', '.join(FINAL_ROUNDS)}, got {rules.final_round!r}"
        )
    if rules.ties not in TIE_RULES:
        raise RulesetError("ties", f"must be one of {', '.join(TIE_RULES)}, got {rules.ties!r}")
    if rules.three_pairs and rules.dice != 6:
        raise RulesetError("three_pairs", "needs six dice (002: 'Nur mit sechs Würfeln')")
    if rules.two_triplets_bonus and rules.dice != 6:
        raise RulesetError("two_triplets_bonus", "needs six dice: two triplets are six dice")
    if rules.farkle_penalty_streak < 1:
        raise RulesetError("farkle_penalty_streak", "must be at least 1")
    if rules.farkle_penalty_to_zero and rules.farkle_penalty:
        raise RulesetError(
            "farkle_penalty_to_zero", "set either farkle_penalty or farkle_penalty_to_zero, not both"
        )
    if rules.strikes_to_zero < 1:
        raise RulesetError("strikes_to_zero", "must be at least 1")
    if rules.entry_threshold > rules.target:
        raise RulesetError("entry_threshold", "is above the target, so nobody could ever bank")
    if rules.rising_bar and rules.bar_start > rules.target:
        raise RulesetError("bar_start", "is above the target, so nobody could ever bank")
