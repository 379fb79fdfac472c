"""issue 39, points 3 and 9: a league plays from any folder, says which games wait, and a rerun
after a kill plays only the games the league lacks.

- A ``cmd:`` entry added with relative paths plays from any folder and from a moved league
  (docs/league.md, "Commands from any folder").
- An entry that can't play holds up its own games only: ``league run`` names it, says how many
  games wait and exits 3; ``--skip NAME`` plays the others knowingly and exits 0.
- A run killed with SIGKILL, whose plan a new version then drops: the rerun plays only the
  missing games, and its count is what it stored.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League
from arena.leagues.web import export_site
from arena.storage import league_db

ROOT = Path(__file__).resolve().parent.parent
GREEDY_BOT = ROOT / "strategies" / "external" / "greedy_bot.py"

NAPPER = '''
import time

from arena import Action


class Napper:
    """Banks at once, after a nap on every decision: a slow entry, so a run is killed mid-way."""

    name = "napper"

    def decide(self, view):
        time.sleep(0.02)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))
'''


def _wait_for_the_lock(folder: Path) -> None:
    """Until the stopped run's last chunk process is gone: a forked process holds the run lock
    until it exits (a stopped run kills its chunks, and they die a moment later)."""
    import fcntl

    deadline = time.monotonic() + 60
    with open(folder / "data" / "run.lock", "rb") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                assert time.monotonic() < deadline, "the stopped run's processes still hold the lock"
                time.sleep(0.05)
                continue
            fcntl.flock(lock, fcntl.LOCK_UN)
            return


def cli_run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _bots(folder: Path) -> None:
    """A bot program run by an interpreter, and one run as a program of its own."""
    folder.mkdir(parents=True)
    shutil.copy(GREEDY_BOT, folder / "greedy_bot.py")
    program = folder / "alice"
    program.write_text(f"#!{sys.executable}\n" + GREEDY_BOT.read_text())
    program.chmod(0o755)


def test_commands_added_with_relative_paths_play_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "class"
    _bots(home / "bots")
    monkeypatch.chdir(home)
    league = League.create("league", games=2)
    league.add(f"cmd:{sys.executable} bots/greedy_bot.py bob")
    league.add("cmd:bots/alice alice")
    league.add("threshold")
    league.close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = cli_run("league", "run", str(home / "league"))
    assert (code, out, err) == (0, "played 6 games (0 faults)\n", "")
    # The entry still stands for what it was added as: an edit of its file is a change.
    (home / "bots" / "greedy_bot.py").write_text(GREEDY_BOT.read_text() + "\n# changed\n")
    League(home / "league").add("random")
    code, out, err = cli_run("league", "run", str(home / "league"))
    assert code == 3 and "bob version 1: its program changed since it was added" in err


def test_a_moved_league_plays_its_commands_and_files_from_inside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "league"
    league = League.create(folder, games=2)
    _bots(folder / "bots")
    (folder / "bots" / "napper.py").write_text(NAPPER.replace("time.sleep(0.02)", "pass"))
    monkeypatch.chdir(folder)
    league.add(f"cmd:{sys.executable} bots/greedy_bot.py bob")
    league.add("cmd:./bots/alice alice")
    league.add("bots/napper.py")
    stored = [row[0] for row in league.connection.execute("SELECT play_spec FROM entries ORDER BY id")]
    assert stored[:2] == [
        f"cmd:{sys.executable} '{{league}}/bots/greedy_bot.py' bob",
        "cmd:'{league}/bots/alice' alice",
    ]
    league.close()
    moved = tmp_path / "moved" / "here"
    moved.parent.mkdir()
    shutil.move(folder, moved)
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_run("league", "run", str(moved))
    assert (code, out, err) == (0, "played 6 games (0 faults)\n", "")
    site = tmp_path / "site"
    export_site(moved, site)
    pages = [p.read_text() for p in site.rglob("*.html")]
    assert pages and not any(str(tmp_path) in page for page in pages)


def test_games_that_wait_are_named_counted_and_exit_3_unless_skipped(tmp_path: Path) -> None:
    program = tmp_path / "greedy_bot.py"
    shutil.copy(GREEDY_BOT, program)
    folder = str(tmp_path / "league")
    league = League.create(folder, games=2)
    league.add(f"cmd:{sys.executable} {program} bob")
    league.add("greedy")
    league.add("threshold")
    league.close()
    program.write_text(GREEDY_BOT.read_text() + "\n# changed\n")
    code, out, err = cli_run("league", "run", folder)
    assert code == 3
    assert out == "played 2 games (0 faults); 4 games wait\n"
    assert err == (
        "arena: warning: bob version 1: its program changed since it was added (arena league add it "
        "again to play the new version); 4 of its games wait for a later run (arena league run "
        "--skip bob plays the others knowingly)\n"
    )
    code, out, err = cli_run("league", "run", folder, "--skip", "bob")
    assert (code, out) == (0, "played 0 games (0 faults); 4 games wait\n")
    assert err == "arena: warning: bob version 1: left out with --skip; 4 of its games wait for a later run\n"
    code, out, err = cli_run("league", "run", folder, "--skip", "carol")
    assert (code, out, err) == (1, "", "arena: error: --skip 'carol': no active entrant has that name\n")


def test_a_rerun_after_a_kill_plays_only_the_missing_games(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    napper = tmp_path / "napper.py"
    napper.write_text(NAPPER)
    league = League.create(folder, games=40, seed=3)
    league.add("threshold")  # entry 1
    league.add(str(napper))  # entry 2
    league.add("greedy")  # entry 3, the newest: its plan meets threshold and napper, deal by deal
    league.close()
    run = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", "run", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    db = league_db.database_path(folder)
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and stored == 0:  # killed once a write is in, long before the end
        time.sleep(0.05)
        with sqlite3.connect(db) as c:
            stored = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    with sqlite3.connect(db) as c:
        stored = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        kept = c.execute("SELECT COUNT(*) FROM games WHERE low = 1 AND high = 3").fetchone()[0]
    assert 0 < kept < 40  # some of greedy's games against threshold are stored, not all
    league = League(folder)
    league.add("random", name="napper")  # a new version: the killed plan (3, 1, 2) is dropped
    report = league.run(progress=False)
    with sqlite3.connect(db) as c:
        after = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    # 3 pairs of active entries, 40 games each; the run played exactly the ones missing.
    assert report.played == after - stored == 3 * 40 - kept
    assert league.run(progress=False).played == 0


def test_a_plan_stopped_mid_way_whose_entry_then_cant_play_leaves_only_that_entrys_games(
    tmp_path: Path,
) -> None:
    from arena.leagues.play import play_league

    program = tmp_path / "greedy_bot.py"
    shutil.copy(GREEDY_BOT, program)
    folder = tmp_path / "league"
    league = League.create(folder, games=20, seed=5)
    league.add("threshold")  # entry 1
    league.add(f"cmd:{sys.executable} {program} bob")  # entry 2
    league.add("greedy")  # entry 3: its plan meets 1 and 2, deal by deal

    def stop(_result: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C once the first batch is written

    first = play_league(folder, league.connection, league.settings, progress=False, on_batch=stop)
    assert first.interrupted and first.played == 10
    pairs = dict(
        league.connection.execute("SELECT low || '-' || high, COUNT(*) FROM games GROUP BY low, high")
    )
    assert pairs == {"1-3": 6, "2-3": 4}  # deals 0-2 against threshold, 0-1 against bob
    program.write_text(GREEDY_BOT.read_text() + "\n# changed\n")  # bob can't play now
    _wait_for_the_lock(folder)
    report = league.run(progress=False)
    # greedy's stopped plan waited for bob before; now its games against threshold are played.
    assert report.played == 20 - 6
    assert report.games_waiting == 20 + (20 - 4) and [(w.name, w.games) for w in report.waiting] == [
        ("bob", 36)
    ]
    assert report.must_wait
    # bob plays again, unchanged: its pairs are planned afresh, each missing stretch in one
    # piece (4 batches of at most 10 games: 16 games against greedy, 20 against threshold), not
    # the stopped plan resumed one deal at a time between the stored games of another pair.
    program.write_text(GREEDY_BOT.read_text())
    batches: list[tuple[int, int]] = []
    again = play_league(
        folder,
        league.connection,
        league.settings,
        progress=False,
        on_batch=lambda r: batches.append((r.start, r.stop)),
    )
    assert again.played == 16 + 20 and again.games_waiting == 0 and not again.must_wait
    assert len(batches) == 4
    assert league.run(progress=False).played == 0


def test_a_command_stored_by_an_older_arena_with_relative_paths_says_where_it_plays_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.leagues.entries import content_sha

    home = tmp_path / "class"
    _bots(home / "bots")
    monkeypatch.chdir(home)
    league = League.create("league", games=2)
    typed = f"cmd:{sys.executable} bots/greedy_bot.py bob"
    league.add(typed)
    league.add("greedy")
    with league.connection:  # as an arena before anchoring stored it: the spec as typed
        league.connection.execute(
            "UPDATE entries SET play_spec = spec, content_sha256 = ? WHERE name = 'bob'",
            (content_sha(typed, "command"),),
        )
    league.close()
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_run("league", "run", str(home / "league"))
    assert code == 3 and out == "played 0 games (0 faults); 2 games wait\n"
    assert err.startswith(
        "arena: warning: bob version 1: the files its command names changed or are not found (it was "
        "added with paths relative to the folder it was added from: run the league from there, or "
        "arena league add it again, which stores its paths for any folder); 2 of its games wait"
    )
    monkeypatch.chdir(home)
    assert cli_run("league", "run", "league") == (0, "played 2 games (0 faults)\n", "")


def test_a_command_word_that_begins_with_the_league_mark_is_refused_at_add(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    League.create(folder, games=2).close()
    spec = f"cmd:{sys.executable} {{league}}/data/league.sqlite"
    code, out, err = cli_run("league", "add", str(folder), spec)
    assert (code, out) == (1, "")
    assert err == (
        f"arena: error: {spec}: '{{league}}/data/league.sqlite' begins with {{league}}, which a league "
        "keeps for its own folder\n"
    )
    assert League(folder).entries() == []


def test_anchoring_makes_paths_absolute_or_league_relative_and_leaves_other_words(tmp_path: Path) -> None:
    from arena.leagues.entry_paths import anchor_command, concrete_command

    league = tmp_path / "league"
    (league / "bots").mkdir(parents=True)
    (league / "bots" / "a.js").write_text("")
    (tmp_path / "mybot").mkdir()
    (tmp_path / "w.bin").write_text("")
    typed = "cmd:node league/bots/a.js --model=w.bin w.bin -m mybot mybot fast ./run.sh"
    stored = anchor_command(typed, tmp_path, league)
    # A program on PATH, an option, the module after -m and words that name nothing stay.
    assert stored == (
        f"cmd:node '{{league}}/bots/a.js' --model=w.bin {tmp_path}/w.bin -m mybot {tmp_path}/mybot "
        "fast ./run.sh"
    )
    moved = tmp_path / "elsewhere"
    assert concrete_command(stored, moved) == (
        f"cmd:node {moved}/bots/a.js --model=w.bin {tmp_path}/w.bin -m mybot {tmp_path}/mybot fast ./run.sh"
    )
    assert anchor_command("cmd:./run.sh x", tmp_path, league) == f"cmd:{tmp_path}/run.sh x"  # a program path


def test_a_program_found_on_path_says_which_one_path_finds_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command added as ``python3 bot.py`` in one virtual environment, run from a shell where
    PATH finds another ``python3``: the entry's program did change (another interpreter), but no
    file of the student's did, so the warning says which program PATH finds now (review)."""
    program = tmp_path / "greedy_bot.py"
    shutil.copy(GREEDY_BOT, program)
    for env in ("venv1", "venv2"):
        wrapper = tmp_path / env / "python3"
        wrapper.parent.mkdir()
        wrapper.write_text(f'#!/bin/sh\n# {env}\nexec {sys.executable} "$@"\n')
        wrapper.chmod(0o755)
    base = os.environ.get("PATH", "")
    monkeypatch.setenv("PATH", f"{tmp_path / 'venv1'}{os.pathsep}{base}")
    folder = str(tmp_path / "league")
    league = League.create(folder, games=2)
    league.add(f"cmd:python3 {program} bob")
    league.add("greedy")
    league.close()
    monkeypatch.setenv("PATH", f"{tmp_path / 'venv2'}{os.pathsep}{base}")
    code, _, err = cli_run("league", "run", folder)
    assert code == 3
    assert (
        "bob version 1: its program changed since it was added (arena league add it again to play "
        "the new version; if no file changed, PATH may find another python3 than when it was added: "
        f"it finds {tmp_path / 'venv2' / 'python3'} now); 2 of its games wait"
    ) in err
