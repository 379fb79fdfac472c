"""Issue 10, part F: bad input, damaged run folders, signals, a full disk, and faulty bots that
are easy to debug.  Every test runs the real CLI (in process, or as a subprocess where a signal
or a resource limit is involved) on bots written as files."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.tournaments.rows import HEADER

ARENA = [sys.executable, "-m", "arena.cli"]
REPORTS = ("games.csv", "summary.csv", "pairwise.csv", "errors.csv", "errors.log")

BOTS = """
import os
import sys
import time

from arena.players import Action


def best(view):
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep))


class Slow:
    # ARENA_TEST_DELAY slows it down without changing a single decision.
    name = "slow"

    def decide(self, view):
        time.sleep(float(os.environ.get("ARENA_TEST_DELAY", "0")))
        return best(view)


def pick(view):
    if view.turn_points >= 300:
        raise RuntimeError(f"no keep at {view.turn_points}")
    return best(view)


class Crasher:
    name = "crasher"

    def decide(self, view):
        return pick(view)
"""


def line_of(code: str) -> int:
    """The line of BOTS that holds ``code``, as a traceback numbers it."""
    return next(n for n, line in enumerate(BOTS.splitlines(), 1) if code in line)


RAISES = line_of("raise RuntimeError")  # in pick()
CALLS = line_of("return pick(view)")  # in Crasher.decide()


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*ARENA, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def one_line(code: int, err: str, status: int = 2) -> bool:
    return code == status and err.startswith("arena: error: ") and len(err.strip().splitlines()) == 1


def same_files(a: Path, b: Path) -> None:
    for name in REPORTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bots") / "bots.py"
    path.write_text(BOTS)
    return path


def run_args(bots: Path) -> tuple[str, ...]:
    """A small round-robin in batches of three games: 3 pairings x 6 games = 18 games, 6 batches."""
    return (
        "--rules", "classic", "-p", "greedy", "-p", f"{bots}:Slow", "-p", "random",
        "--games", "6", "--seed", "3", "--workers", "1", "--batch-size", "3", "--no-progress",
    )  # fmt: skip


@pytest.fixture(scope="module")
def whole(bots: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The uninterrupted run every repaired or resumed run must equal, byte for byte."""
    out = tmp_path_factory.mktemp("whole") / "run"
    code, _, err = run("tournament", "--out", str(out), *run_args(bots))
    assert code == 0, err
    return out


# --- bad input ----------------------------------------------------------------------------------
def test_an_out_name_too_long_for_the_file_system_is_one_line(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / ("x" * 300)
    code, _, err = run("tournament", "--out", str(out), *run_args(bots))
    assert one_line(code, err) and "300 bytes long" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "greedy"], "free-for-all needs at least two players, got 1"),
        (["-p", "greedy", "-p", "random", "--seats", "1"], "seats must be 2 to 2"),
    ],
)
def test_a_free_for_all_of_one_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    code, _, err = run(
        "tournament", "--out", str(tmp_path / "x"), "--format", "free-for-all", "--rules", "classic", *args
    )
    assert one_line(code, err) and message in err, err
    assert not (tmp_path / "x").exists()


def with_fingerprint(saved: dict) -> dict:
    """spec.json as a careful hand-editor would leave it: the fingerprint recomputed to match."""
    identity = {k: v for k, v in saved.items() if k not in ("fingerprint", "command")}
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False)
    return {**saved, "fingerprint": hashlib.sha256(text.encode()).hexdigest()}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seed", 3.0, "seed must be a whole number of at least 0, got 3.0"),
        ("seed", True, "seed must be a whole number of at least 0, got true"),
        ("max_rounds", 0, "max_rounds must be a whole number of at least 1, got 0"),
        ("max_rounds", "ten", 'max_rounds must be a whole number of at least 1, got "ten"'),
        ("games", 6.5, "games must be a whole number of at least 1, got 6.5"),
        ("chunk_games", 0, "chunk_games must be a whole number of at least 1, got 0"),
        ("format", "league", "format must be one of"),
        ("move_timeout", -1, "move_timeout must be a positive number"),
        ("rulesets", [{"dice": "six"}], "rulesets[0]: dice"),
        ("players", [{"label": "x"}], "players[0] must be an object with a spec"),
    ],
)
def test_a_hand_edited_spec_json_is_refused_naming_the_field(
    whole: Path, tmp_path: Path, field: str, value: object, message: str
) -> None:
    folder = tmp_path / "run"
    shutil.copytree(whole, folder)
    saved = json.loads((folder / "spec.json").read_text())
    (folder / "spec.json").write_text(json.dumps(with_fingerprint({**saved, field: value})))
    code, _, err = run("tournament", "--resume", str(folder), "--no-progress")
    assert one_line(code, err) and message in err and "spec.json" in err, err


