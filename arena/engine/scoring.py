"""Scoring: what a kept selection of dice is worth, and what a roll allows.

The rules (001 and 000 "Was zählt", 002 "Wertungstabelle" and "Verbreitete Varianten"):

- a single 1 is 100, a single 5 is 50; no other single die scores;
- three of a kind is the face x 100, three 1s are 1000; each further equal die doubles
  (002: four 1s 2000, five 1s 4000) or, as a variant, counts a fixed value or a fixed bonus;
- optional whole-roll patterns: a straight (all dice of a roll in a run), three pairs (six dice,
  three different faces; a four of a kind is not two pairs), two triplets (000: a bonus on top of
  both triplets, different faces);
- combinations add up within one roll only; a selection is legal only if every die in it scores
  (002: keeping "3 and 5" is illegal, only the 5 may be kept);
- a selection that can be read two ways scores its best reading;
- a roll in which nothing scores is a farkle ("Niete").

Every multiset of 1 to 6 dice is scored once per ruleset; :class:`ScoreTable` holds the results
so that the game loop only looks things up.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from arena.engine.dice import (
    FACE_KEY,
    FACES,
    MAX_DICE,
    OUTCOME_KEYS,
    POW6,
    all_multisets,
    counts_of,
    faces_of,
    key_of,
)
from arena.engine.rules import Ruleset

SINGLE_POINTS: dict[int, int] = {1: 100, 5: 50}


def triple_value(face: int) -> int:
    """Three of a kind: face x 100, and three 1s are 1000 (all three documents)."""
    return 1000 if face == 1 else face * 100


def kind_value(face: int, count: int, rules: Ruleset) -> int:
    """Points of ``count`` (3 to 6) dice of one face under the ruleset's kind scoring."""
    base = triple_value(face)
    if count == 3 or rules.kind_scoring == "doubling":
        return base << (count - 3)
    if rules.kind_scoring == "fixed_values":
        return (rules.four_of_a_kind, rules.five_of_a_kind, rules.six_of_a_kind)[count - 4]
    return base + (count - 3) * rules.kind_bonus


Reading = tuple[tuple[str, int], ...]
"""A way to read a selection: its parts, each a label and its points."""

