"""A Ctrl-C or SIGTERM that lands at any moment after the games, while a run's reports are
written: the command exits 130 (143) with the line of an interrupted run and the command that
continues, and every file it leaves is whole (old or new, never half-written).

A Ctrl-C is raised at whichever bytecode runs when it arrives, so these tests put it at the
moments that used to go wrong: just after a file object is made from a descriptor (which closed
the descriptor twice: "Bad file descriptor" and exit 1), in the middle of writing a report, and
between the games and the reports."""

from __future__ import annotations

import builtins
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena import safe_files
from arena.safe_files import open_file, open_read


def _interrupted_open(other: Path) -> Any:
    """``open`` as it is when Ctrl-C lands just after it returns: the file is made, then dropped
    by the KeyboardInterrupt (which closes its descriptor), and meanwhile another file (another
    thread's) is opened under the number just freed."""
    others: list[Any] = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        with builtins.open(*args, **kwargs):
            pass  # made, then dropped: its descriptor is closed
        others.append(builtins.open(other, "wb"))  # noqa: SIM115 (kept open: it is the victim)
        raise KeyboardInterrupt

    interrupted.others = others  # type: ignore[attr-defined]
    return interrupted


@pytest.mark.parametrize("mode", ["w", "wb", "a", "x", "r+b", "rb", "r"])
def test_a_ctrl_c_as_a_file_opens_is_a_ctrl_c_and_closes_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    path = tmp_path / "summary.csv"
    if mode != "x":
        path.write_bytes(b"old\n")
    interrupted = _interrupted_open(tmp_path / "other")
    monkeypatch.setattr(safe_files, "open", interrupted, raising=False)
    with pytest.raises(KeyboardInterrupt):  # not OSError: Bad file descriptor
        if mode in ("r", "rb"):
            open_read(path, mode)
        else:
            open_file(path, mode)
    (other,) = interrupted.others  # opened under the freed number (the lowest free one)
    other.write(b"still mine")  # still open: its number was not closed a second time
    other.close()
    assert (tmp_path / "other").read_bytes() == b"still mine"


