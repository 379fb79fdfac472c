"""The leaderboard in a classroom (issue 39, points 4 and 7): `league run` shows its progress,
the live page says whether a run is playing (and a killed run is not shown as one), how many
games are missing and when the league last changed; the standings carry the league's name, its
rules and its progress, a projector view shows them in large type, and a version's rating is
the standings' number on every page."""

from __future__ import annotations

import contextlib
import dataclasses
import html
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import Ruleset, load_ruleset
from arena.leagues import League
from arena.leagues.board import ruleset_summary
from arena.leagues.pages import entry_page, index_page, projector
from arena.leagues.run_record import RunRecord, now_text, process_start, read_run, run_state
from arena.leagues.standings import version_ratings
from tests.test_league_web import browser, chromium, served

if TYPE_CHECKING:
    from playwright.sync_api import Browser

__all__ = ["chromium"]  # the Chromium fixture of tests/test_league_web.py, used here

#: Holds a run record for the league in argv[1] as `league run` does (10 of 120 games stored),
#: says "ready" and waits for a line on stdin.
HOLDER = """
import sys
from arena.storage import league_db
from arena.leagues import run_record

run_record.WRITE_SECONDS = 0.0
connection = league_db.open_league(sys.argv[1])
recorder = run_record.RunRecorder(connection, 120)
recorder.stored(10)
print("ready", flush=True)
sys.stdin.readline()
"""


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def classroom(tmp_path: Path) -> Path:
    """A league where alice has two versions that both played: her first is retired."""
    folder = tmp_path / "class-7b"
    league = League.create(folder, games=6, seed=11, name="Class 7b <projector>")
    league.add("greedy", name="alice")
    league.add("random", name="bob")
    league.add("threshold:bank_at=300", name="carol")
    league.run(trusted=True, progress=False)
    league.add("threshold:bank_at=400", name="alice")
    league.run(trusted=True, progress=False)
    league.close()
    return folder


