"""The three rulesets of the rule documents, by name.

Each preset is plain data: a :class:`~arena.engine.rules.Ruleset` with the values its document
states.  Variants are made from them with ``Ruleset.replace`` or a TOML file that extends one.
"""

from __future__ import annotations

from arena.engine.rules import Ruleset

STANDARD = Ruleset(
    name="standard",
    description="001 'Standard': 6 dice, exactly 10000, entry 500, straight 1500, three pairs 750",
    dice=6,
    target=10_000,
    exact_target=True,  # 001: "Gewonnen hat, wer genau 10000 Punkte erreicht."
    entry_threshold=500,  # 001: "Reinkommen ... mindestens 500 Punkte"
    straights=True,
    straight_1_to_6=1500,
    three_pairs=True,
    three_pairs_value=750,
    final_round="everyone_else",  # 001: "jeder andere Spieler noch genau einen Zug"
)

SHORT = Ruleset(
    name="short",
    description="000 'Kurze Partie (5000)': 6 dice, 5000, rising bar with strikes, "
    "straight 3000, three pairs 2000, two triplets",
    dice=6,
    target=5_000,
    exact_target=False,  # 000: "5000 Punkte oder mehr"
    entry_threshold=0,  # the bar takes the entry's place
    straights=True,
    straight_1_to_6=3000,
    three_pairs=True,
    three_pairs_value=2000,
    two_triplets_bonus=1500,  # 000: "Zuschlag von 1500 Punkten, dazu beide Drillinge"
    rising_bar=True,
    bar_start=350,
    bar_step=50,
    strikes_to_zero=3,
    final_round="rest_of_round",  # 000: only those still to play in the same round
)

CLASSIC = Ruleset(
    name="classic",
    description="002 Grundform: 5 dice, 10000 (need not be exact), entry 350, no straights",
    dice=5,
    target=10_000,
    exact_target=False,  # 002: "10.350 zählen genauso wie 10.000"
    entry_threshold=350,  # 002: "Verbreitet ist ein Einstieg von 350 Punkten."
    must_roll_after_hot_dice=False,  # 002: "nach einem Anschluss auch sofort sichern"
    three_pairs_value=1500,  # 002 variant (off here): "drei verschiedene Paare ... zählen 1.500"
    final_round="rest_of_round",  # 002: "Alle, die in dieser Runde noch nicht dran waren"
    ties="share",  # 002: "Bei Gleichstand teilen sich die Spieler den Sieg"
)

PRESETS: dict[str, Ruleset] = {r.name: r for r in (STANDARD, SHORT, CLASSIC)}


#: The three rule documents, by the number each ruleset's description starts with.
RULE_DOCUMENTS: dict[str, str] = {
    "000": "Kurze Partie (5000)",
    "001": "Standard",
    "002": "the general guide",
}


def rule_document(rules: Ruleset) -> str | None:
    """The rule document a ruleset comes from, as "001 Standard": the number its description
    starts with (every preset's and variant's does); None for one that names none."""
    number = rules.description.split(" ", 1)[0]
    title = RULE_DOCUMENTS.get(number)
    return None if title is None else f"{number} {title}"