def test_rows_dealt_under_another_seed_are_played_again_not_kept(
    whole: Path, tmp_path: Path, bots: Path
) -> None:
    # games.idx vouches for the bytes, not for the spec: a seed edited by hand (fingerprint
    # recomputed) must not leave rows dealt under the old seed in the finished file.
    folder = tmp_path / "run"
    shutil.copytree(whole, folder)
    saved = json.loads((folder / "spec.json").read_text())
    (folder / "spec.json").write_text(json.dumps(with_fingerprint({**saved, "seed": saved["seed"] + 1})))
    code, _, err = run("tournament", "--resume", str(folder), "--no-progress")
    assert code == 0 and "repair: games.csv line 2: seed" in err and "games from 0 on" in err, err
    fresh = tmp_path / "fresh"
    args = list(run_args(bots))
    args[args.index("--seed") + 1] = str(saved["seed"] + 1)
    assert run("tournament", "--out", str(fresh), *args)[0] == 0
    assert (folder / "games.csv").read_bytes() == (fresh / "games.csv").read_bytes()


# --- damaged games.csv ----------------------------------------------------------------------------
def rows(folder: Path) -> list[bytes]:
    return (folder / "games.csv").read_bytes().splitlines(keepends=True)


def delete_row(lines: list[bytes]) -> list[bytes]:
    return lines[:15] + lines[16:]  # line 16 of the file: game 7, seat 0


def nul_run(lines: list[bytes]) -> list[bytes]:
    data = b"".join(lines)
    at = len(b"".join(lines[:21])) + 10  # inside line 22: game 10, seat 0
    return [data[:at] + b"\0" * 40 + data[at + 40 :]]


def past_the_end(lines: list[bytes]) -> list[bytes]:
    extra = [line.replace(b",17,", b",18,", 1) for line in lines[-2:]]
    return lines + extra


def edit_score(lines: list[bytes]) -> list[bytes]:
    fields = lines[9].split(b",")  # game 4, seat 0
    fields[6] = str(int(fields[6]) + 50).encode()
    return [*lines[:9], b",".join(fields), *lines[10:]]


@pytest.mark.parametrize(
    ("damage", "journal", "note"),
    [
        (delete_row, True, "games.csv line 16: game 7, seat 1 where game 7, seat 0 belongs; games from 6 on"),
        (nul_run, True, "games.csv line 22: NUL bytes where a row should be; games from 9 on"),
        (past_the_end, True, "games.csv line 38: game 18 is past the end of the run (18 games); cut"),
        (edit_score, True, "games.csv lines 8 to 13 (games 3 to 5) differ from what was written"),
        (None, True, "games.idx line 3 is not a journal line arena wrote; games from 6 on"),
        (delete_row, False, "games.csv line 16: game 7, seat 1 where game 7, seat 0 belongs; games from 7"),
        (past_the_end, False, "games.csv line 38: game 18 is past the end of the run (18 games); cut"),
    ],
)
def test_resume_repairs_damage_anywhere_in_games_csv(
    whole: Path, tmp_path: Path, damage: Callable[[list[bytes]], list[bytes]] | None, journal: bool, note: str
) -> None:
    folder = tmp_path / "run"
    shutil.copytree(whole, folder)
    if damage is None:  # the journal itself is damaged
        journal_lines = (folder / "games.idx").read_bytes().splitlines(keepends=True)
        journal_lines[2] = journal_lines[2].replace(b'"start":6', b'"start":5')
        (folder / "games.idx").write_bytes(b"".join(journal_lines))
    else:
        (folder / "games.csv").write_bytes(b"".join(damage(rows(whole))))
    if not journal:  # a folder written before games.idx existed is checked row by row
        (folder / "games.idx").unlink()
    code, _, err = run("tournament", "--resume", str(folder), "--no-progress")
    assert code == 0, err
    assert f"repair: {note}" in err
    same_files(folder, whole)
    # The journal now matches again: a second resume finds nothing to repair.
    code, _, err = run("tournament", "--resume", str(folder), "--no-progress")
    assert code == 0 and "repair:" not in err, err
    same_files(folder, whole)


