"""Issue 39: a ladder schedule for large fields (arena/leagues/ladder.py, docs/league.md,
"Ladder").  A newcomer plays opponents near its rating, in rounds, until its 95% interval is
narrower than the league's width: the same games on any number of workers, fewer games than the
round robin, and a rating close to the round robin's."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League, LeagueError
from arena.leagues.board import missing_games
from arena.leagues.ladder import ROUND_OPPONENTS, Round, active_ratings, next_round
from arena.leagues.play import play_league
from arena.storage import league_db

#: A field of known spread: from about -450 (random) to about +300 (tactician, optimal).
FIELD = [
    "random",
    "greedy",
    "threshold:bank_at=200,min_dice=1",
    "threshold:bank_at=300,min_dice=2",
    "threshold:bank_at=350",
    "threshold:bank_at=1000,min_dice=1",
    "threshold:bank_at=2000,min_dice=1",
    "threshold:bank_at=300,min_dice=5",
    "threshold:bank_at=600,min_dice=4",
    "tactician",
    "optimal",
]
NEWCOMER = "threshold:bank_at=150,min_dice=6"
GAMES = 10
WIDTH = 200.0


def _field_league(folder: Path, schedule: str = "round-robin") -> League:
    """The field, rated by a round robin, and the newcomer added (not yet played)."""
    league = League.create(folder, games=GAMES, seed=39, schedule=schedule, interval_width=WIDTH)
    for k, spec in enumerate(FIELD):
        league.add(spec, name=f"e{k:02d}")
    league.change_schedule("round-robin")
    league.run(trusted=True)
    league.add(NEWCOMER, name="newcomer")
    league.change_schedule(schedule)
    return league


def _newcomer_id(league: League) -> int:
    return next(e.id for e in league.entries() if e.name == "newcomer")


def _newcomer_games(league: League) -> list[tuple]:
    """The newcomer's stored games, as comparable rows: pair, deal, seat order, seed, seats."""
    newcomer = _newcomer_id(league)
    rows = league.connection.execute(
        "SELECT g.low, g.high, g.ruleset, g.deal, g.seat_order, g.seed, s.seat, s.entry, s.score, s.rank "
        "FROM games g JOIN seats s ON s.game = g.id WHERE ? IN (g.low, g.high) ORDER BY g.low, g.high, "
        "g.ruleset, g.deal, g.seat_order, s.seat",
        (newcomer,),
    ).fetchall()
    return [tuple(r) for r in rows]


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> tuple[League, League]:
    """(the round robin, the ladder) of the same field and newcomer, on the same seed."""
    base = tmp_path_factory.mktemp("ladder")
    robin = _field_league(base / "robin")
    robin.run(trusted=True)
    ladder = _field_league(base / "ladder", "ladder")
    ladder.run(trusted=True)
    return robin, ladder


# The rule itself, on ratings given by hand.


def test_a_newcomer_without_a_rating_meets_the_rated_entries_nearest_the_fields_median() -> None:
    ratings = {
        1: (-300.0, -330.0, -270.0),
        2: (-20.0, -50.0, 10.0),
        3: (40.0, 10.0, 70.0),
        4: (500.0, 470.0, 530.0),
    }
    # The median of the field is +10; entries 2 and 3 are 30 from it, and 5 (unrated) comes last.
    assert next_round([1, 2, 3, 4, 5, 6], ratings, set(), 100.0) == Round(6, (2, 3))


def test_a_rated_head_meets_the_unmet_entries_nearest_its_own_rating_older_first_on_a_tie() -> None:
    ratings = {
        1: (100.0, 80.0, 120.0),
        2: (-100.0, -120.0, -80.0),
        3: (300.0, 280.0, 320.0),
        4: (0.0, -150.0, 150.0),
    }
    met = {frozenset((4, 3))}
    # 1 and 2 are both 100 from the head's 0 (1 is older); 3 is met in full.
    assert next_round([1, 2, 3, 4], ratings, met, 100.0) == Round(4, (1, 2))


