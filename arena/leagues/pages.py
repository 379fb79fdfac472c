"""A league's web pages, made from the database alone: no entry code runs here.

Every string an entry can influence (a name, a spec, a fault's reason or traceback) goes
through :func:`html.escape` (faults: :mod:`arena.leagues.fault_pages`).  ``league serve`` makes
these pages on each request from a read-only connection; ``league export`` writes the same
pages to a folder."""

from __future__ import annotations

import html
import json
import math
import sqlite3

from arena.leagues.fault_pages import fault_items
from arena.leagues.projector import league_header, projector_page, standings_title
from arena.leagues.public_paths import league_folder, public
from arena.leagues.retirement import retired_names
from arena.leagues.standings import standings, standings_object, standings_ratings, version_ratings
from arena.leagues.viewer import viewer_body
from arena.tournaments.duel_report import duration_text

_STYLE = """body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td.name{text-align:left}
.league-name{font-size:2em;font-weight:bold;margin:0}"""


def _page(title: str, body: str, *, live: bool) -> str:
    refresh = '<meta http-equiv="refresh" content="10">' if live else ""
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{refresh}<title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )


def _number(value: float, fmt: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, fmt)


def _duration(seconds: float | None) -> str:
    """A time per decision as ``arena duel`` says it ("4.2 ms"); "-" where none was timed."""
    if seconds is None or math.isnan(seconds):
        return "-"
    return duration_text(seconds)


def entry_page_name(entry_id: int) -> str:
    return f"entry-{entry_id}.html"


def game_page_name(game_id: int) -> str:
    return f"game-{game_id}.html"


#: Faults listed on an entrant's page (the rest are counted).
LISTED_FAULTS = 50
#: Recorded games listed on an entrant's page.
LISTED_GAMES = 40


