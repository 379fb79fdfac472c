"""Issue 11: untrusted bots in seat processes of their own (``--isolate``).

The five cheats of the issue live in tests/cheats/ as strategy files.  Each plays like the
built-in ``greedy`` (and calls itself greedy, so its games get greedy's deals) wherever its cheat
finds nothing to work on.  So under ``--isolate`` every cheat must give byte for byte the games
of honest greedy; and in arena's own processes each must change them, which shows the cheat is
real and the test able to fail.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from arena.cli.main import cli
from arena.engine import PRESETS, SHORT, STANDARD, Action, Game, Ruleset, load_ruleset
from arena.engine.loading import variant_names
from arena.players.timeout import MoveTimeout
from arena.sandbox import SeatLimits, load_player, wire
from arena.sandbox.cgroups import seat_groups
from arena.sandbox.process import NoReply, SeatProcess
from arena.tournaments import TournamentSpec, run_tournament
from arena.tournaments.run_folder import RunFolder
from tests.cheats import deal_memory
from tests.deadlines import at_most

CHEATS = Path(__file__).parent / "cheats"
ARENA = [sys.executable, "-m", "arena.cli"]


def invoke(*args: str) -> Result:
    """``arena ARGS...`` in this process, for a test of its files and messages where no cheat
    gets imported here (isolated players are imported in their seat processes only)."""
    return CliRunner().invoke(cli, list(args))


def run(
    folder: Path,
    players: list[str],
    *,
    isolate: bool,
    games: int = 40,
    rules: tuple[Ruleset, ...] = (STANDARD,),
    limits: SeatLimits | None = None,
    timeout: float = 10.0,
    workers: int = 1,
    chunk_games: int = 1000,
    format: str = "round-robin",
) -> Path:
    """Play a tournament (a round-robin by default) and return its folder."""
    limits = limits or SeatLimits()
    specs = [load_player(p, isolate=isolate, limits=limits, move_timeout=timeout) for p in players]
    spec = TournamentSpec(
        rules,
        tuple(specs),
        games=games,
        seed=11,
        move_timeout=timeout,
        chunk_games=chunk_games,
        format=format,
        seat_limits=limits if any(s.isolated for s in specs) else None,
    )
    run_folder = RunFolder.create(folder, spec)
    outcome = run_tournament(spec, run_folder, workers=workers, progress=False)
    assert not outcome.interrupted, outcome.error
    return folder


def games_bytes(folder: Path) -> bytes:
    return (folder / "games.csv").read_bytes()


def faults(folder: Path) -> pd.DataFrame:
    """The faulting seat's row of every game a player broke (as errors.csv lists them)."""
    rows = pd.read_csv(folder / "games.csv")
    return rows[rows.status != "ok"].reset_index(drop=True)


# ---------------------------------------------------------------------------- the five cheats
CHEAT_FILES = ["foresight", "scores_via_gc", "rewire_opponent", "patch_rival", "forge_results"]
#: Games of a cheat's run: each cheat already changes the games of a 6-game control, and the
#: isolated runs cost mostly their seat processes' start (scores_via_gc also a heap scan a move).
CHEAT_GAMES = 6


@pytest.fixture
def in_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in tmp_path, with runs in results/ below it, as a user does (the forging cheat looks
    for games.csv files below the working directory)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    return tmp_path / "results"


@pytest.fixture
def honest(in_results: Path) -> bytes:
    return games_bytes(run(in_results / "honest", ["greedy", "optimal"], isolate=False, games=CHEAT_GAMES))


def cli_run(folder: Path, players: list[str], games: int = CHEAT_GAMES, check: bool = True) -> Path:
    """The same run as :func:`run` without isolation, through the command line in a process of
    its own (working in ``folder``'s parent's parent, as from results/), so that a cheat imported
    there (one patches OptimalPlayer) can't reach this one.  On the Python path: the compiled
    kernel plays optimal's declared policy, which a patch of its ``decide`` doesn't reach."""
    args = ["--rules", "standard", "--games", str(games), "--seed", "11", "--out", str(folder)]
    args += ["--compiled", "off"]
    for player in players:
        args += ["-p", player]
    result = subprocess.run(
        [*ARENA, "tournament", *args], capture_output=True, text=True, timeout=300, cwd=folder.parent.parent
    )
    assert result.returncode == 0 or not check, result.stderr
    return folder


