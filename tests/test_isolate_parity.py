"""Issue 27: ``--isolate`` changes nothing an ordinary strategy gets.

A strategy that prints while it decides, a shell's inherited limits, a strategy that faults in
any of the ways the in-process guard knows, and a refused option: each is the same with and
without ``--isolate``, apart from where the printed lines go (the seat's log).
"""

from __future__ import annotations

import csv
import io
import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ARENA = [sys.executable, "-m", "arena.cli"]

PRINTER = '''
import sys

from arena.engine import Action
from arena.players.builtin.threshold import ThresholdPlayer


class Printer(ThresholdPlayer):
    """threshold, thinking aloud the way a student debugs: print, sys.stdout, no line break."""

    def __init__(self):
        super().__init__()
        self.name = "printer"
        print("made a printer")

    def start_game(self, info):
        sys.stdout.write("a game starts ")

    def decide(self, view):
        print("thinking about", view.turn_points, view.roll)
        action = super().decide(view)
        print(f"keeping {action.keep}", flush=view.roll_number % 2 == 0)
        return Action(*action)
'''


def tournament(folder: Path, *args: str, preexec=None, seed: str = "5") -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run(
        [
            *ARENA,
            "tournament",
            *args,
            "--rules",
            "standard",
            "--seed",
            seed,
            "--out",
            str(folder),
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=preexec,
    )


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_strategy_that_prints_plays_the_same_games_isolated(tmp_path: Path, workers: int) -> None:
    bot = tmp_path / "printer.py"
    bot.write_text(PRINTER)
    # Small chunks: seat processes start again at every chunk, and both workers play.
    common = ["-p", str(bot), "-p", "greedy", "--games", "12", "--workers", str(workers), "--compiled", "off"]
    plain = tournament(tmp_path / "plain", *common)
    isolated = tournament(tmp_path / "isolated", *common, "--isolate")
    assert plain.returncode == 0 and isolated.returncode == 0, plain.stderr + isolated.stderr
    games = (tmp_path / "isolated" / "games.csv").read_text()
    assert games == (tmp_path / "plain" / "games.csv").read_text()
    assert ",printer," in games and "error" not in games
    assert "thinking about" in plain.stdout  # in arena's own processes a print shows where it runs
    assert "thinking about" not in isolated.stdout + isolated.stderr
    log = (tmp_path / "isolated" / "seat-logs" / "printer.log").read_text()
    assert log.count("made a printer") >= 12 and log.count("a game starts") == 12
    decisions = sum(1 for row in csv.DictReader(io.StringIO(games)) if row["player"] == "printer")
    assert log.count("thinking about") > decisions  # every decision's line, in the order printed
    first = log.index("thinking about")
    assert log.index("keeping", first) > first


def test_play_isolate_shows_what_a_strategy_prints_on_the_terminal(tmp_path: Path) -> None:
    bot = tmp_path / "printer.py"
    bot.write_text(PRINTER)
    result = subprocess.run(
        [*ARENA, "play", "-p", str(bot), "-p", "greedy", "--isolate", "--seed", "3", "--rules", "standard"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "thinking about" in result.stderr and "keeping" in result.stderr
    assert "error" not in result.stdout.lower()


def _lowered(kind: int, value: int):  # type: ignore[no-untyped-def]
    def lower() -> None:
        resource.setrlimit(kind, (value, value))

    return lower


@pytest.mark.parametrize(
    ("kind", "value", "option", "field", "in_force"),
    [
        (resource.RLIMIT_AS, 1258291 * 1024, "--seat-memory 2,048", "memory_mb", 1228),
        (resource.RLIMIT_FSIZE, 8 * 1024 * 1024, "--seat-file-size 16", "file_size_mb", 8),
        (resource.RLIMIT_CPU, 1800, "--seat-cpu 3,600", "cpu_seconds", 1800),
    ],
)
def test_a_seat_limit_above_an_inherited_hard_limit_is_lowered_with_one_line(
    tmp_path: Path, kind: int, value: int, option: str, field: str, in_force: int
) -> None:
    """`ulimit -v 1258291` (or -f, -t) in the shell: the run plays, says so once, records it."""
    out = tmp_path / "run"
    args = ["-p", "greedy", "-p", "threshold", "--isolate", "--games", "4", "--compiled", "off"]
    result = tournament(out, *args, preexec=_lowered(kind, value))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning: --seat")]
    assert len(warnings) == 1 and warnings[0].startswith(f"warning: {option} is above the hard limit")
    assert "could not start" not in result.stderr + (out / "games.csv").read_text()
    run = json.loads((out / "run.json").read_text())
    assert run["seat_limits_in_force"][field] == in_force
    spec = json.loads((out / "spec.json").read_text())
    assert spec["seat_limits"][field] > in_force  # what was asked stays the run's identity


def test_without_isolated_players_inherited_limits_say_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = tournament(
        out, "-p", "greedy", "-p", "threshold", "--games", "4", preexec=_lowered(resource.RLIMIT_CPU, 1800)
    )
    assert result.returncode == 0 and "warning" not in result.stderr, result.stderr
    assert json.loads((out / "run.json").read_text())["seat_limits_in_force"] is None


def test_a_refused_seed_is_one_line_and_nothing_else(tmp_path: Path) -> None:
    result = tournament(tmp_path / "run", "-p", "greedy", "-p", "threshold", "--isolate", seed="-1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["arena: error: --seed must be zero or more, got -1"]
    assert not (tmp_path / "run").exists()


# Every fault class of the in-process guard, each a strategy that plays greedy until it breaks.
FAULTY = {
    "decide_raises": """
        def decide(self, view):
            if view.turn > 2:
                raise RuntimeError("broke at turn " + str(view.turn))
            return super().decide(view)
    """,
    "illegal_keep": """
        def decide(self, view):
            return Action((9, 9), False) if view.turn == 1 else super().decide(view)
    """,
    "bank_not_bool": """
        def decide(self, view):
            action = super().decide(view)
            return Action(action.keep, "yes") if view.turn == 2 else action
    """,
    "not_an_action": """
        def decide(self, view):
            return None if view.turn == 3 else super().decide(view)
    """,
    "long_repr": """
        def decide(self, view):
            return list(range(500)) if view.turn == 1 else super().decide(view)
    """,
    "numpy_dice": """
        def decide(self, view):
            import numpy
            keep, bank = super().decide(view)
            return Action(tuple(numpy.int64(d) for d in keep), bank) if view.turn == 2 else (keep, bank)
    """,
    "numpy_bank": """
        def decide(self, view):
            import numpy
            keep, bank = super().decide(view)
            return Action(keep, numpy.bool_(bank)) if view.turn == 2 else (keep, bank)
    """,
    "getattr_raises": """
        def __getattr__(self, name):
            raise RuntimeError("no attribute " + name)
    """,
    "start_game_raises": """
        def start_game(self, info):
            raise RuntimeError("not today")
    """,
    "end_game_raises": """
        def end_game(self, result):
            raise RuntimeError("sore loser")
    """,
    "end_turn_raises": """
        def end_turn(self, ended):
            if ended.turn == 2:
                raise RuntimeError("turn " + str(ended.turn))
    """,
    "system_exit": """
        def decide(self, view):
            if view.turn == 2:
                raise SystemExit(3)
            return super().decide(view)
    """,
    "keyboard_interrupt": """
        def decide(self, view):
            if view.turn == 2:
                raise KeyboardInterrupt
            return super().decide(view)
    """,
    "slow": """
        def decide(self, view):
            if view.turn == 2:
                import time
                time.sleep(2)
            return super().decide(view)
    """,
}


# Strategies that fail as they are made or named: refused before any game, in the same line.
REFUSED = {
    "init_raises": """
        def __init__(self):
            raise ValueError("no table for me")
    """,
    "name_raises": """
        @property
        def name(self):
            raise KeyError("who am I")
    """,
}


def _faulty_file(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.py"
    header = f'''
        from arena.engine import Action
        from arena.players.builtin.greedy import GreedyPlayer


        class Faulty(GreedyPlayer):
            """greedy, until it breaks."""

            name = {name!r}
    '''
    path.write_text(textwrap.dedent(header) + textwrap.indent(textwrap.dedent(body), "    "))
    return path


def _statuses(folder: Path) -> list[tuple[str, ...]]:
    with open(folder / "games.csv", encoding="utf-8", newline="") as file:
        return [
            (r["game"], r["seat"], r["player"], r["status"], r["reason"], r["score"])
            for r in csv.DictReader(file)
        ]


@pytest.mark.slow
def test_every_fault_class_gives_the_same_statuses_and_reasons_on_both_paths(tmp_path: Path) -> None:
    players = [str(_faulty_file(tmp_path, name, body)) for name, body in FAULTY.items()]
    args = ["--format", "gauntlet", "-p", "greedy"]
    for player in players:
        args += ["-p", player]
    args += ["--games", "2", "--move-timeout", "1", "--workers", "2", "--compiled", "off"]
    plain = tournament(tmp_path / "plain", *args)
    isolated = tournament(tmp_path / "isolated", *args, "--isolate")
    assert plain.returncode == 0 and isolated.returncode == 0, plain.stderr + isolated.stderr
    here, there = _statuses(tmp_path / "plain"), _statuses(tmp_path / "isolated")
    assert len(here) == len(there) == 2 * 2 * len(FAULTY)
    assert here == there
    faulted = {row[2] for row in here if row[3] != "ok"}
    assert faulted == set(FAULTY)  # each fault class is met, so each comparison means something


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_strategy_refused_before_its_games_is_refused_alike_on_both_paths(
    tmp_path: Path, name: str
) -> None:
    player = str(_faulty_file(tmp_path, name, REFUSED[name]))
    args = ["-p", "greedy", "-p", player, "--games", "2"]
    plain = tournament(tmp_path / "plain", *args)
    isolated = tournament(tmp_path / "isolated", *args, "--isolate")
    assert plain.returncode == isolated.returncode == 2
    assert plain.stderr == isolated.stderr and plain.stderr.count("\n") == 1
    assert not (tmp_path / "plain").exists() and not (tmp_path / "isolated").exists()
