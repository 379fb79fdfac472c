"""The name rule: what a player may call itself, and when two names are too alike.

A name is stored in every row of games.csv, in every table and in every line arena prints
about the player, and a contest's entries choose their own names.  A person reads those tables,
so a name must be text a person can read, and tell apart from the others:

- it is normalised first (:func:`normal_name`): Unicode's NFKC form (full-width
  ``ｏｐｔｉｍａｌ`` is ``optimal``, a ligature its letters), runs of spaces (any Unicode space
  separator) folded into one space, and the ends trimmed;
- then it must be 1 to :data:`NAME_LIMIT` characters long;
- with no hidden character (:data:`arena.players.text.HIDDEN_CATEGORIES`: controls, line
  breaks, tabs, bidi controls and other format characters, surrogates, private-use and
  unassigned code points);
- with no invisible one either: Unicode's default-ignorable code points (variation selectors,
  the combining grapheme joiner, Hangul fillers, tag characters ...; :data:`INVISIBLE`) and
  the blank Braille pattern;
- with no combining mark standing alone (first, or after a space) and no more than
  :data:`MARKS_LIMIT` marks stacked on one letter;
- and not starting with ``=``, ``+``, ``-`` or ``@``, which a spreadsheet that opens games.csv
  would read as a formula.

Names in any script are welcome (``Jürgen``, ``小明``).  Two names *look alike* when they have
the same skeleton of Unicode's TR39 (Unicode Security Mechanisms, section 4: NFD, each
character mapped to its prototype in ``confusables.txt``, NFD again; :func:`skeleton`):
``optimal`` with a Cyrillic ``о``, or ``bot1`` and ``botl``.  A league refuses a name that
looks like another active entrant's; a tournament numbers look-alike names as it numbers equal
ones (``optimal``, ``оptimal#2``).

64 characters hold every built-in and example name (the longest, a threshold's name with its
parameters, ``threshold:bank_at=300,min_dice=3``, is 32; one with huge numbers stays under 64)
and keep a ranking table readable; a 900,000-character name would put 0.9 MB in games.csv per
game.  The rule is checked wherever a name is read: when a spec is loaded (a Python strategy's
``name``, a ``cmd:`` bot's hello), and again each game for a Python strategy, whose instances
and class may change it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from importlib import resources

from arena.players.text import FORMULA_STARTS, cut, escape, is_hidden, visible

#: The most characters a name may have (after folding its spaces).
NAME_LIMIT = 64
#: The rule in a few words, for the messages that refuse a name.
NAME_RULE = (
    f"a name is 1 to {NAME_LIMIT} characters of printable text, with no control, format or "
    "invisible characters and not starting with = + - @"
)
#: The most combining marks on one letter (a Tibetan stack has three; more is clutter).
MARKS_LIMIT = 4
#: Invisible characters that are not format characters: Unicode's Default_Ignorable_Code_Point
#: (DerivedCoreProperties.txt; the Cf among them are hidden anyway) and the blank Braille cell.
INVISIBLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
_MARKS = frozenset({"Mn", "Me"})
_SPACES = re.compile(r"[^\S\n\r\t\f\v\x1c-\x1f\x85\u2028\u2029]+")


def fold_spaces(text: str) -> str:
    """``text`` with each run of space separators (not line breaks or tabs, which the rule
    refuses) made one space, and its ends trimmed."""
    return _SPACES.sub(" ", text).strip(" ")


@functools.lru_cache(maxsize=1024)
def normal_name(name: str) -> str:
    """``name`` as arena stores and compares it: NFKC, its spaces folded (:func:`fold_spaces`).
    Cached: a strategy's name is read every game."""
    return fold_spaces(unicodedata.normalize("NFKC", name))


def is_invisible(char: str) -> bool:
    """True if ``char`` shows nothing: hidden (:func:`arena.players.text.is_hidden`) or one of
    :data:`INVISIBLE`."""
    code = ord(char)
    return is_hidden(char) or any(low <= code <= high for low, high in INVISIBLE)


