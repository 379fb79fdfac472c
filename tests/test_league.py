"""arena league: entries by content, incremental games, a SIGKILL in the middle of a run, and
standings that equal a rating computed independently from `arena league games`."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.analysis.ratings import finishing_order, plackett_luce_elo
from arena.leagues import League, LeagueError
from arena.storage import league_db

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]

FAULTY = '''
from arena import Action


class Faulty:
    """Raises on its fifth decision of every game."""

    name = "faulty"

    def __init__(self):
        self.calls = 0

    def decide(self, view):
        self.calls += 1
        if self.calls == 5:
            raise RuntimeError("the fifth call fails")
        return Action(view.legal_keeps[0].dice, False)
'''

BANKER = '''
from arena import Action


class Banker:
    """Keeps the best scoring dice and banks at BANK_AT or more."""

    name = "banker"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= BANK_AT and view.bank_allowed(keep))
'''


def arena(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*ARENA, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)
    if check and done.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)}: {done.returncode}\n{done.stderr}")
    return done


def independent_ratings(games_csv: str) -> dict[str, float]:
    """Plackett-Luce from the CSV alone: each game's finishing order."""
    games: dict[str, list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(games_csv)):
        games.setdefault(row["game"], []).append(row)
    orders: Counter = Counter()
    for rows in games.values():
        orders[finishing_order([r["player"] for r in rows], [int(r["rank"]) for r in rows])] += 1
    return {name: value[0] for name, value in plackett_luce_elo(orders).items()}


