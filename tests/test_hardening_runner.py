"""Issue 10, part R: a supervisor that survives every strategy fault, and results that never
depend on how work is split.

Bots are written as files in tmp_path.  Runs that must show what a user sees (exit status,
message, files) go through the real CLI in a subprocess; the others call run_tournament, which
forks the same templates and chunk processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, STANDARD, Action, Game
from arena.players import PlayerFault, load_player_spec, play_match
from arena.players.match import REASON_LIMIT, TEXT_UNAVAILABLE, Guard, one_line
from arena.tournaments import TournamentSpec, run_tournament
from arena.tournaments.batch import BatchPlayer, BatchResult
from arena.tournaments.chunks import chunk_count, chunk_jobs
from arena.tournaments.run_folder import RunFolder
from arena.tournaments.supervisor import GRACE

ARENA = [sys.executable, "-m", "arena.cli"]
LIMIT = 0.3  # --move-timeout in these tests: short, so each hang costs little

HEAD = """
import os
import signal
import sys
import time

from arena.players import Action


def ok(view):
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep))


def in_a_game():
    # True when arena plays games, not when it checks the player while loading the spec.
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "play_chunk":
        frame = frame.f_back
    return frame is not None
"""


def bot_file(tmp_path: Path, body: str, name: str = "bots.py") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + textwrap.dedent(body))
    return path


def arena(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=timeout)


def games_of(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "games.csv", keep_default_na=False)


def api_run(folder: Path, spec: TournamentSpec, **options) -> bytes:
    outcome = run_tournament(spec, RunFolder.create(folder, spec), progress=False, **options)
    assert outcome.error is None and not outcome.interrupted
    return (folder / "games.csv").read_bytes()


def live_processes_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line holds ``marker``: forks of a run keep it."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in command and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until_gone(marker: str, seconds: float = 3.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := live_processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


# --- hangs the in-process timeout can't stop -----------------------------------------------------
HANGS = """
import re


class CLoop:
    name = "c-loop"

    def decide(self, view):
        if view.seat == 0:
            sum(range(10**12))  # C code: no signal handler runs until it returns
        return ok(view)


class Swallower:
    name = "swallower"

    def decide(self, view):
        while view.seat == 0:
            try:
                time.sleep(1)
            except BaseException:  # swallows the timeout too
                pass
        return ok(view)


class AlarmIgnorer:
    name = "alarm-ignorer"

    def decide(self, view):
        if view.seat == 0:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)
            while True:
                pass
        return ok(view)


class AlarmReplacer:
    name = "alarm-replacer"

    def decide(self, view):
        if view.seat == 0:
            signal.signal(signal.SIGALRM, lambda signum, frame: None)
            while True:
                pass
        return ok(view)


class Forever:
    def __iter__(self):
        while True:
            pass


class LoopingAction:
    name = "looping-action"

    def decide(self, view):
        return Forever() if view.seat == 0 else ok(view)


class Backtracker:
    name = "backtracker"

    def decide(self, view):
        if view.seat == 0:
            re.match(r"(a+)+$", "a" * 60 + "b")
        return ok(view)
