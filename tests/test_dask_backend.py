"""The Dask backend on a LocalCluster on 127.0.0.1 (two worker processes, no dashboard): the
same bytes as the local backend, a worker killed mid-run costs nothing, and bad set-ups are one
line."""

from __future__ import annotations

import importlib.util
import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, STANDARD
from arena.players import load_player_spec
from arena.tournament import TournamentSpec, dask_backend, run_tournament
from arena.tournament.run_folder import RunFolder

distributed = pytest.importorskip("distributed")  # the optional extra; the test extra installs it

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as local,
        Client(local) as client,
    ):
        yield local, client


def spec() -> TournamentSpec:
    players = tuple(
        load_player_spec(p) for p in ("greedy", "optimal", str(REPO / "strategies" / "bank_at_500.py"))
    )
    return TournamentSpec((CLASSIC, STANDARD), players, games=40, seed=11)


def run(folder: Path, **options) -> bytes:
    s = spec()
    outcome = run_tournament(s, RunFolder.create(folder, s), batch_size=10, **options)
    assert outcome.games_written == outcome.games_total == 240
    return (folder / "games.csv").read_bytes()


def test_same_bytes_as_the_local_backend(cluster, tmp_path: Path) -> None:
    local_cluster, _ = cluster
    local = run(tmp_path / "local", workers=2)
    remote = run(tmp_path / "dask", backend="dask", scheduler=local_cluster.scheduler_address)
    assert remote == local


def test_a_worker_killed_mid_run_costs_nothing(cluster, tmp_path: Path) -> None:
    local_cluster, client = cluster
    expected = run(tmp_path / "local", workers=1)
    killed: list[int] = []

    def kill_one_worker(result) -> None:
        if not killed:
            pids = sorted(client.run(os.getpid).values())
            os.kill(pids[0], signal.SIGKILL)  # the nanny starts a new worker; its batches run again
            killed.append(pids[0])

    got = run(
        tmp_path / "dask", backend="dask", scheduler=local_cluster.scheduler_address, on_batch=kill_one_worker
    )
    assert killed and killed[0] not in client.run(os.getpid).values()  # that worker is gone
    assert got == expected  # every game exactly once, in order
    lines = got.decode().splitlines()[1:]
    assert len(lines) == 480 and len({tuple(line.split(",")[1:5:3]) for line in lines}) == 480


def test_resume_on_dask_matches_an_uninterrupted_local_run(cluster, tmp_path: Path) -> None:
    local_cluster, _ = cluster
    expected = run(tmp_path / "local", workers=1)
    folder = tmp_path / "resumed"
    s = spec()
    (folder).mkdir()
    header_and_some = expected.splitlines(keepends=True)[: 1 + 2 * 57]  # 57 games and a torn line
    (folder / "games.csv").write_bytes(b"".join(header_and_some) + b"classic,57,1")
    RunFolder.create(tmp_path / "template", s)
    (folder / "spec.json").write_bytes((tmp_path / "template" / "spec.json").read_bytes())
    resumed = RunFolder.resume(folder, s, 2)
    assert resumed.completed_games == 57
    run_tournament(s, resumed, batch_size=10, backend="dask", scheduler=local_cluster.scheduler_address)
    assert (folder / "games.csv").read_bytes() == expected


def cli_run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_with_a_scheduler(cluster, tmp_path: Path) -> None:
    local_cluster, _ = cluster
    code, out, _ = cli_run(
        "tournament",
        "--rules",
        "classic",
        "-p",
        "greedy",
        "-p",
        "random",
        "--games",
        "20",
        "--backend",
        "dask",
        "--scheduler",
        local_cluster.scheduler_address,
        "--out",
        str(tmp_path / "cli"),
        "--no-progress",
    )
    assert code == 0 and "20 games in" in out


def test_without_dask_installed_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a)
    )
    code, _, err = cli_run("tournament", "--backend", "dask", "--out", str(tmp_path / "x"))
    assert code == 2 and err.strip() == f"arena: error: {dask_backend.INSTALL_HINT}"
    assert not (tmp_path / "x").exists()


def test_scheduler_needs_the_dask_backend(tmp_path: Path) -> None:
    code, _, err = cli_run("tournament", "--scheduler", "tcp://127.0.0.1:8786", "--out", str(tmp_path / "x"))
    assert code == 2 and err.strip() == "arena: error: --scheduler goes with --backend dask"


def test_unreachable_scheduler_is_one_line_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(dask_backend, "CONNECT_TIMEOUT", "1s")
    code, _, err = cli_run(
        "tournament",
        "--rules",
        "classic",
        "-p",
        "greedy",
        "-p",
        "random",
        "--games",
        "4",
        "--backend",
        "dask",
        "--scheduler",
        "tcp://127.0.0.1:9",
        "--out",
        str(tmp_path / "x"),
        "--no-progress",
    )
    assert code == 2 and "arena: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err
    assert len(err.strip().splitlines()) == 2  # the header line, then the error
    assert not (tmp_path / "x").exists()
