"""Issue 40, point 2: a trained policy is an entry.

The Q-learning example learns (its table banks far more than the untrained one), the trainer
gives the same bytes for the same arguments, and the table plays from its ``.npz`` file as a
player spec: in ``arena play``, ``tournament`` (byte-identical with and without ``--isolate``,
whose seat sees the table file its spec names and nothing else of the folder), ``duel`` and
``league add``.  A file that is not a table is a one-line error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, play
from arena.envs.q_table import QTable, TableError
from arena.envs.table_player import QTablePlayer
from arena.envs.train_q import main as train_main
from arena.envs.train_q import train
from arena.players.loading import StrategyError
from arena.sandbox import exposure

ARENA = [sys.executable, "-m", "arena.cli"]
SPEC = "arena.envs.table_player:QTablePlayer:table={}"


@pytest.fixture(scope="module")
def table_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("table") / "q.npz"
    train("classic", 1500, seed=3).save(path)
    return path


def _solo_points(table: QTable, games: int = 60) -> float:
    """Mean banked points per turn of ``table`` playing alone for 15 rounds."""
    player = QTablePlayer.__new__(QTablePlayer)
    player.table = table
    total = turns = 0
    for seed in range(games):
        result = play(CLASSIC, [player.decide], seed, max_rounds=15)
        total, turns = total + result.scores[0], turns + result.turns[0]
    return total / turns


def test_q_learning_learns_to_bank(table_file: Path) -> None:
    learned = _solo_points(QTable.load(table_file))
    untrained = _solo_points(QTable.empty(CLASSIC))  # every value 0: the first option, rolling on
    assert untrained == 0
    assert learned > 200  # greedy banks about 220 a turn under classic


def test_the_trainer_gives_the_same_bytes_for_the_same_arguments(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert train_main(["--games", "200", "--seed", "9", "--out", str(tmp_path / f"{name}.npz")]) == 0
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    train_main(["--games", "200", "--seed", "8", "--out", str(tmp_path / "c.npz")])
    assert not np.array_equal(QTable.load(tmp_path / "a.npz").q, QTable.load(tmp_path / "c.npz").q)


def test_a_file_that_is_not_a_table_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.npz").write_text("not numpy")
    np.savez(tmp_path / "other.npz", weights=np.zeros(3))
    np.save(tmp_path / "array.npy", np.zeros(3))  # np.load reads it as an array, not an archive
    (tmp_path / "folder").mkdir()
    for name, why in (
        ("missing.npz", "no such file"),
        ("notes.npz", "not a Q-table"),
        ("other.npz", "not a Q-table"),
        ("array.npy", "not a Q-table"),
        ("folder", "not a Q-table"),
    ):
        with pytest.raises(TableError, match=why):
            QTable.load(tmp_path / name)
        result = CliRunner().invoke(cli, ["play", "--rules", "classic", "-p", SPEC.format(tmp_path / name)])
        assert result.exit_code != 0
        assert "Traceback" not in result.output and why in result.output
        assert "pickled" not in result.output and "context manager" not in result.output  # numpy's words


def test_the_trainer_refuses_an_out_it_cannot_write_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "folder").mkdir()
    for out, why in (
        (tmp_path / "none" / "q.npz", "no folder"),  # said before the training, not after it
        (tmp_path / "folder", "Is a directory"),
    ):
        with pytest.raises(SystemExit) as exit_:
            train_main(["--games", "2", "--out", str(out)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err


def test_without_the_rl_extra_the_environments_say_how_to_install_it(tmp_path: Path) -> None:
    hide = "import sys; sys.modules['gymnasium'] = sys.modules['pettingzoo'] = None; "
    for code in ("from arena.envs import SeatEnv", "import arena.envs.aec_env"):
        run = subprocess.run([sys.executable, "-c", hide + code], capture_output=True, text=True, timeout=60)
        assert run.returncode != 0
        last = run.stderr.strip().splitlines()[-1]
        assert last.startswith("arena.envs.MissingExtraError: arena.envs needs gymnasium: pip install")
        assert "[rl]" in last
    trainer = hide + "from arena.envs.train_q import main; main(['--games', '2', '--out', 'q.npz'])"
    run = subprocess.run(
        [sys.executable, "-c", trainer], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error: arena.envs needs gymnasium: pip install") and "[rl]" in run.stderr
    # the player of a trained table needs NumPy only
    player = hide + "from arena.envs.table_player import QTablePlayer"
    assert subprocess.run([sys.executable, "-c", player], capture_output=True, timeout=60).returncode == 0


def test_a_table_for_other_dice_is_refused_when_the_game_starts(table_file: Path) -> None:
    result = CliRunner().invoke(
        cli, ["play", "--rules", "standard", "--seed", "1", "-p", SPEC.format(table_file)]
    )
    assert result.exit_code != 0
    # A fault of the strategy's start_game, reported as every strategy's fault is (docs/faults.md).
    assert "trained for 5 dice (classic); standard plays 6" in result.output


def test_the_seat_of_a_table_sees_the_file_its_parameter_names(tmp_path: Path) -> None:
    (tmp_path / "q.npz").write_bytes(b"x")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link.npz").symlink_to(tmp_path / "q.npz")
    seen = exposure.parameter_paths(SPEC.format("q.npz") + ",other=folder,n=400", tmp_path, ())
    assert seen == [tmp_path / "q.npz"]  # not the folder, not a value that names nothing
    with pytest.raises(Exception, match="is a symbolic link"):
        exposure.parameter_paths(SPEC.format("link.npz"), tmp_path, ())
    assert exposure.parameter_paths("threshold:bank_at=400", tmp_path, ()) == []


def _tournament(folder: Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *ARENA,
            "tournament",
            "-p",
            SPEC.format("q.npz"),
            "-p",
            "greedy",
            "--rules",
            "classic",
            "--games",
            "12",
            "--seed",
            "5",
            "--out",
            str(folder),
            "--no-progress",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


@pytest.mark.slow
def test_a_trained_table_plays_a_tournament_byte_identically_isolated_or_not(
    table_file: Path, tmp_path: Path
) -> None:
    (tmp_path / "q.npz").write_bytes(table_file.read_bytes())
    plain = _tournament(tmp_path / "plain", tmp_path)
    isolated = _tournament(tmp_path / "isolated", tmp_path, "--isolate")
    assert plain.returncode == 0 and isolated.returncode == 0, plain.stderr + isolated.stderr
    assert (tmp_path / "plain/games.csv").read_bytes() == (tmp_path / "isolated/games.csv").read_bytes()
    (tmp_path / "q.npz").unlink()  # without its table the isolated seat can't load it either
    again = _tournament(tmp_path / "again", tmp_path, "--isolate")
    assert again.returncode != 0 and "q.npz: no such file" in again.stderr


@pytest.mark.slow
def test_a_trained_table_enters_a_duel_and_a_league(table_file: Path, tmp_path: Path) -> None:
    table = tmp_path / "q.npz"
    table.write_bytes(table_file.read_bytes())
    spec = SPEC.format(table)
    duel = subprocess.run(
        [
            *ARENA,
            "duel",
            spec,
            "greedy",
            "--rules",
            "classic",
            "--games",
            "8",
            "--seed",
            "2",
            "--out",
            str(tmp_path / "duel"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert duel.returncode == 0, duel.stderr
    subprocess.run([*ARENA, "league", "init", str(tmp_path / "league"), "--rules", "classic"], check=True)
    added = subprocess.run(
        [*ARENA, "league", "add", str(tmp_path / "league"), spec, "--name", "qbot"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert added.returncode == 0, added.stderr
    assert "qbot" in added.stdout
    # Stored by content: a table trained again under the same name is a change, as a module's
    # source is (the league's entries hash the files a spec's parameters name).
    train("classic", 50, seed=4).save(table)
    run = subprocess.run(
        [*ARENA, "league", "run", str(tmp_path / "league")], capture_output=True, text=True, timeout=300
    )
    assert "qbot version 1: its module changed since it was added" in run.stdout + run.stderr


def test_a_league_run_from_another_folder_says_a_relative_table_is_not_found(
    table_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.leagues import League
    from arena.leagues.entries import changed_since_added

    added_in = tmp_path / "bots"
    added_in.mkdir()
    (added_in / "q.npz").write_bytes(table_file.read_bytes())
    league = League.create(tmp_path / "league", ["classic"], games=2, seed=1)
    monkeypatch.chdir(added_in)
    league.add(SPEC.format("q.npz"), name="qrel")
    (entry,) = league.entries()
    assert changed_since_added(entry, league.folder) is None  # from the folder it was added from
    monkeypatch.chdir(tmp_path)
    why = changed_since_added(entry, league.folder)
    assert why is not None and "q.npz not found from this folder" in why
    assert "module changed" not in why  # the module did not change: its table is elsewhere


def test_a_table_named_through_a_link_is_refused_as_a_parameter_value(tmp_path: Path) -> None:
    (tmp_path / "q.npz").write_bytes(b"numbers")
    (tmp_path / "link.npz").symlink_to("q.npz")
    with pytest.raises(StrategyError, match=r"^the parameter value link\.npz: .* is a symbolic link"):
        exposure.parameter_paths(SPEC.format("link.npz"), tmp_path, ())  # it said "the argument"
