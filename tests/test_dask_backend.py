"""The Dask backend on a LocalCluster on 127.0.0.1 (two worker processes, no dashboard, one
per module): the same bytes as the local backend, with and without --isolate, on one and two
workers; the local backend's guarantees (fresh state per chunk, the hard deadline, seats on the
worker, the run folder hidden, seat logs brought back); a worker killed mid-run costs nothing;
and what can't work is one line."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, STANDARD
from arena.players import load_player_spec
from arena.sandbox import SeatLimits, load_player
from arena.tournaments import TournamentSpec, dask_backend, run_tournament
from arena.tournaments.run_folder import RunFolder

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
    # Chunks of 20 games: a dozen tasks, several in flight when a test kills a worker.
    return TournamentSpec((CLASSIC, STANDARD), players, games=40, seed=11, chunk_games=20)


def run(folder: Path, **options) -> bytes:
    s = spec()
    outcome = run_tournament(s, RunFolder.create(folder, s), batch_size=10, **options)
    assert outcome.games_written == outcome.games_total == 240
    return (folder / "games.csv").read_bytes()


@pytest.fixture(scope="module")
def local_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """games.csv of :func:`spec` played by the local backend (the same on 1 and 2 workers), run
    once for the tests that compare a Dask run with it."""
    return run(tmp_path_factory.mktemp("local") / "local", workers=2)


def test_same_bytes_as_the_local_backend(cluster, tmp_path: Path, local_bytes: bytes) -> None:
    local_cluster, _ = cluster
    remote = run(tmp_path / "dask", backend="dask", scheduler=local_cluster.scheduler_address)
    assert remote == local_bytes


def test_a_worker_killed_mid_run_costs_nothing(cluster, tmp_path: Path, local_bytes: bytes) -> None:
    local_cluster, client = cluster
    expected = local_bytes
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


def test_resume_on_dask_matches_an_uninterrupted_local_run(
    cluster, tmp_path: Path, local_bytes: bytes
) -> None:
    local_cluster, _ = cluster
    expected = local_bytes
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


def test_a_strategy_that_kills_its_process_loses_its_games_on_dask_as_locally(
    cluster, tmp_path: Path
) -> None:
    # It used to take its Dask worker down with it, batch after batch, until the cluster gave up.
    local_cluster, _ = cluster
    bot = tmp_path / "exiter.py"
    bot.write_text(EXITER)
    s = TournamentSpec((CLASSIC,), (load_player_spec(str(bot)), load_player_spec("greedy")), games=2, seed=4)
    local = run_tournament(s, RunFolder.create(tmp_path / "local", s), progress=False)
    remote = run_tournament(
        s, RunFolder.create(tmp_path / "dask", s), backend="dask", scheduler=local_cluster.scheduler_address
    )
    assert remote.error is None and remote.faults == local.faults == 2
    assert (tmp_path / "dask" / "games.csv").read_bytes() == (tmp_path / "local" / "games.csv").read_bytes()
    assert b"the strategy's process exited with status 3" in (tmp_path / "dask" / "games.csv").read_bytes()


@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "isolated"])
def test_a_strategy_file_missing_on_the_workers_is_one_line(cluster, tmp_path: Path, isolate: bool) -> None:
    # The file is there when the organiser loads the spec and gone when the workers look for it,
    # as on a cluster whose machines were not given it.
    local_cluster, _ = cluster
    bot = tmp_path / "bot.py"
    bot.write_text(EXITER)
    player = load_player(str(bot), isolate=isolate, limits=SeatLimits(), move_timeout=None)
    s = TournamentSpec(
        (CLASSIC,),
        (player, load_player_spec("greedy")),
        games=2,
        seed=4,
        seat_limits=SeatLimits() if isolate else None,
    )
    folder = RunFolder.create(tmp_path / "run", s)
    bot.unlink()
    outcome = run_tournament(s, folder, backend="dask", scheduler=local_cluster.scheduler_address)
    assert outcome.interrupted and outcome.games_written == 0
    error = outcome.error or ""
    assert error.startswith("on the Dask worker tcp://127.0.0.1:") and "\n" not in error
    assert str(bot) in error


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
    from arena.tournaments import TournamentSpec, run_tournament
    from arena.tournaments.run_folder import RunFolder

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


# --- the local backend's guarantees, on Dask ------------------------------------------------------
LIMIT = 0.3  # --move-timeout where a test makes a strategy hang


def played(
    folder: Path, players: list[str], *, isolate: bool, dask: str | int | None, **spec_options
) -> Path:
    """A run of ``players`` (isolated or not), locally (``dask`` None), on the cluster at the
    address ``dask``, or on a LocalCluster of ``dask`` workers started for it; its folder."""
    limits = SeatLimits()
    timeout = spec_options.pop("move_timeout", 10.0)
    specs = tuple(load_player(p, isolate=isolate, limits=limits, move_timeout=timeout) for p in players)
    options = {"games": 8, "seed": 11, "move_timeout": timeout, **spec_options}
    s = TournamentSpec(
        (STANDARD,), specs, seat_limits=limits if any(p.isolated for p in specs) else None, **options
    )
    if dask is None:
        where = {"workers": 2}
    elif isinstance(dask, str):
        where = {"backend": "dask", "scheduler": dask}
    else:
        where = {"backend": "dask", "workers": dask}
    outcome = run_tournament(s, RunFolder.create(folder, s), progress=False, **where)
    assert not outcome.interrupted, outcome.error
    return folder


def csv_bytes(folder: Path) -> bytes:
    return (folder / "games.csv").read_bytes()


HONEST = ["random", "threshold:bank_at=400", str(REPO / "strategies" / "catch_up.py")]


@pytest.mark.slow
def test_isolated_honest_players_give_the_local_bytes_on_one_and_two_dask_workers(
    cluster, tmp_path: Path
) -> None:
    # Chunks of 3 games: seat processes end and start again at the chunk boundary, on the workers.
    # (6 games in 2 chunks: an isolated run costs its seat processes, one a player, seat order and
    # pairing of a chunk, whatever the number of games.)
    local_cluster, _ = cluster
    address = local_cluster.scheduler_address
    options = {"games": 2, "chunk_games": 3}
    reference = csv_bytes(played(tmp_path / "local", HONEST, isolate=False, dask=None, **options))
    assert reference.count(b"\n") == 1 + 2 * 6
    # (Isolated locally gives the same bytes: tests/test_sandbox.py shows it on 1 and 2 workers.)
    for name, isolate, dask in [
        ("dask-2", False, address),
        ("dask-2-isolated", True, address),
        ("dask-1-isolated", True, 1),
    ]:
        got = csv_bytes(played(tmp_path / name, HONEST, isolate=isolate, dask=dask, **options))
        assert got == reference, name


COUNTER = """
from arena.players.builtin.greedy import GreedyPlayer