class CheatRuns:
    """Each cheat's isolated run and its control, played once for the module when a test first
    asks for it (the cheats' tests and the winning test read the same runs).  Every run works in
    a fresh folder with its run in results/ below it, so the forging cheat finds no other run."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.played: dict[tuple[str, bool], bytes] = {}

    def games(self, cheat: str, *, isolate: bool) -> bytes:
        key = (cheat, isolate)
        if key not in self.played:
            results = self.factory.mktemp(f"{cheat}-{isolate}") / "results"
            results.mkdir()
            players = [str(CHEATS / f"{cheat}.py"), "optimal"]
            if isolate:
                with contextlib.chdir(results.parent):
                    self.played[key] = games_bytes(
                        run(results / "isolated", players, isolate=True, games=CHEAT_GAMES)
                    )
            else:  # forged rows make the run's own reports fail: that is the cheat working
                self.played[key] = games_bytes(cli_run(results / "in-process", players, check=False))
        return self.played[key]


@pytest.fixture(scope="module")
def cheat_runs(tmp_path_factory: pytest.TempPathFactory) -> CheatRuns:
    return CheatRuns(tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("cheat", CHEAT_FILES)
def test_a_cheat_changes_nothing_under_isolate(cheat: str, cheat_runs: CheatRuns, honest: bytes) -> None:
    isolated = cheat_runs.games(cheat, isolate=True)
    assert isolated == honest
    assert b"forged" not in isolated


@pytest.mark.parametrize("cheat", CHEAT_FILES)
def test_the_same_cheat_works_in_arenas_own_processes(
    cheat: str, cheat_runs: CheatRuns, honest: bytes
) -> None:
    # The control: without --isolate each cheat changes the results, so the test above can fail.
    assert cheat_runs.games(cheat, isolate=False) != honest


def test_the_command_line_plays_the_games_of_the_controls(in_results: Path, honest: bytes) -> None:
    # So a control differs from honest greedy because of its cheat, not because of the CLI.
    assert games_bytes(cli_run(in_results / "honest-cli", ["greedy", "optimal"])) == honest


def test_the_cheats_win_in_arenas_own_processes_and_not_under_isolate(cheat_runs: CheatRuns) -> None:
    def share(games: bytes, player: str) -> float:
        rows = pd.read_csv(io.BytesIO(games))
        return rows.loc[rows.player == player, "win"].mean()

    assert share(cheat_runs.games("scores_via_gc", isolate=False), "greedy") == 1.0
    assert share(cheat_runs.games("scores_via_gc", isolate=True), "greedy") < 0.5


def test_a_seat_finds_no_way_out(in_results: Path) -> None:
    """The probe tries: other processes' command lines (the seed) and files, signalling arena's
    processes, the run's spec.json, writing in the working directory, the network.  Under
    --isolate it finds none of them, so it plays like greedy; in arena's processes it finds
    some and loses by error."""
    probe = str(CHEATS / "snoop.py")
    # First, while its own run is the only one in results/ (other runs' folders stay readable).
    isolated = run(in_results / "isolated", [probe, "threshold"], isolate=True, games=4)
    honest = games_bytes(run(in_results / "honest", ["greedy", "threshold"], isolate=False, games=4))
    assert games_bytes(isolated) == honest
    exposed = faults(run(in_results / "exposed", [probe, "threshold"], isolate=False, games=4))
    assert len(exposed) == 4 and exposed.reason.str.contains("read|signal|listed|wrote").all()


# ------------------------------------------------------------------------------ duplicate deals
DEAL_MEMORY = str(CHEATS / "deal_memory.py")


def deals_seen_twice(folder: Path) -> list[int]:
    """The games in which the deal-memory cheat recognised a deal it had played before."""
    rows = faults(folder)
    seen = [deal_memory.SEEN in reason for reason in rows.reason]
    return rows.game[seen].tolist()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("format", "opponents", "workers", "chunk_games"),
    [("round-robin", 1, 1, 1000), ("round-robin", 1, 2, 4), ("free-for-all", 2, 1, 1000)],
    ids=["two-seats", "two-workers", "three-seats"],
)
def test_no_seat_process_plays_a_deal_twice(
    tmp_path: Path, format: str, opponents: int, workers: int, chunk_games: int
) -> None:
    """Each deal is played in every seat order on the same dice; a seat process that played two
    of them would know dice before it rolls them.  The cheat (tests/cheats/deal_memory.py)
    faults whenever it meets a deal again; isolated, it never does, and plays greedy's games."""
    greedy = ["greedy"] * opponents
    orders = opponents + 1
    games = 4 * orders  # two deals a chunk on two workers: each meets its later orders

    def played(name: str, first: str, isolate: bool) -> Path:
        return run(
            tmp_path / name,
            [first, *greedy],
            isolate=isolate,
            games=games,
            format=format,
            workers=workers,
            chunk_games=chunk_games,
        )

    honest = games_bytes(played("honest", "greedy", False))
    # The control: in arena's own processes its memory lives for the chunk, and it meets every
    # deal again in each of the deal's later seat orders.
    later_orders = [game for game in range(games) if game % orders]
    assert deals_seen_twice(played("in-process", DEAL_MEMORY, False)) == later_orders
    isolated = played("isolated", DEAL_MEMORY, True)
    assert deals_seen_twice(isolated) == []
    assert games_bytes(isolated) == honest