"""
CLI_HANGERS = {"CLoop": "c-loop", "LoopingAction": "looping-action", "Backtracker": "backtracker"}
ALARM_HANGERS = {"Swallower": "swallower", "AlarmIgnorer": "alarm-ignorer", "AlarmReplacer": "alarm-replacer"}


def assert_hung_once(games: pd.DataFrame, names: list[str]) -> None:
    """Seat 0 (each bot's second game) hangs at its first decision and loses by timeout."""
    for name in names:
        rows = games[games["player"] == name]
        hung = rows[rows["seat"] == 0]
        assert list(hung["status"]) == ["timeout"], name
        assert list(hung["reason"]) == [f"no decision within {LIMIT:g} s"], name
        assert list(hung["turns"]) == [1] and list(hung["win"]) == [0], name
        assert set(rows.loc[rows["seat"] == 1, "status"]) == {"ok"}, name
    assert set(games.loc[games["player"] == "greedy", "status"]) == {"ok"}


@pytest.mark.slow
def test_every_kind_of_hang_loses_by_timeout_and_the_run_goes_on(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, HANGS)
    out = tmp_path / "hangs"
    players = [arg for cls in CLI_HANGERS for arg in ("-p", f"{bots}:{cls}")]
    began = time.monotonic()
    done = arena(
        "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "--format", "gauntlet",
        "-p", "greedy", *players, "--games", "2", "--move-timeout", str(LIMIT), "--workers", "2",
    )  # fmt: skip
    elapsed = time.monotonic() - began
    assert done.returncode == 0, done.stderr[-600:]
    assert "Traceback" not in done.stderr
    games = games_of(out)
    assert len(games) == 2 * 2 * len(CLI_HANGERS)  # every game, two rows each
    assert_hung_once(games, list(CLI_HANGERS.values()))
    # One hang needs the supervisor's kill (deadline + grace), two the in-process timeout.
    assert elapsed < (LIMIT + GRACE) + 2 * LIMIT + 20
    assert wait_until_gone(str(out)) == []  # no chunk process outlived the run
    # A strategy that swallows the timeout, or ignores or replaces SIGALRM: killed too (one-game
    # chunks, all three at once).
    alarm = (load_player_spec("greedy"), *(load_player_spec(f"{bots}:{cls}") for cls in ALARM_HANGERS))
    spec = TournamentSpec((CLASSIC,), alarm, format="gauntlet", games=2, move_timeout=LIMIT, chunk_games=1)
    began = time.monotonic()
    api_run(tmp_path / "alarm", spec, workers=3)
    assert time.monotonic() - began < LIMIT + GRACE + 6
    assert_hung_once(games_of(tmp_path / "alarm"), list(ALARM_HANGERS.values()))


STATEFUL_HANG = """
import random


class Counter:
    # Class state: decisions made so far in this process (a chunk), used in every decision.
    name = "counter"
    decisions = 0
    made = 0

    def __init__(self):
        type(self).made += 1

    def decide(self, view):
        cls = type(self)
        if cls.made == 3 and view.turn == 1:  # its second game in each chunk
            HANG()  # before it changes any state: a killed call's own changes die with it
        cls.decisions += 1
        keep = view.legal_keeps[0]
        limit = 250 + 50 * (cls.decisions % 5) + 50 * int(random.random() < 0.5)
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= limit)
"""


def stateful_spec(bot: Path, chunk_games: int = 6, games: int = 6, move_timeout: float | None = LIMIT):
    players = (load_player_spec(f"{bot}:Counter"), load_player_spec("greedy"), load_player_spec("threshold"))
    return TournamentSpec(
        (CLASSIC,), players, games=games, seed=5, move_timeout=move_timeout, chunk_games=chunk_games
    )


def test_a_kill_and_replay_writes_the_bytes_of_an_in_process_timeout(tmp_path: Path) -> None:
    # The same bot, hanging at the same calls: in C (only a kill stops it, and the chunk is
    # re-played in a fresh process) or in time.sleep (the in-process timeout interrupts it).
    in_c = bot_file(tmp_path, "HANG = lambda: sum(range(10**12))\n" + STATEFUL_HANG, "in_c.py")
    in_python = bot_file(tmp_path, "HANG = lambda: time.sleep(60)\n" + STATEFUL_HANG, "in_python.py")
    began = time.monotonic()
    killed = api_run(tmp_path / "killed", stateful_spec(in_c), workers=2)
    elapsed = time.monotonic() - began
    interrupted = api_run(tmp_path / "interrupted", stateful_spec(in_python), workers=1, batch_size=4)
    assert killed == interrupted
    games = games_of(tmp_path / "killed")
    hung = games[games["status"] == "timeout"]
    assert len(hung) == 2 and set(hung["player"]) == {"counter"}
    # Two kills, one per chunk, on two workers: each within the deadline plus the grace period.
    assert elapsed < 2 * (LIMIT + GRACE) + 6


# --- processes that die ---------------------------------------------------------------------------
DEATHS = """
import ctypes


class Exiter:
    name = "exiter"

    def decide(self, view):
        if view.turn == 2:
            os._exit(3)
        return ok(view)


class Segfault:
    name = "segfault"

    def decide(self, view):
        if view.turn == 2:
            ctypes.string_at(0)  # a crash in C: SIGSEGV
        return ok(view)


class SelfKill:
    name = "self-kill"

    def start_game(self, info):
        if info.seat == 1:
            os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would
"""


def test_a_process_that_dies_inside_a_call_is_that_seats_error(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, DEATHS + "\n    decide = staticmethod(ok)\n")
    out = tmp_path / "run"
    players = [a for c in ("Exiter", "Segfault", "SelfKill") for a in ("-p", f"{bots}:{c}")]
    done = arena(
        "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "--format", "gauntlet",
        "-p", "greedy", *players, "--games", "4", "--workers", "2", "--batch-size", "3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-600:]
    assert "Traceback" not in done.stderr and "Fatal Python error" not in done.stderr
    games = games_of(out)
    assert list(games["game"].unique()) == list(range(12))
    reasons = {
        "exiter": "the strategy's process exited with status 3",
        "segfault": "the strategy's process was killed by signal 11 (SIGSEGV)",
        "self-kill": "start_game: the strategy's process was killed by signal 9 (SIGKILL)",
    }
    for name, reason in reasons.items():
        rows = games[games["player"] == name]
        faulted = rows[rows["status"] == "error"]
        assert len(faulted) >= 2 and set(faulted["reason"]) == {reason}, name
        assert (faulted["win"] == 0).all()
    assert set(games.loc[games["player"] == "greedy", "status"]) == {"ok"}


DIES_OUTSIDE = """
class DiesWhenFreed:
    name = "dies-when-freed"
    made = 0

    def __init__(self):
        type(self).made += in_a_game()

    def __del__(self):
        if type(self).made > 2:  # the player of game 2
            os._exit(9)  # runs in arena's code, when the player object is freed

    def decide(self, view):
        return ok(view)
"""


def test_a_process_that_dies_outside_any_call_stops_the_run_with_one_line(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, DIES_OUTSIDE)
    out = tmp_path / "run"
    done = arena(
        "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "-p", "greedy",
        "-p", str(bots), "--games", "6", "--workers", "1", "--batch-size", "1",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    message = done.stderr.strip().splitlines()[-1]
    assert message.startswith("arena: error: the process playing game 2 exited with status 9 outside any")
    assert f"continue with `arena tournament --resume {out}`" in message
    assert list(games_of(out)["game"].unique()) == [0, 1]  # the games sent before it are kept


# --- constructors ---------------------------------------------------------------------------------
CONSTRUCTORS = """
class SlowInit:
    name = "slow-init"

    def __init__(self):
        if in_a_game():  # loading the spec builds one too: that one must work
            time.sleep(30)

    decide = staticmethod(ok)


class ExitInit:
    name = "exit-init"

    def __init__(self):
        if in_a_game():
            sys.exit(3)

    decide = staticmethod(ok)


class HangInit:
    name = "hang-init"

    def __init__(self):
        if in_a_game():
            sum(range(10**12))

    decide = staticmethod(ok)
"""


@pytest.mark.slow
def test_constructors_are_timed_and_guarded_like_decisions(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, CONSTRUCTORS)
    out = tmp_path / "run"
    players = [a for c in ("SlowInit", "ExitInit") for a in ("-p", f"{bots}:{c}")]
    done = arena(
        "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "--format", "gauntlet",
        "-p", "greedy", *players, "--games", "2", "--move-timeout", str(LIMIT), "--workers", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-600:]
    games = games_of(out)
    rows = games.set_index("player")
    assert set(rows.loc["slow-init", "reason"]) == {f"creating the player took longer than {LIMIT:g} s"}
    assert set(rows.loc["slow-init", "status"]) == {"timeout"}
    assert set(rows.loc["exit-init", "reason"]) == {"creating the player failed: SystemExit: 3"}
    assert set(rows.loc["greedy", "status"]) == {"ok"}
    # A constructor stuck in C: killed after the deadline plus the grace period (one-game chunks,
    # so the two kills run on both workers at once).
    hang = (load_player_spec("greedy"), load_player_spec(f"{bots}:HangInit"))
    spec = TournamentSpec((CLASSIC,), hang, games=2, move_timeout=LIMIT, chunk_games=1)
    began = time.monotonic()
    api_run(tmp_path / "hang", spec, workers=2)
    assert time.monotonic() - began < LIMIT + GRACE + 5
    hung = games_of(tmp_path / "hang").set_index("player").loc["hang-init"]
    assert set(hung["status"]) == {"timeout"}
    assert set(hung["reason"]) == {f"creating the player took longer than {LIMIT:g} s"}


# --- strategy-controlled text and objects -----------------------------------------------------------
TEXT_AND_OBJECTS = """
class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text for you")


class BadStr:
    name = "bad-str"

    def decide(self, view):
        raise Unprintable()


class BadName:
    @property
    def name(self):
        if in_a_game():  # not while the spec is loaded: only in games
            raise RuntimeError("nameless")
        return "bad-name"

    decide = staticmethod(ok)


class BadGetattr:
    name = "bad-getattr"

    def __getattr__(self, attribute):
        raise RuntimeError(f"no {attribute}")

    decide = staticmethod(ok)


class HugeKeep:
    name = "huge-keep"

    def decide(self, view):
        return Action((1,) * 200_000, False)


class HugeMessage:
    name = "huge-message"

    def decide(self, view):
        raise ValueError("x" * 2_000_000)


class LoopingText(Exception):
    def __str__(self):
        while True:
            pass


class LoopingStr:
    name = "looping-str"

    def decide(self, view):
        raise LoopingText()
"""


def test_strategy_text_and_objects_go_through_the_guard(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, TEXT_AND_OBJECTS)
    out = tmp_path / "run"
    classes = ("BadStr", "BadName", "BadGetattr", "HugeKeep", "HugeMessage", "LoopingStr")
    players = [a for c in classes for a in ("-p", f"{bots}:{c}")]
    done = arena(
        "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "--format", "gauntlet",
        "-p", "greedy", *players, "--games", "2", "--move-timeout", str(LIMIT), "--workers", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-600:]
    # The warnings show each strategy's own traceback, never one of arena's.
    assert "arena: error" not in done.stderr and "/arena/" not in done.stderr
    games = games_of(out)
    reasons = games[games["player"] != "greedy"].groupby("player")["reason"].agg(set)
    statuses = games[games["player"] != "greedy"].groupby("player")["status"].agg(set)
    assert reasons["bad-str"] == {f"Unprintable: {TEXT_UNAVAILABLE}"}
    reading = "reading the player's name and hooks failed: RuntimeError:"
    assert reasons["bad-name"] == {f"{reading} nameless"}
    assert reasons["bad-getattr"] == {f"{reading} no start_game"}
    (keep,) = reasons["huge-keep"]
    assert keep.startswith("keep (1, 1, 1,") and keep.endswith("200000 dice, but only 5 were rolled")
    (message,) = reasons["huge-message"]
    assert message.startswith("ValueError: xxxx") and len(message) == REASON_LIMIT and message.endswith("…")
    assert reasons["looping-str"] == {f"no decision within {LIMIT:g} s"}
    assert statuses["huge-keep"] == {"illegal"} and statuses["looping-str"] == {"timeout"}
    assert all(s == {"error"} for name, s in statuses.items() if name not in ("huge-keep", "looping-str"))
    # Every row stays short, and the whole file small.
    lines = (out / "games.csv").read_text().splitlines()
    assert max(len(line) for line in lines) < REASON_LIMIT + 100
    assert (out / "games.csv").stat().st_size < 10_000


# --- forks ----------------------------------------------------------------------------------------
FORKER = """
class Forker:
    name = "forker"

    def start_game(self, info):
        print(f"forker plays seat {info.seat}")  # buffered: it must still reach the terminal
        child = os.fork()
        if child == 0:  # a child that would sleep for a minute
            time.sleep(60)
            os._exit(0)
        with open(PIDS, "a") as pids:  # written by the parent: the child may be killed at once
            pids.write(f"{child}\\n")

    decide = staticmethod(ok)
"""


def test_processes_a_strategy_forks_do_not_outlive_the_run(tmp_path: Path) -> None:
    pids = tmp_path / "pids.txt"
    bots = bot_file(tmp_path, f"PIDS = {str(pids)!r}\n" + FORKER)
    out = tmp_path / "run"
    done = arena(
        "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "-p", "greedy",
        "-p", str(bots), "--games", "4", "--workers", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-600:]
    assert set(games_of(out)["status"]) == {"ok"}
    assert done.stdout.count("forker plays seat") == 4  # printed, not lost when its chunk ended
    deadline = time.monotonic() + 3
    forked = []
    while time.monotonic() < deadline and len(forked) < 4:  # a child may still be writing
        forked = [int(line) for line in pids.read_text().split()] if pids.exists() else []
        time.sleep(0.05)
    assert len(forked) == 4
    assert wait_until_gone(str(out)) == []
    for pid in forked:
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"


# --- results that don't depend on how work is split ---------------------------------------------------
CLASS_STATE = """
import random

SEEN = []  # module state


class Memory:
    name = "memory"
    games = 0

    def start_game(self, info):
        type(self).games += 1

    def decide(self, view):
        SEEN.append(view.turn_points)
        keep = view.legal_keeps[0]
        limit = 300 + 50 * (type(self).games % 4) + 50 * (len(SEEN) % 3) + 50 * int(random.random() < 0.3)
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= limit)
"""


def test_class_and_module_state_give_the_same_bytes_for_any_workers_or_batch_size(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, CLASS_STATE)
    players = (load_player_spec(f"{bots}:Memory"), load_player_spec("greedy"), load_player_spec("random"))
    spec = TournamentSpec((CLASSIC,), players, games=24, seed=3, chunk_games=10)
    one = api_run(tmp_path / "one", spec, workers=1)
    assert api_run(tmp_path / "two", spec, workers=2) == one
    assert api_run(tmp_path / "batches", spec, workers=2, batch_size=3) == one
    # The state does matter: other chunk boundaries reset it elsewhere, and give other games.
    other = TournamentSpec((CLASSIC,), players, games=24, seed=3, chunk_games=7)
    assert api_run(tmp_path / "other", other, workers=1) != one
    # A run stopped inside a chunk and resumed re-plays the chunk from its first game: the same
    # bytes again.
    folder = tmp_path / "resumed"

    def stop_at_15(result: BatchResult) -> None:
        if result.stop == 15:  # inside chunk 1 (games 10 to 19)
            raise KeyboardInterrupt

    outcome = run_tournament(
        spec, RunFolder.create(folder, spec), workers=2, batch_size=5, progress=False, on_batch=stop_at_15
    )
    assert outcome.interrupted and outcome.games_written == 15
    resumed = RunFolder.resume(folder, spec, 2)
    assert resumed.completed_games == 15
    run_tournament(spec, resumed, workers=2, progress=False)
    assert (folder / "games.csv").read_bytes() == one


MUTATOR = """
class Mutator:
    name = "mutator"

    def decide(self, view):
        object.__setattr__(view.rules, "target", 50)  # the frozen ruleset, shared by every game
        object.__setattr__(view.rules, "entry_threshold", 0)
        return ok(view)
"""


def test_a_strategy_that_changes_the_shared_ruleset_changes_no_other_game(tmp_path: Path) -> None:
    bots = bot_file(tmp_path, MUTATOR)
    players = (load_player_spec(f"{bots}:Mutator"), load_player_spec("greedy"), load_player_spec("threshold"))
    spec = TournamentSpec((STANDARD,), players, games=8, seed=2)
    api_run(tmp_path / "with", spec, workers=1)
    clean = TournamentSpec((STANDARD,), players[1:], games=8, seed=2)
    api_run(tmp_path / "clean", clean, workers=1)
    games = games_of(tmp_path / "with")
    mutator = games[games["player"] == "mutator"]
    assert set(mutator["status"]) == {"error"}
    assert set(mutator["reason"]) == {
        "changed the ruleset it was shown (view.rules or info.rules), which strategies may only read"
    }
    assert set(mutator["score"]) == {0}  # found at its first decision, before it could bank
    others = games.groupby("game").filter(lambda g: "mutator" not in set(g["player"]))
    expected = games_of(tmp_path / "clean")
    assert others.drop(columns="game").reset_index(drop=True).equals(expected.drop(columns="game"))


def test_a_view_exposes_nothing_else_that_can_be_changed() -> None:
    game = Game(STANDARD, 2, 7)
    view = game.view()
    keep = view.legal_keeps[0]
    for target, attribute in ((keep, "points"), (view, "turn_points"), (keep, "dice")):
        with pytest.raises(AttributeError):
            object.__setattr__(target, attribute, 10_000)


# --- memory does not grow with --games ------------------------------------------------------------
@pytest.mark.slow
def test_a_huge_number_of_games_starts_at_once_with_flat_memory(tmp_path: Path) -> None:
    out = tmp_path / "huge"
    proc = subprocess.Popen(
        [*ARENA, "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "-p", "greedy",
         "-p", "random", "--games", str(10**16), "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        games = out / "games.csv"
        while time.monotonic() < deadline and not (games.exists() and games.stat().st_size > 20_000):
            time.sleep(0.05)
        assert games.stat().st_size > 20_000  # games are being written
        # Once games are coming in, the reports' modules are imported in a thread (pandas: a
        # one-off 30 to 40 MiB): measure the growth after that.
        time.sleep(2.0)
        first = _resident_mib(proc.pid)
        time.sleep(1.0)
        second = _resident_mib(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err[-400:]
    assert "Traceback" not in err and "10,000,000,000,000,000 games per pairing" in err
    assert first < 300 and second - first < 10  # MiB: no task list, only a few chunks in flight


def _resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_chunks_are_generated_lazily_and_aligned() -> None:
    jobs = chunk_jobs(15, 10**18, 10)
    assert [(j.first, j.emit_from, j.stop) for j in (next(jobs), next(jobs))] == [(10, 15, 20), (20, 20, 30)]
    assert [(j.first, j.emit_from, j.stop) for j in chunk_jobs(0, 25, 10)][-1] == (20, 20, 25)
    assert [chunk_count(a, b, 10) for a, b in ((0, 0), (0, 10), (0, 11), (15, 10**18))] == [
        0,
        1,
        2,
        10**17 - 1,
    ]


# --- signals ----------------------------------------------------------------------------------------
SLOW = """
class Slow:
    name = "slow"

    def decide(self, view):
        time.sleep(0.002)
        return ok(view)
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_whole_process_group_leaves_no_traceback_and_no_process(
    tmp_path: Path, signum: int
) -> None:
    bots = bot_file(tmp_path, SLOW)
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [*ARENA, "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "-p", "greedy",
         "-p", str(bots), "--games", "4000", "--workers", "2", "--batch-size", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job would be
    )  # fmt: skip
    try:
        games = out / "games.csv"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (games.exists() and games.stat().st_size > 2_000):
            time.sleep(0.05)
        os.killpg(proc.pid, signum)  # Ctrl-C in a terminal, or `kill -TERM -PGID`
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert "Traceback" not in err
    if signum == signal.SIGINT:
        assert proc.returncode == 130 and "continue with `arena tournament --resume" in err
    assert wait_until_gone(str(out)) == []


# --- the guard itself -----------------------------------------------------------------------------
class _Face(int):
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class _Dice:
    def __iter__(self):
        while True:  # forever, in Python: the in-process timeout stops it
            pass

    def __len__(self) -> int:
        return 1


def _moved(action: object, limit: float | None = None) -> PlayerFault:
    """The fault the guard records for a strategy that returns ``action`` at its first move."""
    game = Game(CLASSIC, 2, 4)
    with pytest.raises(PlayerFault) as fault:
        Guard(limit).move(0, lambda view: action, game.view(), game)
    return fault.value


def test_everything_the_engine_does_with_an_action_is_inside_the_guard() -> None:
    game = Game(CLASSIC, 2, 4)
    keep = game.view().legal_keeps[0]
    Guard(1.0).move(0, lambda view: Action(keep.dice, False), game.view(), game)  # a legal one is applied
    expected = Game(CLASSIC, 2, 4)
    expected.apply(Action(keep.dice, False))
    assert game.view() == expected.view()
    none = _moved(None)
    assert (none.status, none.reason) == ("illegal", "a decision must be Action(keep, bank), got None")
    face = _moved(((_Face(1),), False))  # the engine's explanation needs repr(): it fails, inside the call
    assert face.status == "error" and face.reason == "RuntimeError: no repr"
    looping = _moved((_Dice(), False), limit=0.2)
    assert (looping.status, looping.reason) == ("timeout", "no decision within 0.2 s")
    huge = _moved(((1,) * 200_000, False))
    assert huge.status == "illegal" and len(huge.reason) == REASON_LIMIT
    assert huge.reason.startswith("keep (1, 1, 1,") and huge.reason.endswith("dice, but only 5 were rolled")


def test_reasons_are_one_line_and_cut() -> None:
    class Weird(Exception):
        def __str__(self):
            raise SystemExit(1)

    assert one_line(Weird()) == f"Weird: {TEXT_UNAVAILABLE}"
    assert one_line(ValueError("a\nb  c")) == "ValueError: a b c"
    fault = PlayerFault(0, "error", "y" * 5000)
    assert len(fault.reason) == REASON_LIMIT and fault.reason.endswith("…")


def test_an_end_game_hook_cannot_change_the_result_that_is_written() -> None:
    class Forger:
        name = "forger"

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep))

        def end_game(self, result):
            object.__setattr__(result, "scores", (99_999, 0))

    greedy = load_player_spec("greedy")
    result = play_match(CLASSIC, [Forger(), greedy.create()], 3)
    assert max(result.scores) < 20_000


def test_injected_faults_are_recorded_without_calling_the_strategy() -> None:
    calls = []

    class Counted:
        name = "counted"

        def decide(self, view):
            calls.append(view.turn)
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep))

    # Calls 0 and 1 read the two players' names; 2 is seat 0's first decision.
    died = "the strategy's process exited with status 3"
    guard = Guard(1.0, injected={4: ("timeout", ""), 9: ("error", died)})
    with pytest.raises(PlayerFault) as fault:
        play_match(CLASSIC, [Counted(), Counted()], 1, guard=guard)
    assert (fault.value.status, fault.value.reason) == ("timeout", "no decision within 1 s")
    assert len(calls) == 2 and fault.value.game is not None
    with pytest.raises(PlayerFault) as fault:
        play_match(CLASSIC, [Counted(), Counted()], 1, guard=guard)  # calls 5 on
    assert (fault.value.status, fault.value.reason) == ("error", died)


def test_a_batch_player_in_one_process_restores_a_changed_ruleset() -> None:
    class Mutator:
        name = "mutator"

        def decide(self, view):
            object.__setattr__(view.rules, "target", 50)
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep))

    from arena.tournaments import player_from_class

    spec = TournamentSpec((CLASSIC,), (player_from_class(Mutator), load_player_spec("greedy")), games=2)
    player = BatchPlayer(spec)
    player.play(0, 2)
    assert player._rules[0] == CLASSIC and CLASSIC.target == 10_000


# --- the solver's caches across chunk processes ----------------------------------------------------
def test_warming_the_solver_covers_what_optimal_meets_on_a_preset() -> None:
    from arena.players import solver
    from arena.players.builtin.optimal import OptimalPlayer

    solver.warm(STANDARD)
    before = len(solver.SOLVED)
    for seed in range(3):
        play_match(STANDARD, [OptimalPlayer(), OptimalPlayer()], seed)
    assert len(solver.SOLVED) == before  # nothing left to solve in a chunk process


def test_a_chunk_reports_the_situations_it_solved_by_ruleset_index() -> None:
    from arena.players import solver
    from arena.tournaments.batch import copy_ruleset
    from arena.tournaments.supervisor import _solved_keys

    odd = CLASSIC.replace(name="odd", rising_bar=True, exact_target=True)  # no warm-up lists these
    spec = TournamentSpec((STANDARD, odd), (load_player_spec("optimal"), load_player_spec("greedy")))
    before = len(solver.SOLVED)
    copy = copy_ruleset(odd)  # what a game's view holds
    solver.solve_turn(copy, 400, 950)
    solver.solve_turn(copy, 10**9, None)  # implausible: the template won't be asked to solve it
    assert _solved_keys(spec, before) == ((1, 400, 950),)


# --- faults that must not end the run -----------------------------------------------------------
OS_EXITER = """
import os

from arena.engine import Action


class Exiter:
    \"\"\"Kills its process at its first decision.\"\"\"

    name = "exiter"

    def decide(self, view):
        os._exit(3)
"""


@pytest.mark.slow
def test_tournament_on_one_worker_with_a_strategy_that_kills_its_process_goes_on(tmp_path: Path) -> None:
    # README, Faults: a strategy whose process dies inside one of its calls (os._exit, a crash in
    # C) loses that game as an error, with a reason saying how the process ended; the run goes on.
    # (Before issue 10 the strategy ended arena's own process with --workers 1.)
    import subprocess
    import sys

    bot = tmp_path / "exiter.py"
    bot.write_text(OS_EXITER)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "arena.cli", "tournament", "--rules", "classic", "--games", "20"]
    command += ["-p", str(bot), "-p", "greedy", "--workers", "1", "--out", str(out)]
    done = subprocess.run([*command, "--no-progress"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    games = pd.read_csv(out / "games.csv", keep_default_na=False)
    exiter = games[games["player"] == "exiter"]
    assert len(exiter) == 20 and set(exiter["status"]) == {"error"}
    assert set(exiter["reason"]) == {"the strategy's process exited with status 3"}
    assert set(games.loc[games["player"] == "greedy", "win"]) == {1}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def tournament(out: Path, *args: str) -> tuple[int, str, str]:
    return run("tournament", "--out", str(out), "--no-progress", *args)


def one_line_error(code: int, err: str) -> bool:
    return code == 2 and err.startswith("arena: error: ") and len(err.strip().splitlines()) == 1


# --- strategies that end the whole tournament ---------------------------------------------------
EXITER = """
class Exiter:
    name = "exiter"

    def decide(self, view):
        if view.turn >= 1:
            sys.exit(3)
        return ok(view)
"""


def test_sys_exit_in_decide_loses_the_game_instead_of_ending_the_run(tmp_path: Path) -> None:
    # match.py catches Exception only; SystemExit (a BaseException) leaves play_match, the batch
    # and run_tournament, and the command exits with the strategy's status 3: no reports, no
    # message, games.csv holds only its header.
    bots = bot_file(tmp_path, EXITER)
    out = tmp_path / "run"
    code, _, err = tournament(
        out, "--rules", "classic", "--games", "4", "--workers", "1", "-p", "greedy", "-p", f"{bots}:Exiter"
    )
    assert code == 0, err
    games = games_of(out)
    assert games["game"].nunique() == 4
    assert set(games.loc[games["player"] == "exiter", "status"]) == {"error"}


def test_a_worker_killed_by_its_strategy_does_not_hang_the_run(tmp_path: Path) -> None:
    # With --workers 2 the same SystemExit kills the pool worker; multiprocess's Pool starts a
    # new worker but the task is lost, and imap waits for its result forever (a hang, not an
    # error).  KeyboardInterrupt raised inside decide does the same.
    bots = bot_file(tmp_path, EXITER)
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [
            *ARENA,
            "tournament",
            "--out",
            str(out),
            "--no-progress",
            "--rules",
            "classic",
            "--games",
            "4",
            "--workers",
            "2",
            "--batch-size",
            "1",
            "-p",
            "greedy",
            "-p",
            f"{bots}:Exiter",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, err = proc.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the tournament hung after a strategy called sys.exit() in a worker")
    assert proc.returncode == 0, err
    assert games_of(out)["game"].nunique() == 4


FLAKY = """
class Flaky:
    # Every third object fails to construct: the first (made when the spec is checked) works.
    name = "flaky"
    made = 0

    def __init__(self):
        type(self).made += 1
        if type(self).made % 3 == 0:
            raise RuntimeError("out of luck")

    def decide(self, view):
        return ok(view)
"""


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_constructor_that_fails_only_sometimes_loses_one_game(tmp_path: Path, workers: str) -> None:
    # batch.py:52 constructs every player again to find the one that failed; when that second
    # attempt succeeds, next() raises StopIteration.  One worker: "RuntimeError: generator
    # raised StopIteration" and a traceback.  Two workers: the StopIteration comes back through
    # imap and silently ends the loop in runner.py, so the run exits 0 with games missing.
    bots = bot_file(tmp_path, FLAKY)
    out = tmp_path / "run"
    code, _, err = tournament(
        out,
        "--rules",
        "classic",
        "--games",
        "8",
        "--workers",
        workers,
        "--batch-size",
        "1",
        "-p",
        "greedy",
        "-p",
        f"{bots}:Flaky",
    )
    assert code == 0, err
    games = games_of(out)
    assert games["game"].nunique() == 8
    failed = games[games["status"] != "ok"]
    assert set(failed["player"]) == {"flaky"}
    assert failed["reason"].str.startswith("creating the player failed").all()


RACER = """
BIG = [0] * 10**7


class SlowRaiser:
    # About 50 ms of C code (no bytecode, so the SIGALRM handler waits), then an exception
    # raised in C: the handler runs in match.py's `except Exception` branch.
    name = "slow-raiser"

    def decide(self, view):
        BIG.index(1)
        return ok(view)
"""


@pytest.mark.slow
def test_a_timeout_signal_during_an_exception_loses_the_game_not_the_run(tmp_path: Path) -> None:
    # match.py:107-110: the pending alarm's MoveTimeout is raised inside the `except Exception`
    # clause (at clock.overran()), which no sibling clause catches; it escapes play_match and
    # ends the run with a traceback (one worker) or kills a worker and hangs (several).
    bots = bot_file(tmp_path, RACER)
    out = tmp_path / "run"
    done = subprocess.run(
        [
            *ARENA,
            "tournament",
            "--out",
            str(out),
            "--no-progress",
            "--rules",
            "classic",
            "--games",
            "2",
            "--workers",
            "1",
            "--move-timeout",
            "0.01",
            "-p",
            "greedy",
            "-p",
            f"{bots}:SlowRaiser",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-400:]
    games = games_of(out)
    assert set(games.loc[games["player"] == "slow-raiser", "status"]) <= {"timeout", "error"}


CTOR = """
def checked_at_load():
    # The spec is checked by building the player once, in a child process: no class attribute
    # counts that, so look at the caller.
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_try_player":
            return True
        frame = frame.f_back
    return False


class Fragile:
    name = "fragile"

    def __init__(self):
        if not checked_at_load():  # works when the spec is checked, fails in every game
            raise RuntimeError("first line\\nsecond line")

    def decide(self, view):
        return ok(view)
"""


def test_a_constructor_error_with_two_lines_keeps_games_csv_valid(tmp_path: Path) -> None:
    # batch.py:67 puts the raw message in the reason (no one_line()), and csv_field leaves the
    # newline unquoted: games.csv gets a broken row and the reports fail with "is not a
    # games.csv arena wrote" (exit 1).  errors.csv must hold one-line reasons.
    bots = bot_file(tmp_path, CTOR)
    out = tmp_path / "run"
    code, _, err = tournament(
        out, "--rules", "classic", "--games", "4", "--workers", "1", "-p", "greedy", "-p", f"{bots}:Fragile"
    )
    assert code == 0, err
    games = games_of(out)
    assert len(games) == 8 and set(games.loc[games["player"] == "fragile", "status"]) == {"error"}
    errors = pd.read_csv(out / "errors.csv")
    assert errors["reason"].str.contains("second line").all()
    assert not errors["reason"].str.contains("\n").any()


# --- other faults --------------------------------------------------------------------------------
END_RAISER = """
class EndRaiser:
    name = "end-raiser"

    def decide(self, view):
        return ok(view)

    def end_game(self, result):
        raise RuntimeError("end")
"""


def test_a_fault_in_end_game_keeps_the_played_game(tmp_path: Path) -> None:
    # The game was played to the end, but the PlayerFault from the end_game hook carries no
    # game (match.py:73, _call), so batch.py:86 records 0 score, 0 turns, 0 farkles for every
    # seat: the opponent's mean score, mean turns and points per turn (shown as "nan") are
    # falsified.
    bots = bot_file(tmp_path, END_RAISER)
    out = tmp_path / "run"
    code, _, err = tournament(
        out, "--rules", "classic", "--games", "2", "--workers", "1", "-p", "greedy", "-p", f"{bots}:EndRaiser"
    )
    assert code == 0, err
    games = games_of(out)
    assert set(games.loc[games["player"] == "end-raiser", "status"]) == {"error"}
    greedy = games[games["player"] == "greedy"]
    assert (greedy["turns"] > 0).all() and (greedy["score"] > 0).all()


# --- bad input -----------------------------------------------------------------------------------
def test_a_nan_move_timeout_is_refused(tmp_path: Path) -> None:
    # spec.py:68 checks `<= 0`, which nan passes; every `elapsed > nan` is False, so the timeout
    # is silently off (and spec.json gets the non-standard token NaN).
    code, _, err = tournament(
        tmp_path / "x",
        "--move-timeout",
        "nan",
        "--rules",
        "classic",
        "--games",
        "2",
        "-p",
        "greedy",
        "-p",
        "random",
        "--workers",
        "1",
    )
    assert one_line_error(code, err), err
    assert not (tmp_path / "x").exists()