def test_a_placed_entry_plays_no_round_and_one_that_met_everyone_stops_too() -> None:
    narrow = {i: (0.0, -40.0, 40.0) for i in (1, 2, 3)}
    assert next_round([1, 2, 3], narrow, set(), 100.0) is None  # every interval is 80 wide
    wide = {i: (0.0, -80.0, 80.0) for i in (1, 2, 3)}
    everyone = {frozenset(p) for p in ((1, 2), (1, 3), (2, 3))}
    assert next_round([1, 2, 3], wide, everyone, 100.0) is None
    # The newest entry that is not placed and has someone left to meet heads the round.
    assert next_round([1, 2, 3], {**narrow, 2: wide[2]}, set(), 100.0) == Round(2, (1, 3))


def test_an_interval_exactly_the_width_is_not_narrower() -> None:
    assert next_round([1, 2], {1: (0.0, -50.0, 50.0), 2: (0.0, -10.0, 10.0)}, set(), 100.0) == Round(1, (2,))


# The ladder in a league.


def test_the_ladders_ratings_are_the_tables(leagues: tuple[League, League]) -> None:
    _, ladder = leagues
    table = ladder.table()
    by_name = {e.name: e.id for e in ladder.entries()}
    ratings = active_ratings(ladder.connection)
    for row in table.itertuples():
        assert ratings[by_name[row.name]] == (row.rating, row.rating_low, row.rating_high)


def test_the_newcomer_stops_in_the_first_round_that_makes_its_interval_narrower_than_the_width(
    leagues: tuple[League, League], tmp_path: Path
) -> None:
    _, ladder = leagues
    newcomer = _newcomer_id(ladder)
    rounds = ladder.connection.execute(
        "SELECT id, players FROM plans WHERE json_extract(players, '$[0]') = ? ORDER BY id", (newcomer,)
    ).fetchall()
    assert len(rounds) >= 2  # the check below means something only with a round before the last
    assert all(len(json.loads(r["players"])) == 1 + ROUND_OPPONENTS for r in rounds)
    low, high = active_ratings(ladder.connection)[newcomer][1:]
    assert high - low < WIDTH
    # Without its last round, the newcomer's interval was not yet narrow enough.
    copy = tmp_path / "before-last-round"
    shutil.copytree(
        ladder.folder / "data", copy / "data", ignore=shutil.ignore_patterns("*.lock", "seat-logs")
    )
    connection = sqlite3.connect(copy / "data" / "league.sqlite")
    connection.row_factory = sqlite3.Row
    with connection:
        connection.execute(
            "DELETE FROM seats WHERE game IN (SELECT id FROM games WHERE plan = ?)", (rounds[-1]["id"],)
        )
        connection.execute(
            "DELETE FROM records WHERE game IN (SELECT id FROM games WHERE plan = ?)", (rounds[-1]["id"],)
        )
        connection.execute(
            "DELETE FROM faults WHERE game IN (SELECT id FROM games WHERE plan = ?)", (rounds[-1]["id"],)
        )
        connection.execute("DELETE FROM games WHERE plan = ?", (rounds[-1]["id"],))
    low, high = active_ratings(connection)[newcomer][1:]
    assert high - low >= WIDTH


def test_the_newcomer_plays_fewer_games_than_the_round_robin_the_same_games_and_rates_close(
    leagues: tuple[League, League],
) -> None:
    robin, ladder = leagues
    robin_games, ladder_games = _newcomer_games(robin), _newcomer_games(ladder)
    assert len(robin_games) == 2 * GAMES * len(FIELD)  # two seats a game
    assert 0 < len(ladder_games) < len(robin_games)
    # A pair's dice are keyed by the pair alone, so the ladder played some of the round robin's
    # very games: the same seeds, the same scores.
    assert set(ladder_games) < set(robin_games)
    # The round robin's rating of the newcomer lies inside the ladder's 95% interval.
    rating, low, high = (
        ladder.table().set_index("name").loc["newcomer", ["rating", "rating_low", "rating_high"]]
    )
    robin_rating = robin.table().set_index("name").loc["newcomer", "rating"]
    assert low < robin_rating < high
    assert abs(rating - robin_rating) < WIDTH / 2


