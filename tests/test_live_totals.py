"""Issue 26: the reports of a compiled run are summed from the numbers the workers send with the
rows, as the run is played, and give the same bytes as reading games.csv back."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from arena.analysis import games_csv
from arena.analysis.games_csv import BLOCK_COLUMNS, GAME_COLUMNS, Names
from arena.cli.main import cli
from arena.engine import PRESETS
from arena.players import load_player_spec
from arena.tournaments.compiled_games import CompiledGames
from arena.tournaments.spec import TournamentSpec

pytest.importorskip("numba")

REPORTS = ("summary.csv", "pairwise.csv", "errors.csv", "gauntlet.csv")


def run(folder: Path, *args: str) -> str:
    command = ["tournament", *args, "--seed", "4", "--out", str(folder), "--no-progress"]
    result = CliRunner().invoke(cli, command)
    assert result.exit_code == 0, result.output
    return result.stdout.replace(str(folder), "FOLDER")


def reports(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in REPORTS if (folder / name).exists()}


def without_timing(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if " played in " not in line)


@pytest.mark.parametrize(
    "field",
    [
        ["-p", "threshold", "-p", "greedy", "-p", "tactician", "--rules", "standard", "--rules", "short"],
        ["--format", "gauntlet", "-p", "optimal", "-p", "greedy", "-p", "threshold", "--rules", "classic"],
        ["--format", "free-for-all", "--seats", "3", "-p", "threshold", "-p", "greedy", "-p", "tactician",
         "-p", "random", "--rules", "standard"],
    ],
    ids=["round-robin", "gauntlet", "free-for-all"],
)
def test_a_compiled_run_sums_its_reports_as_it_plays_with_the_bytes_of_reading_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: list[str]
) -> None:
    off = run(tmp_path / "off", *field, "--games", "300", "--compiled", "off")
    reads: list[Path] = []
    real = games_csv.game_blocks

    def counted(path: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr("arena.analysis.reports.game_blocks", counted)
    on = run(tmp_path / "on", *field, "--games", "300", "--compiled", "on", "--workers", "2")
    assert reads == []  # the reports did not read games.csv back
    assert (tmp_path / "on" / "games.csv").read_bytes() == (tmp_path / "off" / "games.csv").read_bytes()
    assert reports(tmp_path / "on") == reports(tmp_path / "off")
    assert without_timing(on) == without_timing(off)


def test_a_field_with_a_python_player_reads_games_csv_and_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(__file__).resolve().parent.parent
    catch_up = str(root / "strategies" / "catch_up.py")
    field = ["-p", "threshold", "-p", "greedy", "-p", catch_up, "--games", "40"]
    reads: list[Path] = []
    real = games_csv.game_blocks

    def counted(path: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(path)
        return real(path, *args, **kwargs)

    off = run(tmp_path / "off", *field, "--compiled", "off")
    monkeypatch.setattr("arena.analysis.reports.game_blocks", counted)
    on = run(tmp_path / "on", *field, "--compiled", "auto")
    assert reads == [tmp_path / "on" / "games.csv"]
    assert reports(tmp_path / "on") == reports(tmp_path / "off")
    assert without_timing(on) == without_timing(off)


def test_the_numbers_of_a_piece_make_the_block_its_rows_make() -> None:
    players = tuple(load_player_spec(p) for p in ("threshold", "greedy", "tactician"))
    rules = (PRESETS["standard"], PRESETS["short"])
    spec = TournamentSpec(rules, players, format="free-for-all", seats=3, games=200, seed=9, max_rounds=12)
    piece = next(CompiledGames(spec).pieces(0, 400, 400))
    assert piece.columns is not None
    frame = pd.read_csv(io.StringIO(piece.rows), names=GAME_COLUMNS, dtype=BLOCK_COLUMNS)
    from_rows = Names().block(frame)
    from_numbers = Names().numbers_block(piece.columns, 0, [r.name for r in rules], list(spec.labels))
    assert from_rows.round_limit.any()  # max_rounds=12: some games end at the limit
    for name in ("ruleset", "game", "deal", "seat", "player", "score", "rank", "turns", "farkles"):
        assert np.array_equal(getattr(from_rows, name), getattr(from_numbers, name)), name
    assert np.array_equal(from_rows.win, from_numbers.win)
    assert np.array_equal(from_rows.round_limit, from_numbers.round_limit)
    assert not from_numbers.fault.any() and len(from_numbers.faults) == 0
