"""The pages of ``league serve --submit``: the upload form, and a student's status page.

No page carries a script, and every string that a student or an entry can influence (a name, a
file name, a fault's reason or traceback, a message quoting them) goes through
:func:`html.escape`.  A token is never written into a page: the forms ask for it each time, so
it travels only in a POST body (docs/security.md).
"""

from __future__ import annotations

import html
import sqlite3

from arena.leagues.fault_pages import traceback_once
from arena.leagues.ladder import SCHEDULE_KEY, games_left_in_rounds
from arena.leagues.pages import entry_page_name
from arena.leagues.public_paths import league_folder, public
from arena.leagues.retirement import retired_names
from arena.storage import league_db

_STYLE = """body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em}p.refused{color:#a00}p.done{color:#060}
pre{background:#f4f4f4;padding:.5em;overflow:auto;max-height:20em}label{display:block;margin:.5em 0}"""

_TOKEN_INPUT = '<input name="token" type="password" autocomplete="current-password" required>'
#: Faults listed on a status page, newest first (the rest are counted).
LISTED_FAULTS = 10
#: Characters of a fault's traceback shown on a status page.
TRACEBACK_CHARS = 4000


def page(title: str, body: str) -> str:
    """A whole page: no script, no refresh (a refresh would post the token again)."""
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<style>{_STYLE}</style></head><body>{body}<p><a href="/">standings</a> · '
        f'<a href="/submit">submit</a></p></body></html>'
    )


def _forms(limit_text: str) -> str:
    return (
        "<h2>Submit your bot</h2>"
        f"<p>A Python file (.py) of at most {limit_text}. It is loaded and checked as "
        "<code>arena league add</code> checks an entry; if it loads, it becomes your entry's new "
        "version and plays in the organiser's next run.</p>"
        '<form id="submit" method="post" action="/submit" enctype="multipart/form-data">'
        '<label>Your entrant name <input name="name" autocomplete="username" required></label>'
        f"<label>Your token {_TOKEN_INPUT}</label>"
        '<label>Your bot <input name="bot" type="file" accept=".py,text/x-python" required></label>'
        '<button type="submit">Submit</button></form>'
        "<h2>See your entry's status</h2>"
        '<form id="status" method="post" action="/status" enctype="multipart/form-data">'
        f"<label>Your token {_TOKEN_INPUT}</label>"
        '<button type="submit">Show my status</button></form>'
    )


def form_page(limit_text: str) -> str:
    """The upload form and the status form."""
    return page("Submit a bot", "<h1>Submit a bot</h1>" + _forms(limit_text))


def refused_page(message: str, limit_text: str) -> str:
    """One line saying why a submission or a status request was refused, and the forms again."""
    return page(
        "Refused",
        f'<h1>Refused</h1><p class="refused" id="message">{html.escape(message)}</p>' + _forms(limit_text),
    )


def _version_state(active: bool, withdrawn: bool) -> str:
    """A version plays, was replaced by a newer one, or belongs to an entrant the organiser retired
    (``arena league retire``: it plays no new games, its games stay)."""
    if not active:
        return "replaced"
    return "retired" if withdrawn else "plays"