@pytest.mark.slow
def test_no_seat_process_plays_a_deal_twice_in_a_duel(tmp_path: Path) -> None:
    def duel(name: str, *isolate: str) -> Path:
        out = tmp_path / name
        args = ["duel", DEAL_MEMORY, "greedy", *isolate, "--games", "20", "--seed", "11", "--out", str(out)]
        if isolate:  # the cheat is imported in the seats only: the command line can run here
            result = invoke(*args, "--compiled", "off")
            assert result.exit_code == 0, result.stderr
            return out
        done = subprocess.run(
            [*ARENA, *args, "--compiled", "off"], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return out

    assert deals_seen_twice(duel("in-process")) == list(range(1, 20, 2))  # the control
    assert deals_seen_twice(duel("isolated", "--isolate")) == []


# ----------------------------------------------------------------------- honest bots: same bytes
HONEST = ["random", "threshold:bank_at=400", "strategies/catch_up.py"]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_isolate_gives_the_same_games_as_arenas_own_processes(tmp_path: Path, workers: int) -> None:
    # Small chunks: seat processes end and start again at every chunk, as chunk processes do.
    # 12 games in 3 chunks: the run's cost is its seat processes (one a player, seat order and
    # pairing of a chunk), not its games.
    def played(isolate: bool) -> bytes:
        folder = tmp_path / f"{isolate}-{workers}"
        return games_bytes(
            run(
                folder,
                HONEST,
                isolate=isolate,
                games=2,
                rules=(STANDARD, SHORT),
                workers=workers,
                chunk_games=5,
            )
        )

    assert played(True) == played(False)


@pytest.mark.slow
def test_class_state_lives_for_one_seat_order_of_a_chunk_in_a_seat(tmp_path: Path) -> None:
    # In a chunk process class state lives for the chunk; a seat process serves one seat order
    # of it (the orders of a deal share the dice), so an isolated counter counts every other game.
    bot = tmp_path / "counter.py"
    bot.write_text(
        textwrap.dedent(
            """
            from arena.players.builtin.greedy import GreedyPlayer


            class Counter(GreedyPlayer):
                name = "counter"
                games = 0  # class state: per process

                def start_game(self, info):
                    Counter.games += 1
                    if Counter.games > 1:
                        raise RuntimeError(f"game {Counter.games} of this process")
            """
        )
    )
    in_process, isolated = (
        faults(run(tmp_path / str(isolate), [str(bot), "greedy"], isolate=isolate, games=10, chunk_games=5))
        for isolate in (False, True)
    )
    assert in_process.game.tolist() == [1, 2, 3, 4, 6, 7, 8, 9]  # all but a chunk's first game
    # Chunk 0 is games 0 to 4: order 0 plays 0, 2, 4 and order 1 plays 1, 3; chunk 1 the same
    # from game 5, which is of order 1.  Every process's first game is played.
    assert isolated.game.tolist() == [2, 3, 4, 7, 8, 9]
    assert set(isolated.reason) == {f"start_game: RuntimeError: game {n} of this process" for n in (2, 3)}


# ------------------------------------------------------------------------ limits and deadlines
ABUSERS = """
import itertools
import json
import os
import signal

from arena.players.builtin.greedy import GreedyPlayer


class Abuser(GreedyPlayer):
    name = "abuser"

    def decide(self, view):
        if view.turn == 0 and view.roll_number == 1:
            ABUSE()
        return super().decide(view)
"""

ABUSES = {
    # a Python loop that ignores the watchdog's signal: killed by the parent after the grace
    "ignores-signals": "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    while True:\n        pass",
    # a loop inside C code, where no signal handler runs
    "loops-in-c": "sum(itertools.repeat(1, 10**13))",
    # memory without bound: MemoryError at the address-space limit
    "allocates": "hoard = []\n    while True:\n        hoard.append(bytearray(1 << 24))",
    # processes without bound: the process limit stops the forks
    "forks": "while True:\n        if os.fork() == 0:\n            signal.pause()",
}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("abuse", "status"),
    [
        ("ignores-signals", "timeout"),
        ("loops-in-c", "timeout"),
        ("allocates", "error"),
        ("forks", "error"),
    ],
)
def test_an_abusive_seat_loses_in_time_and_the_run_goes_on(tmp_path: Path, abuse: str, status: str) -> None:
    bot = tmp_path / "abuser.py"
    bot.write_text(ABUSERS.replace("ABUSE()", "abuse()") + f"\n\ndef abuse():\n    {ABUSES[abuse]}\n")
    limits = SeatLimits(memory_mb=512, processes=16, grace=0.3)
    # The hangs get a short deadline; the hoarder and the forker a long one, since what must
    # stop them is their limit, even on a loaded machine (zeroing 512 MiB while the other test
    # worker runs took more than 5 s twice in a full run on the 2-core machine).
    deadline = 0.3 if status == "timeout" else 20.0
    started = time.monotonic()
    folder = run(
        tmp_path / "run", [str(bot), "greedy"], isolate=True, games=4, limits=limits, timeout=deadline
    )
    elapsed = time.monotonic() - started
    errors = faults(folder)
    assert len(errors) == 4 and set(errors.status) == {status}, errors.to_string()
    if abuse == "allocates":
        assert errors.reason.str.contains("MemoryError").all()
    if abuse == "forks":
        assert errors.reason.str.contains("BlockingIOError|Resource temporarily unavailable").all()
    # Each game costs at most its deadline, the grace and a new seat process.
    assert elapsed < 4 * (deadline + 0.3 + 1.0) + 3
    assert len(pd.read_csv(folder / "games.csv")) == 8


