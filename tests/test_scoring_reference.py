"""An independent reference implementation of scoring, checked against the engine.

The reference below was written from the rule documents alone (``docs/rules/001_209120025ead4072.txt``
"Standard", ``000_…txt`` "Kurze Partie (5000)" and ``002_…txt`` the general guide with its
"Wertungstabelle" and "Verbreitete Varianten"), reading only the field names and meanings of
:class:`arena.engine.Ruleset`; it does not share the engine's algorithm.  Where the engine looks
at each face separately, the reference splits a selection recursively into scoring blocks (a
single 1 or 5, one n-of-a-kind group per face) and, for a selection of all dice, also tries the
whole-roll patterns (straight, three pairs, two triplets); the best total wins.

The tests compare the two exhaustively on every multiset of dice for the presets and a list of
hand-built variants, on random variants drawn by hypothesis, on every roll's legal keeps, and on
the farkle counts of every ordered roll.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from functools import cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.engine import (
    CLASSIC,
    SHORT,
    STANDARD,
    Ruleset,
    RulesetError,
    farkle_probability,
    legal_keeps,
    score,
)
from arena.engine.scoring import best_score

Dice = tuple[int, ...]

FACES: Dice = (1, 2, 3, 4, 5, 6)

# 002 "Wertungstabelle": a single 1 is 100, a single 5 is 50; no other single die scores.
SINGLE_POINTS: dict[int, int] = {1: 100, 5: 50}


# --------------------------------------------------------------------------------------------
# The reference
# --------------------------------------------------------------------------------------------


def ref_three_of_a_kind(face: int) -> int:
    """Three equal dice: face x 100, three 1s are 1000 (001/000 "Was zählt", 002)."""
    return 1000 if face == 1 else 100 * face


def ref_group(face: int, size: int, rules: Ruleset) -> int:
    """Points of ``size`` (3 to 6) equal dice showing ``face`` under the ruleset's kind scoring."""
    triple = ref_three_of_a_kind(face)
    extra = size - 3
    if extra == 0:
        return triple
    if rules.kind_scoring == "doubling":  # 002: each further die doubles
        return triple * 2**extra
    if rules.kind_scoring == "fixed_values":  # 002 variant: fixed values, whatever the face
        return {4: rules.four_of_a_kind, 5: rules.five_of_a_kind, 6: rules.six_of_a_kind}[size]
    if rules.kind_scoring == "fixed_bonus":  # 002 variant: a fixed bonus per further die
        return triple + extra * rules.kind_bonus
    raise AssertionError(f"unknown kind_scoring {rules.kind_scoring!r}")


def ref_whole_roll_patterns(dice: Dice, rules: Ruleset) -> list[int]:
    """Points of every whole-roll pattern the selection forms (it must use all dice)."""
    if len(dice) != rules.dice:
        return []
    found: list[int] = []
    ordered = sorted(dice)
    if rules.straights:
        # 002: "Alle Würfel eines Wurfs bilden eine Folge: 1–5 …, 2–6 …, mit sechs Würfeln 1–6".
        if rules.dice == 6 and ordered == [1, 2, 3, 4, 5, 6]:
            found.append(rules.straight_1_to_6)
        if rules.dice == 5 and ordered == [1, 2, 3, 4, 5]:
            found.append(rules.straight_1_to_5)
        if rules.dice == 5 and ordered == [2, 3, 4, 5, 6]:
            found.append(rules.straight_2_to_6)
    sizes = sorted(Counter(dice).values())
    if rules.three_pairs and rules.dice == 6 and sizes == [2, 2, 2]:
        # 001/000: three pairs of different faces; a four of a kind is not two pairs.
        found.append(rules.three_pairs_value)
    if rules.two_triplets_bonus > 0 and rules.dice == 6 and sizes == [3, 3]:
        # 000: "Zuschlag von 1500 Punkten, dazu beide Drillinge"; the faces differ.
        found.append(rules.two_triplets_bonus + sum(ref_three_of_a_kind(f) for f in set(dice)))
    return found