@contextlib.contextmanager
def run_held(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """A process that holds a run record of ``folder`` as a playing `league run` does."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield holder
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait()


def page_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def progress_of(page: str) -> str:
    found = re.search(r'<p id="progress" class="progress">(.*?)</p>', page)
    assert found is not None
    return html.unescape(found.group(1))


# --- point 4: the progress bar and the run record -------------------------------------------


def test_league_run_shows_games_left_and_time_to_go_with_progress_and_nothing_without(tmp_path: Path) -> None:
    folder = tmp_path / "lg"
    assert invoke("league", "init", str(folder), "--games", "4", "--seed", "1")[0] == 0
    for spec in ("greedy", "random", "threshold:bank_at=300"):
        assert invoke("league", "add", str(folder), spec)[0] == 0
    code, out, err = invoke("league", "run", str(folder), "--trusted", "--progress")
    assert code == 0 and out == "played 12 games (0 faults)\n"
    assert re.search(r"league: 100%\|.*\| 12/12 games, 0 left, 00:00 to go \[", err), err
    assert "league:   0%|" in err and "0/12 games, 12 left, ? to go" in err
    invoke("league", "add", str(folder), "threshold:bank_at=500")
    code, out, err = invoke("league", "run", str(folder), "--trusted", "--no-progress")
    assert code == 0 and out == "played 12 games (0 faults)\n" and "left" not in err


def test_a_run_leaves_a_record_of_what_it_played_and_how_it_ended(classroom: Path) -> None:
    league = League(classroom)
    record = read_run(league.connection)
    assert record is not None and record.pid == os.getpid() and record.host
    assert (record.planned, record.stored, record.outcome) == (12, 12, "finished")  # alice v2's games
    assert record.started <= record.updated <= (record.ended or "")
    assert run_state(record) == "finished"
    earlier = "2026-01-01T00:00:00+00:00"  # as if the games were stored long ago
    with league.connection:
        league.connection.execute(
            "UPDATE meta SET value = json_set(value, '$.updated', ?) WHERE key = 'run'", (earlier,)
        )
    league.run(trusted=True, progress=False)  # nothing to play: the last change stays
    again = read_run(league.connection)
    assert again is not None and (again.planned, again.stored, again.updated) == (0, 0, earlier)
    assert again.started > earlier
    league.add("threshold:bank_at=500", name="dave")
    page = index_page(league.connection, live=True)
    # dave owes 3 opponents 6 games each; the 24 stored games count those between active entries.
    assert progress_of(page).startswith("No run is in progress: 18 games stored, 18 missing; last changed ")


def test_a_run_is_shown_in_progress_while_its_process_lives_and_not_after_a_kill(classroom: Path) -> None:
    with run_held(classroom) as holder:
        reader = League(classroom, read_only=True)
        line = progress_of(index_page(reader.connection, live=True))
        assert line.startswith("A run is in progress (started "), line
        assert "10 of 120 played): 18 games stored, 0 missing; last changed " in line
        record = read_run(reader.connection)
        assert record is not None and record.pid == holder.pid and run_state(record) == "running"
        holder.send_signal(signal.SIGKILL)  # as `kill -9`: the run never writes its end
        holder.wait()
        line = progress_of(index_page(reader.connection, live=True))
        assert line.startswith(
            f"The run started {record.started.replace('T', ' ').replace('+00:00', ' UTC')} "
            "ended without finishing: 18 games stored, 0 missing"
        ), line
        assert "in progress" not in line
        reader.close()


def test_a_run_is_shown_in_progress_while_it_loads_its_entries(
    classroom: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the entries (isolated, a few seconds each) comes before any game is planned: the
    live page said "No run is in progress" all that time (review); it says the run loads them."""
    from arena.leagues import play

    seen: list[str] = []
    load = play._load_entry

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        reader = League(classroom, read_only=True)
        seen.append(progress_of(index_page(reader.connection, live=True)))
        reader.close()
        return load(*args, **kwargs)

    monkeypatch.setattr(play, "_load_entry", watched)
    league = League(classroom)
    league.add("threshold:bank_at=500", name="dave")
    assert league.run(trusted=True, progress=False).played == 18
    assert seen and all(line.startswith("A run is in progress (started ") for line in seen), seen
    assert all(", loading its entries): 18 games stored, 18 missing" in line for line in seen), seen
    record = read_run(league.connection)
    assert record is not None and (record.planned, record.stored, record.outcome) == (18, 18, "finished")


def test_a_run_record_is_running_only_while_the_same_process_lives() -> None:
    me = RunRecord(
        pid=os.getpid(),
        host=os.uname().nodename,
        process_start=process_start(os.getpid()),
        started=now_text(),
        updated=now_text(),
        planned=10,
        stored=0,
    )
    assert me.process_start is not None and run_state(me) == "running"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert run_state(dataclasses.replace(me, pid=gone.pid)) == "killed"
    assert run_state(dataclasses.replace(me, pid=2**70)) == "killed"  # a hostile record's id
    # The same id, but another process (a reused id): its start time differs.
    assert run_state(dataclasses.replace(me, process_start=me.process_start + 1)) == "killed"
    assert run_state(dataclasses.replace(me, host="another-machine")) == "elsewhere"
    assert run_state(dataclasses.replace(me, ended=now_text(), outcome="stopped")) == "stopped"


def test_a_damaged_run_record_shows_no_run_rather_than_failing_the_page(classroom: Path) -> None:
    league = League(classroom)
    with league.connection:
        league.connection.execute("UPDATE meta SET value = '{\"pid\": \"x\"}' WHERE key = 'run'")
    assert read_run(league.connection) is None
    assert progress_of(index_page(league.connection)).startswith("No run yet: 18 games stored, 0 missing")
    # Settings no arena wrote: the page shows the league's name and the standings, no traceback.
    with league.connection:
        league.connection.execute(
            """UPDATE meta SET value = json_set(value, '$.rulesets', json('[7]'), '$.games', 'x')
            WHERE key = 'settings'"""
        )
    page = index_page(league.connection)
    assert 'id="league-name"' in page and 'id="progress"' not in page and "<h1>Standings</h1>" in page


# --- point 7: name, rules, projector, one rating per version --------------------------------


def test_init_names_the_league_after_its_folder_unless_told_and_refuses_a_bad_name(tmp_path: Path) -> None:
    code, out, _ = invoke("league", "init", str(tmp_path / "physics-2026"), "--json")
    assert code == 0 and '"name": "physics-2026"' in out
    assert League(tmp_path / "physics-2026").settings["name"] == "physics-2026"
    for bad, why in (("", "must not be empty"), ("a\nb", "one line of text"), ("x" * 81, "at most 80")):
        code, out, err = invoke("league", "init", str(tmp_path / "bad"), "--name", bad)
        assert code == 1 and out == "" and why in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "bad").exists()


def test_the_rules_are_summed_up_from_the_rulesets_fields_not_its_name() -> None:
    standard = ruleset_summary(load_ruleset("standard"))
    assert standard.startswith("6 dice; to 10,000 exactly; 500 to get on the board; straight 1-6: 1,500")
    # A ruleset that calls itself "standard" but plays five dice to 5,000 says so.
    renamed = Ruleset(name="standard", dice=5, target=5000, farkle_penalty=500)
    summary = ruleset_summary(renamed)
    assert summary.startswith("5 dice; to 5,000; ") and "3 farkles in a row: -500" in summary
    assert "exactly" not in summary and "straight" not in summary