@pytest.mark.slow
def test_a_seat_that_goes_over_its_cpu_limit_is_killed_and_replaced(tmp_path: Path) -> None:
    bot = tmp_path / "burner.py"
    bot.write_text(
        textwrap.dedent(
            """
            import threading
            import time

            from arena.players.builtin.greedy import GreedyPlayer


            def burn():
                while True:
                    pass


            class Burner(GreedyPlayer):
                name = "burner"

                def start_game(self, info):
                    threading.Thread(target=burn, daemon=True).start()  # burns between decisions too
                    # A waiting seat gets only CPU nothing else wants (docs/security.md, fair
                    # CPU), so on a busy machine the thread alone may never reach the limit:
                    # the seat burns on its own time, too.
                    until = time.process_time() + 0.3
                    while time.process_time() < until:
                        pass
            """
        )
    )
    folder = run(
        tmp_path / "run", [str(bot), "greedy"], isolate=True, games=8, limits=SeatLimits(cpu_seconds=1)
    )
    errors = faults(folder)
    assert len(errors) >= 1
    assert errors.reason.str.contains("CPU time limit").any(), errors.to_string()


def test_seat_processes_and_their_cgroups_are_gone_after_the_run(tmp_path: Path) -> None:
    # A duration no other process on the machine sleeps for: the test looks only at its own.
    duration = f"1000.{uuid.uuid4().int % 10**12:012d}"
    bot = tmp_path / "spawner.py"
    bot.write_text(
        textwrap.dedent(
            """
            import subprocess

            from arena.players.builtin.greedy import GreedyPlayer


            class Spawner(GreedyPlayer):
                name = "spawner"

                def start_game(self, info):
                    # Tries to outlive its seat.
                    subprocess.Popen(["sleep", "DURATION"], start_new_session=True)
            """
        ).replace("DURATION", duration)
    )
    cgroups = Path("/sys/fs/cgroup/pids")
    before = set(cgroups.glob("arena-seat-*"))
    run(tmp_path / "run", [str(bot), "greedy"], isolate=True, games=2, chunk_games=1)
    pgrep = ["pgrep", "-f", f"^sleep {duration}$"]
    left = subprocess.run(pgrep, capture_output=True, text=True).stdout.split()
    assert left == []
    # None of them left behind by a seat whose reaper is gone (another run's may be in use).
    stale = [
        g for g in set(cgroups.glob("arena-seat-*")) - before if not Path(f"/proc/{g.name[11:]}").exists()
    ]
    assert stale == []


