"""`arena tournament` end to end: every format, byte-identical results for any number of
workers, resume after a kill, faulty strategies, and every bad input."""

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
from arena.engine import CLASSIC, STANDARD
from arena.players import load_player_spec
from arena.tournaments import Schedule, TournamentSpec, player_from_class
from arena.tournaments.rows import COLUMNS, HEADER, csv_field
from arena.tournaments.run_folder import RunFolder

ARENA = [sys.executable, "-m", "arena.cli"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def tournament(out: Path, *args: str) -> tuple[int, str, str]:
    return run("tournament", "--out", str(out), "--no-progress", *args)


FAST = ("--rules", "classic", "-p", "greedy", "-p", "threshold", "-p", "random", "--games", "40")


def test_round_robin_writes_every_file(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, stdout, _ = tournament(out, *FAST, "--workers", "1")
    assert code == 0
    assert {p.name for p in out.iterdir()} == {
        ".arena.lock",  # the folder lock (arena.tournaments.folder_lock), empty
        "games.csv",
        "summary.csv",
        "pairwise.csv",
        "errors.csv",
        "errors.log",
        "run.json",
        "spec.json",
        "games.idx",
    }
    games = pd.read_csv(out / "games.csv", keep_default_na=False)
    assert tuple(games.columns) == COLUMNS
    assert len(games) == 3 * 40 * 2  # 3 pairings x 40 games x 2 rows
    assert list(games["game"].unique()) == list(range(120))
    assert set(games["status"]) == {"ok"}
    # Both seat orders of each deal share the seed (duplicate play).
    assert (games.groupby(["deal", "seed"]).size() == 4).all() or games.groupby("seed").size().eq(4).all()
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary.columns) == [
        "ruleset",
        "player",
        "games",
        "wins",
        "win_rate",
        "ci_low",
        "ci_high",
        "mean_score",
        "mean_turns",
        "points_per_turn",
        "farkle_rate",
        "errors",
        "round_limit",
        "elo",
        "elo_low",
        "elo_high",
    ]
    assert summary["games"].tolist() == [80, 80, 80]
    assert summary["wins"].sum() == pytest.approx(120)
    assert (summary["ci_low"] <= summary["win_rate"]).all() and (
        summary["win_rate"] <= summary["ci_high"]
    ).all()
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert len(pairwise) == 6 and (pairwise["games"] == 40).all()
    assert list(summary["player"]) == list(dict.fromkeys(pairwise["player"]))
    info = json.loads((out / "run.json").read_text())
    assert info["complete"] and info["games_total"] == 120 and info["seed"] == 0
    assert info["rulesets"][0]["name"] == "classic" and info["versions"]["pandas"]
    assert "classic" in stdout and "rank  player" in stdout and "120 games in" in stdout


def test_gauntlet_plays_the_first_against_each_other(tmp_path: Path) -> None:
    code, _, _ = tournament(tmp_path / "g", *FAST, "--format", "gauntlet")
    assert code == 0
    games = pd.read_csv(tmp_path / "g" / "games.csv")
    per_game = games.groupby("game")["player"].apply(frozenset)
    assert set(per_game) == {
        frozenset({"greedy", "threshold:bank_at=300,min_dice=3"}),
        frozenset({"greedy", "random"}),
    }


def test_free_for_all_seats_everyone_and_rotates(tmp_path: Path) -> None:
    code, _, _ = tournament(tmp_path / "f", *FAST, "--format", "free-for-all", "--games", "30")
    assert code == 0
    games = pd.read_csv(tmp_path / "f" / "games.csv")
    assert games.groupby("game").size().eq(3).all() and games["game"].nunique() == 30
    first_seats = games[games["seat"] == 0].groupby("deal")["player"].apply(list)
    assert all(len(set(players)) == 3 for players in first_seats)  # each deal in all 3 rotations


def test_free_for_all_with_seats_draws_tables(tmp_path: Path) -> None:
    args = (
        "--rules",
        "classic",
        "-p",
        "greedy",
        "-p",
        "threshold",
        "-p",
        "random",
        "-p",
        "tactician",
        "--format",
        "free-for-all",
        "--seats",
        "2",
        "--games",
        "60",
    )
    code, _, _ = tournament(tmp_path / "s", *args)
    assert code == 0
    games = pd.read_csv(tmp_path / "s" / "games.csv")
    tables = games.groupby("deal")["player"].apply(frozenset)
    assert tables.map(len).eq(2).all() and tables.nunique() > 2


def test_same_bytes_for_any_workers_and_batch_size(tmp_path: Path) -> None:
    outs = []
    for name, extra in (
        ("one", ("--workers", "1")),
        ("two", ("--workers", "2", "--batch-size", "7")),
        ("big", ("--workers", "2", "--batch-size", "1000")),
    ):
        out = tmp_path / name
        assert tournament(out, *FAST, "--rules", "short", "--seed", "5", *extra)[0] == 0
        outs.append(out)
    for name in ("games.csv", "summary.csv", "pairwise.csv", "errors.csv"):
        texts = {(o / name).read_bytes() for o in outs}
        assert len(texts) == 1, name


def test_seed_changes_the_games(tmp_path: Path) -> None:
    tournament(tmp_path / "a", *FAST, "--seed", "1")
    tournament(tmp_path / "b", *FAST, "--seed", "2")
    assert (tmp_path / "a" / "games.csv").read_bytes() != (tmp_path / "b" / "games.csv").read_bytes()


def test_game_seeds_do_not_depend_on_the_other_players() -> None:
    # A pairing's games are the same whoever else is in the tournament.
    def seeds(players: list[str]) -> dict[tuple[str, ...], list[int]]:
        spec = TournamentSpec((CLASSIC,), tuple(load_player_spec(p) for p in players), games=4)
        schedule = Schedule(spec)
        found: dict[tuple[str, ...], list[int]] = {}
        for g in range(len(schedule)):
            slot = schedule.slot(g)
            found.setdefault(tuple(sorted(spec.labels[i] for i in slot.seats)), []).append(slot.seed)
        return found

    small = seeds(["greedy", "random"])
    large = seeds(["greedy", "optimal", "random"])
    assert small[("greedy", "random")] == large[("greedy", "random")]


# --- faults --------------------------------------------------------------------------------
FAULTY = """
import time
from arena.players import Action


class Raiser:
    name = "raiser"

    def decide(self, view):
        if view.turn >= 2:
            raise RuntimeError("boom\\nsecond line")
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))


class Cheater:
    name = "cheater"

    def decide(self, view):
        return Action((2, 2), False)


class Sleeper:
    name = "sleeper"

    def decide(self, view):
        if view.turn >= 1:
            time.sleep(30)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))
"""


@pytest.mark.slow
def test_faulty_strategies_lose_only_their_games(tmp_path: Path) -> None:
    bots = tmp_path / "bots.py"
    bots.write_text(FAULTY)
    out = tmp_path / "faults"
    args = (
        "--rules",
        "classic",
        "--games",
        "4",
        "--move-timeout",
        "0.2",
        "--workers",
        "2",
        "-p",
        "greedy",
        "-p",
        "random",
        "-p",
        f"{bots}:Raiser",
        "-p",
        f"{bots}:Cheater",
        "-p",
        f"{bots}:Sleeper",
    )
    code, stdout, _ = tournament(out, *args)
    assert code == 0
    games = pd.read_csv(out / "games.csv", keep_default_na=False)
    # Against the sound strategies, each faulty one breaks every game in its own way.
    sound = games.groupby("game").filter(lambda g: bool(g["player"].isin(["greedy", "random"]).any()))
    status = sound.groupby("player")["status"].apply(set)
    assert (
        status["raiser"] == {"error"}
        and status["cheater"] == {"illegal"}
        and status["sleeper"] == {"timeout"}
    )
    assert status["greedy"] == {"ok"} and status["random"] == {"ok"}
    errors = pd.read_csv(out / "errors.csv")
    reasons = errors.groupby("status")["reason"].first()
    assert reasons["error"] == "RuntimeError: boom second line"
    assert reasons["illegal"].startswith("keep (2, 2)")
    assert reasons["timeout"] == "no decision within 0.2 s"
    # Every faulty player lost every game it broke; its opponent won it.
    faulty = games[games["status"] != "ok"]
    assert (faulty["win"] == 0).all()
    opponents = games[
        games["game"].isin(faulty["game"])
        & (games["status"] == "ok")
        & ~games["player"].isin(["raiser", "cheater", "sleeper"])
    ]
    assert (opponents["win"] == 1).all()
    # The others' games are the same games as in a tournament without the faulty strategies.
    clean = tmp_path / "clean"
    tournament(clean, "--rules", "classic", "--games", "4", "-p", "greedy", "-p", "random")
    a = (
        games[games["player"].isin(["greedy", "random"])]
        .groupby("game")
        .filter(lambda g: set(g["player"]) == {"greedy", "random"})
        .drop(columns="game")
    )
    b = pd.read_csv(clean / "games.csv", keep_default_na=False).drop(columns="game")
    assert a.reset_index(drop=True).equals(b.reset_index(drop=True))
    assert "faults in errors.csv" in stdout


# --- resume --------------------------------------------------------------------------------
# On the Python path: compiled, these games are over before the run can be stopped.  1,000
# games (2,000 rows, about 2 s on two workers) leave most of the run to go when the tests below
# stop it at 200 or 400 rows.
SLOW_ARGS = [
    "--rules",
    "standard",
    "-p",
    "optimal",
    "-p",
    "tactician",
    "--games",
    "1000",
    "--seed",
    "3",
    "--workers",
    "2",
    "--batch-size",
    "50",
    "--no-progress",
    "--compiled",
    "off",
]


def start_run(out: Path, extra: list[str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [*ARENA, "tournament", "--out", str(out), *SLOW_ARGS, *(extra or [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_rows(path: Path, rows: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") > rows:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {rows} rows")


@pytest.mark.slow
def test_resume_after_a_kill_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    assert run("tournament", "--out", str(whole), *SLOW_ARGS)[0] == 0  # in this process: no kill here
    broken = tmp_path / "broken"
    proc = start_run(broken)
    wait_for_rows(broken / "games.csv", 400)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = (broken / "games.csv").read_bytes()
    assert 0 < len(written) < len((whole / "games.csv").read_bytes())
    # A power cut can also leave half a line.
    with open(broken / "games.csv", "ab") as games:
        games.write(b"standard,99999,12,34")
    done = subprocess.run(
        [*ARENA, "tournament", "--resume", str(broken), "--no-progress"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "resuming after game" in done.stderr
    for name in ("games.csv", "summary.csv", "pairwise.csv", "errors.csv"):
        assert (broken / name).read_bytes() == (whole / name).read_bytes(), name


def test_ctrl_c_keeps_what_finished_and_says_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "stopped"
    proc = start_run(out)
    wait_for_rows(out / "games.csv", 200)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert f"continue with `arena tournament --resume {out}`" in stderr
    lines = (out / "games.csv").read_text().splitlines()
    assert len(lines) > 200 and (len(lines) - 1) % 2 == 0
    assert json.loads((out / "run.json").read_text())["complete"] is False
    assert "Traceback" not in stderr


def test_resume_refuses_a_different_configuration(tmp_path: Path) -> None:
    out = tmp_path / "r"
    tournament(out, *FAST)
    code, _, err = run("tournament", "--resume", str(out), "--games", "50", "--no-progress")
    assert code == 2 and "holds a different tournament (differs in: games)" in err
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert code == 0  # a finished run resumes to the same files


# --- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "kniffel"], "kniffel: unknown ruleset"),
        (["-p", "greedy", "-p", "nope"], "unknown strategy 'nope'"),
        (["-p", "threshold:bank=1", "-p", "greedy"], "threshold: unknown parameter 'bank'"),
        (["--games", "0"], "games must be at least 1, got 0"),
        (["--workers", "0"], "--workers must be at least 1, got 0"),
        (["-p", "greedy"], "round-robin needs at least two players, got 1"),
        (["--seats", "2"], "--seats goes with free-for-all, not round-robin"),
        (["--format", "free-for-all", "--seats", "9"], "seats must be 2 to 5"),
        (["--move-timeout", "0"], "move timeout must be a positive number of seconds"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    code, out, err = tournament(tmp_path / "x", *args)
    assert code == 2 and out == ""
    assert err.startswith("arena: error: ") and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_existing_out_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "done"
    out.mkdir()
    (out / "keep.txt").write_text("earlier")
    code, _, err = tournament(out, *FAST)
    assert code == 2 and "already exists" in err
    assert (out / "keep.txt").read_text() == "earlier" and len(list(out.iterdir())) == 1


def test_unwritable_out(tmp_path: Path) -> None:
    # /proc refuses new folders even to root.
    code, _, err = tournament(Path("/proc/arena-run"), *FAST)
    assert code == 2 and err.startswith("arena: error: cannot write /proc/arena-run")


def test_out_under_a_file_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = tournament(blocker / "run", *FAST)
    assert code == 2 and err.startswith("arena: error: cannot write")


@pytest.mark.parametrize("folder", ["missing", "empty"])
def test_resume_of_a_non_run_folder(tmp_path: Path, folder: str) -> None:
    if folder == "empty":
        (tmp_path / folder).mkdir()
    code, _, err = run("tournament", "--resume", str(tmp_path / folder))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "no such run folder" in err or "is not a tournament folder" in err


def test_python_api_with_a_class_from_the_users_script(tmp_path: Path) -> None:
    script = tmp_path / "my_script.py"
    script.write_text(f"""
from pathlib import Path
from arena.engine import CLASSIC
from arena.players import Action, load_player_spec
from arena.tournaments import TournamentSpec, player_from_class, run_tournament
from arena.tournaments.run_folder import RunFolder


class MyBot:
    name = "my-bot"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 400)


if __name__ == "__main__":
    spec = TournamentSpec((CLASSIC,), (player_from_class(MyBot), load_player_spec("greedy")), games=20)
    folder = RunFolder.create(Path({str(tmp_path / "api")!r}), spec)
    outcome = run_tournament(spec, folder, workers=2, batch_size=5)
    print(outcome.games_written, outcome.faults)
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "0"]
    games = pd.read_csv(tmp_path / "api" / "games.csv")
    assert set(games["player"]) == {"my-bot", "greedy"} and set(games["status"]) == {"ok"}


def test_schedule_covers_every_game_once() -> None:
    spec = TournamentSpec(
        (CLASSIC, STANDARD), tuple(load_player_spec(p) for p in ("greedy", "random", "optimal")), games=5
    )
    schedule = Schedule(spec)
    assert len(schedule) == 2 * 3 * 6  # 5 games rounded up to 3 deals x 2 orders
    slots = [schedule.slot(g) for g in range(len(schedule))]
    assert [s.game for s in slots] == list(range(len(schedule)))
    with pytest.raises(IndexError):
        schedule.slot(len(schedule))


KILLER = """
import os
from arena.players import Action


class Killer:
    name = "killer"

    def decide(self, view):
        if view.turn >= 3:
            os._exit(7)  # takes the whole worker process down with it
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))
"""


def test_a_strategy_that_kills_its_process_loses_those_games_and_the_run_goes_on(tmp_path: Path) -> None:
    bots = tmp_path / "killer.py"
    bots.write_text(KILLER)
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
            "-p",
            "greedy",
            "-p",
            "random",
            "-p",
            f"{bots}:Killer",
            "--games",
            "10",
            "--workers",
            "2",
            "--batch-size",
            "5",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    games = pd.read_csv(out / "games.csv", keep_default_na=False)
    assert list(games["game"].unique()) == list(range(30))  # every game, in order
    killer = games[games["player"] == "killer"]
    # It reaches its fourth turn in most games, and then dies: an error of its seat.
    died = killer[killer["status"] == "error"]
    assert len(died) > 0 and set(died["reason"]) == {"the strategy's process exited with status 7"}
    assert (died["turns"] >= 4).all() and (died["win"] == 0).all()
    assert set(games.loc[games["player"] != "killer", "status"]) == {"ok"}


def test_a_batch_keeps_the_full_traceback_of_each_fault():
    from arena.tournaments.batch import BatchPlayer

    class Boom:
        name = "boom"

        def decide(self, view):
            raise ValueError("kaputt")

    spec = TournamentSpec(
        (STANDARD,),
        (player_from_class(Boom), load_player_spec("greedy")),
        games=2,
        move_timeout=None,
    )
    result = BatchPlayer(spec).play(0, 2)
    assert [(d.game, d.player, d.status, d.reason) for d in result.fault_details] == [
        (0, "boom", "error", "ValueError: kaputt"),
        (1, "boom", "error", "ValueError: kaputt"),
    ]
    assert 'raise ValueError("kaputt")' in result.fault_details[0].traceback


# --- output, resume and reports: valid CSV, resume from any cut, memory -------------------------
FILES = ("games.csv", "summary.csv", "pairwise.csv", "errors.csv")


BOT_HEAD = """
import sys
from arena.players import Action


def ok(view):
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep))
"""


def bot_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOT_HEAD + textwrap.dedent(body))
    return path


def games_of(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "games.csv", keep_default_na=False)


def one_line_error(code: int, err: str) -> bool:
    return code == 2 and err.startswith("arena: error: ") and len(err.strip().splitlines()) == 1


SLOW = """
import time


class Slow:
    name = "slow"

    def decide(self, view):
        time.sleep(0.02)
        return ok(view)
"""


@pytest.mark.slow
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
@pytest.mark.slow
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
            out.write(f"classic,{g},{g // 2},1234567890123,0,greedy,10000,1,1,40,3,ok,,target\n")
            out.write(f"classic,{g},{g // 2},1234567890123,1,other,5000,2,0,40,5,{status},target\n")


def peak_bytes(call) -> int:  # type: ignore[no-untyped-def]
    gc.collect()  # garbage from earlier tests must not land in this measurement
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_resume_repairs_games_csv_without_reading_it_whole(tmp_path: Path) -> None:
    # run_folder.py:103 reads all of games.csv into memory (and walks it line by line in
    # Python) to cut a torn line: resuming a run of 10^8 games needs gigabytes.
    spec = TournamentSpec((CLASSIC,), (load_player_spec("greedy"), load_player_spec("random")), games=200_000)
    folder = RunFolder.create(tmp_path / "run", spec)
    slot = Schedule(spec).slot
    labels = spec.labels
    for batch in range(50):  # in batches of 1,000 games, each with its line in the journal
        rows = []
        for g in range(1000 * batch, 1000 * (batch + 1)):  # the scheduled games: resume checks them
            s = slot(g)
            rows.append(f"classic,{g},{s.deal},{s.seed},0,{labels[s.seats[0]]},10000,1,1,40,3,ok,,target\n")
            rows.append(f"classic,{g},{s.deal},{s.seed},1,{labels[s.seats[1]]},5000,2,0,40,5,ok,,target\n")
        folder.append("".join(rows))  # about 6 MB in all: more than the 4 MB allowed below
    folder.close()
    with open(tmp_path / "run" / "games.csv", "a") as games:
        games.write("classic,50000,500")  # torn
    resumed: list[RunFolder] = []
    peak = peak_bytes(lambda: resumed.append(RunFolder.resume(tmp_path / "run", spec, 2)))
    resumed[0].close()
    assert resumed[0].completed_games == 50_000
    assert peak < 4_000_000, f"{peak / 1e6:.1f} MB to repair a 6 MB file"


@pytest.mark.slow
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
