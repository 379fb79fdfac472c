"""The league's web pages, served and exported, as headless Chromium shows them: the standings a
person sees equal `table --json`, and every string an entry chose is escaped."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.leagues import League
from arena.leagues.web import export_site, make_server

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


def rendered(url: str, tmp_path: Path) -> str:
    """The DOM after Chromium has loaded and parsed the page."""
    assert CHROMIUM is not None, "chromium is required here (ARENA_BROWSER_TESTS=required)"
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


def seen_standings(dom: str) -> list[tuple[str, str]]:
    """(name, rating) of each standings row, as the page shows them."""
    rows = re.findall(r'<tr class="standing">(.*?)</tr>', dom)
    seen = []
    for row in rows:
        name = re.search(r'<a href="[^"]*">(.*?)</a>', row).group(1)
        rating = re.search(r'<td class="rating">(.*?)</td>', row).group(1)
        seen.append((name, rating))
    return seen


def expected_standings(folder: Path) -> list[tuple[str, str]]:
    import html

    table = League(folder).table_json()
    return [(html.escape(e["name"], quote=False), f"{e['rating']:+.1f}") for e in table["entries"]]


@browser
def test_the_exported_site_and_the_live_server_show_the_standings_of_table_json(
    league_folder: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    export_site(league_folder, site)
    exported = rendered((site / "index.html").as_uri(), tmp_path)
    server = make_server(league_folder, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        live = rendered(f"http://127.0.0.1:{server.server_address[1]}/", tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    expected = expected_standings(league_folder)
    assert len(expected) == 3
    assert seen_standings(exported) == expected
    assert seen_standings(live) == expected
    # The hostile name is text, never markup: Chromium made no element of it.
    assert '<b id="bold"' not in exported and '<b id="bold"' not in live
    assert 'x&lt;b id="bold"&gt;&amp;"y' in exported


def test_the_server_answers_json_and_refuses_unknown_paths(league_folder: Path) -> None:
    server = make_server(league_folder, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        data = json.loads(urllib.request.urlopen(f"{base}/standings.json", timeout=30).read())
        assert data == League(league_folder).table_json()
        page = urllib.request.urlopen(f"{base}/entry-2.html", timeout=30).read().decode()
        assert "x&lt;b id=&quot;bold&quot;&gt;&amp;&quot;y" in page
        for path in ("/entry-99.html", "/../data/league.sqlite", "/data/league.sqlite"):
            with pytest.raises(urllib.error.HTTPError) as error:
                urllib.request.urlopen(base + path, timeout=30)
            assert error.value.code == 404
    finally:
        server.shutdown()
        server.server_close()
