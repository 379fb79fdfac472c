"""The league's web pages, served and exported, as headless Chromium shows them: the standings a
person sees equal `table --json`, and every string an entry chose is escaped."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sqlite3
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.leagues import League
from arena.leagues.web import export_site, make_server
from arena.storage import league_db

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HOSTILE = 'x<b id="bold">&"y'
CHROMIUM = shutil.which("chromium")
browser = pytest.mark.skipif(
    CHROMIUM is None and os.environ.get("ARENA_BROWSER_TESTS") != "required",
    reason="Debian's chromium is not installed (.ci/run installs it)",
)


@pytest.fixture(scope="module")
def league_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("web") / "league"
    league = League.create(folder, games=6, seed=5)
    league.add("greedy")
    league.add("random", name=HOSTILE)
    league.add("threshold:bank_at=300", name="steady")
    league.run(trusted=True, progress=False)
    league.close()
    return folder


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, driven by Playwright (only its driver: the browser is the system's)."""
    assert CHROMIUM is not None, "chromium is required here (ARENA_BROWSER_TESTS=required)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


def rendered(browser: Browser, url: str) -> str:
    """The DOM after Chromium has loaded and parsed the page."""
    page = browser.new_page()
    try:
        page.goto(url)
        return page.content()
    finally:
        page.close()


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """``league serve`` on a free port, for the length of the block: its base URL."""
    server = make_server(folder, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def seen_standings(dom: str) -> list[tuple[str, str, str]]:
    """(name, rating, time per decision) of each standings row, as the page shows them."""
    rows = re.findall(r'<tr class="standing">(.*?)</tr>', dom)
    seen = []
    for row in rows:
        name = re.search(r'<a href="[^"]*">(.*?)</a>', row).group(1)
        rating = re.search(r'<td class="rating">(.*?)</td>', row).group(1)
        time = re.search(r'<td class="time">(.*?)</td>', row).group(1)
        seen.append((name, rating, time))
    return seen


def expected_standings(folder: Path) -> list[tuple[str, str, str]]:
    import html

    from arena.tournaments.duel_report import duration_text

    table = League(folder).table_json()
    return [
        (html.escape(e["name"], quote=False), f"{e['rating']:+.1f}", duration_text(e["seconds_per_decision"]))
        for e in table["entries"]
    ]


@browser
def test_the_exported_site_and_the_live_server_show_the_standings_of_table_json(
    league_folder: Path, tmp_path: Path, chromium: Browser
) -> None:
    site = tmp_path / "site"
    export_site(league_folder, site)
    exported = rendered(chromium, (site / "index.html").as_uri())
    with served(league_folder) as base:
        live = rendered(chromium, f"{base}/")
    expected = expected_standings(league_folder)
    assert len(expected) == 3
    assert seen_standings(exported) == expected
    assert seen_standings(live) == expected
    # The hostile name is text, never markup: Chromium made no element of it.
    assert '<b id="bold"' not in exported and '<b id="bold"' not in live
    assert 'x&lt;b id="bold"&gt;&amp;"y' in exported
    # Every entry was timed: a time per decision, in the unit arena duel uses.
    assert all(re.fullmatch(r"[\d.]+ (µs|ms|s)", time) for _, _, time in expected)


@browser
def test_an_entrants_page_shows_each_versions_time_per_decision(
    league_folder: Path, tmp_path: Path, chromium: Browser
) -> None:
    from arena.tournaments.duel_report import duration_text

    with sqlite3.connect(league_db.database_path(league_folder)) as c:
        entry, seconds, decisions = c.execute(
            "SELECT e.id, SUM(s.seconds), SUM(s.decisions) FROM entries e JOIN seats s ON s.entry = e.id "
            "WHERE e.name = 'steady' GROUP BY e.id"
        ).fetchone()
    assert decisions > 0
    with served(league_folder) as base:
        dom = rendered(chromium, f"{base}/entry-{entry}.html")
    row = re.search(r'<tr class="version">(.*?)</tr>', dom).group(1)
    assert re.search(r'<td class="time">(.*?)</td>', row).group(1) == duration_text(seconds / decisions)
    assert "<th>time/decision</th>" in dom


def test_the_server_answers_json_and_refuses_unknown_paths(league_folder: Path) -> None:
    with served(league_folder) as base:
        data = json.loads(urllib.request.urlopen(f"{base}/standings.json", timeout=30).read())
        assert data == League(league_folder).table_json()
        page = urllib.request.urlopen(f"{base}/entry-2.html", timeout=30).read().decode()
        assert "x&lt;b id=&quot;bold&quot;&gt;&amp;&quot;y" in page
        for path in ("/entry-99.html", "/../data/league.sqlite", "/data/league.sqlite"):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(base + path, timeout=30)
            assert error.value.code == 404
        for path in ("/game-99999.html", "/game-x.html"):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(base + path, timeout=30)
            assert error.value.code == 404


def hostile_game(folder: Path) -> tuple[int, dict, list[int]]:
    """A recorded game of the entry with the hostile name: (game id, its record, final scores by
    seat as the seats table stored them)."""
    with sqlite3.connect(league_db.database_path(folder)) as c:
        game, events = c.execute(
            "SELECT r.game, r.events FROM records r JOIN seats s ON s.game = r.game "
            "JOIN entries e ON e.id = s.entry WHERE e.name = ? ORDER BY r.game LIMIT 1",
            (HOSTILE,),
        ).fetchone()
        scores = [s for (s,) in c.execute("SELECT score FROM seats WHERE game = ? ORDER BY seat", (game,))]
    return game, json.loads(events), scores


def step_through(page: Page) -> tuple[int, list[list[int]], list[int]]:
    """Click "next turn" to the end: (steps, every roll's dice in the order shown, the score
    column at the end)."""
    total = int(re.match(r"step 1 of (\d+):", page.text_content("#step") or "").group(1))
    rolls: list[list[int]] = []
    for k in range(total):
        assert page.text_content("#step").startswith(f"step {k + 1} of {total}:")
        for line in page.locator("#lines li").all_text_contents():
            if line.startswith("rolled "):
                rolls.append([int(d) for d in line.removeprefix("rolled ").split()])
        if k + 1 < total:
            page.click("#next")
    assert page.is_disabled("#next")
    scores = [int(t) for t in page.locator("#scores td[id^=score-]").all_text_contents()]
    return total, rolls, scores


@browser
def test_the_viewer_steps_through_a_stored_game_turn_by_turn(
    league_folder: Path, tmp_path: Path, chromium: Browser
) -> None:
    game, record, final = hostile_game(league_folder)
    events = record["events"]
    turns = sum(e["type"] == "turn_started" for e in events)
    rolls = [e["dice"] for e in events if e["type"] == "rolled"]
    assert turns > 5 and events[-1]["type"] == "game_over"
    site = tmp_path / "site"
    export_site(league_folder, site)
    with served(league_folder) as base:
        for url in ((site / f"game-{game}.html").as_uri(), f"{base}/game-{game}.html"):
            page = chromium.new_page()
            page.goto(url)
            assert page.is_disabled("#previous")
            assert page.text_content("#step").endswith(f"turn 1: {record['players'][0]}")
            total, seen_rolls, seen_scores = step_through(page)
            assert total == turns + 1  # a step per turn, and the end
            assert seen_rolls == rolls
            assert seen_scores == final
            page.click("#previous")
            assert page.text_content("#step").startswith(f"step {total - 1} of {total}:")
            page.click("#first")
            assert page.text_content("#step").startswith("step 1 of")
            # The hostile name is shown as text, and made no element.
            assert page.locator("#bold").count() == 0
            assert HOSTILE in page.locator("#scores").inner_text()
            page.close()
    # The entrant's page links the game.
    assert f'href="game-{game}.html"' in (site / "entry-2.html").read_text()
