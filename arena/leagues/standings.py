"""A league's standings: one Plackett-Luce rating (as ``arena report``'s, on the Elo scale with
its 95% interval) over every stored game between active entries, every ruleset together.
A retired entrant's current version counts as active here: its games stay in the standings,
where it is marked retired (:mod:`arena.leagues.retirement`)."""

from __future__ import annotations

import math
import sqlite3
from typing import Any

import pandas as pd

from arena.analysis.ratings import Order, finishing_order, plackett_luce_elo
from arena.leagues.retirement import retired_names
from arena.tournaments.rows import HEADER, csv_field, win_text

_ACTIVE_GAMES = """
SELECT g.id, g.ruleset, g.deal, g.seed, s.seat, e.name, s.score, s.rank, s.win, s.turns,
       s.farkles, s.status, s.reason, s.entry, g.ending, s.seconds, s.decisions
FROM games g JOIN seats s ON s.game = g.id JOIN entries e ON e.id = s.entry
WHERE g.low IN (SELECT id FROM entries WHERE active = 1)
  AND g.high IN (SELECT id FROM entries WHERE active = 1)
ORDER BY g.id, s.seat
"""


_ALL_GAMES = """
SELECT g.id, s.entry, s.rank FROM games g JOIN seats s ON s.game = g.id ORDER BY g.id, s.seat
"""


def _games(connection: sqlite3.Connection) -> dict[int, list[sqlite3.Row]]:
    games: dict[int, list[sqlite3.Row]] = {}
    for row in connection.execute(_ACTIVE_GAMES):
        games.setdefault(row[0], []).append(row)
    return games


def games_csv(connection: sqlite3.Connection) -> str:
    """Every stored game between active entries, in games.csv's format; ``game`` is the
    league's game number.  ``end`` is empty for a game stored by an arena before schema 3."""
    lines = [HEADER]
    for rows in _games(connection).values():
        for r in rows:
            lines.append(
                f"{csv_field(r[1])},{r[0]},{r[2]},{r[3]},{r[4]},{csv_field(r[5])},{r[6]},{r[7]},"
                f"{win_text(r[8])},{r[9]},{r[10]},{r[11]},{csv_field(r[12])},{r[14]}\n"
            )
    return "".join(lines)


def version_ratings(connection: sqlite3.Connection) -> dict[int, tuple[float, float, float]]:
    """Every version's rating with its 95% interval, by entry id: one Plackett-Luce fit over
    every stored game, replaced versions' too, so that an entrant's versions are rated on one
    scale.  (The standings fit only the active entries' games, so their numbers differ: the
    entrant's page shows both, labelled, and :func:`standings_ratings` gives the standings'.)"""
    seated: dict[int, list[tuple[str, int]]] = {}
    for game, entry, rank in connection.execute(_ALL_GAMES):
        seated.setdefault(game, []).append((str(entry), rank))
    orders: dict[Order, int] = {}
    for seats in seated.values():
        order = finishing_order([s[0] for s in seats], [s[1] for s in seats])
        orders[order] = orders.get(order, 0) + 1
    ratings = plackett_luce_elo(orders) if orders else {}
    return {int(entry): value for entry, value in ratings.items()}


def standings_ratings(connection: sqlite3.Connection) -> dict[int, tuple[float, float, float]]:
    """The standings' rating with its 95% interval of each active version, by entry id: the
    numbers of the standings page, for the entrant's page (one number per version on both)."""
    table = standings(connection)[0]
    ids = {r["name"]: r["id"] for r in connection.execute("SELECT id, name FROM entries WHERE active = 1")}
    return {
        ids[r.name]: (float(r.rating), float(r.rating_low), float(r.rating_high))
        for r in table.itertuples()
        if r.name in ids
    }


def standings_object(table: pd.DataFrame, games: int) -> dict[str, Any]:
    """The standings as ``table --json`` prints them: ``games`` and ``entries``, best first,
    with no NaN (JSON has none: a missing rating is null)."""

    def plain(value: Any) -> Any:
        if isinstance(value, float) and math.isnan(value):
            return None
        return value.item() if hasattr(value, "item") else value

    return {
        "games": games,
        "entries": [{k: plain(v) for k, v in r.items()} for r in table.to_dict("records")],
    }


#: The standings' columns.  ``seconds_per_decision``: the entry's mean time per decision over
#: the timed games (as arena's process timed each decision, the trip to an isolated seat
#: included: ``arena duel``'s time/decision), NaN if none was timed; ``decisions`` counts them.
#: ``retired``: the entrant is retired (:mod:`arena.leagues.retirement`): it plays no new game,
#: and its games count as everyone's do.
TABLE_COLUMNS = [
    "name",
    "version",
    "rating",
    "rating_low",
    "rating_high",
    "games",
    "score",
    "faults",
    "seconds_per_decision",
    "decisions",
    "retired",
]


def standings(connection: sqlite3.Connection) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """(the table, best first; the crosstable of score shares, row against column; games).
    Each entrant's current version is in it, a retired one's too (marked ``retired``), and so
    are the games between them: a retired entrant's games keep counting for the others."""
    active = connection.execute(
        "SELECT id, name, version FROM entries WHERE active = 1 ORDER BY id"
    ).fetchall()
    names = [r["name"] for r in active]
    retired = retired_names(connection)
    orders: dict[Order, int] = {}
    played = dict.fromkeys(names, 0)
    score = dict.fromkeys(names, 0.0)
    faults = dict.fromkeys(names, 0)
    thinking = {name: [0.0, 0] for name in names}  # seconds deciding, decisions (timed seats)
    cross: dict[tuple[str, str], list[float]] = {}
    games = _games(connection)
    for rows in games.values():
        seated = [r[5] for r in rows]
        order = finishing_order(seated, [r[7] for r in rows])
        orders[order] = orders.get(order, 0) + 1
        for r in rows:
            played[r[5]] += 1
            score[r[5]] += r[8]
            faults[r[5]] += r[11] != "ok"
            if r[16] is not None:  # NULL: stored before seats were timed (schema 4)
                thinking[r[5]][0] += r[15]
                thinking[r[5]][1] += r[16]
            for other in seated:
                if other != r[5]:
                    cell = cross.setdefault((r[5], other), [0.0, 0])
                    cell[0] += r[8]
                    cell[1] += 1
    ratings = plackett_luce_elo(orders) if orders else {}
    nan = (math.nan, math.nan, math.nan)
    records: list[dict[str, Any]] = []
    for r in active:
        elo, low, high = ratings.get(r["name"], nan)
        n = played[r["name"]]
        seconds, decisions = thinking[r["name"]]
        records.append(
            {
                "name": r["name"],
                "version": r["version"],
                "rating": elo,
                "rating_low": low,
                "rating_high": high,
                "games": n,
                "score": score[r["name"]] / n if n else math.nan,
                "faults": faults[r["name"]],
                "seconds_per_decision": seconds / decisions if decisions else math.nan,
                "decisions": decisions,
                "retired": r["name"] in retired,
            }
        )
    table = pd.DataFrame(records, columns=TABLE_COLUMNS)
    if len(table):
        table = table.sort_values(
            ["rating", "name"], ascending=[False, True], na_position="last", kind="stable"
        )
        table = table.reset_index(drop=True)
    order_names = list(table["name"])
    crosstable = pd.DataFrame(
        [
            [(cross[a, b][0] / cross[a, b][1]) if (a, b) in cross else math.nan for b in order_names]
            for a in order_names
        ],
        index=pd.Index(order_names, name="name"),
        columns=order_names,
    )
    return table, crosstable, len(games)