@cache
def _ref_blocks(rest: Dice, grouped: frozenset[int], rules: Ruleset) -> int | None:
    """Best total of splitting sorted ``rest`` into scoring blocks; None if it cannot be done.

    The block holding the first remaining die is chosen in every possible way: that die alone
    (a 1 or a 5), or a group of 3 or more equal dice of its face if the face has no group yet
    (the dice of one face form at most one group: six 2s are not two triplets).
    """
    if not rest:
        return 0
    first = rest[0]
    totals: list[int] = []
    if first in SINGLE_POINTS:
        after = _ref_blocks(rest[1:], grouped, rules)
        if after is not None:
            totals.append(SINGLE_POINTS[first] + after)
    if first not in grouped:
        same = rest.count(first)  # rest is sorted, so these are rest[:same]
        for size in range(3, same + 1):
            after = _ref_blocks(rest[size:], grouped | {first}, rules)
            if after is not None:
                totals.append(ref_group(first, size, rules) + after)
    return max(totals, default=None)


@cache
def _ref_score_sorted(dice: Dice, rules: Ruleset) -> int | None:
    candidates = ref_whole_roll_patterns(dice, rules)
    blocks = _ref_blocks(dice, frozenset(), rules)
    if blocks is not None:
        candidates.append(blocks)
    return max(candidates, default=None)


def ref_score(dice: Dice | list[int], rules: Ruleset) -> int | None:
    """Points of keeping exactly these dice; None when some die cannot be used."""
    if not dice:
        return None
    return _ref_score_sorted(tuple(sorted(dice)), rules)


def sub_multisets(roll: Dice) -> Iterator[Dice]:
    """Every non-empty sub-multiset of ``roll``, each once, as a sorted tuple."""
    tally = Counter(roll)
    faces = sorted(tally)
    for takes in itertools.product(*(range(tally[f] + 1) for f in faces)):
        picked = tuple(f for f, k in zip(faces, takes, strict=True) for _ in range(k))
        if picked:
            yield picked


@cache
def _ref_keeps_sorted(roll: Dice, rules: Ruleset) -> dict[Dice, int]:
    keeps: dict[Dice, int] = {}
    for part in sub_multisets(roll):
        points = ref_score(part, rules)
        if points is not None:
            keeps[part] = points
    return keeps


def ref_keeps(roll: Dice, rules: Ruleset) -> dict[Dice, int]:
    """Every scoring sub-multiset of the roll with its points."""
    return _ref_keeps_sorted(tuple(sorted(roll)), rules)


def multisets(rules: Ruleset) -> Iterator[Dice]:
    """Every multiset of 1 to ``rules.dice`` dice, as sorted tuples."""
    for n in range(1, rules.dice + 1):
        yield from itertools.combinations_with_replacement(FACES, n)


# --------------------------------------------------------------------------------------------
# Rulesets under test
# --------------------------------------------------------------------------------------------

PRESETS: list[Ruleset] = [STANDARD, SHORT, CLASSIC]

VARIANTS: list[Ruleset] = [
    # 002 "Nur mit sechs Würfeln: drei verschiedene Paare … zählen 1.500."
    CLASSIC.replace(name="classic6_pairs", dice=6, three_pairs=True, three_pairs_value=1500),
    CLASSIC.replace(name="classic6_plain", dice=6),
    # 002: "feste Werte" for four and more of a kind, high and low (low lets 1s/5s count singly).
    CLASSIC.replace(name="fixed_values5", kind_scoring="fixed_values"),
    STANDARD.replace(name="fixed_values6", kind_scoring="fixed_values"),
    STANDARD.replace(
        name="fixed_values_low",
        kind_scoring="fixed_values",
        four_of_a_kind=200,
        five_of_a_kind=250,
        six_of_a_kind=300,
    ),
    # 002: "feste Zuschläge" per further die.
    CLASSIC.replace(name="fixed_bonus5", kind_scoring="fixed_bonus", kind_bonus=500),
    STANDARD.replace(name="fixed_bonus6", kind_scoring="fixed_bonus", kind_bonus=500),
    SHORT.replace(name="fixed_bonus_zero", kind_scoring="fixed_bonus", kind_bonus=0),
    SHORT.replace(name="fixed_bonus_50", kind_scoring="fixed_bonus", kind_bonus=50),
    # 002: straights with five dice, 1–5 and 2–6.
    CLASSIC.replace(name="classic_straights", straights=True),
    CLASSIC.replace(name="classic_straights_odd", straights=True, straight_1_to_5=900, straight_2_to_6=50),
    # 000: two triplets, off and with several bonuses.
    SHORT.replace(name="short_no_triplets", two_triplets_bonus=0),
    STANDARD.replace(name="standard_triplets_50", two_triplets_bonus=50),
    STANDARD.replace(name="standard_triplets_1500", two_triplets_bonus=1500),
    STANDARD.replace(name="standard_triplets_5000", two_triplets_bonus=5000),
    STANDARD.replace(name="standard_bare", straights=False, three_pairs=False),
]