def test_standings_and_projector_carry_the_name_rules_progress_and_refresh(classroom: Path) -> None:
    league = League(classroom, read_only=True)
    index = index_page(league.connection, live=True)
    shown = projector(league.connection)
    for page in (index, shown):
        text = page_text(page)
        assert "Class 7b <projector>" in text and "<projector>" not in page  # escaped, as text
        assert "standard: 6 dice; to 10,000 exactly; 500 to get on the board" in text
        assert "No run is in progress: 18 games stored, 0 missing; last changed 20" in text
        assert "<title>Class 7b &lt;projector&gt;: standings</title>" in page
    assert '<meta http-equiv="refresh" content="10">' in shown
    assert 'href="projector.html"' in index


def test_a_version_shows_the_standings_rating_on_its_page_and_the_all_games_fit_labelled(
    classroom: Path,
) -> None:
    league = League(classroom, read_only=True)
    table = league.table()
    alice = table[table["name"] == "alice"].iloc[0]
    with_retired = version_ratings(league.connection)
    ids = [
        r["id"]
        for r in league.connection.execute("SELECT id FROM entries WHERE name = 'alice' ORDER BY version")
    ]
    assert f"{with_retired[ids[1]][0]:+.1f}" != f"{alice.rating:+.1f}"  # the two fits differ here
    page = entry_page(league.connection, ids[0])
    assert page is not None
    rows = re.findall(r'<tr class="version">(.*?)</tr>', page)
    standing = [re.search(r'<td class="rating">(.*?)</td>', r).group(1) for r in rows]
    all_games = [re.search(r'<td class="rating-all">(.*?)</td>', r).group(1) for r in rows]
    assert standing == ["-", f"{alice.rating:+.1f}"]  # the retired version is not in the standings
    assert all_games == [f"{with_retired[i][0]:+.1f}" for i in ids]
    assert "<th>standings rating</th><th>all versions</th>" in page
    assert re.search(r'<td class="rating">\+?-?[\d.]+</td>', projector(league.connection))
    seen = re.search(
        r'<td class="name">alice</td><td>v2</td><td class="rating">(.*?)</td>', projector(league.connection)
    )
    assert seen is not None and seen.group(1) == f"{alice.rating:+.1f}"


# --- in Chromium, as a class sees it ---------------------------------------------------------


@browser
def test_chromium_shows_name_rules_progress_and_one_rating_per_version_on_every_page(
    classroom: Path, chromium: Browser
) -> None:
    league = League(classroom, read_only=True)
    table = league.table()
    rating = f"{table[table['name'] == 'alice'].iloc[0].rating:+.1f}"
    alice = league.connection.execute("SELECT MAX(id) FROM entries WHERE name = 'alice'").fetchone()[0]
    league.close()
    page = chromium.new_page()
    try:
        with served(classroom) as base:
            seen = {}
            for path in ("index.html", "projector.html"):
                page.goto(f"{base}/{path}")
                assert page.title() == "Class 7b <projector>: standings"
                assert page.inner_text("#league-name") == "Class 7b <projector>"
                assert page.inner_text("#rules").startswith(
                    "standard: 6 dice; to 10,000 exactly; 500 to get on the board"
                )
                assert page.inner_text("#progress").startswith(
                    "No run is in progress: 18 games stored, 0 missing; last changed 20"
                )
                row = page.locator("#standings tr.standing", has_text="alice")
                seen[path] = row.locator("td.rating").inner_text()
            # The projector's type is large: its ratings 1.5 times the standings page's at least.
            big = page.evaluate("getComputedStyle(document.querySelector('td.rating')).fontSize")
            page.goto(f"{base}/index.html")
            small = page.evaluate("getComputedStyle(document.querySelector('td.rating')).fontSize")
            assert float(big.removesuffix("px")) >= 1.5 * float(small.removesuffix("px")), (big, small)
            page.click("text=alice")
            assert page.url.endswith(f"/entry-{alice}.html")
            active = page.locator("#versions tr.version", has_text="active")
            seen["entry"] = active.locator("td.rating").inner_text()
            assert seen == {"index.html": rating, "projector.html": rating, "entry": rating}
            with run_held(classroom):
                page.goto(f"{base}/projector.html")
                assert page.inner_text("#progress").startswith("A run is in progress (started ")
                assert "10 of 120 played): 18 games stored, 0 missing" in page.inner_text("#progress")
    finally:
        page.close()


def test_export_writes_the_projector_view_and_replaces_it_on_a_later_export(
    classroom: Path, tmp_path: Path
) -> None:
    from arena.leagues.web import export_site

    site = tmp_path / "site"
    first = {p.name for p in export_site(classroom, site)}
    assert {"index.html", "projector.html"} <= first
    again = {p.name for p in export_site(classroom, site)}  # an earlier export's pages are replaced
    assert again == first
    page = (site / "projector.html").read_text()
    assert '<meta http-equiv="refresh" content="10">' in page and "Class 7b &lt;projector&gt;" in page