class Counter(GreedyPlayer):
    name = "counter"
    games = 0  # class state: per process

    def start_game(self, info):
        Counter.games += 1
        if Counter.games > 1:
            raise RuntimeError(f"game {Counter.games} of this process")
"""


@pytest.mark.parametrize(
    "isolate", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["in-process", "isolated"]
)
def test_class_state_lives_for_one_chunk_on_dask_as_locally(cluster, tmp_path: Path, isolate: bool) -> None:
    # Before, a worker kept one process (and so the class) for every batch it played: the
    # counter ran on from chunk to chunk, and every game after the third faulted.
    local_cluster, _ = cluster
    bot = tmp_path / "counter.py"
    bot.write_text(COUNTER)
    options = {"games": 12, "chunk_games": 4}  # three chunks: some worker plays two
    local = played(tmp_path / "local", [str(bot), "greedy"], isolate=isolate, dask=None, **options)
    remote = played(
        tmp_path / "dask",
        [str(bot), "greedy"],
        isolate=isolate,
        dask=local_cluster.scheduler_address,
        **options,
    )
    assert csv_bytes(remote) == csv_bytes(local)
    rows = csv_bytes(remote).decode().splitlines()[1:]
    faulted = sorted({int(r.split(",")[1]) for r in rows if ",error," in r})
    if isolate:  # a seat process serves one seat order of a chunk: all but its first game fault
        assert faulted == [2, 3, 6, 7, 10, 11]
    else:  # a chunk process serves its chunk: all but the chunk's first game fault
        assert faulted == [g for g in range(12) if g % 4]


@pytest.mark.slow
def test_no_seat_process_plays_a_deal_twice_on_dask(cluster, tmp_path: Path) -> None:
    # tests/cheats/deal_memory.py faults whenever it meets a deal again (see tests/test_sandbox.py).
    local_cluster, _ = cluster
    cheat = str(REPO / "tests" / "cheats" / "deal_memory.py")
    options = {"games": 8, "chunk_games": 4}  # two chunks of two deals, one a worker
    honest = played(tmp_path / "honest", ["greedy", "greedy"], isolate=False, dask=None, **options)
    control = played(tmp_path / "control", [cheat, "greedy"], isolate=False, dask=None, **options)
    assert csv_bytes(control).count(b"seen this deal before") == 4  # every game of order 1
    remote = played(
        tmp_path / "dask", [cheat, "greedy"], isolate=True, dask=local_cluster.scheduler_address, **options
    )
    assert csv_bytes(remote) == csv_bytes(honest)


HANGS = """
import signal
import time

from arena.players.builtin.greedy import GreedyPlayer


class CLoop(GreedyPlayer):
    name = "c-loop"

    def decide(self, view):
        if view.seat == 0:
            sum(range(10**12))  # C code: no signal handler runs until it returns
        return super().decide(view)


