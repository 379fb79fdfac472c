"""Shared output helpers: JSON to stdout, and one-line errors with a non-zero exit."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import click

#: Exit status for bad input from the user (unknown ruleset, bad option value, bad file).
EXIT_USAGE = 2


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def fail(message: str, status: int = EXIT_USAGE) -> NoReturn:
    """Print ``arena: error: message`` on stderr and exit with ``status``; no traceback."""
    click.echo(f"arena: error: {message}", err=True)
    raise SystemExit(status)
