"""arena report on folders that are not a tournament's games in arena's order: a tuning run,
and a games.csv whose rows of one game are not together, are refused in one line, by the
command line, the Python API and arena compare alike (issue 25, point 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
from arena.cli.main import cli


def cli_run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs") / "run"
    code, _, err = cli_run(
        "tournament", "--rules", "classic", "-p", "greedy", "-p", "random", "--games", "20",
        "--workers", "1", "--out", str(folder),
    )  # fmt: skip
    assert code == 0, err
    return folder


def test_a_tuning_run_is_refused_by_report(tmp_path: Path) -> None:
    folder = tmp_path / "tune"
    code, _, err = cli_run(
        "tune", "threshold", "--param", "bank_at=300,600", "--budget", "200", "--first-deals", "10",
        "--rules", "classic", "--workers", "1", "--out", str(folder),
    )  # fmt: skip
    assert code == 0, err
    code, out, err = cli_run("report", str(folder))
    assert code == 2 and out == ""
    expected = f"arena: error: {folder} is a tuning run (arena tune): read its candidates.csv and tune.json"
    assert err.strip() == expected


@pytest.mark.parametrize("how", ["a game's row moved to the end", "two runs one after the other"])
def test_rows_of_a_game_out_of_place_are_refused(run_folder: Path, tmp_path: Path, how: str) -> None:
    head, *rows = (run_folder / "games.csv").read_text().splitlines()
    moved = how == "a game's row moved to the end"
    rows = rows[:1] + rows[2:] + rows[1:2] if moved else rows + rows
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "games.csv").write_text("\n".join([head, *rows]) + "\n")
    code, _, err = cli_run("report", str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "the rows of game 0 are not together, as arena writes them" in err
    with pytest.raises(arena.ArenaError, match="not together, as arena writes them"):
        arena.load_run(bad)
    code, _, err = cli_run("compare", str(run_folder), str(bad))
    assert code == 2 and "not together, as arena writes them" in err


def test_a_file_in_arenas_order_still_reads(run_folder: Path) -> None:
    code, out, _ = cli_run("report", str(run_folder))
    assert code == 0 and "complete: 20 games" in out