class DeafSleeper(GreedyPlayer):
    name = "deaf-sleeper"

    def decide(self, view):
        if view.seat == 0:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # the watchdog can't reach it
            time.sleep(60)
        return super().decide(view)
"""


@pytest.mark.slow
def test_a_strategy_stuck_where_no_signal_reaches_loses_by_timeout_on_dask_as_locally(
    cluster, tmp_path: Path
) -> None:
    local_cluster, _ = cluster
    bots = tmp_path / "hangs.py"
    bots.write_text(HANGS)
    players = ["greedy", f"{bots}:CLoop", f"{bots}:DeafSleeper"]
    options = {"games": 2, "chunk_games": 1, "move_timeout": LIMIT, "format": "gauntlet"}
    local = played(tmp_path / "local", players, isolate=False, dask=None, **options)
    began = time.monotonic()
    remote = played(
        tmp_path / "dask", players, isolate=False, dask=local_cluster.scheduler_address, **options
    )
    elapsed = time.monotonic() - began
    assert csv_bytes(remote) == csv_bytes(local)
    rows = [r.split(",") for r in csv_bytes(remote).decode().splitlines()[1:]]
    timeouts = sorted(r[5] for r in rows if r[11] == "timeout")
    assert timeouts == ["c-loop", "deaf-sleeper"]  # each in the game it sits first, killed and replayed
    # Two kills, on two workers, each at the deadline plus the supervisor's grace.
    assert elapsed < 2 * (LIMIT + 1.0) + 10


TALKER = """
import sys

from arena.players.builtin.greedy import GreedyPlayer


class Talker(GreedyPlayer):
    name = "talker"

    def start_game(self, info):
        print(f"thinking out loud in seat {info.seat}", file=sys.stderr)
"""


def hosts_of(client) -> list[int]:
    """The chunk hosts (arena.tournaments.chunk_host) the cluster's workers have now."""
    workers = set(client.run(os.getpid).values())
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(argv) > 4 and b"arena.tournaments.chunk_host" in argv[2] and int(argv[4]) in workers:
            found.append(int(entry.name))
    return found


