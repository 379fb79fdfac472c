"""`--json` on `arena tournament` (the summary and where the files are) and `arena play` (the
event stream as JSON lines); what a strategy prints goes to stderr, so stdout stays JSON."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli

ARENA = [sys.executable, "-m", "arena.cli"]

NOISY = '''
from arena.players import Action


class Noisy:
    """Greedy, and prints on every decision."""

    name = "noisy"

    def decide(self, view):
        print("thinking out loud")
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.may_bank(keep))
'''


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def noisy(tmp_path: Path) -> Path:
    path = tmp_path / "noisy.py"
    path.write_text(NOISY, encoding="utf-8")
    return path


def test_tournament_json_prints_the_summary_and_where_the_files_are(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["tournament", "--rules", "classic", "-p", "greedy", "-p", "threshold", "-p", "random"]
    code, stdout, _ = run(*args, "--games", "20", "--workers", "1", "--out", str(out), "--json")
    assert code == 0
    data = json.loads(stdout)  # the whole of stdout is one JSON document
    assert data["folder"] == str(out) and data["complete"] is True
    assert data["games_played"] == data["games_total"] == 60 and data["played_now"] == 60
    assert data["faults"] == 0 and data["seconds"] > 0 and data["games_per_second"] > 0
    files = ["games.csv", "summary.csv", "pairwise.csv", "errors.csv", "errors.log"]
    files += ["run.json", "spec.json", "games.idx"]
    assert data["files"] == {name: str(out / name) for name in files}
    with (out / "summary.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["player"] for r in data["summary"]] == [r["player"] for r in rows]
    assert [r["wins"] for r in data["summary"]] == [float(r["wins"]) for r in rows]
    assert len(data["pairwise"]) == 6 and data["gauntlet"] == []
    # The same tables `arena report --json` prints of the folder.
    report = json.loads(run("report", str(out), "--json")[1])
    assert {k: report[k] for k in ("summary", "pairwise", "seats")} == {
        k: data[k] for k in ("summary", "pairwise", "seats")
    }


def test_tournament_json_of_a_gauntlet_holds_its_table(tmp_path: Path) -> None:
    args = ["tournament", "--rules", "classic", "--format", "gauntlet", "-p", "greedy", "-p", "random"]
    args += ["--out", str(tmp_path / "g")]
    code, stdout, _ = run(*args, "-p", "threshold", "--games", "20", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(stdout)
    assert {row["opponent"] for row in data["gauntlet"]} == {"random", "threshold:bank_at=300,min_dice=3"}
    assert data["files"]["gauntlet.csv"] == str(tmp_path / "g" / "gauntlet.csv")


def test_a_strategys_prints_go_to_stderr_under_tournament_json(tmp_path: Path, noisy: Path) -> None:
    # A real process: the games run in forked workers, which write to file descriptor 1.
    out = tmp_path / "run"
    args = ["tournament", "--rules", "classic", "-p", str(noisy), "-p", "greedy", "--games", "4"]
    done = subprocess.run(
        [*ARENA, *args, "--workers", "2", "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games_played"] == 4
    assert "thinking out loud" in done.stderr and "thinking out loud" not in done.stdout


def test_play_json_is_the_event_stream(noisy: Path) -> None:
    args = ["play", "--rules", "classic", "-p", "optimal", "-p", "greedy", "--seed", "4"]
    code, stdout, _ = run(*args, "--json")
    assert code == 0
    events = [json.loads(line) for line in stdout.splitlines()]
    assert events[0] == {
        "type": "game",
        "rules": "classic",
        "description": events[0]["description"],
        "seed": 4,
        "players": ["optimal", "greedy"],
    }
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "target"
    text = run(*args)[1]
    # The same game as the text: its final scores, its rounds and its keeps.
    final = text.splitlines()[-1]
    assert final == "  final scores: " + " · ".join(
        f"{name} {score}" for name, score in zip(events[0]["players"], events[-1]["scores"], strict=True)
    )
    rounds = max(e["round"] for e in events if e["type"] == "turn_started")
    assert f"Game over after {rounds} rounds" in text
    kept = [e for e in events if e["type"] == "kept"]
    assert len(kept) == text.count("    keeps ")
    assert all(sum(part["points"] for part in e["reading"]) == e["points"] for e in kept)
    assert {e["player"] for e in kept} == {"optimal", "greedy"}
    assert all(e["player"] == events[0]["players"][e["seat"]] for e in events if "seat" in e)


def test_play_json_reports_the_fault_of_a_strategy_that_breaks_the_rules(tmp_path: Path) -> None:
    # The fault line comes when it happens; the seat is out, and with one seat left the game
    # ends at once: that seat wins (docs/faults.md).
    bot = tmp_path / "cheat.py"
    bot.write_text(
        "from arena.players import Action\n\nclass Cheat:\n    name = 'cheat'\n\n"
        "    def decide(self, view):\n        return Action((2, 2), True)\n"
    )
    code, stdout, err = run("play", "-p", str(bot), "-p", "greedy", "--seed", "1", "--json")
    assert code == 1 and err.startswith("arena: error: cheat (seat 0) lost the game: illegal")
    fault, last = (json.loads(line) for line in stdout.splitlines()[-2:])
    assert [fault[k] for k in ("type", "seat", "player", "status")] == ["fault", 0, "cheat", "illegal"]
    assert (last["type"], last["winners"], last["reason"]) == ("game_over", [1], "forfeit")


def test_play_json_keeps_stdout_for_json(noisy: Path) -> None:
    done = subprocess.run(
        [*ARENA, "play", "--rules", "classic", "-p", str(noisy), "-p", "greedy", "--seed", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["type"] for line in done.stdout.splitlines()][-1] == "game_over"
    assert "thinking out loud" in done.stderr
    code, _, err = run("play", "--human", "-p", "greedy", "--json")
    assert code == 2 and err == "arena: error: --json is for programs and --human for a person: choose one\n"


NOISY_INIT = '''
from arena.players import Action


class NoisyInit:
    """Greedy up to bank_at, and prints when built and on every decision."""

    name = "noisy-init"

    def __init__(self, bank_at: int = 300):
        print("built with", bank_at)
        self.bank_at = bank_at

    def decide(self, view):
        print("thinking out loud")
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.may_bank(keep) and view.turn_points + keep.points >= self.bank_at)
'''


@pytest.mark.parametrize(
    "command",
    [
        ["tune", "{bot}", "--param", "bank_at=300,500", "--against", "greedy", "--budget", "200"],
        ["duel", "{bot}", "greedy", "--games", "4"],
        ["play", "-p", "{bot}", "-p", "greedy", "--seed", "3"],
    ],
    ids=["tune", "duel", "play"],
)
def test_a_strategys_prints_go_to_stderr_under_json_from_its_constructor_too(
    tmp_path: Path, command: list[str]
) -> None:
    # What a strategy prints when it is built (loading a spec builds it once) or while it plays
    # must not reach stdout: `arena tune --json | jq` and `arena duel --json | jq` read JSON.
    bot = tmp_path / "noisy_init.py"
    bot.write_text(NOISY_INIT, encoding="utf-8")
    args = [a.replace("{bot}", str(bot)) for a in command]
    if args[0] != "play":
        args += ["--out", str(tmp_path / "run"), "--workers", "2"]
    done = subprocess.run(
        [*ARENA, *args, "--rules", "classic", "--json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    if args[0] == "play":
        assert [json.loads(line)["type"] for line in done.stdout.splitlines()][-1] == "game_over"
    else:
        assert isinstance(json.loads(done.stdout), dict)
    assert "built with" in done.stderr and "built with" not in done.stdout
    assert "thinking out loud" in done.stderr and "thinking out loud" not in done.stdout


def test_strategies_list_json_keeps_a_file_that_prints_at_import_out_of_the_json(tmp_path: Path) -> None:
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "loud.py").write_text('print("hello at import")\n' + NOISY, encoding="utf-8")
    done = subprocess.run(
        [*ARENA, "strategies", "list", "--json", "--path", str(folder)],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)  # the whole of stdout is one JSON document
    assert any(item["spec"].endswith("loud.py:Noisy") for item in listed)
    assert "hello at import" in done.stderr
