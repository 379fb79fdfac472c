"""The name rule: what a player may call itself.

A name is stored in every row of games.csv, in every table and in every line arena prints
about the player, and a contest's entries choose their own names.  So a name is refused unless
it is printable text of bounded length:

- runs of spaces (any Unicode space separator) are folded into one space, and the ends trimmed;
- then it must be 1 to :data:`NAME_LIMIT` characters long;
- with no hidden character (:data:`arena.players.text.HIDDEN_CATEGORIES`: controls, line
  breaks, tabs, bidi overrides and other format characters, surrogates, private-use and
  unassigned code points);
- and not start with ``=``, ``+``, ``-`` or ``@``, which a spreadsheet that opens games.csv
  would read as a formula.

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

from arena.players.text import FORMULA_STARTS, cut, escape, is_hidden, visible

#: The most characters a name may have (after folding its spaces).
NAME_LIMIT = 64
#: The rule in a few words, for the messages that refuse a name.
NAME_RULE = (
    f"a name is 1 to {NAME_LIMIT} characters of printable text, with no control or format "
    "characters and not starting with = + - @"
)
_SPACES = re.compile(r"[^\S\n\r\t\f\v\x1c-\x1f\x85\u2028\u2029]+")


def fold_spaces(text: str) -> str:
    """``text`` with each run of space separators (not line breaks or tabs, which the rule
    refuses) made one space, and its ends trimmed."""
    return _SPACES.sub(" ", text).strip(" ")


@functools.lru_cache(maxsize=256)
def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` under the rule (one line, the name itself not quoted in it),
    or None if it is a good name once its spaces are folded (:func:`fold_spaces`).  Cached: a
    strategy's name is checked every game."""
    folded = fold_spaces(name)
    if not folded:
        return "it is empty"
    if len(folded) > NAME_LIMIT:
        return f"it is {len(folded):,} characters long, more than {NAME_LIMIT}"
    bad = next((c for c in folded if is_hidden(c)), None)
    if bad is not None:
        return f"it holds the character {escape(bad)}, which is not printable text"
    if folded[0] in FORMULA_STARTS:
        return f"it starts with {folded[0]!r}, which a spreadsheet reads as a formula"
    return None


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