# --- strategies that fail when they are loaded ---------------------------------------------------
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("import sys\nsys.exit(3)\n", "importing it failed: SystemExit: 3"),
        ("import sys\nclass B:\n    name = 'b'\n    def __init__(self):\n        sys.exit(4)\n"
         "    def decide(self, view): pass\n", "creating the player failed: SystemExit: 4"),
        ("import os\nclass B:\n    name = 'b'\n    def __init__(self):\n        os._exit(5)\n"
         "    def decide(self, view): pass\n", "creating the player ended its process (exit status 5)"),
        ("import time\nclass B:\n    name = 'b'\n    def __init__(self):\n        time.sleep(60)\n"
         "    def decide(self, view): pass\n", "creating the player took longer than 0.5 s"),
        ("class B:\n    @property\n    def name(self):\n        raise RuntimeError('no')\n"
         "    def decide(self, view): pass\n", "reading the player's name failed: RuntimeError: no"),
    ],
)  # fmt: skip
def test_a_strategy_that_fails_at_load_time_is_one_line_before_any_folder(
    tmp_path: Path, body: str, message: str
) -> None:
    bot = tmp_path / "bad.py"
    bot.write_text(body)
    out = tmp_path / "run"
    began = time.perf_counter()
    code, _, err = run(
        "tournament", "--out", str(out), "-p", str(bot), "-p", "greedy", "--rules", "classic",
        "--games", "2", "--move-timeout", "0.5" if "sleep" in body else "10", "--no-progress",
    )  # fmt: skip
    assert one_line(code, err) and message in err, err
    assert list(tmp_path.iterdir()) == [bot]  # no folder, not even a temporary one
    assert time.perf_counter() - began < 5


