"""Time budgets (issue 38, point 3; issue 39, point 2): a league's move timeout and game clock,
stored with the league, honoured in its games in arena's processes and isolated alike, and each
entry's time per decision in the table and its JSON."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli.main import cli
from arena.engine import Action, TurnEnd
from arena.engine.presets import PRESETS
from arena.leagues import League, LeagueError
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.match import play_match
from arena.sandbox.limits import SeatLimits
from arena.storage import league_db
from arena.tournaments.spec import TournamentSpec, spec_from_identity

#: Sleeps under the move timeout at every decision: without a game clock it stretches every game.
NAPPER = """
import time

from arena import Action


class Napper:
    name = "napper"

    def decide(self, view):
        time.sleep(NAP)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
"""

#: Sleeps on the first decision of each game only, then plays at once.
FIRST_NAP = """
import time

from arena import Action


class FirstNap:
    name = "NAME"

    def start_game(self, info):
        self.first = True

    def decide(self, view):
        if self.first:
            self.first = False
            time.sleep(NAP)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
"""


def arena(*args: str, check: bool = True) -> Result:
    """``arena ARGS`` in this process (click's runner: no interpreter to start)."""
    done = CliRunner().invoke(cli, list(args))
    if check and done.exit_code != 0:
        raise AssertionError(f"arena {' '.join(args)}: {done.exit_code}\n{done.stderr}{done.exception!r}")
    return done


def rows(folder: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(League(folder).games_csv())))


def test_league_run_move_timeout_is_honoured_stored_and_said(tmp_path: Path) -> None:
    """``league run --move-timeout``: a bot slower than it times out, a faster one does not;
    the change is said on stderr and kept for later runs."""
    folder = tmp_path / "league"
    arena("league", "init", str(folder), "--games", "2", "--seed", "4")
    slow = tmp_path / "slow.py"
    slow.write_text(FIRST_NAP.replace("NAP", "0.6").replace("NAME", "slow"))
    quick = tmp_path / "quick.py"
    quick.write_text(FIRST_NAP.replace("NAP", "0.05").replace("NAME", "quick"))
    for spec in (str(slow), str(quick)):
        arena("league", "add", str(folder), spec)
    done = arena("league", "run", str(folder), "--trusted", "--move-timeout", "0.3")
    assert "the league's move timeout changes from 10 s to 0.3 s" in done.stderr
    seen = {(r["player"], r["status"], r["reason"]) for r in rows(folder)}
    assert seen == {("slow", "timeout", "no decision within 0.3 s"), ("quick", "ok", "")}
    assert League(folder).clock() == (0.3, None)
    # The same clock again is no change: nothing said.
    again = arena("league", "run", str(folder), "--trusted", "--move-timeout", "0.3")
    assert "warning" not in again.stderr


@pytest.mark.slow
def test_a_napping_bot_runs_out_of_its_game_clock_alike_in_process_and_isolated(tmp_path: Path) -> None:
    """A bot that naps 0.2 s a decision, under the 0.5 s move timeout, against a 0.5 s game
    clock: its third decision runs out of the clock, in every game, with the same rows whether
    it plays in arena's processes or isolated; its time in a game is bounded by the clock."""
    bot = tmp_path / "napper.py"
    bot.write_text(NAPPER.replace("NAP", "0.2"))
    played = {}
    for how in ("trusted", "isolated"):
        folder = tmp_path / how
        done = arena(
            "league",
            "init",
            str(folder),
            "--games",
            "2",
            "--seed",
            "9",
            "--move-timeout",
            "0.5",
            "--game-time",
            "0.5",
        )
        assert done.stdout.strip().endswith("0.5 s a move, 0.5 s a game")
        arena("league", "add", str(folder), str(bot))
        arena("league", "add", str(folder), "greedy")
        arena("league", "run", str(folder), *(["--trusted"] if how == "trusted" else []))
        played[how] = League(folder).games_csv()
        napper = [r for r in rows(folder) if r["player"] == "napper"]
        assert [(r["status"], r["reason"]) for r in napper] == [
            ("timeout", "used up its game time (0.5 s)")
        ] * 2
        with sqlite3.connect(league_db.database_path(folder)) as c:
            spent = c.execute(
                "SELECT s.seconds, s.decisions FROM seats s JOIN entries e ON e.id = s.entry "
                "WHERE e.name = 'napper'"
            ).fetchall()
        # Three decisions each (two naps of 0.2 s, the third stopped at the clock), and no more
        # time than the clock allows: in arena's process the watchdog stops the nap (it looks
        # every 10 ms); an isolated seat's late reply is waited for up to its grace.
        assert [n for _, n in spent] == [3, 3]
        bound = 0.5 + (0.1 if how == "trusted" else SeatLimits().grace + 0.1)
        assert all(0.5 <= seconds < bound for seconds, _ in spent), spent
    assert played["trusted"] == played["isolated"]


