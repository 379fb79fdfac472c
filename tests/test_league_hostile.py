"""A league against hostile entries and a careless organiser: a program changed after it was
added, a name taken from another entrant, an entry that sometimes fails to load, one that kills
its process, a damaged database, SIGTERM, an old version given again."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League, LeagueError
from arena.storage import league_db

REPO = Path(__file__).resolve().parents[1]
ARENA = [sys.executable, "-m", "arena.cli"]

BOT = '''
from arena import Action


class Bot:
    """Keeps the best dice, banks at BANK_AT."""

    name = "NAME"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= BANK_AT and view.bank_allowed(keep))
'''


def bot(path: Path, name: str = "bot", bank_at: int = 300, prefix: str = "") -> Path:
    path.write_text(prefix + BOT.replace("NAME", name).replace("BANK_AT", str(bank_at)))
    return path


def cli_run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_program_changed_after_it_was_added_is_not_played_until_added_again(tmp_path: Path) -> None:
    program = tmp_path / "gb.py"
    program.write_bytes((REPO / "strategies" / "external" / "greedy_bot.py").read_bytes())
    league = League.create(tmp_path / "a", games=2)
    league.add(f"cmd:{sys.executable} {program}")
    league.add("threshold")
    assert league.run(progress=False).played == 2
    program.write_text(program.read_text() + "\n# changed\n")
    league.add("random")
    report = league.run(progress=False)
    assert report.played == 2  # random against threshold; not against the changed program
    assert len(report.skipped) == 1 and "greedy-bot version 1: its program changed" in report.skipped[0]
    entry, new = league.add(f"cmd:{sys.executable} {program}", name="greedy-bot")
    assert new and entry.version == 2
    assert league.run(progress=False).played == 4 and league.run(progress=False).skipped == ()


def test_an_entry_may_not_take_another_entrants_name_unless_the_organiser_says_so(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=2)
    first, _ = league.add(str(bot(tmp_path / "real.py", "steady")))
    with pytest.raises(LeagueError, match="calls itself 'steady', the name of the entrant added from"):
        league.add(str(bot(tmp_path / "impostor.py", "steady", 900)))
    assert [e.id for e in league.entries()] == [first.id]  # the real one still plays
    assert len(list((tmp_path / "a" / "entries").iterdir())) == 1  # and nothing was stored
    second, new = league.add(str(tmp_path / "impostor.py"), name="steady")  # said by the organiser
    assert new and second.version == 2
    with pytest.raises(LeagueError, match="an earlier version of the entrant 'steady'"):
        league.add(str(tmp_path / "real.py"))  # not without the organiser's word
    again, new = league.add(str(tmp_path / "real.py"), name="steady")  # the first version plays again
    assert new and again.id == first.id and [e.id for e in league.entries()] == [first.id]
    league.close()
    impostor = str(tmp_path / "impostor.py")
    code, out, _ = cli_run("league", "add", str(tmp_path / "a"), impostor, "--name", "steady")
    assert code == 0 and out.strip() == "steady version 2 plays again"


def test_a_refused_add_keeps_the_stored_copy_an_active_entry_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.leagues import entries, play
    from arena.players import StrategyError

    flaky = bot(tmp_path / "flaky.py", "flaky")
    league = League.create(tmp_path / "a", games=2)
    league.add(str(flaky))
    league.add("greedy")
    real_load = entries.load_player

    def failing(text: str, **options):
        if "flaky" in text:  # the same bytes now fail to load (a bot that loads now and then)
            raise StrategyError(f"{text}: importing it failed: RuntimeError: not today")
        return real_load(text, **options)

    monkeypatch.setattr(entries, "load_player", failing)
    monkeypatch.setattr(play, "load_player", failing)
    with pytest.raises(LeagueError, match="importing it failed"):
        league.add(str(flaky))
    with pytest.raises(LeagueError, match="--name"):
        league.add(str(bot(tmp_path / "other.py", "other")), name="=x")  # refused after loading
    assert len(list((tmp_path / "a" / "entries").iterdir())) == 1  # flaky's copy, and no other
    report = league.run(progress=False)  # flaky can't load now: its games wait, nothing stops
    assert report.played == 0 and "flaky" in report.skipped[0] and "later run" in report.skipped[0]
    league.add("random")
    assert league.run(progress=False).played == 2  # random against greedy
    monkeypatch.setattr(play, "load_player", real_load)
    assert league.run(progress=False).played == 4  # flaky's games, once it loads again


def test_an_entry_that_kills_its_process_in_a_trusted_run_is_one_line(tmp_path: Path) -> None:
    killer = tmp_path / "killer.py"
    killer.write_text(
        BOT.replace("NAME", "killer")
        .replace("BANK_AT", "300")
        .replace(
            "        keep = view.legal_keeps[0]\n",
            "        import os, signal\n"
            "        os.kill(os.getppid(), signal.SIGKILL)\n"
            "        keep = view.legal_keeps[0]\n",
        )
    )
    league = League.create(tmp_path / "a", games=2)
    league.add(str(killer))
    league.add("greedy")
    with pytest.raises(LeagueError) as raised:
        league.run(trusted=True, progress=False)
    assert "\n" not in str(raised.value)


def test_a_damaged_database_is_one_line(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=2)
    league.add("greedy")
    league.add("random")
    league.run(trusted=True, progress=False)
    league.close()
    with sqlite3.connect(league_db.database_path(tmp_path / "a")) as c:
        c.execute("DELETE FROM meta WHERE key = 'settings'")
    code, _, err = cli_run("league", "table", str(tmp_path / "a"))
    assert code == 1 and err.strip().endswith("the league database is damaged: its settings are missing")
    path = league_db.database_path(tmp_path / "b")
    torn = League.create(tmp_path / "b", games=20)
    torn.add("greedy")
    torn.add("random")
    torn.run(trusted=True, progress=False)
    torn.close()
    data = bytearray(path.read_bytes())
    for page in range(1, len(data) // 4096):  # every page after the header's, torn
        data[page * 4096 + 8 : page * 4096 + 200] = b"\xff" * 192
    path.write_bytes(bytes(data))
    code, _, err = cli_run("league", "table", str(tmp_path / "b"))
    assert code == 1 and len(err.strip().splitlines()) == 1 and err.startswith("arena: error:")


def test_sigterm_stops_a_league_run_as_it_stops_a_tournament(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    League.create(folder, games=400).close()
    for spec in ("greedy", "random", "threshold"):
        subprocess.run([*ARENA, "league", "add", str(folder), spec], check=True, capture_output=True)
    run = subprocess.Popen(
        [*ARENA, "league", "run", str(folder), "--trusted"], stderr=subprocess.PIPE, text=True
    )
    database = league_db.database_path(folder)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the first batch is stored
        with sqlite3.connect(database) as c:
            if c.execute("SELECT COUNT(*) FROM games").fetchone()[0]:
                break
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 143 and "terminated: every game written so far is kept" in err
    with sqlite3.connect(database) as c:
        stored = c.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert 0 < stored < 1200
    assert League(folder).run(trusted=True, progress=False).played == 1200 - stored


def test_games_are_written_in_small_batches(tmp_path: Path) -> None:
    from arena.leagues.play import BATCH_GAMES, play_league

    league = League.create(tmp_path / "a", games=40)
    league.add("greedy")
    league.add("random")
    sizes: list[int] = []
    play_league(
        league.folder, league.connection, league.settings, trusted=True, progress=False,
        workers=2, on_batch=lambda r: sizes.append(r.stop - r.start),
    )  # fmt: skip
    assert sum(sizes) == 40 and max(sizes) <= BATCH_GAMES and len(sizes) >= 4


def test_a_second_submission_saved_at_the_first_ones_path_does_not_replace_it(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=2)
    path = bot(tmp_path / "bot.py", "alice")
    first, _ = league.add(str(path))
    bot(path, "alice", 900)  # another person's file, saved over alice's, calling itself alice
    with pytest.raises(LeagueError, match="calls itself 'alice', the name of the entrant added from"):
        league.add(str(path))
    assert [e.id for e in league.entries()] == [first.id]
    second, new = league.add(str(path), name="alice")  # the organiser says it is alice's
    assert new and second.version == 2


LOOK_ALIKES = [
    "\u043eptimal",  # a Cyrillic о
    "optim\u0430l",  # a Cyrillic а
    "optimal\ufe0f",  # a variation selector
    "optimal\u034f",  # the combining grapheme joiner
    "\uff4f\uff50\uff54\uff49\uff4d\uff41\uff4c",  # full width, the same name once normalised
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_name_that_reads_as_an_active_entrants_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    league = League.create(tmp_path / "a", games=2)
    league.add("threshold", name="optimal")
    impostor = bot(tmp_path / "impostor.py", name)  # the entry's own name, no --name
    code, _, err = cli_run("league", "add", str(tmp_path / "a"), str(impostor))
    assert code == 1 and err.count("\n") == 1, err
    named = ("looks like the active entrant 'optimal'", "calls itself 'optimal'", "invisible character")
    assert any(words in err for words in named), err
    assert [e.name for e in League(tmp_path / "a").entries()] == ["optimal"]


def test_names_in_any_script_are_accepted_and_normalised(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=2)
    for name in ("Jürgen", "小明", "Ολυμπία", "\uff42\uff4f\uff54"):
        league.add("greedy", name=name)
    assert [e.name for e in league.entries()] == ["Jürgen", "小明", "Ολυμπία", "bot"]