def _marks_problem(name: str) -> str | None:
    """What is wrong with the combining marks of ``name``: one with no letter under it, or a
    stack of more than :data:`MARKS_LIMIT`."""
    run = 0
    for index, char in enumerate(name):
        if unicodedata.category(char) not in _MARKS:
            run = 0
            continue
        if run == 0 and (index == 0 or name[index - 1] == " "):
            return f"its combining mark {escape(char)} stands on no letter"
        run += 1
        if run > MARKS_LIMIT:
            return f"it stacks more than {MARKS_LIMIT} combining marks on one letter"
    return None


@functools.lru_cache(maxsize=256)
def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` under the rule (one line, the name itself not quoted in it),
    or None if it is a good name once normalised (:func:`normal_name`).  Cached: a strategy's
    name is checked every game."""
    folded = normal_name(name)
    if not folded:
        return "it is empty"
    if len(folded) > NAME_LIMIT:
        return f"it is {len(folded):,} characters long, more than {NAME_LIMIT}"
    bad = next((c for c in folded if is_hidden(c)), None)
    if bad is not None:
        return f"it holds the character {escape(bad)}, which is not printable text"
    bad = next((c for c in folded if is_invisible(c)), None)
    if bad is not None:
        return f"it holds the invisible character {escape(bad)}"
    marks = _marks_problem(folded)
    if marks is not None:
        return marks
    if folded[0] in FORMULA_STARTS:
        return f"it starts with {folded[0]!r}, which a spreadsheet reads as a formula"
    return None


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from the shipped ``confusables.txt``."""
    table: dict[str, str] = {}
    text = resources.files("arena.players").joinpath("confusables.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            source, prototype = line.split(";")
            table[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in prototype.split())
    return table


@functools.lru_cache(maxsize=1024)
def skeleton(name: str) -> str:
    """The TR39 skeleton of ``name`` (UTS #39, section 4): NFD, default-ignorable characters
    dropped, each character replaced by its prototype, NFD again.  Two names with the same
    skeleton look alike; a name's own skeleton is not meant to be shown."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", name)
    mapped = "".join(table.get(c, c) for c in decomposed if not is_invisible(c))
    return unicodedata.normalize("NFD", mapped)


def look_alike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that is not ``name`` itself but looks like it (the same
    :func:`skeleton`), or None."""
    mine = skeleton(name)
    return next((other for other in others if other != name and skeleton(other) == mine), None)


def unlike(name: str, other: str) -> str:
    """Where ``name`` differs from the look-alike ``other``, for a message: the first
    character of ``name`` that ``other`` lacks, with its Unicode name, e.g. ``'о' (U+043E
    CYRILLIC SMALL LETTER O)``; or, if they hold the same characters, nothing."""
    char = next((c for c in name if c not in other), None)
    if char is None:
        return ""
    return f" (it has {char!r}, U+{ord(char):04X} {unicodedata.name(char, 'a character with no name')})"


def shown_name(name: str, limit: int = 40) -> str:
    """A refused name as it may be quoted in a message: visible, and cut to ``limit``."""
    return cut(visible(name[: 4 * limit]), limit)


def name_refusal(name: object) -> str | None:
    """Why ``name`` can't be a player's name, as one line that quotes it (cut and made
    visible) and states the rule; None if it can."""
    if type(name) is not str:
        return f"its name must be text, not {type(name).__name__}; {NAME_RULE}"
    problem = name_problem(name)
    if problem is None:
        return None
    return f"its name '{shown_name(name)}' is refused: {problem}; {NAME_RULE}"


def player_label(name: str, param_text: str | None) -> str:
    """The label results show for a player: its name, with the spec's parameters after a colon
    unless the name already shows them (it holds an ``=``)."""
    return name if not param_text or "=" in name else f"{name}:{param_text}"