ALL_RULESETS: list[Ruleset] = PRESETS + VARIANTS


def _ids(rules: Ruleset) -> str:
    return rules.name


# --------------------------------------------------------------------------------------------
# Sanity checks of the reference against the documents' own numbers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "points"),
    [
        ((1,), 100),
        ((5,), 50),
        ((1, 1), 200),  # 002 table: zwei Einsen 200
        ((5, 5), 100),  # 002 table: zwei Fünfen 100
        ((1, 1, 1), 1000),
        ((2, 2, 2), 200),
        ((6, 6, 6), 600),
        ((1, 1, 1, 5), 1050),  # 002: three 1s and a 5
        ((1, 1, 1, 1), 2000),  # 002 FAQ: vier Einsen 2000
        ((1, 1, 1, 1, 1), 4000),
        ((5, 5, 5, 5, 5), 2000),  # 002: Ben's five 5s
        ((3, 3, 3, 3), 600),
        ((4, 4, 4, 4, 4), 1600),
        ((3, 5), None),  # 002: "Die Auswahl 3 und 5 ist ungültig"
        ((2, 2), None),  # 002: two 2s do not score
        ((2, 3, 4, 6, 6), None),
    ],
)
def test_reference_matches_document_examples(dice: Dice, points: int | None) -> None:
    assert ref_score(dice, CLASSIC) == points


def test_reference_matches_document_examples_six_dice() -> None:
    assert ref_score((6, 6, 6, 6, 6, 6), STANDARD) == 4800  # 002 table
    assert ref_score((2, 2, 2, 2, 2, 2), SHORT) == 1600  # 000: Sechsling
    assert ref_score((1, 2, 3, 4, 5, 6), STANDARD) == 1500  # 001: Straße
    assert ref_score((1, 2, 3, 4, 5, 6), SHORT) == 3000  # 000: Straße
    assert ref_score((2, 2, 3, 3, 4, 4), STANDARD) == 750  # 001: drei Paare
    assert ref_score((2, 2, 3, 3, 4, 4), SHORT) == 2000  # 000: drei Paare
    assert ref_score((2, 2, 2, 2, 3, 3), STANDARD) is None  # a four of a kind is not two pairs
    assert ref_score((2, 2, 2, 3, 3, 3), SHORT) == 2000  # 1500 bonus + 200 + 300
    assert ref_score((2, 2, 2, 3, 3, 3), STANDARD) == 500  # no bonus: just both triplets
    assert ref_score((1, 2, 3, 4, 5), STANDARD) is None  # with six dice only 1–6 is a straight


def test_reference_farkles_match_document_table() -> None:
    """002's table of farkles for the base scoring, 1 to 6 dice."""
    expected = {1: 4, 2: 16, 3: 60, 4: 204, 5: 600, 6: 1440}
    for n, farkles in expected.items():
        rules = CLASSIC if n <= 5 else CLASSIC.replace(dice=6)
        assert _ref_farkle_count(n, rules) == farkles


# --------------------------------------------------------------------------------------------
# 1. every multiset, presets and hand-built variants
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ALL_RULESETS, ids=_ids)
def test_score_matches_reference_on_every_multiset(rules: Ruleset) -> None:
    mismatches = [
        (dice, ref_score(dice, rules), score(dice, rules))
        for dice in multisets(rules)
        if ref_score(dice, rules) != score(dice, rules)
    ]
    assert not mismatches, f"{rules.name}: (dice, reference, engine) {mismatches[:20]}"


