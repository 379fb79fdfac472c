"""Text that came from an entry, made safe to store and to show.

An entry (a strategy, a ``cmd:`` program) chooses the text of its exceptions, its error replies
and its tracebacks, and arena stores that text (games.csv, errors.csv, errors.log, games.idx)
and prints it.  Three rules make that harmless, one function each:

- :func:`visible`: every character that is not printable text (control characters such as
  ESC, line breaks, bidi overrides and other format characters, surrogates, private-use and
  unassigned code points) is written as a visible escape (``\\x1b``, ``\\u202e``), so no
  stored or printed text can move a terminal's cursor, recolour it, clear it or reorder a line.
- :func:`csv_text`: a text that a spreadsheet would read as a formula (it starts with ``=``,
  ``+``, ``-`` or ``@``; OWASP "CSV injection") gets a leading apostrophe.
- :func:`for_terminal`: the one way arena prints text that can hold an entry's words: visible,
  each line cut to a width and the lines cut to a count, saying how many were left out.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories that are not printable text: controls, format characters (bidi
#: overrides, zero-width joiners), line and paragraph separators, surrogates, private use and
#: unassigned code points.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
#: First characters a spreadsheet reads as the start of a formula (tab and CR are control
#: characters, which :func:`visible` escapes before this is asked).
FORMULA_STARTS = frozenset("=+-@")
#: A line printed by :func:`for_terminal` is cut to this many characters by default.
TERMINAL_WIDTH = 1_000


def is_hidden(char: str) -> bool:
    """True if ``char`` is not printable text (see :data:`HIDDEN_CATEGORIES`)."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def escape(char: str) -> str:
    """``char`` as a visible escape: ``\\x1b``, ``\\u202e`` or ``\\U000f0000``."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, keep: str = "") -> str:
    """``text`` with every hidden character (:func:`is_hidden`) but those in ``keep`` (say
    ``"\\n"`` for a traceback) written as its escape.  Plain printable text is returned as it is,
    at the cost of one ``str.isprintable`` call."""
    if text.isprintable():
        return text
    return "".join(escape(c) if c not in keep and is_hidden(c) else c for c in text)


def json_visible(json_text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every hidden character written
    as a JSON ``\\u`` escape (a surrogate pair above U+FFFF): the same data for a program, and
    nothing a terminal acts on (``json.dumps`` escapes only U+0000 to U+001F)."""
    return "\n".join(
        line if line.isprintable() else "".join(_json_escape(c) if is_hidden(c) else c for c in line)
        for line in json_text.split("\n")
    )


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def csv_text(text: str) -> str:
    """``text`` with an apostrophe in front if it starts with a formula character, so a
    spreadsheet that opens the CSV shows it as text instead of running it."""
    return "'" + text if text[:1] in FORMULA_STARTS else text


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def for_terminal(text: str, *, max_lines: int | None = 1, width: int = TERMINAL_WIDTH) -> str:
    """``text`` made safe to print: hidden characters escaped, each line cut to ``width``
    characters.  With ``max_lines`` 1 a line break is escaped too (one line, always); with a
    larger count the text keeps its lines but at most ``max_lines`` of them, the last saying how
    many were left out; None keeps every line (arena's own tables, whose lines it counts)."""
    if max_lines == 1:
        return cut(visible(text[: 4 * width]), width)
    lines = text.split("\n")
    shown = lines if max_lines is None or len(lines) <= max_lines else lines[: max_lines - 1]
    out = [cut(visible(line[: 4 * width]), width) for line in shown]
    left_out = len(lines) - len(shown) - (lines[-1] == "")  # a final line break ends no line
    if len(shown) < len(lines) and left_out:
        out.append(f"… ({left_out:,} more lines left out)")
    return "\n".join(out)