def test_a_seat_that_dies_loses_its_game_and_is_replaced(tmp_path: Path) -> None:
    bot = tmp_path / "quitter.py"
    bot.write_text(
        textwrap.dedent(
            """
            import os

            from arena.players.builtin.greedy import GreedyPlayer


            class Quitter(GreedyPlayer):
                name = "quitter"

                def start_game(self, info):
                    if info.seat == 0:
                        os._exit(3)
            """
        )
    )
    folder = run(tmp_path / "run", [str(bot), "greedy"], isolate=True, games=4)
    errors = faults(folder)
    assert len(errors) == 2  # the games where it sits first; the others it plays in a new process
    assert errors.reason.str.contains("exited with status 3").all()
    assert len(pd.read_csv(folder / "games.csv")) == 8


# ---------------------------------------------------------------------------- the command line
def test_isolate_on_the_command_line_logs_stderr_to_the_run_folder(tmp_path: Path) -> None:
    bot = tmp_path / "talker.py"
    bot.write_text(
        textwrap.dedent(
            """
            import sys

            from arena.players.builtin.greedy import GreedyPlayer


            class Talker(GreedyPlayer):
                name = "talker"

                def start_game(self, info):
                    print("thinking out loud", file=sys.stderr)
            """
        )
    )
    out = tmp_path / "run"
    result = subprocess.run(
        [
            *ARENA,
            "tournament",
            "-p",
            str(bot),
            "-p",
            "greedy",
            "--isolate",
            "--games",
            "2",
            "--rules",
            "standard",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "thinking out loud" not in result.stderr + result.stdout
    assert (out / "seat-logs" / "talker.log").read_text().count("thinking out loud") == 2
    spec = (out / "spec.json").read_text()
    assert '"isolated": true' in spec and '"seat_limits"' in spec


def test_bad_seat_limits_are_one_line(tmp_path: Path) -> None:
    result = invoke(
        "tournament",
        "-p",
        "greedy",
        "-p",
        "random",
        "--isolate",
        "--seat-memory",
        "0",
        "--out",
        str(tmp_path / "x"),
    )
    assert result.exit_code == 2
    assert result.stderr.strip() == "arena: error: --seat-memory must be at least 1, got 0"


def test_a_strategy_file_is_never_imported_in_arenas_processes(tmp_path: Path) -> None:
    bot = tmp_path / "seat_only.py"
    bot.write_text(
        textwrap.dedent(
            """
            import os

            from arena.players.builtin.greedy import GreedyPlayer

            if "ARENA_SEAT_LAYERS" not in os.environ:  # set only in a seat process
                raise ImportError("imported outside a seat process")


            class SeatOnly(GreedyPlayer):
                name = "seat-only"
            """
        )
    )
    folder = run(tmp_path / "run", [str(bot), "greedy"], isolate=True, games=4, workers=2, chunk_games=2)
    assert len(faults(folder)) == 0
    assert not [m for m in sys.modules.values() if getattr(m, "__file__", None) == str(bot)]
    with pytest.raises(ValueError, match="imported outside a seat process"):
        run(tmp_path / "in-process", [str(bot), "greedy"], isolate=False, games=4)


# ------------------------------------------------------------------------------ the wire
RULESETS = sorted(PRESETS) + list(variant_names())  # every preset and every variant arena ships


@pytest.mark.parametrize("preset", RULESETS)
@pytest.mark.parametrize("keeps", [True, False])
def test_a_seat_rebuilds_exactly_the_view_the_game_made(preset: str, keeps: bool) -> None:
    """Every field of TurnView, legal_keeps (the same shared records) included, survives the
    turn message, so bank_allowed and overshoots answer the same; checked at every decision of
    whole games under every preset and every ruleset file."""
    rules = load_ruleset(preset)
    reader = wire.ViewReader(
        wire.ruleset_from(msgspec.json.decode(wire.game_start(rules, 0, ("a", "b"), 1))["rules"])
    )
    for seed in range(3):
        game = Game(rules, 2, seed)
        while not game.over:
            view = game.view()
            line = wire.turn(view, keeps)
            rebuilt = reader.view(wire.decode(line))
            assert rebuilt == view
            if not keeps:  # what arena's own host is sent: read the fast way, to the same view
                fast = reader.view_of_line(line)
                assert fast == view
                assert all(a is b for a, b in zip(fast.legal_keeps, view.legal_keeps, strict=True))
            assert all(rebuilt.legal_keeps[i] is view.legal_keeps[i] for i in range(len(view.legal_keeps)))
            if keeps:
                sent = wire.decode(wire.turn(view))["legal_keeps"]
                assert [k["bank_allowed"] for k in sent] == [view.bank_allowed(k) for k in view.legal_keeps]
                assert [k["overshoots"] for k in sent] == [view.overshoots(k) for k in view.legal_keeps]
            keep = view.legal_keeps[-1]
            game.apply(Action(keep.dice, view.bank_allowed(keep) and view.turn_points > 300))


@pytest.mark.slow
def test_a_players_log_is_capped_across_its_seat_processes(tmp_path: Path) -> None:
    bot = tmp_path / "spammer.py"
    bot.write_text(
        textwrap.dedent(
            """
            import os
            import sys

            from arena.players.builtin.greedy import GreedyPlayer


            class Spammer(GreedyPlayer):
                name = "spammer"

                def start_game(self, info):
                    sys.stderr.write("x" * 600_000)
                    sys.stderr.flush()
                    os._exit(1)  # a new seat process for every game
            """
        )
    )
    # 4 seat processes of 600 kB: the second reaches the cap, the later ones are left out whole.
    folder = run(
        tmp_path / "run", [str(bot), "greedy"], isolate=True, games=4, limits=SeatLimits(file_size_mb=1)
    )
    assert len(faults(folder)) == 4
    log = (folder / "seat-logs" / "spammer.log").read_bytes()
    assert 1024 * 1024 <= len(log) < 1024 * 1024 + 200
    assert log.endswith(b"[arena: the rest of this player's stderr is left out]\n")


def test_a_seat_killed_by_a_signal_python_has_no_name_for_is_described_not_a_crash() -> None:
    from arena.sandbox.process import _how, signal_name

    assert signal_name(9) == "SIGKILL"
    assert signal_name(40) == "signal 40"  # a real-time signal: signal.Signals(40) raises
    assert _how(40) == "killed by signal 40"  # the wait status of a process killed by it


def test_a_duel_keeps_its_seat_limits(tmp_path: Path) -> None:
    # The duel's own spec once dropped --seat-memory and played on the default 2048 MiB.
    bot = tmp_path / "hoarder.py"
    bot.write_text(
        "from arena.players.builtin.greedy import GreedyPlayer\n\n\n"
        "class Hoarder(GreedyPlayer):\n"
        "    name = 'hoarder'\n\n"
        "    def decide(self, view):\n"
        "        self.kept = bytearray(300 * 1024 * 1024)\n"
        "        return super().decide(view)\n"
    )
    out = tmp_path / "duel"
    args = ["duel", str(bot), "greedy", "--isolate", "--seat-memory", "200", "--games", "2"]
    args += ["--move-timeout", "20", "--out", str(out), "--compiled", "off"]
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    games = pd.read_csv(out / "games.csv")
    hoarder = games[games.player == "hoarder"]
    assert list(hoarder.status) == ["error", "error"], games.to_string()
    assert hoarder.reason.str.contains("MemoryError").all()
    assert json.loads((out / "spec.json").read_text())["seat_limits"]["memory_mb"] == 200


# --- attacks on the seat process: forged lines, full pipes, secret seeds, cgroups ---------------
HELLO = 'print(\'{"type":"hello","protocol":1,"name":"x"}\', flush=True)'


@pytest.fixture
def seat(tmp_path: Path) -> Iterator[list[SeatProcess]]:
    """Seat processes started by a test, closed after it whatever happened."""
    started: list[SeatProcess] = []
    yield started
    for process in started:
        process.close()


def start(started: list[SeatProcess], folder: Path, program: str) -> SeatProcess:
    """A seat running the Python ``program`` (no arena code in it: a program any bot could be)."""
    path = folder / "bot.py"
    path.write_text(textwrap.dedent(program))
    process = SeatProcess([sys.executable, str(path)], SeatLimits())
    started.append(process)
    process.start()
    return process


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# ------------------------------------------------------------- a seat that claims it has ended
def test_a_seat_that_forges_its_ended_line_is_killed_not_waited_for(tmp_path: Path, seat: list) -> None:
    # The reaper writes {"type":"ended"} on the seat's own stdout once the seat is gone; a seat
    # could write the same line and live on.  arena waited for the reaper, which waited for
    # the seat: a hang with no deadline (at hello, outside any move timer, the whole run stalled).
    process = start(
        seat,
        tmp_path,
        """
        import sys, time
        sys.stdin.readline()
        print('{"type":"ended","reason":"I am gone, honest"}', flush=True)
        time.sleep(60)
        """,
    )
    began = time.monotonic()
    with at_most(5):
        reply, _ = process.request(wire.hello(1.0, 0), 1.0, 0.2)
    assert reply["type"] == "ended"
    assert time.monotonic() - began < 2.5
    assert not process.alive and not alive(process.pid)


# ---------------------------------------------------------------- a seat that stops reading
def fill_pipe(fd: int) -> None:
    """Fill the pipe ``fd`` writes to, as a seat that stopped reading its stdin leaves it."""
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(fd, b" " * 4096)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(fd, b" ")
    os.set_blocking(fd, blocking)
    assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK == (0 if blocking else os.O_NONBLOCK)


SILENT_READER = f"""
import sys, time
sys.stdin.readline()
{HELLO}
sys.stdout.write('{{"type":"done"}}\\n' * 5000)  # replies to messages it will never read
sys.stdout.flush()
time.sleep(60)
"""


def test_a_seat_that_stops_reading_loses_at_its_deadline(tmp_path: Path, seat: list) -> None:
    # Its replies come at once, but arena's messages pile up in its stdin until the pipe is
    # full; arena's write then blocked with no deadline (or until the move timer, again and
    # again, without ever killing the seat).
    process = start(seat, tmp_path, SILENT_READER)
    process.request(wire.hello(1.0, 0), 5.0, 0.0)
    message = b'{"type":"game_end","padding":"' + b"x" * 2000 + b'"}\n'
    began = time.monotonic()
    with at_most(10), pytest.raises(NoReply):
        for _ in range(1000):
            process.request(message, 0.3, 0.2)
    assert time.monotonic() - began < 3
    assert not process.alive and not alive(process.pid)


def test_closing_a_seat_whose_stdin_is_full_does_not_wait(tmp_path: Path, seat: list) -> None:
    # Saying bye to such a seat blocked too: the chunk process hung at its last game.
    process = start(seat, tmp_path, SILENT_READER)
    process.request(wire.hello(1.0, 0), 5.0, 0.0)
    fill_pipe(process._to)
    began = time.monotonic()
    with at_most(10):
        process.close()
    assert time.monotonic() - began < 2
    assert not alive(process.pid)


SEED_GUESS = str(Path(__file__).parent / "cheats" / "seed_guess.py")


def tournament(folder: Path, first: str, *options: str) -> Result:
    """4 games of ``first`` against optimal under the standard rules, through the command line
    (in this process: the cheat is only ever run isolated, so it is imported in seats only).
    (Few games are enough: the cheat tries every deal it knows at each game's start whatever
    the run's size, and already in 4 games it finds a known seed and rolls on.)"""
    args = ["-p", first, "-p", "optimal", "--rules", "standard", "--games", "4", "--workers", "1"]
    result = invoke("tournament", *args, "--out", str(folder), *options)
    assert result.exit_code == 0, result.stderr
    return result


@pytest.mark.slow
def test_an_isolated_run_without_a_seed_plays_on_a_secret_one(tmp_path: Path) -> None:
    # The dice are public functions of the tournament seed.  With the default seed 0 the cheat
    # found each game's seed from its strategy seed and rolled on only into scoring rolls.
    tournament(tmp_path / "cheat", SEED_GUESS, "--isolate")
    seed = json.loads((tmp_path / "cheat" / "spec.json").read_text())["seed"]
    assert seed != 0
    honest = tournament(tmp_path / "honest", "greedy", "--seed", str(seed))
    assert "warning" not in honest.stderr  # nobody isolated: a known seed is fine
    assert (tmp_path / "cheat" / "games.csv").read_bytes() == (tmp_path / "honest" / "games.csv").read_bytes()


@pytest.mark.slow
def test_a_known_seed_is_still_guessable_and_arena_says_so(tmp_path: Path) -> None:
    # The control: the cheat is real.  Given --seed 11, it foresees the dice even isolated.
    cheat = tournament(tmp_path / "cheat", SEED_GUESS, "--isolate", "--seed", "11")
    assert "warning: --seed 11 is no secret" in cheat.stderr
    tournament(tmp_path / "honest", "greedy", "--seed", "11")
    assert (tmp_path / "cheat" / "games.csv").read_bytes() != (tmp_path / "honest" / "games.csv").read_bytes()


# ------------------------------------------------- a seat killed while the move watchdog fires
def test_a_seat_killed_as_its_move_timer_fires_leaves_nothing_behind(tmp_path: Path, seat: list) -> None:
    # A reply longer than the protocol allows, then the rest of it left in the pipe: killing
    # the seat waited a second for its reaper (stuck writing its ended line into that full
    # pipe), and the move watchdog's MoveTimeout, raised inside that wait, left the reaper
    # running and the seat's pids cgroup on the machine for good.
    process = start(
        seat,
        tmp_path,
        f"""
        import os, sys, time
        sys.stdin.readline()
        {HELLO}
        sys.stdin.readline()
        os.write(1, b"x" * (3 << 20))
        time.sleep(60)
        """,
    )
    process.request(wire.hello(1.0, 0), 5.0, 0.0)

    def watchdog(signum: int, frame: object) -> None:
        raise MoveTimeout("no decision within 0.3 s")

    previous = signal.signal(signal.SIGALRM, watchdog)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with contextlib.suppress(MoveTimeout):
            reply, _ = process.request(b'{"type":"game_start"}\n', 5.0, 0.5)
            assert reply["reason"] == "protocol: a reply longer than 1 MiB"
        with contextlib.suppress(MoveTimeout):
            time.sleep(0.5)  # whatever the timer did, it has done it
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not process.alive and not alive(process.pid)
    assert seat_groups(process.pid) == []


# ------------------------------------------------------ arena's process dies under its seats
def test_a_seat_whose_chunk_process_dies_leaves_no_cgroup(tmp_path: Path) -> None:
    # Ctrl-C ends the chunk processes; their seats died with them (parent-death signal), but
    # nobody removed the seats' pids cgroups: an empty folder per seat was left on the machine.
    path = tmp_path / "bot.py"
    path.write_text(f"import sys, time\nsys.stdin.readline()\n{HELLO}\ntime.sleep(60)\n")
    report_r, report_w = os.pipe()
    chunk = os.fork()
    if chunk == 0:  # a chunk process: starts a seat, says which, and waits to be killed
        try:
            process = SeatProcess([sys.executable, str(path)], SeatLimits())
            process.start()
            process.request(wire.hello(1.0, 0), 10.0, 0.0)
            os.write(report_w, f"{process.pid}\n".encode())
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(report_w)
    with at_most(20):
        reaper = int(os.read(report_r, 100))
    os.close(report_r)
    seat_group = seat_groups(reaper)
    os.kill(chunk, signal.SIGKILL)
    os.waitpid(chunk, 0)
    give_up = time.monotonic() + 3
    while time.monotonic() < give_up and (alive(reaper) or seat_groups(reaper)):
        time.sleep(0.02)
    assert not alive(reaper)
    if seat_group:  # (only where arena runs as root with cgroup controllers)
        assert seat_groups(reaper) == []
