"""The leaderboard for a room: the league's header (name, rules, progress, last change) on the
standings page, and ``projector.html``, the standings in large type that reload themselves.

Made from the database alone, as every page (:mod:`arena.leagues.pages`); every string an
organiser or entry chose goes through :func:`html.escape`.  The projector shows the ratings of
the standings' own fit (:func:`arena.leagues.standings.standings`), the numbers of the
standings page and of each entrant's page."""

from __future__ import annotations

import html
import math
import sqlite3

import pandas as pd

from arena.engine import Ruleset
from arena.leagues.board import league_name, league_progress, progress_line, ruleset_summary
from arena.storage import league_db

#: Seconds between two reloads of the projector view (live or exported).
PROJECTOR_REFRESH = 10

_PROJECTOR_STYLE = """body{font-family:sans-serif;margin:1.5vw 3vw;font-size:2.2vw;background:#fff;color:#111}
.league-name{font-size:4vw;font-weight:bold;margin:0 0 .3em}p{margin:.2em 0}
.rules,.progress{font-size:1.6vw;color:#333}
table{border-collapse:collapse;width:100%;margin-top:.6em}td,th{padding:.15em .5em;text-align:right;
border-bottom:1px solid #ccc}td.name,th.name{text-align:left}tr.standing:nth-child(2) td{font-weight:bold}"""


def league_header(connection: sqlite3.Connection, games: int) -> str:
    """The league's name, its rules (one line per ruleset), its progress and when it last
    changed, as HTML; ``games``: the games the standings count.  A league whose settings can't
    be read shows its name alone."""
    settings = _settings_or_empty(connection)
    name = html.escape(league_name(connection, settings))
    try:
        return f'<p id="league-name" class="league-name">{name}</p>' + _rules_and_progress(
            connection, settings, games
        )
    except (TypeError, ValueError, KeyError, AttributeError):  # settings no arena wrote
        return f'<p id="league-name" class="league-name">{name}</p>'


def _rules_and_progress(connection: sqlite3.Connection, settings: dict, games: int) -> str:
    rules = []
    for fields in settings["rulesets"]:
        try:
            rules.append((str(fields.get("name", "")), ruleset_summary(Ruleset(**fields))))
        except (TypeError, ValueError):  # a damaged stored ruleset: its name alone
            rules.append((str(fields.get("name", "")) if isinstance(fields, dict) else "?", ""))
    rule_lines = "".join(
        f"<li><b>{html.escape(n)}</b>{': ' + html.escape(s) if s else ''}</li>" for n, s in rules
    )
    per_pair = -(-int(settings["games"]) // 2) * 2
    progress = progress_line(league_progress(connection, games))
    return (
        f'<p class="rules">{per_pair} games per pair and ruleset; rules:</p>'
        f'<ul id="rules" class="rules">{rule_lines}</ul>'
        f'<p id="progress" class="progress">{html.escape(progress)}</p>'
    )


def _number(value: float, fmt: str) -> str:
    return "-" if isinstance(value, float) and math.isnan(value) else format(value, fmt)


def projector_page(connection: sqlite3.Connection, table: pd.DataFrame, games: int) -> str:
    """The standings (``table``, best first, from :func:`~arena.leagues.standings.standings`)
    in large type under the league's header, reloading every :data:`PROJECTOR_REFRESH` s."""
    rows = []
    for k, r in enumerate(table.itertuples(), 1):
        interval = "-" if math.isnan(r.rating_low) else f"{r.rating_low:+.0f} to {r.rating_high:+.0f}"
        rows.append(
            f'<tr class="standing"><td>{k}</td><td class="name">{html.escape(r.name)}</td>'
            f'<td>v{r.version}</td><td class="rating">{_number(r.rating, "+.1f")}</td>'
            f"<td>{interval}</td><td>{r.games:,}</td><td>{_number(r.score, '.3f')}</td></tr>"
        )
    body = (
        league_header(connection, games)
        + '<table id="standings"><tr><th>#</th><th class="name">name</th><th>version</th>'
        "<th>rating</th><th>95% interval</th><th>games</th><th>score</th></tr>" + "".join(rows) + "</table>"
    )
    return (
        f'<!doctype html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{PROJECTOR_REFRESH}">'
        f"<title>{html.escape(standings_title(connection))}</title><style>{_PROJECTOR_STYLE}</style></head>"
        f"<body>{body}</body></html>"
    )


def standings_title(connection: sqlite3.Connection) -> str:
    """The title of the standings pages: the league's name."""
    return f"{league_name(connection, _settings_or_empty(connection))}: standings"


def _settings_or_empty(connection: sqlite3.Connection) -> dict:
    try:
        return league_db.settings(connection)
    except league_db.LeagueDatabaseError:
        return {}
