"""Every number and example the three rule documents state, checked against the engine.

001 = "Standard", 000 = "Kurze Partie (5000)", 002 = the general guide (docs/rules/).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from arena.engine import CLASSIC, SHORT, STANDARD, Ruleset, farkle_probability, legal_keeps, score
from arena.engine import events as ev
from arena.engine.scoring import score_table
from tests.scripted import ScriptedGame

CLASSIC_6 = CLASSIC.replace(name="classic-6", dice=6)


# --- "Was zählt" in 001 and 000: the same table, except straight and three pairs --------------
@pytest.mark.parametrize("rules", [STANDARD, SHORT], ids=["001", "000"])
@pytest.mark.parametrize(
    ("dice", "points"),
    [
        ((1,), 100),  # Eine einzelne Eins
        ((5,), 50),  # Eine einzelne Fünf
        ((1, 1, 1), 1000),  # Drilling Einsen
        ((2, 2, 2), 200),  # Drilling Zweien
        ((6, 6, 6), 600),  # Drilling Sechsen
        ((2, 2, 2, 2), 400),  # Vierling: jeder weitere gleiche Würfel verdoppelt
        ((2, 2, 2, 2, 2), 800),  # Fünfling
        ((2, 2, 2, 2, 2, 2), 1600),  # Sechsling
    ],
)
def test_was_zaehlt_table(rules: Ruleset, dice: tuple[int, ...], points: int) -> None:
    assert score(dice, rules) == points


@pytest.mark.parametrize(("rules", "straight", "pairs"), [(STANDARD, 1500, 750), (SHORT, 3000, 2000)])
def test_straight_and_three_pairs_values(rules: Ruleset, straight: int, pairs: int) -> None:
    assert score((1, 2, 3, 4, 5, 6), rules) == straight
    assert score((6, 5, 4, 3, 2, 1), rules) == straight
    assert score((2, 2, 3, 3, 4, 4), rules) == pairs


@pytest.mark.parametrize("rules", [STANDARD, SHORT])
def test_four_of_a_kind_is_not_two_pairs(rules: Ruleset) -> None:
    # 001/000: "ein Vierling gilt nicht als zwei Paare"
    assert score((2, 2, 2, 2, 3, 3), rules) is None
    assert score((4, 4, 4, 4, 6, 6), rules) is None
    # Where the pair scores by itself the selection is legal, but not as three pairs.
    assert score((2, 2, 2, 2, 5, 5), rules) == 400 + 100
    assert score((3, 3, 3, 3, 1, 1), rules) == 600 + 200


def test_two_triplets_000() -> None:
    # 000: "2100 Zwei Drillinge: Zuschlag von 1500 Punkten, dazu beide Drillinge"
    assert score((2, 2, 2, 4, 4, 4), SHORT) == 1500 + 200 + 400 == 2100
    assert score((1, 1, 1, 5, 5, 5), SHORT) == 1500 + 1000 + 500
    # "Die Augenzahlen müssen verschieden sein": six of a kind is not two triplets.
    assert score((3, 3, 3, 3, 3, 3), SHORT) == 2400
    # 001 has no such bonus: the two triplets just add up.
    assert score((2, 2, 2, 4, 4, 4), STANDARD) == 600


@pytest.mark.parametrize("rules", [STANDARD, SHORT, CLASSIC])
def test_nothing_else_scores(rules: Ruleset) -> None:
    # "Alles, was nicht aufgeführt ist, bringt nichts."
    for face in (2, 3, 4, 6):
        assert score((face,), rules) is None
        assert score((face, face), rules) is None


# --- 002 "Wertungstabelle" --------------------------------------------------------------------
@pytest.mark.parametrize(("dice", "points"), [((1,), 100), ((5,), 50), ((1, 1), 200), ((5, 5), 100)])
def test_002_singles_table(dice: tuple[int, ...], points: int) -> None:
    assert score(dice, CLASSIC) == points


KIND_TABLE_002 = {
    1: (1000, 2000, 4000, 8000),
    2: (200, 400, 800, 1600),
    3: (300, 600, 1200, 2400),
    4: (400, 800, 1600, 3200),
    5: (500, 1000, 2000, 4000),
    6: (600, 1200, 2400, 4800),
}


@pytest.mark.parametrize("face", sorted(KIND_TABLE_002))
@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_002_kind_table(face: int, count: int) -> None:
    # "sechs Gleiche (nur mit sechs Würfeln)": the last column needs the six-dice variant.
    rules = CLASSIC_6 if count == 6 else CLASSIC
    assert score((face,) * count, rules) == KIND_TABLE_002[face][count - 3]


def test_002_combinations_and_the_illegal_3_and_5() -> None:
    # "sind 1.050 Punkte (1.000 für die drei Einsen, 50 für die Fünf)"
    assert score((1, 1, 1, 5), CLASSIC) == 1050
    # "bringen 400": the picture is missing; the readings that give 400 from one roll:
    assert score((4, 4, 4), CLASSIC) == 400
    assert score((2, 2, 2, 2), CLASSIC) == 400
    # "Die Auswahl 3 und 5 ist ungültig, rauslegen darfst du nur die Fünf."
    assert score((3, 5), CLASSIC) is None
    keeps = {k.dice for k in legal_keeps((3, 5), CLASSIC)}
    assert keeps == {(5,)}


def test_002_two_twos_may_not_be_set_aside() -> None:
    # "Zwei einzelne Zweien zählen ohnehin nicht und dürfen gar nicht erst rausgelegt werden."
    assert score((2, 2), CLASSIC) is None
    assert all(2 not in k.dice for k in legal_keeps((2, 2, 1, 6, 3), CLASSIC))


def test_002_faq_values() -> None:
    # "Was sind vier Einsen wert? 2.000 Punkte ... Fünf Einsen sind 4.000."
    assert score((1, 1, 1, 1), CLASSIC) == 2000
    assert score((1, 1, 1, 1, 1), CLASSIC) == 4000


def test_002_farkle_example() -> None:
    # "Ein Beispiel für eine Niete mit fünf Würfeln: (2, 3, 4, 6, 6)."
    assert legal_keeps((2, 3, 4, 6, 6), CLASSIC) == ()


# 002 "Nieten unter allen Würfen", counted for the base scoring ("Grundwertung").
FARKLE_TABLE_002 = {1: (4, 6), 2: (16, 36), 3: (60, 216), 4: (204, 1296), 5: (600, 7776), 6: (1440, 46656)}
FARKLE_PERCENT_002 = {1: 66.7, 2: 44.4, 3: 27.8, 4: 15.7, 5: 7.7, 6: 3.1}


@pytest.mark.parametrize("n", sorted(FARKLE_TABLE_002))
def test_002_farkle_table(n: int) -> None:
    farkles, rolls = FARKLE_TABLE_002[n]
    rules = CLASSIC_6 if n == 6 else CLASSIC
    assert score_table(rules).farkle_rolls[n] == farkles
    assert score_table(rules).farkle_probability(n) == Fraction(farkles, rolls)
    assert round(farkle_probability(n, rules) * 100, 1) == FARKLE_PERCENT_002[n]


def test_three_pairs_and_straights_change_the_farkle_odds() -> None:
    # With three pairs scoring, the 360 six-dice rolls of three pairs of 2, 3, 4, 6 stop being
    # farkles (every straight already holds a 1 and a 5).
    assert score_table(STANDARD).farkle_rolls[6] == 1440 - 360
    assert score_table(STANDARD).farkle_rolls[1:6] == (4, 16, 60, 204, 600)


# --- 002 "Verbreitete Varianten" --------------------------------------------------------------
def test_002_straight_variant_values() -> None:
    # "1–5 zählt 500, 2–6 zählt 750, mit sechs Würfeln 1–6 1.500"
    five = CLASSIC.replace(straights=True)
    assert score((1, 2, 3, 4, 5), five) == 500
    assert score((2, 3, 4, 5, 6), five) == 750
    six = CLASSIC_6.replace(straights=True)
    assert score((1, 2, 3, 4, 5, 6), six) == 1500
    # "Die Werte schwanken je nach Runde": values are configurable.
    assert score((2, 3, 4, 5, 6), five.replace(straight_2_to_6=1000)) == 1000
    # Off in the base form: 1-2-3-4-5 is just a 1 and a 5 with three dead dice.
    assert score((1, 2, 3, 4, 5), CLASSIC) is None


def test_002_straight_uses_all_dice_and_gives_hot_dice() -> None:
    # "Eine Straße verbraucht alle Würfel und gibt damit Anschluss."
    six = CLASSIC_6.replace(straights=True)
    straight = next(k for k in legal_keeps((1, 2, 3, 4, 5, 6), six) if len(k.dice) == 6)
    assert straight.points == 1500 and straight.hot and straight.dice_left == 6
    # A straight needs a roll of all dice: five dice 1-5 within a six-dice game is no straight.
    assert score((1, 2, 3, 4, 5), six) is None


def test_002_three_pairs_variant() -> None:
    # "Nur mit sechs Würfeln: drei verschiedene Paare in einem Wurf ... zählen 1.500."
    rules = CLASSIC_6.replace(three_pairs=True, three_pairs_value=1500)
    assert score((2, 2, 4, 4, 6, 6), rules) == 1500
    assert score((1, 1, 5, 5, 6, 6), rules) == 1500  # better than reading 1 1 5 5 alone: 6 6 is dead
    assert score((2, 2, 4, 4, 6, 6), CLASSIC_6) is None


def test_002_fixed_values_instead_of_doubling() -> None:
    # "Manche Runden verdoppeln nicht, sondern rechnen ... feste Zuschläge oder feste Werte."
    fixed = CLASSIC_6.replace(kind_scoring="fixed_values")
    assert score((2, 2, 2, 2), fixed) == 1000
    assert score((2, 2, 2, 2, 2), fixed) == 2000
    assert score((2, 2, 2, 2, 2, 2), fixed) == 3000
    assert score((2, 2, 2), fixed) == 200  # a triple keeps its value
    # Four 1s read as three 1s and a single 1 beat a fixed 1000: the best reading counts.
    assert score((1, 1, 1, 1), fixed) == 1100
    bonus = CLASSIC_6.replace(kind_scoring="fixed_bonus", kind_bonus=500)
    assert score((3, 3, 3, 3), bonus) == 800
    assert score((3, 3, 3, 3, 3, 3), bonus) == 1800


# --- 002 "Durchgerechnete Beispiele" (the dice pictures are missing; filled in from the text) --
def test_002_example_anna_hot_dice_then_bank() -> None:
    # Anna, entry 350, five dice: keeps three 1s and the 5 (1050), the last die is a 5 (+50,
    # hot dice), rolls all five and keeps the 1 (+100): 1200 in the turn, four dice left; banks.
    script = ScriptedGame(
        CLASSIC,
        2,
        rolls=[(1, 1, 1, 5, 3), (5,), (1, 2, 3, 4, 6), (5, 2, 3, 4, 6)],
        decisions=[((1, 1, 1, 5), False), ((5,), False), ((1,), True)],
    )
    script.run()
    kept = script.of(ev.Kept)
    assert [(k.points, k.turn_points, k.dice_left, k.hot) for k in kept] == [
        (1050, 1050, 1, False),
        (50, 1100, 5, True),
        (100, 1200, 4, False),
    ]
    assert script.of(ev.Banked) == [ev.Banked(seat=0, points=1200, score=1200)]
    assert script.game.scores == (1200, 0)


def test_002_example_ben_five_fives_then_farkle() -> None:
    # Ben: five 5s = 2000 and hot dice; keeps 1 and 5 (+150), 2150 with three dice left;
    # rolls again: a farkle, the 2150 are lost.
    script = ScriptedGame(
        CLASSIC,
        2,
        rolls=[(5, 5, 5, 5, 5), (1, 5, 2, 3, 4), (2, 3, 6), (1, 2, 2, 3, 4)],
        decisions=[((5, 5, 5, 5, 5), False), ((1, 5), False)],
    )
    script.run()
    assert [k.turn_points for k in script.of(ev.Kept)] == [2000, 2150]
    assert script.of(ev.Kept)[0].hot
    assert script.of(ev.Farkled) == [ev.Farkled(seat=0, lost=2150)]
    assert script.game.scores == (0, 0)
    assert script.game.seat == 1


def test_002_example_carla_farkle_on_the_first_roll() -> None:
    # Carla: no 1, no 5, no three of a kind on the first roll; her score stays as it was.
    script = ScriptedGame(CLASSIC, 2, rolls=[(2, 3, 4, 6, 6), (1, 2, 3, 4, 6)], decisions=[])
    script.run()
    assert script.of(ev.Farkled) == [ev.Farkled(seat=0, lost=0)]
    assert script.game.seat == 1 and script.game.scores == (0, 0)


def test_002_entry_300_is_not_enough_at_350() -> None:
    # "Mit 300 Punkten im Zug darfst du also noch nicht sichern und musst weiterwerfen."
    from arena.engine import IllegalAction

    script = ScriptedGame(CLASSIC, 2, rolls=[(3, 3, 3, 2, 4)], decisions=[])
    script.run()
    with pytest.raises(IllegalAction, match="at least 350"):
        script.game.apply(((3, 3, 3), True))


def test_002_no_limit_after_entering() -> None:
    # "Ab dem zweiten Zug mit Punkten gilt keine Grenze mehr: Dann reichen auch 50 Punkte."
    script = ScriptedGame(
        CLASSIC,
        1,
        rolls=[(1, 1, 1, 2, 3), (5, 2, 3, 4, 6), (2, 3, 3, 4, 1)],
        decisions=[((1, 1, 1), True), ((5,), True)],
    )
    script.run()
    assert script.game.scores == (1050,)
    assert [b.points for b in script.of(ev.Banked)] == [1000, 50]
