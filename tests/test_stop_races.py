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