def test_a_ladder_plays_the_same_games_on_any_number_of_workers(tmp_path: Path) -> None:
    csvs = []
    for workers in (1, 2):
        league = League.create(
            tmp_path / f"w{workers}", games=GAMES, seed=7, schedule="ladder", interval_width=250
        )
        for k, spec in enumerate(FIELD[:6]):
            league.add(spec, name=f"e{k:02d}")
        report = league.run(trusted=True, workers=workers)
        assert report.played > 0
        plans = league.connection.execute("SELECT players FROM plans ORDER BY id").fetchall()
        csvs.append((league.games_csv(), [p[0] for p in plans]))
    assert csvs[0] == csvs[1]
    assert len(csvs[0][1]) > 1  # more than one round, each chosen on the ratings before it


def test_a_rerun_of_a_finished_ladder_plays_nothing(leagues: tuple[League, League]) -> None:
    _, ladder = leagues
    assert ladder.run(trusted=True).played == 0


def test_a_round_robin_after_a_ladder_fills_in_the_pairs_it_left(tmp_path: Path) -> None:
    league = League.create(tmp_path / "l", games=2, seed=3, schedule="ladder", interval_width=1000)
    for k, spec in enumerate(FIELD[:5]):
        league.add(spec, name=f"e{k:02d}")
    first = league.run(trusted=True).played
    league.change_schedule("round-robin")
    second = league.run(trusted=True).played
    assert first + second == 10 * 2  # 10 pairs, 2 games each: no game played twice
    assert 0 < first < 10 * 2 and second > 0


# Settings and the command line.


def test_init_stores_the_schedule_and_run_changes_it(tmp_path: Path) -> None:
    runner = CliRunner()
    folder = str(tmp_path / "l")
    result = runner.invoke(
        cli,
        ["league", "init", folder, "--seed", "1", "--schedule", "ladder", "--interval-width", "80", "--json"],
    )
    assert result.exit_code == 0, result.output
    said = json.loads(result.stdout)
    assert (said["schedule"], said["interval_width"]) == ("ladder", 80.0)
    assert League(folder).schedule() == ("ladder", 80.0)
    result = runner.invoke(cli, ["league", "run", folder, "--interval-width", "60", "--trusted"])
    assert result.exit_code == 0, result.output
    assert League(folder).schedule() == ("ladder", 60.0)
    result = runner.invoke(cli, ["league", "run", folder, "--schedule", "round-robin", "--trusted"])
    assert League(folder).schedule() == ("round-robin", 60.0)


def test_a_league_made_before_schedules_plays_a_round_robin(tmp_path: Path) -> None:
    League.create(tmp_path / "l", games=2, seed=1).close()
    connection = league_db.open_league(tmp_path / "l")
    settings = league_db.settings(connection)
    del settings["schedule"], settings["interval_width"]
    league_db.store_settings(connection, settings)
    connection.close()
    assert League(tmp_path / "l").schedule() == ("round-robin", 100.0)


@pytest.mark.parametrize("width", ["0", "-5", "nan", "inf"])
def test_an_interval_width_that_is_not_a_positive_number_is_one_line(tmp_path: Path, width: str) -> None:
    result = CliRunner().invoke(
        cli, ["league", "init", str(tmp_path / "l"), "--schedule", "ladder", "--interval-width", width]
    )
    assert result.exit_code == 1
    assert (
        result.stderr.count("\n") == 1
        and "--interval-width must be a positive number of Elo" in result.stderr
    )
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("schedule", "swiss", 'schedule setting is "swiss"'),
        ("interval_width", -1, "interval_width setting must be a positive number of Elo, got -1"),
        ("interval_width", "wide", 'got "wide"'),
    ],
)
def test_a_stored_schedule_setting_that_cant_be_played_is_one_line(
    tmp_path: Path, key: str, value: object, said: str
) -> None:
    League.create(tmp_path / "l", games=2, seed=1).close()
    connection = league_db.open_league(tmp_path / "l")
    league_db.store_settings(connection, {**league_db.settings(connection), key: value})
    connection.close()
    result = CliRunner().invoke(cli, ["league", "run", str(tmp_path / "l"), "--trusted"])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "the league database is damaged" in result.stderr
    assert said in result.stderr
    with pytest.raises(LeagueError, match="damaged"):
        League(tmp_path / "l").schedule()