def test_a_ctrl_c_in_the_middle_of_the_reports_leaves_every_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pandas as pd

    from arena.analysis.reports import write_reports
    from tests.run_folders import contents, make_run

    folder = make_run("tournament", tmp_path / "run")
    before = contents(folder)
    real = pd.DataFrame.to_csv

    def half_then_ctrl_c(self: pd.DataFrame, file: Any, **kwargs: Any) -> None:
        text = real(self, None, **kwargs)
        file.write(text[: len(text) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        write_reports(folder, ["standard"])
    assert contents(folder) == before  # errors.csv, summary.csv: whole, and no temporary left


# A real SIGINT, sent by the kernel, right after the first file of the reports is opened.
SIGNAL_AFTER_OPEN = """
import os, signal, sys
import arena.cli.tournament_command as command
real = command._Run.finish
def finish(self):
    def hook(frame, event, arg):
        if (event == "c_return" and getattr(arg, "__name__", "") == "open"
                and frame.f_code.co_filename.endswith("safe_files.py")):
            sys.setprofile(None)
            os.kill(os.getpid(), getattr(signal, os.environ["HOW"]))
    sys.setprofile(hook)
    return real(self)
command._Run.finish = finish
from arena.cli.main import cli
cli(sys.argv[1:], prog_name="arena")
"""


@pytest.mark.parametrize(
    ("how", "status", "word"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_a_real_signal_as_a_report_opens_exits_as_an_interrupted_run(
    tmp_path: Path, how: str, status: int, word: str
) -> None:
    import subprocess
    import sys

    out = tmp_path / "run"
    args = ["tournament", "--out", str(out), "--rules", "classic", "-p", "greedy", "-p", "random",
            "--games", "6", "--seed", "3", "--workers", "1", "--no-progress"]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_AFTER_OPEN, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HOW": how},
        timeout=120,
    )
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr and "Bad file descriptor" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"{word}: 6 of 6 games kept; continue with `arena tournament --resume {out}`"


STOP_IN_DUEL_FILES = """
import os, signal, sys
import arena.cli.duel_command as command
real = command.write_duel_files
def stopped(*args, **kwargs):
    os.kill(os.getpid(), getattr(signal, os.environ["HOW"]))
    return real(*args, **kwargs)
command.write_duel_files = stopped
from arena.cli.main import cli
cli(sys.argv[1:], prog_name="arena")
"""


@pytest.mark.parametrize(
    ("how", "status", "word"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_a_signal_while_a_duel_writes_its_files_exits_as_an_interrupted_duel(
    tmp_path: Path, how: str, status: int, word: str
) -> None:
    import subprocess
    import sys

    out = tmp_path / "duel"
    args = ["duel", "greedy", "random", "--games", "20", "--seed", "1", "--workers", "1", "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-c", STOP_IN_DUEL_FILES, *args, "--out", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOW": how},
        timeout=120,
    )
    assert done.returncode == status, done.stderr
    assert "Traceback" not in done.stderr and "Aborted" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"{word}: 20 games kept; continue with `arena duel --resume {out}`"



@pytest.mark.parametrize("body_exit", [None, 130])
def test_a_stop_as_a_block_puts_its_handlers_back_is_noted_not_raised(
    monkeypatch: pytest.MonkeyPatch, body_exit: int | None
) -> None:
    """A real SIGINT that lands while a stop block puts the old handlers back (its own handler
    still in place) is noted in the block's state; it neither replaces the block's own way out
    (a SystemExit with the command's status) nor comes out after the block's last checkpoint,
    where click made it "Aborted!" and exit 1 (a command looks at the state after the block)."""
    import signal

    from arena.tournaments.interrupts import stop_signals

    real = signal.signal
    sent: list[int] = []

    def signal_then_put_back(signum: int, handler: Any) -> Any:
        if not sent:
            sent.append(signum)
            signal.raise_signal(signal.SIGINT)  # handled here, by the block's handler
        return real(signum, handler)

    before = signal.getsignal(signal.SIGINT)
    exit_status = None
    try:
        with stop_signals() as stop:
            monkeypatch.setattr(signal, "signal", signal_then_put_back)
            if body_exit:
                raise SystemExit(body_exit)
    except SystemExit as exc:
        exit_status = exc.code
    except KeyboardInterrupt:
        exit_status = "KeyboardInterrupt out of the block"
    assert sent and stop.stopped and not stop.terminated
    assert exit_status == body_exit
    assert signal.getsignal(signal.SIGINT) is before  # every handler put back all the same


# --- A real signal swept over the end of `arena tune` and `league run` ------------------------
#
# The child runs the command with a profiler that counts the main process's calls from a marker
# (the race's pool closing: the games are over; a league's first batch stored) and sends itself
# the signal at call number AT.  A dry run (no signal) says how many calls there are from the
# marker to the moment the command's outermost stop block ends (the last time a stop_signals
# generator is resumed), before it starts to put the old handlers back;
# the sweep lands the signal at points spread over all of them, so on files being closed,
# written and renamed, on the database's transactions, on the summary being printed and on the
# blocks ending.  Past that moment the process is leaving (click's teardown) and is not swept.

SWEEP = """
import importlib, os, signal, sys
MAIN = os.getpid()
how, at = os.environ["HOW"], int(os.environ["AT"])
calls, ends = 0, []
def count(frame, event, arg):
    global calls
    if os.getpid() != MAIN:  # a forked worker inherits the profiler: not counted there
        sys.setprofile(None)
        return
    if event in ("call", "c_call"):
        calls += 1
        if calls == at:
            os.kill(MAIN, getattr(signal, how))
        if event == "call" and frame.f_code.co_name == "stop_signals":  # a block begins or ends
            ends.append(calls)
            with open(os.environ["SWEEP_OUT"], "w") as out:
                out.write(str(ends[-1] - 1))
def no_block():  # a command with no stop block: every call to the end is swept
    if not ends and os.getpid() == MAIN:
        with open(os.environ["SWEEP_OUT"], "w") as out:
            out.write(str(calls))
import atexit
atexit.register(no_block)
owner_name, _, method = os.environ["MARK"].rpartition(".")
module_name, _, class_name = owner_name.partition(":")
owner = importlib.import_module(module_name)
owner = getattr(owner, class_name) if class_name else owner
real = getattr(owner, method)
def marked(*args, **kwargs):
    if sys.getprofile() is None and calls == 0:
        sys.setprofile(count)
    return real(*args, **kwargs)
setattr(owner, method, marked)
from arena.cli.main import cli
cli(sys.argv[1:], prog_name="arena")
"""


def _swept(
    args: list[str], mark: str, how: str, at: int, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], int]:
    """``arena ARGS`` with the signal ``how`` at call ``at`` after ``mark`` ("none": no signal);
    the run, and the calls it made from the mark to its outermost block's end."""
    out = tmp_path / "calls"
    done = subprocess.run(
        [sys.executable, "-c", SWEEP, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HOW": how, "AT": str(at), "MARK": mark, "SWEEP_OUT": str(out)},
        timeout=300,
    )
    return done, int(out.read_text()) if out.exists() else 0


def _points(calls: int, count: int) -> list[int]:
    """``count`` call numbers spread evenly from the first to the last."""
    return sorted({1 + (calls - 1) * k // (count - 1) for k in range(count)})


TUNE = ["tune", "threshold", "--param", "bank_at=300..400/100", "--against", "greedy", "--rules", "classic",
        "--budget", "200", "--workers", "1", "--no-progress", "--compiled", "off"]  # fmt: skip


@pytest.mark.slow
def test_a_signal_anywhere_after_a_tunes_games_exits_as_an_interrupted_tune(tmp_path: Path) -> None:
    """From the race's last game to the end of ``arena tune``: 130 or 143, one line with the
    command that continues (it used to be "Aborted!", 1, after Ctrl-C, and a silent kill on
    SIGTERM), and ``--resume`` then gives the files of an uninterrupted run."""
    from click.testing import CliRunner

    from arena.cli.main import cli
    from arena.tuning.runner import CANDIDATES, GAMES, SUMMARY

    def files(folder: Path) -> dict[str, bytes]:
        return {name: (folder / name).read_bytes() for name in (GAMES, CANDIDATES, SUMMARY)}

    mark = "arena.tuning.race_pool:RacePool.close"
    whole, calls = _swept([*TUNE, "--out", str(tmp_path / "whole")], mark, "none", 0, tmp_path)
    assert whole.returncode == 0 and calls > 100, whole.stderr
    for how, status, word, count in (("SIGINT", 130, "interrupted", 6), ("SIGTERM", 143, "terminated", 3)):
        for at in _points(calls, count):
            folder = tmp_path / f"{how}-{at}"
            done, _ = _swept([*TUNE, "--out", str(folder)], mark, how, at, tmp_path)
            where = f"{how} at call {at} of {calls}:\n{done.stderr}"
            assert done.returncode == status, where
            assert done.stderr.splitlines() == [
                f"{word}: 200 games played are kept in {folder}; continue with `arena tune --resume {folder}`"
            ], where
            resumed = CliRunner().invoke(cli, ["tune", "--resume", str(folder), "--compiled", "off"])
            assert resumed.exit_code == 0, where + resumed.output
            assert files(folder) == files(tmp_path / "whole"), where


@pytest.mark.slow
def test_a_signal_anywhere_after_a_leagues_first_batch_exits_as_an_interrupted_run(tmp_path: Path) -> None:
    """From the first batch a ``league run`` stores to its end: 130 or 143, one line with the
    command that continues (it used to be "Aborted!", 1, once the games were stored), and the
    next run stores exactly the games of an uninterrupted one."""
    from arena.leagues import League

    base = tmp_path / "base"
    league = League.create(base, rules=("classic",), games=4)
    for entry in ("greedy", "random", "threshold"):
        league.add(entry)
    league.close()
    mark = "arena.leagues.play._store"

    def run(how: str, at: int, name: str) -> tuple[subprocess.CompletedProcess[str], int, Path]:
        folder = tmp_path / name
        shutil.copytree(base, folder)
        done, calls = _swept(["league", "run", str(folder), "--trusted"], mark, how, at, tmp_path)
        return done, calls, folder

    whole, calls, folder = run("none", 0, "whole")
    assert whole.returncode == 0 and calls > 100, whole.stderr
    games = League(folder).games_csv()
    assert games.count("\n") == 1 + 2 * 12  # 3 pairs of 4 games, a row per seat
    for how, status, word, count in (("SIGINT", 130, "interrupted", 6), ("SIGTERM", 143, "terminated", 3)):
        for at in _points(calls, count):
            done, _, folder = run(how, at, f"{how}-{at}")
            where = f"{how} at call {at} of {calls}:\n{done.stderr}"
            assert done.returncode == status, where
            assert done.stderr.splitlines() == [
                f"{word}: every game written so far is kept; continue with `arena league run {folder}`"
            ], where
            again = League(folder)
            again.run(trusted=True, progress=False)
            assert again.games_csv() == games, where


@pytest.mark.slow
def test_a_signal_anywhere_in_a_tournaments_reports_exits_as_an_interrupted_run(tmp_path: Path) -> None:
    """The same sweep over ``arena tournament``'s reports, from their first line to its end."""
    args = ["tournament", "--rules", "classic", "-p", "greedy", "-p", "random", "--games", "6",
            "--seed", "3", "--workers", "1", "--no-progress"]  # fmt: skip
    mark = "arena.cli.tournament_command:_Run.finish"
    whole, calls = _swept([*args, "--out", str(tmp_path / "whole")], mark, "none", 0, tmp_path)
    assert whole.returncode == 0 and calls > 100, whole.stderr
    for how, status, word, count in (("SIGINT", 130, "interrupted", 6), ("SIGTERM", 143, "terminated", 3)):
        for at in _points(calls, count):
            out = tmp_path / f"{how}-{at}"
            done, _ = _swept([*args, "--out", str(out)], mark, how, at, tmp_path)
            where = f"{how} at call {at} of {calls}:\n{done.stderr}"
            assert done.returncode == status, where
            assert "Traceback" not in done.stderr and "Aborted" not in done.stderr, where
            line = f"{word}: 6 of 6 games kept; continue with `arena tournament --resume {out}`"
            assert done.stderr.strip().splitlines()[-1] == line, where


@pytest.mark.slow
def test_a_signal_anywhere_as_a_duel_writes_its_files_exits_as_an_interrupted_duel(tmp_path: Path) -> None:
    """The same sweep over ``arena duel``'s files and verdict, from the first file to its end."""
    args = ["duel", "greedy", "random", "--games", "20", "--seed", "1", "--workers", "1", "--no-progress"]
    mark = "arena.cli.duel_command.write_duel_files"
    whole, calls = _swept([*args, "--out", str(tmp_path / "whole")], mark, "none", 0, tmp_path)
    assert whole.returncode == 0 and calls > 100, whole.stderr
    for how, status, word, count in (("SIGINT", 130, "interrupted", 6), ("SIGTERM", 143, "terminated", 3)):
        for at in _points(calls, count):
            out = tmp_path / f"{how}-{at}"
            done, _ = _swept([*args, "--out", str(out)], mark, how, at, tmp_path)
            where = f"{how} at call {at} of {calls}:\n{done.stderr}"
            assert done.returncode == status, where
            assert "Traceback" not in done.stderr and "Aborted" not in done.stderr, where
            line = f"{word}: 20 games kept; continue with `arena duel --resume {out}`"
            assert done.stderr.strip().splitlines()[-1] == line, where
