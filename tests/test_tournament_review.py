"""Review of the tournament runner (issue 4): faults that end the whole run, output that stops
being valid CSV, resume gaps, report memory, and a few behaviours checked to be right.

Tests that fail show a problem; each says what should happen instead.
"""

from __future__ import annotations

import csv
import gc
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.analysis.reports import build_reports, write_reports
from arena.cli.main import cli
from arena.engine import CLASSIC
from arena.players import load_player_spec
from arena.tournament import Schedule, TournamentSpec
from arena.tournament.rows import HEADER, csv_field
from arena.tournament.run_folder import RunFolder

ARENA = [sys.executable, "-m", "arena.cli"]
FILES = ("games.csv", "summary.csv", "pairwise.csv", "errors.csv")

BOT_HEAD = """
import sys
from arena.players import Action


def ok(view):
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep))
"""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def tournament(out: Path, *args: str) -> tuple[int, str, str]:
    return run("tournament", "--out", str(out), "--no-progress", *args)


def bot_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOT_HEAD + textwrap.dedent(body))
    return path


def games_of(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "games.csv", keep_default_na=False)


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


SLOW = """
import time


class Slow:
    name = "slow"

    def decide(self, view):
        time.sleep(0.02)
        return ok(view)
"""


def test_ctrl_c_before_the_first_batch_is_written_stops_cleanly(tmp_path: Path) -> None:
    # Ctrl-C while the first batch is still playing leaves games.csv with only its header;
    # reports.py (game_chunks) then takes chunk["game"].iloc[-1] of an empty chunk: IndexError,
    # a traceback and exit 1, no run.json and no resume hint.  With slow strategies and batches
    # of up to 1,000 games, any Ctrl-C in the first seconds hits this.
    bots = bot_file(tmp_path, SLOW)
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
            "50",
            "--workers",
            "1",
            "-p",
            "greedy",
            "-p",
            f"{bots}:Slow",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    assert "->" in proc.stderr.readline()  # the run is starting
    time.sleep(0.7)  # into the first batch (about 7 games of 0.5 s)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err[-400:]
    assert "Traceback" not in err and "continue with `arena tournament --resume" in err
    assert json.loads((out / "run.json").read_text())["games_written"] == 0


def test_reports_of_a_run_with_no_games_yet(tmp_path: Path) -> None:
    (tmp_path / "games.csv").write_text(HEADER)
    write_reports(tmp_path, ["classic"])
    for name in FILES[1:]:
        assert len(pd.read_csv(tmp_path / name)) == 0, name


# --- games.csv stops being valid CSV ------------------------------------------------------------
def test_csv_field_quotes_a_newline() -> None:
    # rows.py:31 writes with lineterminator="", and QUOTE_MINIMAL only quotes characters of the
    # line terminator: "\n" and "\r" go out unquoted and split the row.
    for text in ("two\nlines", "carriage\rreturn"):
        assert next(csv.reader(io.StringIO(csv_field(text) + ",next\n", newline=""))) == [text, "next"]


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


NEWLINE_NAME = """
class TwoLines:
    name = "two\\nlines"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 350)
"""


@pytest.mark.parametrize("fraction", [0.35, 0.7])
def test_a_player_name_with_a_newline_is_refused_or_resumes_exactly(tmp_path: Path, fraction: float) -> None:
    # Either refuse the name with one line, or write it quoted; but run_folder.py:106 counts
    # b"\n" to find complete games, so a quoted newline also makes --resume skip games.
    bots = bot_file(tmp_path, NEWLINE_NAME)
    args = ("--rules", "classic", "--games", "6", "--workers", "1", "-p", "greedy", "-p", f"{bots}:TwoLines")
    whole = tmp_path / "whole"
    code, _, err = tournament(whole, *args)
    if code == 2:
        assert one_line_error(code, err)
        return
    assert code == 0, err
    cut = tmp_path / "cut"
    shutil.copytree(whole, cut)
    data = (whole / "games.csv").read_bytes()
    (cut / "games.csv").write_bytes(data[: int(len(data) * fraction)])
    code, _, err = run("tournament", "--resume", str(cut), "--no-progress")
    assert code == 0, err
    for name in FILES:
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name


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


# --- resume --------------------------------------------------------------------------------------
@pytest.mark.parametrize("content", ["{}", "[]", "null", '{"players": []}'])
def test_resume_with_a_damaged_spec_json_is_one_line(tmp_path: Path, content: str) -> None:
    # Valid JSON of the wrong shape: spec_from_identity raises KeyError / TypeError, which the
    # command doesn't catch (tournament_command.py:142): a traceback, exit 1.
    out = tmp_path / "run"
    assert tournament(out, "--rules", "classic", "--games", "2", "-p", "greedy", "-p", "random")[0] == 0
    (out / "spec.json").write_text(content)
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert one_line_error(code, err), err


