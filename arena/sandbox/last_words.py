"""A seat's last words: what a program wrote to stderr before it died, kept to explain its fault.

A ``cmd:`` bot that crashes says why on stderr, and the line that says it is seldom the last:
node ends its report with ``Node.js v20.20.2``, after the ``TypeError`` and the ``at bot.js:12``
frame that matter.  So a seat process keeps the last :data:`STDERR_TAIL` bytes of its stderr, a
fault of a seat that ended stores the last :data:`TAIL_LINES` of them as its traceback, and its
one-line reason quotes the line that names the error (:func:`telling_line`), not merely the
last one.  Both are the entry's text, so every hidden character is made visible
(:func:`arena.players.text.visible`) before arena stores or shows them.
"""

from __future__ import annotations

import re

from arena.players.text import visible

#: The last this many bytes of a seat's stderr are kept (a whole crash report, bounded).
STDERR_TAIL = 8192
#: A fault's traceback from stderr is at most this many of its last lines.
TAIL_LINES = 40

#: A line that names an error: ``TypeError: ...``, ``panic: ...``, ``Segmentation fault``,
#: ``Exception in thread "main" java.lang...``, ``error: ...``.
_ERROR_LINE = re.compile(
    r"\b(?:[A-Z]\w*(?:Error|Exception)|error|fatal|panic|fault|Traceback|abort(?:ed)?)\b", re.IGNORECASE
)
#: A line that names an error type and says something after it (``TypeError: x is not ...``).
_NAMED_ERROR = re.compile(r"\b[A-Za-z_][\w.]*(?:Error|Exception)\b:\s*\S")


def _lines(tail: bytes) -> list[str]:
    """The tail's lines with something to read (a letter or a digit), hidden characters visible;
    the first line is dropped if the tail starts in the middle of it."""
    text = tail.decode(errors="replace")
    lines = text.splitlines()
    if len(tail) >= STDERR_TAIL and lines:
        lines = lines[1:]  # cut off at its start: not a line the program wrote
    return [visible(line.rstrip(), keep="\t") for line in lines if any(c.isalnum() for c in line)]


def last_words(tail: bytes) -> str:
    """The last :data:`TAIL_LINES` lines of a seat's stderr tail that say something, one text
    ("" if it wrote nothing)."""
    return "\n".join(_lines(tail)[-TAIL_LINES:])


def telling_line(tail: bytes) -> str:
    """The line of a seat's stderr tail that best says why it died: the last that names an error
    with a message (``TypeError: x is not a function``), else the last that mentions an error,
    else the last line that says anything ("" if none does)."""
    lines = _lines(tail)[-TAIL_LINES:]
    for pattern in (_NAMED_ERROR, _ERROR_LINE):
        found = [line for line in lines if pattern.search(line)]
        if found:
            return found[-1].strip()
    return lines[-1].strip() if lines else ""