# --------------------------------------------------------------------------------------------
# 2. random variants
# --------------------------------------------------------------------------------------------

# Small value pools keep rulesets repeating, so the engine's per-ruleset tables stay cached.
_POINTS = st.sampled_from([50, 100, 250, 500, 750, 1000, 1500, 3000])
_BONUS = st.sampled_from([0, 50, 500, 1000])


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    fields = {
        "dice": draw(st.sampled_from([5, 6])),
        "kind_scoring": draw(st.sampled_from(["doubling", "fixed_values", "fixed_bonus"])),
        "four_of_a_kind": draw(_POINTS),
        "five_of_a_kind": draw(_POINTS),
        "six_of_a_kind": draw(_POINTS),
        "kind_bonus": draw(_BONUS),
        "straights": draw(st.booleans()),
        "straight_1_to_5": draw(_POINTS),
        "straight_2_to_6": draw(_POINTS),
        "straight_1_to_6": draw(_POINTS),
        "three_pairs": draw(st.booleans()),
        "three_pairs_value": draw(_POINTS),
        "two_triplets_bonus": draw(_BONUS),
    }
    try:
        return Ruleset(name="random", **fields)
    except RulesetError:
        assume(False)
        raise  # unreachable: assume(False) aborts the example


@st.composite
def ruleset_and_selections(draw: st.DrawFn) -> tuple[Ruleset, list[list[int]]]:
    """A random ruleset and a few selections (several per ruleset: building one costs most)."""
    rules = draw(rulesets())
    selection = st.lists(st.integers(1, 6), min_size=1, max_size=rules.dice)
    return rules, draw(st.lists(selection, min_size=1, max_size=8))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(ruleset_and_selections())
def test_score_matches_reference_on_random_variants(case: tuple[Ruleset, list[list[int]]]) -> None:
    # score() looks the points up in the ruleset's score table, whose points are best_score() of
    # every multiset (test 1 checks that lookup on 19 rulesets).  Asking best_score() directly
    # tests the same scoring on each random ruleset without building its table of keeps for
    # every roll (0.13 s with six dice, nearly all of this test's time when it went through score()).
    rules, selections = case
    for dice in selections:
        counts = tuple(dice.count(face) for face in FACES)
        assert best_score(counts, rules) == ref_score(dice, rules), (dice, rules.as_dict())


# --------------------------------------------------------------------------------------------
# 3. legal keeps of every roll
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ALL_RULESETS, ids=_ids)
def test_legal_keeps_match_reference_on_every_roll(rules: Ruleset) -> None:
    for roll in multisets(rules):
        n = len(roll)
        keeps = legal_keeps(roll, rules)
        engine = {tuple(sorted(k.dice)): k.points for k in keeps}
        assert len(engine) == len(keeps), f"{rules.name} {roll}: a keep is listed twice"
        assert engine == ref_keeps(roll, rules), (rules.name, roll)
        points = [k.points for k in keeps]
        assert points == sorted(points, reverse=True), f"{rules.name} {roll}: not best first"
        for k in keeps:
            whole = len(k.dice) == n
            assert k.hot is whole, (rules.name, roll, k)
            assert k.dice_left == (rules.dice if whole else n - len(k.dice)), (rules.name, roll, k)


# --------------------------------------------------------------------------------------------
# 4. farkle counts over every ordered roll
# --------------------------------------------------------------------------------------------


@cache
def _ref_farkle_count(n: int, rules: Ruleset) -> int:
    farkles = 0
    for roll in itertools.product(FACES, repeat=n):
        if not ref_keeps(roll, rules):
            farkles += 1
    return farkles


@pytest.mark.parametrize("rules", ALL_RULESETS, ids=_ids)
def test_farkle_probability_matches_reference_count(rules: Ruleset) -> None:
    for n in range(1, rules.dice + 1):
        rolls = 6**n
        expected = _ref_farkle_count(n, rules)
        assert farkle_probability(n, rules) * rolls == pytest.approx(expected, abs=1e-6), (
            rules.name,
            n,
            expected,
        )
