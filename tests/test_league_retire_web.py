"""Issue 39, point 5, in headless Chromium: the standings and an entrant's page show a retired
entrant as retired, with its games still counted, on the live server and the exported site."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.leagues import League
from arena.leagues.web import export_site
from tests.test_league_web import browser, chromium, served  # noqa: F401 (chromium: a fixture)

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def league_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """greedy, random and steady (two versions) played in full; then random retired."""
    folder = tmp_path_factory.mktemp("retired") / "league"
    league = League.create(folder, games=4, seed=8)
    league.add("greedy")
    league.add("random")
    league.add("threshold:bank_at=300", name="steady")
    league.add("threshold:bank_at=350", name="steady")
    league.run(trusted=True, progress=False)
    league.retire("random")
    league.close()
    return folder


def standings_seen(launched: Browser, url: str) -> tuple[str, list[tuple[str, bool]]]:
    """(the games line, each standings row's (name, shown as retired)) as Chromium renders them."""
    page = launched.new_page()
    try:
        page.goto(url)
        rows = page.locator("#standings tr.standing")
        seen = [
            (row.locator("td.name a").inner_text(), row.locator("td.name .retired").count() == 1)
            for row in rows.all()
        ]
        return page.inner_text("#games"), seen
    finally:
        page.close()


def versions_seen(launched: Browser, url: str) -> tuple[str, list[tuple[str, str]]]:
    """(the retired note, or ""; each version row's (version, state)) of an entrant's page."""
    page = launched.new_page()
    try:
        page.goto(url)
        note = page.inner_text("#retired") if page.locator("#retired").count() else ""
        cells = [row.locator("td").all_inner_texts() for row in page.locator("#versions tr.version").all()]
        return note, [(c[0], c[3]) for c in cells]
    finally:
        page.close()


@browser
def test_the_standings_and_entrant_pages_show_a_retired_entrant(
    league_folder: Path, tmp_path: Path, chromium: Browser  # noqa: F811 (the fixture)
) -> None:
    league = League(league_folder, read_only=True)
    table = league.table_json()
    ids = dict(league.connection.execute("SELECT name, MIN(id) FROM entries GROUP BY name").fetchall())
    league.close()
    expected = [(e["name"], e["retired"]) for e in table["entries"]]
    assert sorted(expected) == [("greedy", False), ("random", True), ("steady", False)]
    site = tmp_path / "site"
    export_site(league_folder, site)
    with served(league_folder) as base:
        for url in (f"{base}/", (site / "index.html").as_uri()):
            games, seen = standings_seen(chromium, url)
            assert seen == expected
            assert games == f"{table['games']} games between active and retired entries"
        for root in (base, site.as_uri()):
            note, versions = versions_seen(chromium, f"{root}/entry-{ids['random']}.html")
            assert note.startswith("Retired since ") and note.endswith(
                ": it plays no new games; its games stay in the standings."
            )
            assert versions == [("1", "retired")]
            note, versions = versions_seen(chromium, f"{root}/entry-{ids['steady']}.html")
            assert note == "" and versions == [("1", "replaced"), ("2", "active")]