def index_page(connection: sqlite3.Connection, *, live: bool = False) -> str:
    """The standings, and the crosstable as a heat map (red loses, green wins)."""
    table, cross, games = standings(connection)
    ids = {r["name"]: r["id"] for r in connection.execute("SELECT id, name FROM entries WHERE active = 1")}
    rows = []
    for k, r in enumerate(table.itertuples(), 1):
        link = f'<a href="{entry_page_name(ids[r.name])}">{html.escape(r.name)}</a>'
        if r.retired:  # it plays no new games; its games still count (docs/league.md)
            link += ' <span class="retired">(retired)</span>'
        rows.append(
            f'<tr class="standing"><td>{k}</td><td class="name">{link}</td><td>{r.version}</td>'
            f'<td class="rating">{_number(r.rating, "+.1f")}</td><td>{_number(r.rating_low, "+.1f")}</td>'
            f"<td>{_number(r.rating_high, '+.1f')}</td><td>{r.games}</td>"
            f"<td>{_number(r.score, '.3f')}</td><td>{r.faults}</td>"
            f'<td class="time">{_duration(r.seconds_per_decision)}</td></tr>'
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
    between = "and retired entries" if table["retired"].any() else "entries"
    body = (
        f'{league_header(connection, games)}<p><a href="projector.html">projector view</a></p>'
        f'<h1>Standings</h1><p id="games">{games} games between active {between}</p>'
        '<table id="standings"><tr><th>#</th><th>name</th><th>version</th><th>rating</th>'
        "<th>95% low</th><th>95% high</th><th>games</th><th>score</th><th>faults</th>"
        "<th>time/decision</th></tr>"
        + "".join(rows)
        + "</table><h2>Crosstable</h2><p>Score of the row against the column.</p>"
        f'<table id="crosstable"><tr><th></th>{heads}</tr>{"".join(heat)}</table>'
    )
    return _page(standings_title(connection), body, live=live)


def entry_page(connection: sqlite3.Connection, entry_id: int) -> str | None:
    """An entrant's versions with the rating of each: the standings' number for the active
    version (the same on every page), and, labelled, a second fit over every stored game, so
    that the versions share a scale (docs/league.md, "Standings"); the faults of its versions
    with their replay commands, and links to its recorded games."""
    row = connection.execute("SELECT name FROM entries WHERE id = ?", (entry_id,)).fetchone()
    if row is None:
        return None
    name = row["name"]
    since = retired_names(connection).get(name)
    versions = connection.execute(
        "SELECT e.id, e.version, e.spec, e.added, e.active, COUNT(s.game) AS games, "
        "COALESCE(AVG(s.win), 0) AS score, SUM(s.seconds) / SUM(s.decisions) AS per_decision "
        "FROM entries e LEFT JOIN seats s ON s.entry = e.id "
        "WHERE e.name = ? GROUP BY e.id ORDER BY e.version",
        (name,),
    ).fetchall()
    ratings = version_ratings(connection)
    shown = standings_ratings(connection)  # the active version's: the standings' own numbers
    nan = (math.nan, math.nan, math.nan)
    here = league_folder(connection)  # no absolute path of this machine on a page
    lines = []
    for v in versions:
        elo, low, high = ratings.get(v["id"], nan)
        standing = shown.get(v["id"], nan)
        spec = html.escape(public(v["spec"], here))
        lines.append(
            f'<tr class="version"><td>{v["version"]}</td><td class="name">{spec}</td>'
            f"<td>{html.escape(v['added'])}</td>"
            f"<td>{version_state(bool(v['active']), since)}</td><td>{v['games']}</td>"
            f'<td>{v["score"]:.3f}</td><td class="rating">{_number(standing[0], "+.1f")}</td>'
            f'<td class="rating-all">{_number(elo, "+.1f")}</td>'
            f"<td>{_number(low, '+.1f')}</td><td>{_number(high, '+.1f')}</td>"
            f'<td class="time">{_duration(v["per_decision"])}</td></tr>'
        )
    faults = connection.execute(
        "SELECT f.game, f.status, f.reason, f.traceback, f.replay FROM faults f "
        "JOIN entries e ON e.id = f.entry "
        "WHERE e.name = ? ORDER BY f.game LIMIT ?",
        (name, LISTED_FAULTS),
    ).fetchall()
    all_faults = connection.execute(
        "SELECT COUNT(*) FROM faults f JOIN entries e ON e.id = f.entry WHERE e.name = ?", (name,)
    ).fetchone()[0]
    recorded = {r[0] for r in connection.execute("SELECT game FROM records")}
    fault_lines = fault_items(faults, here, lambda game: _game_link(game, recorded))
    if all_faults > len(faults):
        fault_lines.append(
            f'<li class="more">and {all_faults - len(faults):,} more: `arena league games` lists every '
            "game, with its status and reason</li>"
        )
    games = connection.execute(
        "SELECT r.game, g.ruleset, e2.name, e.version FROM records r JOIN games g ON g.id = r.game "
        "JOIN seats s ON s.game = r.game JOIN entries e ON e.id = s.entry "
        "JOIN seats s2 ON s2.game = r.game AND s2.seat != s.seat JOIN entries e2 ON e2.id = s2.entry "
        "WHERE e.name = ? ORDER BY r.game LIMIT ?",
        (name, LISTED_GAMES),
    ).fetchall()
    game_lines = [
        f"<li>{_game_link(g[0], recorded)} ({html.escape(g[1])}, version {g[3]}) against "
        f"{html.escape(g[2])}</li>"
        for g in games
    ]
    body = (
        f'<p><a href="index.html">standings</a></p><h1>{html.escape(name)}</h1>'
        f"{_retired_note(since)}"
        "<h2>Versions</h2><p><b>standings rating</b>: the active version's rating in the "
        "standings (a fit over the games between active and retired entrants' current versions). "
        "<b>all versions</b>: a second fit over every stored game, replaced versions' too, so that "
        "the versions are on one scale (its 95% interval and the chart are of this fit); it counts "
        "more games, so its number differs from the standings'.</p>"
        '<table id="versions"><tr><th>version</th><th>spec</th><th>added</th><th>state</th>'
        "<th>games</th><th>score</th><th>standings rating</th><th>all versions</th>"
        "<th>95% low</th><th>95% high</th>"
        "<th>time/decision</th></tr>"
        f"{''.join(lines)}</table>{_rating_chart([ratings.get(v['id'], nan) for v in versions])}"
        f'<h2>Faults</h2><ul id="faults">{"".join(fault_lines) or "<li>none</li>"}</ul>'
        f'<h2>Recorded games</h2><ul id="games">{"".join(game_lines) or "<li>none yet</li>"}</ul>'
    )
    return _page(name, body, live=False)


def version_state(current: bool, retired_since: str | None) -> str:
    """A version's state on its entrant's page: ``active`` (it plays), ``retired`` (the current
    version of a retired entrant) or ``replaced`` (a newer version plays in its place)."""
    if not current:
        return "replaced"
    return "active" if retired_since is None else "retired"


def _retired_note(since: str | None) -> str:
    if since is None:
        return ""
    return (
        f'<p id="retired">Retired since {html.escape(since)}: it plays no new games; its games stay '
        "in the standings.</p>"
    )


def _game_link(game_id: int, recorded: set[int]) -> str:
    if game_id in recorded:
        return f'<a href="{game_page_name(game_id)}">game {game_id}</a>'
    return f"game {game_id}"


def _rating_chart(ratings: list[tuple[float, float, float]]) -> str:
    """The rating over the versions as a small SVG: a point per version with its interval."""
    points = [(k, r) for k, r in enumerate(ratings) if not math.isnan(r[0])]
    if len(points) < 2:
        return ""
    low = min(r[1] for _, r in points)
    high = max(r[2] for _, r in points)
    span = (high - low) or 1.0
    step, height = 80, 160
    width = 30 + step * (len(ratings) - 1) + 70  # room for the last label

    def y(value: float) -> float:
        return 10 + (high - value) / span * (height - 20)

    marks = []
    for k, (elo, lo, hi) in points:
        x = 30 + k * step
        marks.append(
            f'<line x1="{x}" x2="{x}" y1="{y(hi):.1f}" y2="{y(lo):.1f}" stroke="#888"/>'
            f'<circle cx="{x}" cy="{y(elo):.1f}" r="4"/><text x="{x + 6}" y="{y(elo) - 6:.1f}" '
            f'font-size="11">v{k + 1} {elo:+.0f}</text>'
        )
    line = " ".join(f"{30 + k * step},{y(r[0]):.1f}" for k, r in points)
    return (
        f'<svg id="rating-chart" width="{width}" height="{height}" role="img" '
        f'aria-label="rating over versions"><polyline points="{line}" fill="none" stroke="#36c"/>'
        f"{''.join(marks)}</svg>"
    )


def game_page(connection: sqlite3.Connection, game_id: int) -> str | None:
    """The viewer for a recorded game; None if the game has no record."""
    row = connection.execute(
        "SELECT r.events, g.ruleset, g.seed FROM records r JOIN games g ON g.id = r.game WHERE r.game = ?",
        (game_id,),
    ).fetchone()
    if row is None:
        return None
    record = json.loads(row["events"])
    heading = f"Game {game_id}: {' against '.join(record['players'])} ({row['ruleset']}, seed {row['seed']})"
    body = '<p><a href="index.html">standings</a></p>' + viewer_body(record, heading)
    faults = connection.execute(
        "SELECT f.game, e.name, f.status, f.reason, f.traceback, f.replay FROM faults f "
        "JOIN entries e ON e.id = f.entry WHERE f.game = ? ORDER BY f.seat",
        (game_id,),
    ).fetchall()
    if faults:
        items = fault_items(faults, league_folder(connection), lambda game: f"game {game}", who=True)
        body += f'<h2>Faults</h2><ul id="faults">{"".join(items)}</ul>'
    return _page(f"Game {game_id}", body, live=False)


def all_pages(connection: sqlite3.Connection) -> dict[str, str]:
    """Every page of the static site, by file name."""
    pages = {"index.html": index_page(connection), "projector.html": projector(connection)}
    for (entry_id,) in connection.execute("SELECT id FROM entries").fetchall():
        page = entry_page(connection, entry_id)
        if page is not None:
            pages[entry_page_name(entry_id)] = page
    for (game_id,) in connection.execute("SELECT game FROM records").fetchall():
        page = game_page(connection, game_id)
        if page is not None:
            pages[game_page_name(game_id)] = page
    return pages


def projector(connection: sqlite3.Connection) -> str:
    """The projector view (:mod:`arena.leagues.projector`) of the standings."""
    table, _, games = standings(connection)
    return projector_page(connection, table, games)


def standings_json(connection: sqlite3.Connection) -> str:
    table, _, games = standings(connection)
    return json.dumps(standings_object(table, games))
