"""Issue 39, point 2: one slow entry must not stall a league.  A bot that naps a whole second at
every decision, under the league's 10 s move timeout, would make each of its games last minutes;
``league run --game-time`` (the chess clock, set on a league made without one) makes it lose each
game by a timeout as soon as its clock runs out, so the run's time is bounded by its games times
about the clock (docs/guides/leagues.md, "Time limits")."""

from __future__ import annotations

import csv
import io
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League
from arena.storage import league_db

#: Naps a second before every decision: about 40 s a game without a game clock.
SLEEPER = """
import time

from arena import Action


class Sleeper:
    name = "sleeper"

    def decide(self, view):
        time.sleep(1.0)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
"""


@pytest.mark.slow
def test_a_napping_entry_loses_each_game_on_the_clock_league_run_sets(tmp_path: Path) -> None:
    folder = tmp_path / "league"
    league = League.create(folder, games=4)  # 10 s a move, no game clock
    bot = tmp_path / "sleeper.py"
    bot.write_text(SLEEPER)
    league.add(str(bot))
    league.add("greedy")
    league.close()
    began = time.monotonic()
    done = CliRunner().invoke(cli, ["league", "run", str(folder), "--trusted", "--game-time", "0.5"])
    seconds = time.monotonic() - began
    assert done.exit_code == 0, done.output
    assert "the league's game time changes from no game clock to 0.5 s" in done.stderr
    assert done.stdout == "played 4 games (4 faults)\n"
    rows = list(csv.DictReader(io.StringIO(League(folder).games_csv())))
    sleeper = [(r["status"], r["reason"]) for r in rows if r["player"] == "sleeper"]
    assert sleeper == [("timeout", "used up its game time (0.5 s)")] * 4
    with sqlite3.connect(league_db.database_path(folder)) as c:
        spent = c.execute(
            "SELECT s.seconds, s.decisions FROM seats s JOIN entries e ON e.id = s.entry "
            "WHERE e.name = 'sleeper'"
        ).fetchall()
    # Its first decision runs out of the clock: one decision a game, cut off at about 0.5 s
    # (the watchdog looks every 10 ms), instead of some forty 1 s naps.
    assert [n for _, n in spent] == [1] * 4
    assert all(0.5 <= s < 1.0 for s, _ in spent), spent
    # Without the clock the four games would take minutes; a generous bound on the whole run.
    assert seconds < 120  # (forty-odd naps a game: 160 s or more for the four)