@pytest.mark.parametrize("keep", [0, 12])
def test_resume_after_a_power_cut_that_tore_the_header(tmp_path: Path, keep: int) -> None:
    # RunFolder.create writes the header without fsync; a power cut before the first batch can
    # leave games.csv empty or holding part of the header, and resume refuses the folder
    # ("does not start with the games.csv header") while --out refuses to reuse it.
    args = ("--rules", "classic", "--games", "4", "-p", "greedy", "-p", "random", "--workers", "1")
    whole = tmp_path / "whole"
    assert tournament(whole, *args)[0] == 0
    cut = tmp_path / "cut"
    shutil.copytree(whole, cut)
    (cut / "games.csv").write_bytes(HEADER.encode()[:keep])
    code, _, err = run("tournament", "--resume", str(cut), "--no-progress")
    assert code == 0, err
    for name in FILES:
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name


def test_resume_from_the_cli_keeps_the_saved_max_rounds(tmp_path: Path) -> None:
    # The command rebuilds the spec without max_rounds (tournament_command.py:143-156), so a
    # run started from Python with max_rounds=200 is refused as "differs in: max_rounds".
    players = (load_player_spec("greedy"), load_player_spec("random"))
    spec = TournamentSpec((CLASSIC,), players, games=2, max_rounds=200)
    RunFolder.create(tmp_path / "api", spec).close()
    code, _, err = run("tournament", "--resume", str(tmp_path / "api"), "--no-progress")
    assert code == 0, err