# --- the run folder appears whole ---------------------------------------------------------------
def test_a_folder_left_by_a_kill_during_creation_blocks_nothing(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "run"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    pid = int(dead.stdout)  # a process that has ended: what kill -9 during creation leaves
    leftover = tmp_path / f".run.partial-{pid}-abcdef"
    leftover.mkdir()
    (leftover / "spec.json").write_text('{"fingerprint": "')  # cut off mid-write
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert one_line(code, err) and "stopped while its folder was being created" in err, err
    code, _, err = run("tournament", "--out", str(out), *run_args(bots))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # the leftover was cleared away


def test_the_folder_appears_with_its_spec_and_header(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "run"
    proc = arena("tournament", "--out", str(out), *run_args(bots))
    try:
        deadline = time.monotonic() + 30
        while not out.exists():  # the first moment the folder is there at all
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.0005)
        assert json.loads((out / "spec.json").read_text())["games"] == 6
        assert (out / "games.csv").read_bytes()[: len(HEADER)] == HEADER.encode()
        assert (out / "games.idx").exists()
    finally:
        proc.communicate(timeout=60)
    assert proc.returncode == 0


# --- SIGTERM, Ctrl-C and a full disk --------------------------------------------------------------
def wait_for_batches(folder: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while True:
        index = folder / "games.idx"
        if index.exists() and index.read_bytes().count(b"\n") >= n:
            return
        assert time.monotonic() < deadline and proc.poll() is None, "the run did not get going"
        time.sleep(0.02)


def test_sigterm_stops_like_ctrl_c_and_the_run_resumes_exactly(
    tmp_path: Path, bots: Path, whole: Path
) -> None:
    out = tmp_path / "run"
    proc = arena(
        "tournament", "--out", str(out), *run_args(bots)[:-5], "--workers", "2", "--batch-size", "3",
        "--no-progress", env={"ARENA_TEST_DELAY": "0.01"},
    )  # fmt: skip
    wait_for_batches(out, 1, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "Error" not in err, err
    assert "terminated: " in err and f"continue with `arena tournament --resume {out}`" in err
    kept = json.loads((out / "run.json").read_text())["games_written"]
    assert 3 <= kept < 18
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert code == 0, err
    same_files(out, whole)


# Runs the CLI with the report writer stopped by a signal, or by a full disk, as it starts.
STOP_IN_REPORTS = """
import os, resource, signal, sys
import arena.cli.tournament_command as command
real = command.write_reports
def stopped(*args, **kwargs):
    how = os.environ["HOW"]
    if how == "disk":
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, resource.RLIM_INFINITY))
    else:
        os.kill(os.getpid(), getattr(signal, how))
    return real(*args, **kwargs)
command.write_reports = stopped
from arena.cli.main import cli
cli(sys.argv[1:])
"""


@pytest.mark.parametrize(("how", "status"), [("SIGINT", 130), ("SIGTERM", 143), ("disk", 1)])
def test_a_stop_while_writing_reports_keeps_the_run_resumable(
    tmp_path: Path, bots: Path, whole: Path, how: str, status: int
) -> None:
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-c", STOP_IN_REPORTS, "tournament", "--out", str(out), *run_args(bots)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOW": how},
        timeout=60,
    )
    err = proc.stderr
    assert proc.returncode == status, err
    assert "Traceback" not in err and "Aborted" not in err, err
    assert f"18 of 18 games kept; continue with `arena tournament --resume {out}`" in err
    last = err.strip().splitlines()[-1]
    if how == "disk":
        assert last.startswith("arena: error: cannot write ") and "File too large" in last
    else:
        assert last.startswith("terminated: " if how == "SIGTERM" else "interrupted: ")
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert code == 0, err
    same_files(out, whole)


def test_a_full_disk_is_one_line_and_the_run_resumes_exactly(tmp_path: Path, bots: Path, whole: Path) -> None:
    out = tmp_path / "run"
    size = len((whole / "games.csv").read_bytes())
    # 30 bytes short of the end is inside the last batch (three games, about 370 bytes), and leaves
    # room for spec.json, which this run's longer --out path makes longer than whole's.
    cap = size - 30
    assert len((whole / "spec.json").read_bytes()) + len(str(out)) - len(str(whole)) < cap - 50

    def limit() -> None:  # a file-size limit inside games.csv's last batch stands in for a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, resource.RLIM_INFINITY))

    proc = subprocess.run(
        [*ARENA, "tournament", "--out", str(out), *run_args(bots)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=60,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("arena: error: ")
    assert f"cannot write {out / 'games.csv'}: File too large; " in proc.stderr
    kept = int(proc.stderr.split("; ")[1].split(" of ")[0])
    assert (
        0 < kept < 18 and f"{kept} of 18 games kept; continue with `arena tournament --resume" in proc.stderr
    )
    assert len((out / "games.csv").read_bytes()) > len(HEADER)  # part of a batch went out before
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert code == 0, err
    same_files(out, whole)


# --- faulty bots --------------------------------------------------------------------------------
def crash_args(bots: Path) -> tuple[str, ...]:
    return (
        "--rules", "classic", "-p", "greedy", "-p", f"{bots}:Crasher", "--games", "10", "--seed", "1",
        "--workers", "1", "--batch-size", "4", "--no-progress",
    )  # fmt: skip


def test_errors_log_and_the_warning_block_show_the_strategys_traceback(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "run"
    code, _, err = run("tournament", "--out", str(out), *crash_args(bots))
    assert code == 0, err
    faults = (out / "errors.csv").read_text().count("\n") - 1
    assert faults > 0
    log = (out / "errors.log").read_text()
    assert log.startswith(f"1 distinct fault in {faults} games")
    assert f"=== fault 1 of 1: crasher, error, in {faults} games; first in game " in log
    assert f'File "{bots}", line {RAISES}, in pick' in log and "arena/players/match.py" in log  # the full one
    assert "replay: arena play --rules classic -p " in log
    assert f"warning: crasher faulted in {faults} of 10 games (error {faults})" in err
    block = err[err.index("warning: crasher") :]
    assert f'File "{bots}", line {RAISES}, in pick' in block and "RuntimeError: no keep at" in block
    assert "arena/" not in block.split("\n  game ")[0]  # arena's own frames are left out
    assert f"all faults: {out / 'errors.csv'}, tracebacks: {out / 'errors.log'}" in block
    assert "greedy faulted" not in err


def test_the_replay_command_shows_the_same_fault(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "run"
    assert run("tournament", "--out", str(out), *crash_args(bots))[0] == 0
    replay = next(
        line for line in (out / "errors.log").read_text().splitlines() if line.startswith("replay:")
    )
    code, _, err = run(*replay.split()[2:])
    assert code == 1 and f'File "{bots}", line {RAISES}, in pick' in err and "match.py" not in err, err
    assert err.strip().splitlines()[-1].startswith("arena: error: crasher (seat ")
    code, _, err = run(*replay.split()[2:], "--fail-fast")
    assert code == 1 and "arena/players/match.py" in err  # the full traceback


def test_fail_fast_stops_at_the_first_fault_and_resume_finishes_the_run(tmp_path: Path, bots: Path) -> None:
    out, whole = tmp_path / "run", tmp_path / "whole"
    assert run("tournament", "--out", str(whole), *crash_args(bots))[0] == 0
    code, stdout, err = run("tournament", "--out", str(out), *crash_args(bots), "--fail-fast")
    assert code == 1 and stdout == ""
    assert "Traceback (most recent call last):" in err and "arena/players/match.py" in err
    first = int((whole / "errors.csv").read_text().splitlines()[1].split(",")[1])  # the first fault
    kept = min(10, (first // 4 + 1) * 4)  # its batch (of four games) is kept, nothing after it
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"arena: error: --fail-fast: crasher faulted in game {first} (seat ")
    assert "RuntimeError" in last and f"; {kept} of 10 games kept; continue with" in last
    assert (out / "games.csv").read_bytes().count(b"\n") == 1 + 2 * kept
    assert json.loads((out / "run.json").read_text())["stopped_by"].startswith("--fail-fast: crasher faulted")
    code, _, err = run("tournament", "--resume", str(out), "--no-progress")
    assert code == 0, err
    same_files(out, whole)


def test_fail_fast_in_a_duel(bots: Path, tmp_path: Path) -> None:
    args = ("duel", f"{bots}:Crasher", "greedy", "--rules", "classic", "--games", "20", "--workers", "1")
    code, stdout, err = run(*args, "--out", str(tmp_path / "a"))
    assert code == 0 and "faults" in stdout
    assert "warning: crasher faulted in " in err and "of 20 games (error " in err
    assert f'File "{bots}", line {RAISES}, in pick' in err and "match.py" not in err
    code, stdout, err = run(*args, "--fail-fast", "--out", str(tmp_path / "b"))
    assert code == 1 and stdout == "" and "arena/players/match.py" in err
    assert err.strip().splitlines()[-1].startswith("arena: error: --fail-fast: crasher faulted in game ")


def test_play_shows_a_faulting_strategys_traceback(bots: Path) -> None:
    code, _, err = run("play", "--rules", "classic", "-p", f"{bots}:Crasher", "-p", "greedy", "--seed", "2")
    assert code == 1
    frames = f'Traceback (most recent call last):\n  File "{bots}", line {CALLS}, in decide\n'
    assert frames in err and f'File "{bots}", line {RAISES}, in pick' in err
    assert "match.py" not in err
    assert err.strip().splitlines()[-1].startswith("arena: error: crasher (seat 0) lost the game: error:")