def test_the_table_shows_each_entrys_time_per_decision(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    league = League.create(folder, games=2, seed=2, move_timeout=1.0)
    bot = tmp_path / "napper.py"
    bot.write_text(NAPPER.replace("NAP", "0.02"))
    league.add(str(bot))
    league.add("greedy")
    league.run(trusted=True, progress=False)
    entries = {
        e["name"]: e for e in json.loads(arena("league", "table", str(folder), "--json").stdout)["entries"]
    }
    napper = entries["napper"]
    assert 0.02 <= napper["seconds_per_decision"] < 0.2 and napper["decisions"] > 10
    assert 0 < entries["greedy"]["seconds_per_decision"] < 0.02
    text = arena("league", "table", str(folder)).stdout.splitlines()
    assert text[1].split()[-1] == "time/decision"
    line = next(x for x in text if " napper " in x)
    assert line.endswith(" ms") and 20 <= float(line.split()[-2]) < 200


def test_an_older_league_keeps_its_clock_and_its_untimed_games(tmp_path: Path) -> None:
    """A schema 3 league (no clock in its settings, no times in its seats) opens, is upgraded in
    place, plays under 10 s a move and no game clock, and shows no time for its old games."""
    folder = tmp_path / "league"
    league = League.create(folder, games=2, seed=1)
    league.add("greedy")
    league.add("random")
    league.run(trusted=True, progress=False)
    before = league.games_csv()
    settings = {k: v for k, v in league.settings.items() if k not in ("move_timeout", "game_time")}
    league.close()
    with sqlite3.connect(league_db.database_path(folder)) as c:  # as schema 3 left it
        c.execute("ALTER TABLE seats DROP COLUMN seconds")
        c.execute("ALTER TABLE seats DROP COLUMN decisions")
        c.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings),))
        c.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    again = League(folder)
    version = again.connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert int(version) == league_db.SCHEMA_VERSION
    assert again.clock() == (10.0, None)
    assert again.games_csv() == before
    assert [e["seconds_per_decision"] for e in again.table_json()["entries"]] == [None, None]
    text = arena("league", "table", str(folder)).stdout.splitlines()
    assert all(line.split()[-1] == "-" for line in text[2:4])
    again.add("threshold")
    assert again.run(trusted=True, progress=False).played == 4
    timed = {e["name"]: e["decisions"] for e in again.table_json()["entries"]}
    assert timed["threshold:bank_at=300,min_dice=3"] > 0 and timed["greedy"] > 0  # new games are timed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("init", "{f}", "--move-timeout", "0"),
            "--move-timeout must be a positive number of seconds, got 0.0",
        ),
        (
            ("init", "{f}", "--move-timeout", "nan"),
            "--move-timeout must be a positive number of seconds, got nan",
        ),
        (("init", "{f}", "--game-time", "-1"), "--game-time must be a positive number of seconds, got -1.0"),
        (("init", "{f}", "--game-time", "inf"), "--game-time must be a positive number of seconds, got inf"),
        (("run", "{g}", "--game-time", "-2"), "--game-time must be a positive number of seconds, got -2.0"),
        (
            ("run", "{g}", "--move-timeout", "0"),
            "--move-timeout must be a positive number of seconds, got 0.0",
        ),
    ],
)
def test_a_bad_clock_is_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    good = tmp_path / "good"
    League.create(good, games=2).close()
    done = arena("league", *(a.format(f=tmp_path / "new", g=good) for a in args), check=False)
    assert done.exit_code == 1
    assert done.stderr.strip() == f"arena: error: {message}"
    assert League(good).clock() == (10.0, None)  # a refused change changes nothing


def test_a_damaged_clock_setting_is_said_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    league = League.create(folder, games=2)
    settings = {**league.settings, "game_time": "soon"}
    league.close()
    with sqlite3.connect(league_db.database_path(folder)) as c:
        c.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(settings),))
    done = arena("league", "run", str(folder), check=False)
    assert done.exit_code == 1
    assert done.stderr.strip().endswith(
        'the league database is damaged: the league\'s game_time setting is "soon", not a positive number'
    )
    assert "Traceback" not in done.stderr
    with pytest.raises(LeagueError, match="game_time setting"):
        League(folder).clock()


class NapsAfterTurns:
    """Decides at once but naps in ``end_turn``: its thinking moved out of ``decide``."""

    name = "turn-napper"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))

    def end_turn(self, turn: TurnEnd) -> None:
        time.sleep(0.1)


def test_a_seats_hooks_run_on_its_game_clock() -> None:
    """Napping in ``end_turn`` (told after every turn of every seat) can't stretch a game past
    the clock either: the hook's time is the seat's, and running out is its timeout."""
    faults = []
    result = play_match(
        PRESETS["standard"],
        [NapsAfterTurns(), GreedyPlayer()],
        7,
        move_timeout=1.0,
        game_time=0.35,
        on_fault=faults.append,
    )
    assert [(f.seat, f.status, f.reason) for f in faults] == [
        (0, "timeout", "end_turn: used up its game time (0.35 s)")
    ]
    assert result.retired == (0,)


def test_a_tournament_spec_keeps_its_game_time() -> None:
    """``game_time`` is part of what decides the games (spec.json, resume); a spec without it
    has the fingerprint it had before game clocks existed."""
    from arena.players.loading import load_player_spec

    players = (load_player_spec("greedy"), load_player_spec("random"))
    plain = TournamentSpec(rulesets=(PRESETS["standard"],), players=players, games=2)
    timed = TournamentSpec(rulesets=(PRESETS["standard"],), players=players, games=2, game_time=3.0)
    assert "game_time" not in plain.identity()
    assert timed.identity()["game_time"] == 3.0 and timed.fingerprint() != plain.fingerprint()
    assert spec_from_identity(timed.identity()).game_time == 3.0
    with pytest.raises(ValueError, match="game time must be a positive number"):
        TournamentSpec(rulesets=(PRESETS["standard"],), players=players, games=2, game_time=0.0)
