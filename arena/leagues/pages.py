"""A league's web pages, made from the database alone: no entry code runs here.

Every string an entry can influence (a name, a spec, a fault's reason or traceback) goes
through :func:`html.escape`.  ``league serve`` makes these pages on each request from a
read-only connection; ``league export`` writes the same pages to a folder."""

from __future__ import annotations

import html
import json
import math
import sqlite3

from arena.leagues.standings import standings, standings_object

_STYLE = """body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td.name{text-align:left}"""


def _page(title: str, body: str, *, live: bool) -> str:
    refresh = '<meta http-equiv="refresh" content="10">' if live else ""
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{refresh}<title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )


def _number(value: float, fmt: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, fmt)


def entry_page_name(entry_id: int) -> str:
    return f"entry-{entry_id}.html"


def index_page(connection: sqlite3.Connection, *, live: bool = False) -> str:
    """The standings, and the crosstable as a heat map (red loses, green wins)."""
    table, cross, games = standings(connection)
    ids = {r["name"]: r["id"] for r in connection.execute("SELECT id, name FROM entries WHERE active = 1")}
    rows = []
    for k, r in enumerate(table.itertuples(), 1):
        link = f'<a href="{entry_page_name(ids[r.name])}">{html.escape(r.name)}</a>'
        rows.append(
            f'<tr class="standing"><td>{k}</td><td class="name">{link}</td><td>{r.version}</td>'
            f'<td class="rating">{_number(r.rating, "+.1f")}</td><td>{_number(r.rating_low, "+.1f")}</td>'
            f"<td>{_number(r.rating_high, '+.1f')}</td><td>{r.games}</td>"
            f"<td>{_number(r.score, '.3f')}</td><td>{r.faults}</td></tr>"
        )
    heat = []
    for name, row in cross.iterrows():
        cells = []
        for value in row:
            if isinstance(value, float) and math.isnan(value):
                cells.append("<td>-</td>")
            else:
                hue = int(120 * value)  # 0 red .. 120 green
                cells.append(f'<td style="background:hsl({hue},70%,80%)">{value:.2f}</td>')
        heat.append(f'<tr><td class="name">{html.escape(str(name))}</td>{"".join(cells)}</tr>')
    heads = "".join(f"<th>{html.escape(str(c))}</th>" for c in cross.columns)
    body = (
        f'<h1>Standings</h1><p id="games">{games} games between active entries</p>'
        '<table id="standings"><tr><th>#</th><th>name</th><th>version</th><th>rating</th>'
        "<th>95% low</th><th>95% high</th><th>games</th><th>score</th><th>faults</th></tr>"
        + "".join(rows)
        + "</table><h2>Crosstable</h2><p>Score of the row against the column.</p>"
        f'<table id="crosstable"><tr><th></th>{heads}</tr>{"".join(heat)}</table>'
    )
    return _page("League standings", body, live=live)


def entry_page(connection: sqlite3.Connection, entry_id: int) -> str | None:
    """An entrant's versions, and the faults of its versions with their replay commands."""
    row = connection.execute("SELECT name FROM entries WHERE id = ?", (entry_id,)).fetchone()
    if row is None:
        return None
    versions = connection.execute(
        "SELECT e.id, e.version, e.spec, e.added, e.active, COUNT(s.game) AS games, "
        "COALESCE(AVG(s.win), 0) AS score FROM entries e LEFT JOIN seats s ON s.entry = e.id "
        "WHERE e.name = ? GROUP BY e.id ORDER BY e.version",
        (row["name"],),
    ).fetchall()
    lines = [
        f'<tr><td>{v["version"]}</td><td class="name">{html.escape(v["spec"])}</td>'
        f"<td>{html.escape(v['added'])}</td>"
        f"<td>{'active' if v['active'] else 'retired'}</td><td>{v['games']}</td>"
        f"<td>{v['score']:.3f}</td></tr>"
        for v in versions
    ]
    faults = connection.execute(
        "SELECT f.game, f.status, f.reason, f.replay FROM faults f JOIN entries e ON e.id = f.entry "
        "WHERE e.name = ? ORDER BY f.game LIMIT 50",
        (row["name"],),
    ).fetchall()
    fault_lines = [
        f"<li>game {f['game']}: {html.escape(f['status'])}: {html.escape(f['reason'])}"
        f"<br><code>{html.escape(f['replay'])}</code></li>"
        for f in faults
    ]
    body = (
        f'<p><a href="index.html">standings</a></p><h1>{html.escape(row["name"])}</h1>'
        '<table id="versions"><tr><th>version</th><th>spec</th><th>added</th><th>state</th>'
        f"<th>games</th><th>score</th></tr>{''.join(lines)}</table>"
        f'<h2>Faults</h2><ul id="faults">{"".join(fault_lines) or "<li>none</li>"}</ul>'
    )
    return _page(row["name"], body, live=False)


def all_pages(connection: sqlite3.Connection) -> dict[str, str]:
    """Every page of the static site, by file name."""
    pages = {"index.html": index_page(connection)}
    for (entry_id,) in connection.execute("SELECT id FROM entries").fetchall():
        page = entry_page(connection, entry_id)
        if page is not None:
            pages[entry_page_name(entry_id)] = page
    return pages


def standings_json(connection: sqlite3.Connection) -> str:
    table, _, games = standings(connection)
    return json.dumps(standings_object(table, games))