_COUNT_WORDS = {1: "a", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _face_reading(face: int, count: int, rules: Ruleset) -> Reading | None:
    """Best reading of ``count`` dice of one face, all of which must score; None if they can't."""
    if count == 0:
        return ()
    single = SINGLE_POINTS.get(face)
    best: Reading | None = None
    if single is not None:
        best = ((f"{_COUNT_WORDS[count]} {face}" + ("s" if count > 1 else ""), count * single),)
    for group in range(3, count + 1):
        rest = count - group
        rest_parts: Reading = ()
        if rest:
            if single is None:
                continue  # a 2, 3, 4 or 6 scores only inside its group of equal dice
            rest_parts = ((f"{_COUNT_WORDS[rest]} {face}" + ("s" if rest > 1 else ""), rest * single),)
        parts: Reading = ((f"{_COUNT_WORDS[group]} {face}s", kind_value(face, group, rules)), *rest_parts)
        if best is None or _total(parts) > _total(best):
            best = parts
    return best


def _pattern_reading(counts: tuple[int, ...], rules: Ruleset) -> Reading | None:
    """Best whole-selection pattern (straight, three pairs, two triplets), or None."""
    n = sum(counts)
    options: list[Reading] = []
    if rules.straights and n == rules.dice and max(counts) == 1:
        # A straight is all dice of a full roll in a run (002: "Alle Würfel eines Wurfs").
        if n == 6:
            options.append((("straight 1-6", rules.straight_1_to_6),))
        elif counts[5] == 0:
            options.append((("straight 1-5", rules.straight_1_to_5),))
        elif counts[0] == 0:
            options.append((("straight 2-6", rules.straight_2_to_6),))
    if rules.three_pairs and n == 6 and sorted(counts) == [0, 0, 0, 2, 2, 2]:
        options.append((("three pairs", rules.three_pairs_value),))
    if rules.two_triplets_bonus and n == 6 and sorted(counts) == [0, 0, 0, 0, 3, 3]:
        parts: Reading = (("two triplets bonus", rules.two_triplets_bonus),)
        parts += tuple((f"three {f}s", triple_value(f)) for f, c in zip(FACES, counts, strict=True) if c == 3)
        options.append(parts)
    return max(options, key=_total) if options else None


def _total(reading: Reading) -> int:
    return sum(points for _, points in reading)


def best_reading(counts: tuple[int, ...], rules: Ruleset) -> Reading | None:
    """The best way to score keeping exactly these dice (counts per face), or None.

    Every die must take part in the reading; of all readings the one with most points counts.
    """
    if sum(counts) == 0:
        return None
    by_face: Reading | None
    parts: Reading = ()
    for face, count in zip(FACES, counts, strict=True):
        part = _face_reading(face, count, rules)
        if part is None:
            by_face = None
            break
        parts += part
    else:
        by_face = parts
    pattern = _pattern_reading(counts, rules)
    if pattern is not None and (by_face is None or _total(pattern) > _total(by_face)):
        return pattern
    return by_face


def best_score(counts: tuple[int, ...], rules: Ruleset) -> int | None:
    """Points of keeping exactly these dice (counts per face), or None if some die scores nothing."""
    reading = best_reading(counts, rules)
    return None if reading is None else _total(reading)


class Keep(NamedTuple):
    """One legal selection from a roll: which dice, their points, and the dice rolled next.

    ``hot`` is True when every die of the roll scored ("Anschluss", "alle sechs verwertet"):
    the player gets all dice back, so ``dice_left`` is the full number of dice.  A tuple, so the
    records the engine shares between games can't be changed through a view.
    """

    dice: tuple[int, ...]
    points: int
    dice_left: int
    hot: bool
    key: int


#: id of a :class:`Keeps` of a live score table -> its keeps in greedy order (see
#: :attr:`Keeps.most_dice`).  Kept here, not on the tuple, so that nothing a view hands out can be
#: changed.  A table lists its Keeps while it lives (and so do they: no other object can have
#: their ids) and takes them off when it goes.
_MOST_DICE: dict[int, tuple[Keep, ...]] = {}


def _by_most_dice(keeps: Iterable[Keep]) -> tuple[Keep, ...]:
    return tuple(sorted(keeps, key=lambda k: (-len(k.dice), -k.points)))


class Keeps(tuple[Keep, ...]):
    """The legal keeps of one roll, best points first (then most dice left): a plain, immutable
    tuple of :class:`Keep` records, shared by every game of a ruleset, that also answers what
    strategies keep asking about it, worked out once per ruleset:

    - ``most_dice``: the same keeps, most dice first, then most points (greedy's order; keeps
      equal in both keep the order above).
    """

    __slots__ = ()

    @property
    def most_dice(self) -> tuple[Keep, ...]:
        order = _MOST_DICE.get(id(self))
        return _by_most_dice(self) if order is None else order  # None: a copy, worked out again


def _keeps(keeps: list[Keep]) -> Keeps:
    """``keeps`` as a :class:`Keeps`, best points first."""
    keeps.sort(key=lambda k: (-k.points, -k.dice_left, k.dice))
    return Keeps(keeps)


class ScoreTable:
    """Everything the game loop asks about scoring, precomputed for one ruleset.

    Built once per ruleset and process (see :func:`score_table`); immutable after that.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.points: dict[int, int] = {}
        for n in range(1, rules.dice + 1):
            for key in all_multisets(n):
                points = best_score(counts_of(key), rules)
                if points is not None:
                    self.points[key] = points
        #: roll key -> legal keeps, best points first; an empty tuple is a farkle.
        self.keeps: dict[int, Keeps] = {}
        #: roll key -> keep key -> Keep, for validating a decision with one lookup.
        self.keep_by_key: dict[int, dict[int, Keep]] = {}
        #: roll key -> id of a keep's ``dice`` tuple -> Keep: a decision that returns the dice of
        #: a legal keep as they are (the usual way) is known without computing its key.
        self.keep_ids: dict[int, dict[int, Keep]] = {}
        #: roll key -> the dice in ascending order.
        self.faces: dict[int, tuple[int, ...]] = {}
        for n in range(1, rules.dice + 1):
            for roll in all_multisets(n):
                keeps = self._legal_keeps(roll, n)
                self.keeps[roll] = keeps
                self.keep_by_key[roll] = {k.key: k for k in keeps}
                self.keep_ids[roll] = {id(k.dice): k for k in keeps}
                self.faces[roll] = faces_of(roll)
        for keeps in self.keeps.values():
            _MOST_DICE[id(keeps)] = _by_most_dice(keeps)
        self.farkle_rolls: tuple[int, ...] = tuple(
            sum(1 for key in OUTCOME_KEYS[n] if not self.keeps[key]) if n else 0
            for n in range(rules.dice + 1)
        )

    def _legal_keeps(self, roll: int, n: int) -> Keeps:
        # Every sub-multiset as (key, dice), built face by face by adding to the key: six dice have
        # about 18,000 of them, and rebuilding each key from its counts was most of a table's cost.
        subs = [(0, 0)]
        for face, count in zip(FACES, counts_of(roll), strict=True):
            if count:
                one = FACE_KEY[face]
                subs = [(key + j * one, size + j) for key, size in subs for j in range(count + 1)]
        keeps = []
        for key, size in subs:
            points = self.points.get(key)
            if points is None:
                continue
            hot = size == n
            left = self.rules.dice if hot else n - size
            keeps.append(Keep(faces_of(key), points, left, hot, key))
        return _keeps(keeps)

    def __del__(self, listed: dict[int, tuple[Keep, ...]] = _MOST_DICE) -> None:
        # The registry comes as a default: at interpreter exit the module's globals may be gone.
        for keeps in getattr(self, "keeps", {}).values():
            listed.pop(id(keeps), None)

    def farkle_probability(self, n_dice: int) -> Fraction:
        """Exact chance that a roll of ``n_dice`` dice scores nothing, by enumeration."""
        if not 1 <= n_dice <= self.rules.dice:
            raise ValueError(f"n_dice must be 1 to {self.rules.dice}, got {n_dice}")
        return Fraction(self.farkle_rolls[n_dice], POW6[n_dice])


@lru_cache(maxsize=64)
def score_table(rules: Ruleset) -> ScoreTable:
    """The precomputed :class:`ScoreTable` of a ruleset, built once per process."""
    return ScoreTable(rules)


def _selection_key(dice: Iterable[int], rules: Ruleset) -> int:
    dice = tuple(dice)
    for die in dice:
        if type(die) is not int or not 1 <= die <= 6:
            raise ValueError(f"{die!r} is not a die face (1 to 6)")
    if len(dice) > rules.dice:
        raise ValueError(f"{len(dice)} dice, but the ruleset {rules.name!r} has {rules.dice}")
    return key_of(dice)


def score(dice: Iterable[int], rules: Ruleset) -> int | None:
    """Points of keeping exactly these dice from one roll; None where some die does not score."""
    key = _selection_key(dice, rules)
    return score_table(rules).points.get(key) if key else None


def legal_keeps(roll: Iterable[int], rules: Ruleset) -> Keeps:
    """Every legal selection from a roll, best points first; empty for a farkle."""
    key = _selection_key(roll, rules)
    if not key:
        raise ValueError("a roll has at least one die")
    return score_table(rules).keeps[key]


def farkle_probability(n_dice: int, rules: Ruleset) -> float:
    """Exact chance that a roll of ``n_dice`` dice scores nothing (002's table), by enumeration."""
    return float(score_table(rules).farkle_probability(n_dice))


def explain(dice: Iterable[int], rules: Ruleset) -> Reading | None:
    """How a selection scores: the parts of its best reading, or None if it does not score."""
    key = _selection_key(dice, rules)
    return best_reading(counts_of(key), rules) if key else None


def non_scoring_dice(dice: Iterable[int], rules: Ruleset) -> tuple[int, ...]:
    """Faces in a selection that score in no reading (for explaining an illegal keep)."""
    counts = counts_of(_selection_key(dice, rules))
    if _pattern_reading(counts, rules) is not None:
        return ()
    return tuple(
        face for face, c in zip(FACES, counts, strict=True) if c and _face_reading(face, c, rules) is None
    )


def why_not_legal(keep: tuple[object, ...], roll: tuple[int, ...], rules: Ruleset) -> str:
    """Why keeping ``keep`` from ``roll`` is not allowed, in one line (for illegal decisions)."""
    if len(keep) > len(roll):
        return f"keep {keep}: {len(keep)} dice, but only {len(roll)} were rolled"
    if not keep:
        return f"keep at least one scoring die; an empty keep is not allowed (roll {roll})"
    for die in keep:
        if isinstance(die, (tuple, list)):  # Action(keep, ...): a Keep's first field is its dice
            return (
                f"{die!r} is not a die face (1 to 6): pass the faces to keep, as in "
                "Action(keep.dice, bank) for a keep of view.legal_keeps, not the Keep itself"
            )
        if type(die) is not int or die not in FACES:
            return f"{die!r} is not a die face (1 to 6)"
    kept = counts_of(key_of(keep))  # type: ignore[arg-type]
    have = counts_of(key_of(roll))
    for face in FACES:
        wanted, there = kept[face - 1], have[face - 1]
        if wanted > there:
            has = f"no {face}" if there == 0 else f"only {there} × {face}"
            return f"keep {keep}: the roll {roll} has {has}"
    dead = non_scoring_dice(keep, rules)  # type: ignore[arg-type]
    if not dead:
        return f"keep {keep} from {roll} is not a legal keep"
    names = ", ".join(str(d) for d in dead)
    return f"keep {keep} from {roll}: {names} scores nothing here; every kept die must score"


__all__ = [
    "MAX_DICE",
    "Keep",
    "Keeps",
    "ScoreTable",
    "best_reading",
    "best_score",
    "explain",
    "farkle_probability",
    "kind_value",
    "legal_keeps",
    "non_scoring_dice",
    "score",
    "score_table",
    "triple_value",
    "why_not_legal",
]
