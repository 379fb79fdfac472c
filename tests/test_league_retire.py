"""Issue 39, point 5: an organiser withdraws an entrant (`arena league retire`) and brings it
back (`reinstate`).  A retired entrant plays no new game; its games stay in the history and
in the standings, marked retired; its name stays reserved (docs/league.md, "Retired entrants")."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League, LeagueError
from arena.storage import league_db
from tests.test_league import independent_ratings


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


def three_played(folder: Path) -> League:
    """greedy, steady and random, every pair played (4 games a pair)."""
    league = League.create(folder, games=4, seed=11)
    league.add("greedy")
    league.add("threshold:bank_at=300", name="steady")
    league.add("random")
    assert league.run(trusted=True, progress=False).played == 12
    return league


def test_a_retired_entrant_plays_no_new_game_and_its_games_keep_counting(tmp_path: Path) -> None:
    league = three_played(tmp_path / "league")
    before = league.games_csv()
    done = league.retire("random")
    assert (done.name, done.version, done.retired, done.changed, done.games) == ("random", 1, True, True, 8)
    assert [e.name for e in league.entries()] == ["greedy", "steady"]  # the entries that play
    league.add("threshold:bank_at=500", name="bold")
    # bold meets greedy and steady only: 8 games, none against the retired entrant.
    assert league.run(trusted=True, progress=False).played == 8
    games = league.games_csv()
    assert games.startswith(before)  # its games stay in the history, byte for byte
    pairs = {tuple(sorted(line.split(",")[5] for line in group)) for group in _games(games).values()}
    assert ("bold", "random") not in pairs and ("greedy", "random") in pairs
    table = league.table_json()
    rows = {e["name"]: e for e in table["entries"]}
    assert table["games"] == 20 and set(rows) == {"greedy", "steady", "random", "bold"}
    assert [name for name, e in rows.items() if e["retired"]] == ["random"]
    assert rows["random"]["games"] == 8 and rows["greedy"]["games"] == 12
    # Its games count for the others' ratings: the standings are one fit over every game shown.
    expected = independent_ratings(games)
    for name, row in rows.items():
        assert row["rating"] == pytest.approx(expected[name], abs=1e-6)
    # Reinstated, it plays the games it missed, and only those: against bold.
    back = league.reinstate("random")
    assert (back.retired, back.changed, back.since) == (False, True, None)
    assert league.run(trusted=True, progress=False).played == 4
    assert not any(e["retired"] for e in league.table_json()["entries"])
    assert league.table_json()["games"] == 24


def _games(csv_text: str) -> dict[str, list[str]]:
    games: dict[str, list[str]] = {}
    for line in csv_text.splitlines()[1:]:
        games.setdefault(line.split(",")[1], []).append(line)
    return games


def test_a_retired_entrants_name_stays_reserved(tmp_path: Path) -> None:
    league = three_played(tmp_path / "league")
    league.retire("random")
    stored = league.connection.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    reserved = r"^random calls itself 'random', the name of an entrant retired since "
    with pytest.raises(LeagueError, match=reserved):
        league.add("random")  # another student's entry of that name
    waits = r"^random is retired \(since .*\): reinstate it first with `arena league reinstate "
    with pytest.raises(LeagueError, match=waits):
        league.add("greedy", name="random")  # the organiser's new version waits for reinstate
    with pytest.raises(LeagueError, match=r"looks like the retired entrant 'random' \(it has 'а', U\+0430"):
        league.add("greedy", name="rаndom")  # a Cyrillic а
    assert league.connection.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == stored
    league.reinstate("random")
    entry, status = league.add_entry("threshold:bank_at=200", name="random")
    assert (entry.name, entry.version, status) == ("random", 2, "added")


def test_retire_and_reinstate_on_the_command_line(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    three_played(folder).close()
    f = str(folder)
    retired = invoke("league", "retire", f, "random")
    assert retired.exit_code == 0
    assert retired.output == (
        "retired random version 1: it plays no new games from the next `league run` on; its 8 games "
        "stay in the standings, and its name stays reserved\n"
    )
    again = invoke("league", "retire", f, "random", "--json")
    shown = json.loads(again.output)
    assert again.exit_code == 0 and shown["changed"] is False and shown["retired"] is True
    assert shown["since"].endswith("+00:00") and shown["games"] == 8
    text = invoke("league", "table", f).output.splitlines()
    assert text[0] == "12 games between active and retired entries"
    assert [line.split()[1:3] for line in text[2:5]].count(["random", "(retired)"]) == 1
    table = json.loads(invoke("league", "table", f, "--json").output)
    marked = {e["name"]: e["retired"] for e in table["entries"]}
    assert marked == {"greedy": False, "steady": False, "random": True}
    back = invoke("league", "reinstate", f, "random")
    assert back.output == "reinstated random version 1: the next `league run` plays the games it missed\n"
    assert invoke("league", "reinstate", f, "random").output == "random is not retired: nothing changed\n"
    assert invoke("league", "table", f).output.splitlines()[0] == "12 games between active entries"
    for command in ("retire", "reinstate"):
        unknown = invoke("league", command, f, "nobody")
        assert unknown.exit_code == 1
        assert unknown.output == (
            f"arena: error: {f} has no entrant named 'nobody' (`arena league table {f}` lists them)\n"
        )


def test_a_schema_4_league_is_upgraded_to_hold_retirements(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    league = three_played(folder)
    before = league.games_csv()
    league.close()
    with sqlite3.connect(league_db.database_path(folder)) as c:  # as schema 4 left it
        c.execute("DROP TABLE retirements")
        c.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    again = League(folder, read_only=True)  # even a reader upgrades it, in place
    version = again.connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert int(version) == league_db.SCHEMA_VERSION == 5
    assert again.games_csv() == before
    again.close()
    writer = League(folder)
    assert writer.retire("steady").changed
    assert [e.name for e in writer.entries()] == ["greedy", "random"]


def test_a_plan_cut_short_waits_while_its_entrant_is_retired_and_ends_once_reinstated(
    tmp_path: Path,
) -> None:
    """A run stopped in the middle of steady's plan against greedy and random; random retired:
    the next run plays none of random's games; reinstated, every pair ends with its games, each
    stored once."""
    from arena.leagues.play import play_league

    league = League.create(tmp_path / "league", games=20, seed=5)
    league.add("greedy")
    league.add("random")
    assert league.run(trusted=True, progress=False).played == 20
    league.add("threshold:bank_at=300", name="steady")

    def stop(_: object) -> None:
        raise KeyboardInterrupt  # as Ctrl-C after the first batch

    cut = play_league(
        league.folder, league.connection, league.settings, trusted=True, progress=False, on_batch=stop
    )
    assert cut.interrupted and cut.played == 10
    ids = {e.name: e.id for e in league.entries()}

    def pairs() -> dict[frozenset[str], int]:
        names = {v: k for k, v in ids.items()}
        rows = league.connection.execute("SELECT low, high, COUNT(*) FROM games GROUP BY low, high")
        return {frozenset((names[low], names[high])): n for low, high, n in rows}

    random_games = pairs().get(frozenset(("steady", "random")), 0)
    league.retire("random")
    league.run(trusted=True, progress=False)
    assert pairs().get(frozenset(("steady", "random")), 0) == random_games  # none played while retired
    assert pairs()[frozenset(("steady", "greedy"))] == 20
    league.reinstate("random")
    league.run(trusted=True, progress=False)
    assert set(pairs().values()) == {20} and len(pairs()) == 3
    assert league.table_json()["games"] == 60


def test_a_retired_students_status_page_says_retired_and_names_replaced_versions(tmp_path: Path) -> None:
    """The submission status page (league serve --submit) uses the league's words: a version a newer
    one replaced is "replaced"; an entrant the organiser retired is "retired" and waits for no game."""
    from arena.leagues.submit_pages import status_page
    from arena.storage.league_db import open_league

    league = three_played(tmp_path / "league")
    league.add("threshold:bank_at=350", name="steady")
    with open_league(tmp_path / "league", read_only=True) as connection:
        playing = status_page(connection, "steady")
    assert "<td>replaced</td>" in playing and "<td>plays</td>" in playing
    assert "games to play" in playing
    league.retire("steady")
    with open_league(tmp_path / "league", read_only=True) as connection:
        withdrawn = status_page(connection, "steady")
    assert "<td>retired</td>" in withdrawn and "<td>plays</td>" not in withdrawn
    assert "the organiser retired it" in withdrawn and "games to play" not in withdrawn


def test_the_games_said_to_be_missing_leave_out_a_retired_entrants_pairs(tmp_path: Path) -> None:
    """A retired entrant owes no game (a run leaves it out): the leaderboard's progress line and a
    student's status page count as missing only what the next run plays, not the pairs of a
    retired entrant (found by review: 20 "missing" that no run would ever play)."""
    from arena.leagues.board import missing_games
    from arena.leagues.submit_pages import status_page
    from arena.storage.league_db import open_league

    league = three_played(tmp_path / "league")
    league.retire("random")
    league.add("threshold:bank_at=350", name="steady")  # steady v2 owes greedy 4, random nothing
    with open_league(tmp_path / "league", read_only=True) as connection:
        missing = missing_games(connection, league_db.settings(connection))
        page = status_page(connection, "steady")
    assert missing == 4
    assert "has 4 games to play" in page
    assert league.run(trusted=True, progress=False).played == 4
    with open_league(tmp_path / "league", read_only=True) as connection:
        assert missing_games(connection, league_db.settings(connection)) == 0
        assert "has all its games" in status_page(connection, "steady")


def test_retire_counts_the_games_that_stay_in_the_standings_as_the_table_does(tmp_path: Path) -> None:
    """`retired random version 1: ... its N games stay in the standings`: N is its row's count,
    not also its games against versions since replaced, which only the history keeps (review:
    "its 66 games" for a row of 40)."""
    league = three_played(tmp_path / "league")
    league.add("threshold:bank_at=350", name="steady")  # random's 4 games against steady v1 leave
    assert league.run(trusted=True, progress=False).played == 8
    done = league.retire("random")
    rows = {e["name"]: e for e in league.table_json()["entries"]}
    assert done.games == rows["random"]["games"] == 8
    assert invoke("league", "reinstate", str(tmp_path / "league"), "random").exit_code == 0
    assert (
        "its 8 games stay in the standings"
        in invoke("league", "retire", str(tmp_path / "league"), "random").output
    )