def test_a_ladder_stopped_in_a_round_goes_on_with_it_and_plays_the_same_games(tmp_path: Path) -> None:
    def field(folder: Path) -> League:
        league = League.create(folder, games=GAMES, seed=11, schedule="ladder", interval_width=250)
        for k, spec in enumerate(FIELD[:6]):
            league.add(spec, name=f"e{k:02d}")
        return league

    whole = field(tmp_path / "whole")
    whole.run(trusted=True)
    stopped = field(tmp_path / "stopped")
    batches = []

    def stop_in_the_third_round(result: object) -> None:
        batches.append(result)
        if len(batches) == 5:  # 10 games a batch, 20 a round (two opponents)
            raise KeyboardInterrupt

    report = play_league(
        stopped.folder, stopped.connection, stopped.settings, trusted=True, on_batch=stop_in_the_third_round
    )
    assert report.interrupted and report.played == 50
    assert missing_games(stopped.connection, stopped.settings) == 10  # of the third round's 20
    assert stopped.run(trusted=True).played > 0
    assert stopped.games_csv() == whole.games_csv()
    plans = "SELECT players, total, next_game FROM plans ORDER BY id"
    assert stopped.connection.execute(plans).fetchall() == whole.connection.execute(plans).fetchall()


def test_the_leaderboard_counts_as_missing_no_pair_a_finished_ladder_left_out(
    leagues: tuple[League, League],
) -> None:
    _, ladder = leagues
    assert missing_games(ladder.connection, ladder.settings) == 0
    # The same games counted as a round robin's: the pairs the ladder never played.
    as_robin = {**ladder.settings, "schedule": "round-robin"}
    assert missing_games(ladder.connection, as_robin) > 0


def test_a_round_that_seats_a_retired_entrant_is_missing_nothing_until_it_is_reinstated(
    tmp_path: Path,
) -> None:
    """A round cut short waits while one of its entrants is retired (no run plays it): the
    leaderboard counts its games as missing only once the entrant is reinstated."""
    league = League.create(tmp_path / "l", games=GAMES, seed=11, schedule="ladder", interval_width=250)
    for k, spec in enumerate(FIELD[:6]):
        league.add(spec, name=f"e{k:02d}")
    batches = []

    def stop_in_the_third_round(result: object) -> None:
        batches.append(result)
        if len(batches) == 5:
            raise KeyboardInterrupt

    play_league(
        league.folder, league.connection, league.settings, trusted=True, on_batch=stop_in_the_third_round
    )
    assert missing_games(league.connection, league.settings) == 10
    players = league.connection.execute("SELECT players FROM plans WHERE next_game < total").fetchone()[0]
    head = league.connection.execute(
        "SELECT name FROM entries WHERE id = ?", (json.loads(players)[0],)
    ).fetchone()[0]
    league.retire(head)
    assert missing_games(league.connection, league.settings) == 0
    league.reinstate(head)
    assert missing_games(league.connection, league.settings) == 10


def test_a_students_status_page_in_a_ladder_counts_only_the_rounds_it_begun(
    leagues: tuple[League, League], tmp_path: Path
) -> None:
    """A ladder owes an entry only the games of its rounds begun, as the leaderboard counts: a
    student's status page said "has 20 games to play" for pairs the ladder never plays (review).
    A newcomer's games are not known before its rounds are chosen."""
    from arena.leagues.submit_pages import status_page

    _, ladder = leagues
    assert missing_games(ladder.connection, ladder.settings) == 0
    names = [r[0] for r in ladder.connection.execute("SELECT name FROM entries WHERE active = 1")]
    for name in names:
        assert "has all its games" in status_page(ladder.connection, name), name
    copy = League(shutil.copytree(ladder.folder, tmp_path / "copy"))  # the fixture is shared
    copy.add("threshold:bank_at=450", name="newcomer")
    page = status_page(copy.connection, "newcomer")
    assert "games to play" not in page and "meets the entries nearest its rating" in page
