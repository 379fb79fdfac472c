"""``league games --json``: the stored games as JSON objects whose values have their types.

games.csv is text; its JSON form is for programs, so each value has the type of its column
(:data:`arena.analysis.games_csv.GAME_COLUMNS`): whole numbers (``game``, ``deal``, ``seed``,
``seat``, ``score``, ``rank``, ``turns``, ``farkles``) are JSON integers, the win share ``win``
a number, names and statuses strings, and an empty ``reason`` (a seat that did not fault) or
``end`` (a game stored before arena recorded how games end) is null.  ``seed`` is a 64-bit
integer: Python's ``json`` and jq 1.7 keep it exact, JavaScript's ``JSON.parse`` rounds it past
2**53 (read it as text there)."""

from __future__ import annotations

import csv
import io
from typing import Any

from arena.analysis.games_csv import GAME_COLUMNS

#: Text columns whose empty value means "none": null in JSON.
NULL_WHEN_EMPTY = frozenset({"reason", "end"})


def typed_value(column: str, text: str) -> Any:
    """One games.csv field as the JSON value of its column's type."""
    kind = GAME_COLUMNS.get(column, "string")
    if kind in ("int64", "uint64"):
        return int(text)
    if kind == "float64":
        return float(text)
    if text == "" and column in NULL_WHEN_EMPTY:
        return None
    return text


def game_objects(games_csv_text: str) -> list[dict[str, Any]]:
    """Every row of games.csv text as an object, each value typed (:func:`typed_value`)."""
    return [
        {column: typed_value(column, text) for column, text in row.items()}
        for row in csv.DictReader(io.StringIO(games_csv_text))
    ]
