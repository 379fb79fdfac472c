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


# --- Dask runs that lose a batch or a worker ----------------------------------------------------
def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def one_line_error(result) -> bool:
    """Failed the way arena promises: `arena: error: ...` on one line, no traceback."""
    err = result.stderr.strip().splitlines()
    return (
        result.exit_code != 0
        and (result.exception is None or isinstance(result.exception, SystemExit))
        and bool(err)
        and err[-1].startswith("arena: error: ")
        and not any("Traceback" in line for line in err)
    )


EXITER = """
import os

from arena.engine import Action


class Exiter:
    \"\"\"Kills its process at its first decision.\"\"\"

    name = "exiter"

    def decide(self, view):
        os._exit(3)
"""


# --- the Dask backend -------------------------------------------------------------------------
ONLY_HERE = """
from arena.engine import Action

try:
    from distributed import get_worker

    get_worker()
except ValueError:
    pass  # not on a Dask worker: this machine has what the strategy needs
else:
    raise ImportError("botlib is not installed on this machine")


class NeedsLib:
    \"\"\"Stands for a strategy whose file or library is missing on the worker machines.\"\"\"

    name = "needs-lib"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))
"""


@pytest.mark.slow
@pytest.mark.parametrize("content", [EXITER, ONLY_HERE], ids=["os-exit", "missing-on-workers"])
def test_dask_run_that_cannot_play_a_batch_is_one_line(tmp_path: Path, content: str) -> None:
    # Local backend: "a worker process died while playing games 0 to 1 ...; continue with
    # `arena tournament --resume ...`" and exit status 1.  Dask backend: a traceback
    # (FutureCancelledError, KilledWorker, or the worker's StrategyError from loading the file).
    pytest.importorskip("distributed")
    bot = tmp_path / "bot.py"
    bot.write_text(content)
    result = invoke(
        "tournament",
        "--rules",
        "classic",
        "-p",
        str(bot),
        "-p",
        "greedy",
        "--games",
        "4",
        "--backend",
        "dask",
        "--workers",
        "2",
        "--out",
        str(tmp_path / "out"),
        "--no-progress",
    )
    assert one_line_error(result), (result.exception, result.stderr[-300:])


@pytest.mark.slow
def test_dask_single_worker_killed_mid_run_costs_nothing(tmp_path: Path) -> None:
    # The spec is scattered once, to the workers present at the start.  When every worker that
    # holds it dies (here the one worker of the cluster; on a real cluster, all the original
    # workers over a long run, or one machine running every worker), the scheduler says "Removing
    # worker ... caused the cluster to lose scattered data, which can't be recovered" and the run
    # ends in FutureCancelledError, though the nanny has already started a fresh worker.
    import os
    import signal

    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    from arena.engine import CLASSIC
    from arena.tournament import TournamentSpec, run_tournament
    from arena.tournament.run_folder import RunFolder

    spec = TournamentSpec(
        (CLASSIC,), (load_player_spec("greedy"), load_player_spec("threshold")), games=100, seed=3
    )
    local = run_tournament(spec, RunFolder.create(tmp_path / "local", spec), batch_size=10, workers=1)
    assert local.games_written == 100
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        killed: list[int] = []

        def kill_the_worker(result) -> None:
            if not killed:
                (pid,) = client.run(os.getpid).values()
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        outcome = run_tournament(
            spec,
            RunFolder.create(tmp_path / "dask", spec),
            batch_size=10,
            backend="dask",
            scheduler=cluster.scheduler_address,
            on_batch=kill_the_worker,
        )
    assert killed and outcome.games_written == 100
    assert (tmp_path / "dask" / "games.csv").read_bytes() == (tmp_path / "local" / "games.csv").read_bytes()