def test_a_command_bot_plays_on_dask_and_its_stderr_comes_back(
    cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From the repository, as a user names the bot: the relative path is found on the worker.
    local_cluster, client = cluster
    monkeypatch.chdir(REPO)
    talker = tmp_path / "talker.py"
    talker.write_text(TALKER)
    bot = f"cmd:{sys.executable} strategies/external/greedy_bot.py greedy"
    out = tmp_path / "dask"
    code, _, err = cli_run(
        "tournament", "--rules", "standard", "-p", bot, "-p", str(talker), "--isolate",
        "--games", "4", "--seed", "0", "--backend", "dask", "--scheduler", local_cluster.scheduler_address,
        "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert code == 0, err[-500:]
    code, _, err = cli_run(
        "tournament", "--rules", "standard", "-p", "greedy", "-p", str(talker),
        "--games", "4", "--seed", "0", "--out", str(tmp_path / "local"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err[-500:]
    assert csv_bytes(out) == csv_bytes(tmp_path / "local")
    assert b",error," not in csv_bytes(out) and b",timeout," not in csv_bytes(out)
    log = (out / "seat-logs" / "talker.log").read_text().splitlines()
    # Every game the talker played, in game order whatever worker played it.
    seats = [r.split(",")[4] for r in csv_bytes(out).decode().splitlines()[1:] if ",talker," in r]
    assert len(seats) == 4 and log == [f"thinking out loud in seat {seat}" for seat in seats]
    assert hosts_of(client) == []  # the run stopped its hosts (and so their seats) on every worker


def test_the_run_folder_is_hidden_from_seats_on_a_dask_worker(
    cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The probe (tests/cheats/snoop.py) reads spec.json files below the working directory, other
    # processes' files, and more; on a worker too it finds none, and so plays like greedy.
    local_cluster, _ = cluster
    monkeypatch.chdir(tmp_path)
    probe = str(REPO / "tests" / "cheats" / "snoop.py")
    options = {"games": 2, "chunk_games": 2}
    address = local_cluster.scheduler_address
    remote = played(
        tmp_path / "results" / "dask", [probe, "threshold"], isolate=True, dask=address, **options
    )
    honest = played(tmp_path / "elsewhere", ["greedy", "threshold"], isolate=False, dask=None, **options)
    assert csv_bytes(remote) == csv_bytes(honest)


CPU_PROBE = """
import os
from pathlib import Path

from arena.players.builtin.greedy import GreedyPlayer


class CpuProbe(GreedyPlayer):
    name = "greedy"

    def start_game(self, info):
        layers = os.environ.get("ARENA_SEAT_LAYERS", "").split(",")
        lines = Path("/proc/self/cgroup").read_text().splitlines()
        groups = [line for line in lines if "cpu" in line.split(":")[1].split(",") or line.startswith("0::")]
        if "cpu-cgroup" not in layers or not any("/arena-seat-" in line for line in groups):
            raise RuntimeError(f"no cpu group of its own: {layers} {groups}")
"""


@pytest.mark.slow
def test_a_seat_on_a_dask_worker_gets_a_cpu_group_of_its_own_as_locally(cluster, tmp_path: Path) -> None:
    # The probe raises unless its seat runs in a cpu group of its own (docs/security.md, fair
    # CPU); on a worker it must play like greedy, as here.
    if os.geteuid() != 0 or not any(
        ":cpu" in line for line in Path("/proc/self/cgroup").read_text().splitlines()
    ):
        pytest.skip("needs root and the cpu cgroup controller")
    local_cluster, _ = cluster
    probe = tmp_path / "cpu_probe.py"
    probe.write_text(CPU_PROBE)
    options = {"games": 2, "chunk_games": 2}
    remote = played(
        tmp_path / "dask",
        [str(probe), "threshold"],
        isolate=True,
        dask=local_cluster.scheduler_address,
        **options,
    )
    honest = played(tmp_path / "honest", ["greedy", "threshold"], isolate=False, dask=None, **options)
    assert csv_bytes(remote) == csv_bytes(honest)


DIES_OUTSIDE = """
import os
import sys

from arena.players.builtin.greedy import GreedyPlayer


def in_a_game():
    # True when arena plays games, not when it checks the player while loading the spec.
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "play_chunk":
        frame = frame.f_back
    return frame is not None


class DiesWhenFreed(GreedyPlayer):
    name = "dies-when-freed"
    made = 0

    def __init__(self):
        type(self).made += in_a_game()

    def __del__(self):
        if type(self).made > 2:  # the player of game 2
            os._exit(9)  # runs in arena's code, when the player object is freed
"""


def test_a_chunk_process_that_dies_outside_any_call_stops_the_run_with_the_local_line(
    cluster, tmp_path: Path
) -> None:
    local_cluster, _ = cluster
    bot = tmp_path / "dies.py"
    bot.write_text(DIES_OUTSIDE)
    s = TournamentSpec((CLASSIC,), (load_player_spec("greedy"), load_player_spec(str(bot))), games=6, seed=2)
    outcomes = [
        run_tournament(s, RunFolder.create(tmp_path / name, s), batch_size=1, progress=False, **where)
        for name, where in [
            ("local", {}),
            ("dask", {"backend": "dask", "scheduler": local_cluster.scheduler_address}),
        ]
    ]
    local, remote = outcomes
    assert remote.error == local.error and remote.interrupted
    assert (remote.error or "").startswith("the process playing game 2 exited with status 9 outside any")
    assert remote.games_written == 2  # the games sent before it are kept
    assert (tmp_path / "dask" / "games.csv").read_bytes() == (tmp_path / "local" / "games.csv").read_bytes()


def test_a_league_on_dask_stores_the_games_and_records_it_stores_locally(cluster, tmp_path: Path) -> None:
    """The database stays here; the games, isolated, run on the workers, byte for byte as here."""
    from arena.leagues import League

    local_cluster, _ = cluster
    stored = {}
    for where in ("local", "dask"):
        league = League.create(tmp_path / where, rules=("standard", "classic"), games=4, seed=5)
        for entry in ("greedy", str(REPO / "strategies" / "bank_at_500.py"), "random"):
            league.add(entry)
        options = {"backend": "dask", "scheduler": local_cluster.scheduler_address} if where == "dask" else {}
        assert league.run(progress=False, **options).played == 24
        records = league.connection.execute("SELECT game, events FROM records ORDER BY game").fetchall()
        table = league.table_json()
        for entry in table["entries"]:  # measured, not played: the time per decision varies
            assert entry.pop("seconds_per_decision") > 0
        stored[where] = (league.games_csv(), [tuple(r) for r in records], table)
        league.close()
    assert stored["dask"] == stored["local"]
    assert len(stored["local"][1]) == 12  # the first deal of each pair and ruleset, both seat orders


def test_a_league_whose_scheduler_is_unreachable_says_so_in_one_line(tmp_path: Path) -> None:
    from arena.leagues import League

    league = League.create(tmp_path / "a", games=2)
    league.add("greedy")
    league.add("random")
    league.close()
    code, _, err = cli_run("league", "run", str(tmp_path / "a"), "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and err.strip() == "arena: error: --scheduler goes with --backend dask"
    code, _, err = cli_run(
        "league", "run", str(tmp_path / "a"), "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"
    )
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("arena: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert League(tmp_path / "a").table_json()["games"] == 0  # nothing stored, nothing lost
