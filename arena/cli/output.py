"""Shared output helpers: JSON to stdout, and one-line errors with a non-zero exit."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO

import click

from arena.players.text import for_terminal, json_visible

#: Exit status for bad input from the user (unknown ruleset, bad option value, bad file).
EXIT_USAGE = 2
#: An error message is cut to this many characters.
ERROR_WIDTH = 2_000
#: A line :func:`say` prints is cut to this many characters (wide enough for a pairwise table
#: of a hundred players; entry text in it is bounded where it is made).
SAY_WIDTH = 5_000


def echo_json(data: Any) -> None:
    click.echo(json_text(data))


def say(text: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Print text that may hold an entry's words (a name, a reason, a traceback, a table of
    names): through :func:`arena.players.text.for_terminal`, so no control character reaches
    the terminal and no line is longer than it allows.  Every line arena prints about players
    goes through here."""
    click.echo(for_terminal(text, max_lines=None, width=SAY_WIDTH), err=err, nl=nl)


def fail(message: str, status: int = EXIT_USAGE) -> NoReturn:
    """Print ``arena: error: message`` on stderr and exit with ``status``; no traceback.  The
    message is one line, made safe for a terminal (it may quote an entry's text)."""
    click.echo(f"arena: error: {for_terminal(message, width=ERROR_WIDTH)}", err=True)
    raise SystemExit(status)


def json_text(data: Any) -> str:
    """``data`` as arena prints JSON: indented, UTF-8 kept as is but for hidden characters
    (controls, bidi overrides: :func:`arena.players.text.json_visible`), which are escaped."""
    return json_visible(json.dumps(data, indent=2, ensure_ascii=False))


@contextmanager
def stdout_for_json() -> Iterator[TextIO]:
    """Keep stdout for JSON alone: yields a stream to the real stdout, and until the block ends
    anything else written there (a strategy's ``print``, in this process or in worker processes
    forked meanwhile) goes to stderr, so ``arena ... --json | jq`` always reads valid JSON."""
    out, err = sys.stdout, sys.stderr
    with contextlib.suppress(Exception):
        out.flush()
    try:
        fd, err_fd = out.fileno(), err.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (click's test runner): swap the objects
        sys.stdout = err
        try:
            yield out
        finally:
            sys.stdout = out
        return
    saved = os.dup(fd)
    os.dup2(err_fd, fd)  # fd 1 now writes to stderr, and so will every child forked from here
    stream = os.fdopen(saved, "w", encoding="utf-8", buffering=1, closefd=False)
    try:
        yield stream
    finally:
        with contextlib.suppress(Exception):
            stream.flush()
            out.flush()  # what others wrote meanwhile belongs to stderr
        os.dup2(saved, fd)
        os.close(saved)
