"""Whole games kept for the game viewer: what a tournament keeps when asked (record_deals), the
viewer's steps against the games they come from, and an older league's schema upgraded."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import sqlite3
from pathlib import Path

import pytest

from arena.engine.presets import CLASSIC, SHORT, STANDARD
from arena.leagues import League
from arena.leagues.viewer import viewer_steps
from arena.sandbox import load_player
from arena.storage import league_db
from arena.tournaments.batch import BatchPlayer
from arena.tournaments.spec import TournamentSpec

PENALTY = dataclasses.replace(CLASSIC, name="penalty", farkle_penalty=500, farkle_penalty_streak=2)
RULESETS = (STANDARD, SHORT, CLASSIC, PENALTY)


def spec(record_deals: int, *players: str, games: int = 8) -> TournamentSpec:
    loaded = [load_player(p, isolate=False, limits=None, move_timeout=None) for p in players]
    return TournamentSpec(
        rulesets=RULESETS, players=tuple(loaded), games=games, seed=11, record_deals=record_deals
    )


def test_records_are_kept_for_the_first_deals_and_change_no_row() -> None:
    plain = BatchPlayer(spec(0, "greedy", "random", "threshold")).play(0, 96)
    kept = BatchPlayer(spec(2, "greedy", "random", "threshold")).play(0, 96)
    assert kept.rows == plain.rows and plain.records == ()
    rows = list(csv.reader(io.StringIO(kept.rows)))
    deals = {int(r[1]): int(r[2]) for r in rows}  # game -> deal
    assert {r.game for r in kept.records} == {g for g, d in deals.items() if d < 2}
    for record in kept.records:
        data = json.loads(record.events)
        assert len(data["players"]) == 2 and data["events"][-1]["type"] == "game_over"
        final = data["events"][-1]["scores"]
        stored = [int(r[6]) for r in rows if int(r[1]) == record.game]
        assert final == stored


def test_every_game_with_a_fault_is_kept_with_the_fault_in_it(tmp_path: Path) -> None:
    bot = tmp_path / "late.py"
    bot.write_text(
        "from arena import Action\n"
        "class Late:\n"
        "    name = 'late'\n"
        "    turns = 0\n"
        "    def decide(self, view):\n"
        "        Late.turns += 1\n"
        "        if Late.turns % 97 == 0:\n"
        "            raise RuntimeError('breaks now and then')\n"
        "        keep = view.legal_keeps[0]\n"
        "        return Action(keep.dice, view.bank_allowed(keep))\n"
    )
    result = BatchPlayer(spec(1, "greedy", str(bot), games=20)).play(0, 80)
    faulted = {d.game for d in result.fault_details}
    assert faulted
    kept = {r.game: json.loads(r.events) for r in result.records}
    assert faulted <= set(kept)
    for game in faulted:
        faults = [e for e in kept[game]["events"] if e["type"] == "fault"]
        assert faults and faults[0]["reason"].startswith("RuntimeError")


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_the_viewer_shows_every_score_the_engine_had(rules) -> None:
    """Each step's scores are what the next turn of each seat starts from, and the last step's
    are the game's final scores, on every ruleset (strikes, penalties, the exact target)."""
    player = BatchPlayer(dataclasses.replace(spec(40, "greedy", "random", "threshold"), rulesets=(rules,)))
    result = player.play(0, len(player.schedule))
    assert result.records
    for record in result.records:
        data = json.loads(record.events)
        steps = viewer_steps(data)
        turns = [e for e in data["events"] if e["type"] == "turn_started"]
        assert len(steps) == len(turns) + 1 and steps[-1]["title"] == "the end"
        for k, turn in enumerate(turns):
            if turn["playoff"]:
                continue
            previous = steps[k - 1]["scores"] if k else [0] * len(data["players"])
            assert previous[turn["seat"]] == turn["score"], (record.game, k)
        assert steps[-1]["scores"] == data["events"][-1]["scores"]


def test_an_older_league_is_upgraded_in_place_and_keeps_its_games(tmp_path: Path) -> None:
    league = League.create(tmp_path / "a", games=2, seed=1)
    league.add("greedy")
    league.add("random")
    league.run(trusted=True, progress=False)
    before = league.games_csv()
    league.close()
    with sqlite3.connect(league_db.database_path(tmp_path / "a")) as c:  # as schema 1 left it
        c.execute("DROP TABLE records")
        c.execute("ALTER TABLE games DROP COLUMN ending")
        c.execute("ALTER TABLE seats DROP COLUMN seconds")
        c.execute("ALTER TABLE seats DROP COLUMN decisions")
        c.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    reader = league_db.open_league(tmp_path / "a", read_only=True)  # even a reader upgrades it
    version = reader.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert int(version) == league_db.SCHEMA_VERSION
    assert reader.execute("SELECT COUNT(*) FROM records").fetchone()[0] == 0
    reader.close()
    again = League(tmp_path / "a")
    # The same games; how each ended was not recorded before schema 3: the end column is empty.
    unrecorded = [line.rsplit(",", 1)[0] + "," for line in before.splitlines()[1:]]
    assert again.games_csv().splitlines()[1:] == unrecorded
    assert {line.rsplit(",", 1)[1] for line in before.splitlines()[1:]} == {"target"}
    again.add("threshold")
    assert again.run(trusted=True, progress=False).played == 4
