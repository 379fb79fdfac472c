"""``arena duel --game-time``: the chess clock that ``arena tournament`` and ``arena league``
have (issue 38, point 3), in a duel: a bot that naps under the move timeout runs out of its game
clock and loses every game by a timeout fault; the clock is saved with the duel and kept on
``--resume``; a bad clock is one line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner, Result

from arena.cli.main import cli
from tests.test_duel_folder import killed_copy

ROOT = Path(__file__).resolve().parent.parent
NAPPER = ROOT / "docs" / "examples" / "napper.py"  # naps 0.2 s before every decision


def duel(*args: str) -> Result:
    return CliRunner().invoke(cli, ["duel", *args, "--workers", "1", "--no-progress"])


def napper_rows(folder: Path) -> list[tuple[str, str]]:
    with (folder / "games.csv").open(newline="") as file:
        return [(r["status"], r["reason"]) for r in csv.DictReader(file) if r["player"] == "napper"]


def test_a_napping_bot_runs_out_of_its_game_clock_in_a_duel_and_resumed(tmp_path: Path) -> None:
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    args = (str(NAPPER), "greedy", "--games", "4", "--seed", "1", "--game-time", "0.5", "--batch-size", "2")
    done = duel(*args, "--out", str(whole))
    assert done.exit_code == 0, done.output
    assert napper_rows(whole) == [("timeout", "used up its game time (0.5 s)")] * 4
    assert json.loads((whole / "spec.json").read_text())["game_time"] == 0.5
    # Killed after its first pair, then resumed without --game-time: the saved clock holds.
    killed_copy(whole, broken, 1, torn=b"")
    resumed = duel("--resume", str(broken))
    assert resumed.exit_code == 0 and "resuming after game 2" in resumed.stderr, resumed.output
    assert (broken / "games.csv").read_bytes() == (whole / "games.csv").read_bytes()
    other = duel("--resume", str(broken), "--game-time", "0.7")
    assert other.exit_code == 2 and "differs in: game_time" in other.stderr


def test_a_bad_game_clock_is_one_line(tmp_path: Path) -> None:
    done = duel("greedy", "random", "--game-time", "0", "--out", str(tmp_path / "duel"))
    assert done.exit_code == 2
    assert done.stderr.splitlines() == [
        "arena: error: game time must be a positive number of seconds, got 0.0"
    ]
