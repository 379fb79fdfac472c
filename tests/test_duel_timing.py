"""`arena duel` says each side's time per decision at the end (issue 25, point 4): measured
around each ``decide`` call of the games played in Python, counted per player, kept in run.json;
a tournament's games are not timed."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import PRESETS, Action
from arena.players import play_match
from arena.players.match import DecisionClock
from arena.tournaments.duel_report import duration_text

SLOW = '''
import time

from arena.players import Action


class Ponderer:
    name = "ponderer"

    def decide(self, view):
        time.sleep(0.002)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
'''


class Counting:
    """Keeps the most points, banks at 300, and counts its decisions."""

    name = "counting"

    def __init__(self, pause: float = 0.0) -> None:
        self.calls = 0
        self.pause = pause

    def decide(self, view):  # type: ignore[no-untyped-def]
        self.calls += 1
        if self.pause:
            time.sleep(self.pause)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))


def test_the_clock_counts_every_decision_of_each_seat_and_their_time() -> None:
    fast, slow = Counting(), Counting(pause=0.001)
    clock = DecisionClock(2)
    play_match(PRESETS["classic"], [fast, slow], 5, clock=clock)
    assert clock.decisions == [fast.calls, slow.calls] and min(clock.decisions) > 0
    assert clock.seconds[1] >= 0.001 * slow.calls > clock.seconds[0]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_a_duel_says_which_side_takes_longer_per_decision(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(SLOW)
    out = tmp_path / "d"
    code, text, err = run(
        "duel", str(tmp_path / "slow.py"), "threshold", "--rules", "classic", "--games", "6",
        "--workers", "1", "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    line = next(line for line in text.splitlines() if line.startswith("  time/decision"))
    number = r"([\d.]+) (µs|ms)"
    found = re.fullmatch(
        rf"  time/decision ponderer {number}, (\S+) {number}  \(([\d,]+) and ([\d,]+) decisions\)", line
    )
    assert found, line
    slow = float(found[1]) * (1e-3 if found[2] == "ms" else 1e-6)
    fast = float(found[4]) * (1e-3 if found[5] == "ms" else 1e-6)
    assert slow >= 0.002 and fast < 0.001 and found[3].startswith("threshold")
    per = json.loads((out / "run.json").read_text())["seconds_per_decision"]
    assert per["ponderer"] >= 0.002 and per[found[3]] < 0.001
    assert "seconds_per_decision" not in json.loads((out / "duel.json").read_text())  # the verdict's bytes


def test_a_compiled_duel_says_there_was_nothing_to_time(tmp_path: Path) -> None:
    code, text, err = run(
        "duel", "greedy", "threshold", "--rules", "classic", "--games", "4", "--workers", "1",
        "--no-progress", "--out", str(tmp_path / "c"),
    )  # fmt: skip
    assert code == 0, err
    assert "  time/decision both sides' games were played in the compiled kernel" in text
    per = json.loads((tmp_path / "c" / "run.json").read_text())["seconds_per_decision"]
    assert set(per.values()) == {None}


def test_durations_are_written_in_the_unit_that_suits_them() -> None:
    assert [duration_text(s) for s in (2.14e-6, 3.4e-4, 4.2e-3, 0.25, 1.3)] == [
        "2.1 µs",
        "340 µs",
        "4.2 ms",
        "250 ms",
        "1.3 s",
    ]


def test_resuming_a_finished_duel_keeps_the_time_it_measured(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(SLOW)
    out = tmp_path / "d"
    args = ("--rules", "classic", "--games", "4", "--workers", "1", "--no-progress")
    assert run("duel", str(tmp_path / "slow.py"), "threshold", *args, "--out", str(out))[0] == 0
    measured = json.loads((out / "run.json").read_text())["seconds_per_decision"]
    code, text, err = run("duel", "--resume", str(out), "--no-progress")
    assert code == 0, err
    assert "time/decision" not in text  # it played nothing now
    assert json.loads((out / "run.json").read_text())["seconds_per_decision"] == measured
    assert measured["ponderer"] >= 0.002