@pytest.mark.slow
def test_a_league_of_six_survives_a_sigkill_and_rates_every_pair_in_full(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "faulty.py").write_text(FAULTY)
    banker = bots / "banker.py"
    banker.write_text(BANKER.replace("BANK_AT", "300"))
    games = 20  # 300 games in all: enough for a kill mid-run (the chunks are 250 games, written every 10)
    arena("league", "init", str(folder), "--games", str(games), "--seed", "7")
    arena("league", "add", str(folder), str(banker))
    banker.write_text(BANKER.replace("BANK_AT", "600"))  # a new version of the same entrant
    added = arena("league", "add", str(folder), str(banker), "--name", "banker")
    assert "banker version 2" in added.stdout
    again = arena("league", "add", str(folder), str(banker))
    assert "nothing added" in again.stdout
    for spec in (
        "greedy",
        "random",
        str(bots / "faulty.py"),
        f"cmd:{sys.executable} strategies/external/greedy_bot.py",
    ):
        arena("league", "add", str(folder), spec)
    arena("league", "add", str(folder), "threshold:bank_at=400", "--name", "steady")
    refused = arena("league", "add", str(folder), str(bots / "missing.py"), check=False)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    league = League(folder)
    assert len(league.entries()) == 6

    run = subprocess.Popen(
        [*ARENA, "league", "run", str(folder), "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    db = league_db.database_path(folder)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # kill it once some games are stored, not all
        time.sleep(0.3)
        with sqlite3.connect(db) as c:
            stored = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        if stored > 0:
            break
    second = arena("league", "run", str(folder), check=False)
    assert second.returncode == 1 and "another `arena league run`" in second.stderr
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    with sqlite3.connect(db) as c:
        partial = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 0 < partial < 15 * games
    arena("league", "run", str(folder), "--workers", "2")

    with sqlite3.connect(db) as c:
        identities = c.execute("SELECT low, high, ruleset, deal, seat_order FROM games").fetchall()
        active = [r[0] for r in c.execute("SELECT id FROM entries WHERE active = 1")]
    assert len(identities) == len(set(identities))
    pairs = Counter((low, high) for low, high, *_ in identities if low in active and high in active)
    assert len(pairs) == 15 and set(pairs.values()) == {games}

    table = json.loads(arena("league", "table", str(folder), "--json").stdout)
    assert table["games"] == 15 * games
    expected = independent_ratings(arena("league", "games", str(folder)).stdout)
    assert {e["name"] for e in table["entries"]} == set(expected)
    for entry in table["entries"]:
        assert math.isclose(entry["rating"], expected[entry["name"]], abs_tol=1e-6)
        assert entry["rating_low"] < entry["rating"] < entry["rating_high"]
        assert entry["games"] == 5 * games
    faulty = next(e for e in table["entries"] if e["name"] == "faulty")
    assert faulty["faults"] > 0
    assert [e["rating"] for e in table["entries"]] == sorted(
        (e["rating"] for e in table["entries"]), reverse=True
    )
    banker_row = next(e for e in table["entries"] if e["name"] == "banker")
    assert banker_row["version"] == 2
    # Only the faulty entry faults: a stored file and a program play from where the league keeps them.
    assert {e["name"] for e in table["entries"] if e["faults"]} == {"faulty"}
    with sqlite3.connect(db) as c:
        replay = c.execute("SELECT replay FROM faults LIMIT 1").fetchone()[0]
    assert replay.startswith("arena play --rules standard --isolate") and "--seed" in replay
    # Whole games for the viewer: the first deal of every pair in both seat orders, and every
    # game with a fault, its fault in the record where it happened.
    with sqlite3.connect(db) as c:
        recorded = dict(c.execute("SELECT game, events FROM records"))
        first_deals = c.execute("SELECT id FROM games WHERE deal = 0").fetchall()
        faulted = {g for (g,) in c.execute("SELECT DISTINCT game FROM faults")}
        kept_later = c.execute("SELECT r.game FROM records r JOIN games g ON g.id = r.game WHERE g.deal > 0")
        later = {g for (g,) in kept_later}
    assert {g for (g,) in first_deals} <= set(recorded) and len(first_deals) == 2 * 15
    assert faulted and faulted <= set(recorded)
    assert later <= faulted  # no other game is kept
    for game in faulted:
        events = json.loads(recorded[game])["events"]
        assert any(e["type"] == "fault" for e in events) and events[-1]["type"] == "game_over"
    # Nothing left to play: a third run plays nothing.
    assert "played 0 games" in arena("league", "run", str(folder)).stdout


def test_a_league_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(LeagueError, match="holds no league"):
        League(tmp_path / "none")
    League.create(tmp_path / "a", games=2)
    with pytest.raises(LeagueError, match="already holds a league"):
        League.create(tmp_path / "a")
    with pytest.raises(LeagueError, match="at least 1"):
        League.create(tmp_path / "b", games=0)
    league = League(tmp_path / "a")
    with pytest.raises(LeagueError, match="unknown strategy"):
        league.add("no-such-bot")
    assert league.entries() == []


def test_a_newer_schema_is_refused_and_an_entry_is_stored_by_content(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=2)
    bot = tmp_path / "bot.py"
    bot.write_text(BANKER.replace("BANK_AT", "300"))
    entry, new = league.add(str(bot))
    assert new and entry.version == 1
    bot.write_text("this is not python any more")  # the league plays its own copy
    assert Path(entry.play_spec).read_text().startswith("\nfrom arena import Action")
    league.add("greedy")
    assert league.run(trusted=True, progress=False).played == 2
    with sqlite3.connect(league_db.database_path(tmp_path / "a")) as c:
        c.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(LeagueError, match="newer arena"):
        League(tmp_path / "a")


def test_a_new_entry_plays_only_its_own_games(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=4, seed=3)
    league.add("greedy")
    league.add("random")
    assert league.run(trusted=True, progress=False).played == 4
    before = league.games_csv()
    league.add("threshold:bank_at=300", name="steady")
    assert league.run(trusted=True, progress=False).played == 8
    after = league.games_csv()
    assert after.startswith(before)  # the old games stay, byte for byte
    assert league.table_json()["games"] == 12


def test_a_league_made_from_a_relative_path_plays_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "elsewhere").mkdir()
    bot = tmp_path / "here" / "bot.py"
    bot.write_text(BANKER.replace("BANK_AT", "350"))
    monkeypatch.chdir(tmp_path / "here")
    league = League.create("contest", games=2)
    league.add("bot.py")
    league.add("greedy")
    league.close()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the organiser runs it from somewhere else
    again = League(tmp_path / "here" / "contest")
    assert again.run(progress=False).played == 2 and again.run(progress=False).played == 0


SPY = """# the spy
import glob
import os

LEAGUE = LEAGUE_FOLDER


class Spy:
    \"\"\"Tells, in the reason of the fault it raises, the first line of each stored entry it
    could read.\"\"\"

    name = "spy"

    def decide(self, view):
        found = []
        for path in sorted(glob.glob(os.path.join(LEAGUE, "entries", "*", "*.py"))):
            try:
                with open(path) as f:
                    found.append(f.readline().strip())
            except OSError:
                pass
        raise RuntimeError("read: " + ",".join(found))
"""


def test_an_isolated_entry_reads_no_stored_entry_but_its_own(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    league = League.create(folder, games=2)
    banker = tmp_path / "banker.py"
    banker.write_text("# the banker" + BANKER.replace("BANK_AT", "300"))
    spy = tmp_path / "spy.py"
    spy.write_text(SPY.replace("LEAGUE_FOLDER", repr(str(folder.resolve()))))
    league.add(str(banker))
    league.add(str(spy))
    assert league.run(progress=False).played == 2
    with sqlite3.connect(league_db.database_path(folder)) as c:
        reasons = {r[0] for r in c.execute("SELECT reason FROM faults")}
    assert len(reasons) == 1
    seen = reasons.pop()
    # Its own copy at most (its seat may see it under another path); never the banker's.
    assert seen.startswith("RuntimeError: read:") and "banker" not in seen, seen
    league.close()
    # The probe works: played in arena's process (--trusted), it reads both stored entries.
    trusted = League.create(tmp_path / "open", games=2)
    trusted.add(str(banker))
    trusted.add(str(spy))
    assert trusted.run(trusted=True, progress=False).played == 2
    with sqlite3.connect(league_db.database_path(tmp_path / "open")) as c:
        (open_reason,) = {r[0] for r in c.execute("SELECT reason FROM faults")}
    assert "# the banker" in open_reason and "# the spy" in open_reason


def test_a_seat_is_kept_from_every_entry_folder_but_its_own(tmp_path: Path) -> None:
    from arena.sandbox import SeatLimits
    from arena.sandbox.seats import new_seat_process

    folders = [tmp_path / name for name in ("mine", "theirs", "third")]
    for folder in folders:
        folder.mkdir()
        (folder / "bot.py").write_text(BANKER.replace("BANK_AT", "300"))
    process = new_seat_process(
        f"{folders[0] / 'bot.py'}:Banker", SeatLimits(), hidden=(tmp_path / "run",), apart=tuple(folders)
    )
    assert process.hidden == (tmp_path / "run", folders[1], folders[2])