def status_page(connection: sqlite3.Connection, name: str, message: str = "") -> str:
    """What ``name``'s student may know of their entry: each version (playing or replaced), its
    games, score and faults; the games the active version still waits for; and its latest
    faults with their tracebacks (their own code's, docs/faults.md)."""
    said = f'<p class="done" id="message">{html.escape(message)}</p>' if message else ""
    versions = connection.execute(
        "SELECT id, version, added, active FROM entries WHERE name = ? ORDER BY version DESC", (name,)
    ).fetchall()
    title = f"{name}: your entry"
    if not versions:
        body = f'<h1>{html.escape(title)}</h1>{said}<p id="state">No version submitted yet.</p>'
        return page(title, body)
    rows = []
    active_id = None
    withdrawn = name in retired_names(connection)
    for v in versions:
        games, score = connection.execute(
            "SELECT COUNT(*), AVG(win) FROM seats WHERE entry = ?", (v["id"],)
        ).fetchone()
        faults = connection.execute("SELECT COUNT(*) FROM faults WHERE entry = ?", (v["id"],)).fetchone()[0]
        if v["active"]:
            active_id = v["id"]
        rows.append(
            f'<tr><td><a href="/{entry_page_name(v["id"])}">version {v["version"]}</a></td>'
            f"<td>{html.escape(v['added'])}</td><td>{_version_state(bool(v['active']), withdrawn)}</td>"
            f"<td>{games:,}</td><td>{'-' if score is None else f'{score:.3f}'}</td><td>{faults:,}</td></tr>"
        )
    table = (
        '<table id="versions"><tr><th>version</th><th>added</th><th>state</th><th>games</th>'
        "<th>score</th><th>faults</th></tr>" + "".join(rows) + "</table>"
    )
    state = "No version of yours plays now (the organiser retired it)."
    listed = ""
    if active_id is not None:
        listed = _fault_list(connection, active_id)
    if active_id is not None and not withdrawn:
        waiting = _games_waiting(connection, active_id)
        state = (
            f"Your newest playing version has {waiting:,} games to play: the organiser's next "
            "<code>arena league run</code> plays them."
            if waiting
            else "Your playing version has all its games."
        )
        if not waiting and _ladder_newcomer(connection, active_id):
            state = (
                "Your newest playing version waits for the organiser's next <code>arena league run</code>: "
                "in this league's ladder it meets the entries nearest its rating, round by round."
            )
    body = f'<h1>{html.escape(title)}</h1>{said}<p id="state">{state}</p>{table}{listed}'
    return page(title, body)


def _ladder_newcomer(connection: sqlite3.Connection, entry_id: int) -> bool:
    """Whether the league is a ladder and ``entry_id`` has played no game yet: its rounds are
    chosen as the run plays (arena.leagues.ladder), so no count of its games is known."""
    if league_db.settings(connection).get(SCHEDULE_KEY) != "ladder":
        return False
    return connection.execute("SELECT 1 FROM seats WHERE entry = ? LIMIT 1", (entry_id,)).fetchone() is None


def _games_waiting(connection: sqlite3.Connection, entry_id: int) -> int:
    """Games ``entry_id`` still lacks against the other active entries (docs/league.md: each
    pair plays the league's games per ruleset)."""
    settings = league_db.settings(connection)
    per_pair = -(-int(settings["games"]) // 2) * 2 * len(settings["rulesets"])
    if settings.get(SCHEDULE_KEY) == "ladder":  # it owes only its rounds begun, as the board counts
        return games_left_in_rounds(connection, per_pair, entry_id)
    others = [
        r[0]
        for r in connection.execute(
            "SELECT id FROM entries WHERE active = 1 AND id != ?"
            " AND name NOT IN (SELECT name FROM retirements)",
            (entry_id,),
        )
    ]  # a retired entrant plays no new games: nothing waits for it
    stored = 0
    for other in others:
        low, high = sorted((entry_id, other))
        stored += min(
            per_pair,
            connection.execute(
                "SELECT COUNT(*) FROM games WHERE low = ? AND high = ?", (low, high)
            ).fetchone()[0],
        )
    return per_pair * len(others) - stored


def _fault_list(connection: sqlite3.Connection, entry_id: int) -> str:
    rows = connection.execute(
        "SELECT game, status, reason, traceback FROM faults WHERE entry = ? ORDER BY rowid DESC LIMIT ?",
        (entry_id, LISTED_FAULTS),
    ).fetchall()
    if not rows:
        return '<p id="faults">No faults.</p>'
    items = []
    here = league_folder(connection)
    first_in: dict[str, int] = {}
    for r in rows:
        # The entry's own frames, no absolute path of the organiser's machine, each traceback
        # shown once, as the entrant's page shows them.
        shown = traceback_once(r["traceback"], here, r["game"], first_in, last_chars=TRACEBACK_CHARS)
        items.append(
            f"<li>game {r['game']}: {html.escape(r['status'])}: {html.escape(public(r['reason'], here))}"
            + shown
            + "</li>"
        )
    return f'<h2>Latest faults</h2><ul id="faults">{"".join(items)}</ul>'