def test_resume_from_any_cut_reproduces_the_run(tmp_path: Path) -> None:
    # Verified: free-for-all (three rows per game), torn lines anywhere, other workers and batch size.
    args = (
        "--rules",
        "classic",
        "--format",
        "free-for-all",
        "-p",
        "greedy",
        "-p",
        "random",
        "-p",
        "threshold",
        "--games",
        "6",
        "--seed",
        "4",
        "--workers",
        "1",
    )
    whole = tmp_path / "whole"
    assert tournament(whole, *args)[0] == 0
    data = (whole / "games.csv").read_bytes()
    size, head = len(data), len(HEADER)
    for cut_at in (head, head + 1, size // 3, size // 2 + 7, size - 1, size):
        cut = tmp_path / f"cut{cut_at}"
        shutil.copytree(whole, cut)
        for name in (*FILES[1:], "run.json"):
            (cut / name).unlink()
        (cut / "games.csv").write_bytes(data[:cut_at])
        code, _, err = run(
            "tournament", "--resume", str(cut), "--no-progress", "--workers", "2", "--batch-size", "2"
        )
        assert code == 0, err
        for name in FILES:
            assert (cut / name).read_bytes() == (whole / name).read_bytes(), (cut_at, name)


# --- statistics ----------------------------------------------------------------------------------
def test_rulesets_with_the_same_name_are_not_merged(tmp_path: Path) -> None:
    # A TOML ruleset is named after its file; a/house.toml and b/house.toml (or --rules classic
    # twice) are both accepted, and every report groups by name: one "house" ranking that mixes
    # two different games.  Refuse (one line) or keep them apart.
    for folder, line in (("a", "dice = 6"), ("b", "target = 5000")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "house.toml").write_text(f'extends = "classic"\n{line}\n')
    out = tmp_path / "run"
    code, _, err = tournament(
        out,
        "--rules",
        str(tmp_path / "a" / "house.toml"),
        "--rules",
        str(tmp_path / "b" / "house.toml"),
        "--games",
        "4",
        "-p",
        "greedy",
        "-p",
        "random",
        "--workers",
        "1",
    )
    if code == 2:
        assert one_line_error(code, err)
        return
    assert code == 0, err
    summary = pd.read_csv(out / "summary.csv")
    assert len(summary) == 4 and summary["games"].eq(4).all()


def test_summary_and_pairwise_agree_with_games_csv(tmp_path: Path) -> None:
    # Verified: recomputed from games.csv, with shared wins, faults and a free-for-all of 3 of 4.
    bots = bot_file(
        tmp_path,
        """
        class Cheater:
            name = "cheater"

            def decide(self, view):
                return Action((2, 2), False) if view.turn >= 3 else ok(view)
    """,
    )
    out = tmp_path / "run"
    code, _, err = tournament(
        out,
        "--rules",
        "short",
        "--format",
        "free-for-all",
        "--seats",
        "3",
        "--games",
        "30",
        "-p",
        "greedy",
        "-p",
        "random",
        "-p",
        "threshold",
        "-p",
        f"{bots}:Cheater",
        "--workers",
        "1",
    )
    assert code == 0, err
    games = games_of(out)
    games["win"] = games["win"].astype(float)
    summary = pd.read_csv(out / "summary.csv")
    for row in summary.itertuples():
        mine = games[games["player"] == row.player]
        assert row.games == len(mine)
        assert row.wins == pytest.approx(mine["win"].sum(), abs=1e-6)
        assert row.points_per_turn == pytest.approx(mine["score"].sum() / mine["turns"].sum(), abs=1e-6)
        assert row.errors == (mine["status"] != "ok").sum()
    order = list(zip(-summary["elo"].round(6), -summary["win_rate"], summary["player"], strict=True))
    assert order == sorted(order)  # best Elo first
    pairwise = pd.read_csv(out / "pairwise.csv")
    for row in pairwise.itertuples():
        a = games[games["player"] == row.player][["game", "rank"]]
        b = games[games["player"] == row.opponent][["game", "rank"]]
        both = a.merge(b, on="game")
        ahead = (both["rank_x"] < both["rank_y"]).sum() + 0.5 * (both["rank_x"] == both["rank_y"]).sum()
        assert row.games == len(both) and row.wins == pytest.approx(ahead, abs=1e-6)


# --- reproducibility -----------------------------------------------------------------------------
def test_every_csv_is_the_same_under_another_hash_seed_and_worker_count(tmp_path: Path) -> None:
    # Verified: file strategies (whose module names come from hash()), names that need quoting,
    # free-for-all draws, faults; this process vs PYTHONHASHSEED=12345 with two workers.
    bots = bot_file(
        tmp_path,
        """
        class Quoted:
            name = 'careful, "quoted"'

            def decide(self, view):
                keep = view.legal_keeps[0]
                return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 300)


        class Cheater:
            name = "cheater"

            def decide(self, view):
                return Action((2, 2), False) if view.turn >= 5 else ok(view)
    """,
    )
    args = [
        "--rules",
        "classic",
        "--rules",
        "short",
        "--format",
        "free-for-all",
        "--seats",
        "3",
        "--games",
        "24",
        "--seed",
        "11",
        "-p",
        "greedy",
        "-p",
        "random",
        "-p",
        f"{bots}:Quoted",
        "-p",
        f"{bots}:Cheater",
    ]
    here = tmp_path / "here"
    assert tournament(here, *args, "--workers", "1")[0] == 0
    there = tmp_path / "there"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    command = [
        *ARENA,
        "tournament",
        "--out",
        str(there),
        "--no-progress",
        *args,
        "--workers",
        "2",
        "--batch-size",
        "5",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in FILES:
        assert (here / name).read_bytes() == (there / name).read_bytes(), name


# --- memory --------------------------------------------------------------------------------------
def fake_games(path: Path, games: int, faults: bool) -> None:
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(HEADER)
        for g in range(games):
            status = f"error,RuntimeError: no keep in game {g}" if faults else "ok,"
            out.write(f"classic,{g},{g // 2},1234567890123,0,greedy,10000,1,1,40,3,ok,\n")
            out.write(f"classic,{g},{g // 2},1234567890123,1,other,5000,2,0,40,5,{status}\n")


def peak_bytes(call) -> int:  # type: ignore[no-untyped-def]
    gc.collect()  # garbage from earlier tests must not land in this measurement
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_resume_repairs_games_csv_without_reading_it_whole(tmp_path: Path) -> None:
    # run_folder.py:103 reads all of games.csv into memory (and walks it line by line in
    # Python) to cut a torn line: resuming a run of 10^8 games needs gigabytes.
    spec = TournamentSpec((CLASSIC,), (load_player_spec("greedy"), load_player_spec("random")), games=200_000)
    folder = RunFolder.create(tmp_path / "run", spec)
    slot = Schedule(spec).slot
    labels = spec.labels
    for batch in range(100):  # in batches of 1,000 games, each with its line in the journal
        rows = []
        for g in range(1000 * batch, 1000 * (batch + 1)):  # the scheduled games: resume checks them
            s = slot(g)
            rows.append(f"classic,{g},{s.deal},{s.seed},0,{labels[s.seats[0]]},10000,1,1,40,3,ok,\n")
            rows.append(f"classic,{g},{s.deal},{s.seed},1,{labels[s.seats[1]]},5000,2,0,40,5,ok,\n")
        folder.append("".join(rows))  # about 12 MB in all
    folder.close()
    with open(tmp_path / "run" / "games.csv", "a") as games:
        games.write("classic,100000,500")  # torn
    resumed: list[RunFolder] = []
    peak = peak_bytes(lambda: resumed.append(RunFolder.resume(tmp_path / "run", spec, 2)))
    resumed[0].close()
    assert resumed[0].completed_games == 100_000
    assert peak < 4_000_000, f"{peak / 1e6:.1f} MB to repair a 12 MB file"


def test_report_memory_does_not_grow_with_the_number_of_faults(tmp_path: Path) -> None:
    # reports.py:98 keeps every fault row in a list of frames until the end: a strategy that
    # breaks every game makes memory grow with the run (the ok games stay flat).
    # Small chunks stand in for a long run; without faults the same sizes peak alike.
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    # Both files are larger than the CSV parser's fixed read buffer (256 KiB), which a smaller
    # file does not fill: the comparison is then about games and faults, not the buffer.
    fake_games(small, 4_000, faults=True)
    fake_games(large, 16_000, faults=True)
    build_reports(small, chunk_rows=2000)  # first use imports and caches: not part of either peak
    peaks = [peak_bytes(lambda p=p: build_reports(p, chunk_rows=2000)) for p in (small, large)]
    assert peaks[1] < 1.3 * peaks[0], f"{peaks[0] / 1e6:.2f} MB -> {peaks[1] / 1e6:.2f} MB"


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
