"""A ``cmd:`` player's fingerprint: its program and the files its arguments name are part of the
run's identity, so ``--resume`` refuses a program or script replaced between runs, exactly as
it refuses a changed ``.py`` strategy file."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.tournaments.spec import command_identity, file_sha256

REPO = Path(__file__).resolve().parents[1]
GREEDY_BOT = REPO / "strategies" / "external" / "greedy_bot.py"


def arena(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stderr


def _bot(tmp_path: Path) -> tuple[Path, Path]:
    """A shell program that runs a copy of the example greedy bot: both are files that can change."""
    script = tmp_path / "bot.py"
    shutil.copy(GREEDY_BOT, script)
    program = tmp_path / "bot.sh"
    program.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    program.chmod(0o755)
    return program, script


def _run(tmp_path: Path, program: Path, script: Path) -> Path:
    out = tmp_path / "run"
    code, err = arena(
        "tournament", "-p", f"cmd:{program} {script} greedy", "-p", "greedy",
        "--games", "2", "--seed", "1", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    return out


def test_the_spec_keeps_the_program_and_each_argument_file(tmp_path: Path) -> None:
    program, script = _bot(tmp_path)
    out = _run(tmp_path, program, script)
    players = json.loads((out / "spec.json").read_text())["players"]
    (player,) = [p for p in players if p["source"] == "command"]
    assert player["program"] == str(program.resolve())
    assert player["program_sha256"] == file_sha256(program)
    assert player["argument_sha256"] == {str(script): file_sha256(script)}  # "greedy" names no file


@pytest.mark.parametrize("changed", ["script", "program"])
def test_resume_refuses_a_changed_program_or_script(tmp_path: Path, changed: str) -> None:
    program, script = _bot(tmp_path)
    out = _run(tmp_path, program, script)
    code, err = arena("tournament", "--resume", str(out), "--no-progress")
    assert code == 0, err  # unchanged: accepted
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    target = script if changed == "script" else program
    with target.open("a", encoding="utf-8") as file:
        file.write("\n# a new version\n")
    code, err = arena("tournament", "--resume", str(out), "--no-progress")
    assert code == 2
    assert err.count("\n") == 1 and "holds a different tournament (differs in: players)" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_a_program_on_path_is_fingerprinted_by_its_resolved_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program, script = _bot(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    identity = command_identity(f"cmd:bot.sh {script} --level 3")
    assert identity == {
        "program": str(program.resolve()),
        "program_sha256": file_sha256(program),
        "argument_sha256": {str(script): file_sha256(script)},
    }


# The cmd: opponent's seat processes make its case take about 3 s.
@pytest.mark.parametrize("changed", [pytest.param("opponent", marks=pytest.mark.slow), "tuned"])
def test_tune_resume_refuses_a_changed_opponent_or_strategy_file(tmp_path: Path, changed: str) -> None:
    program, script = _bot(tmp_path)
    tuned = tmp_path / "mine.py"
    tuned.write_text(
        "from arena.players.builtin.threshold import ThresholdPlayer\n\n\n"
        "class Mine(ThresholdPlayer):\n    pass\n",
        encoding="utf-8",
    )
    out = tmp_path / "tune"
    opponent = f"cmd:{program} {script} greedy" if changed == "opponent" else "greedy"
    code, err = arena(
        "tune", f"{tuned}:Mine", "--param", "bank_at=300,400", "--against", opponent,
        "--rules", "classic", "--budget", "40", "--seed", "1", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    entries = json.loads((out / "run.json").read_text())["entries"]
    assert entries[f"{tuned}:Mine"] == {"file_sha256": file_sha256(tuned)}
    if changed == "opponent":
        assert entries[opponent]["argument_sha256"] == {str(script): file_sha256(script)}
    else:
        assert entries[opponent] == {}  # a built-in: nothing to fingerprint
    code, err = arena("tune", "--resume", str(out), "--no-progress")
    assert code == 0, err  # unchanged: accepted
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with (script if changed == "opponent" else tuned).open("a", encoding="utf-8") as file:
        file.write("\n# a new version\n")
    code, err = arena("tune", "--resume", str(out), "--no-progress")
    assert code == 2 and err.count("\n") == 1, err
    assert "was started with another version of" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
