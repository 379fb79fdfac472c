"""One arena process writes a run folder at a time: a second writer (a second ``--resume``, a
``report --plot``) is refused in one line with exit 2 before it changes a byte, and the lock
goes with its holder, so a killed run can be resumed at once."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournaments.folder_lock import LOCK, FolderBusy, hold, release
from tests.run_folders import contents, invoke, make_run

ARENA = [sys.executable, "-m", "arena.cli"]
#: A process that takes a folder's lock, says so and keeps it until its stdin closes.
HOLDER = (
    "import sys; from pathlib import Path; from arena.tournaments.folder_lock import hold; "
    "hold(Path(sys.argv[1])); print('held', flush=True); sys.stdin.read()"
)
#: A process that takes the lock of every folder it is given and ends (exit 1 if one is busy).
TAKER = "import sys; from pathlib import Path; from arena.tournaments.folder_lock import hold; "
TAKER += "[hold(Path(f)) for f in sys.argv[1:]]"


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Path]:
    """A run folder whose lock another process holds (killed with SIGKILL at the end)."""
    folder = make_run("tournament", tmp_path / "run")
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    yield folder
    process.kill()
    process.wait()


def _refused(folder: Path, *args: str) -> None:
    before = contents(folder)
    done = subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"{folder} is being written by another arena process (process " in lines[0]
    assert contents(folder) == before


def test_a_second_resume_is_refused_and_changes_nothing(holder: Path) -> None:
    _refused(holder, "tournament", "--resume", str(holder), "--no-progress")


def test_report_plot_is_refused_while_the_folder_is_written(holder: Path) -> None:
    pytest.importorskip("matplotlib")
    _refused(holder, "report", str(holder), "--plot")


def test_the_lock_goes_with_a_killed_holder(tmp_path: Path) -> None:
    folder = make_run("tournament", tmp_path / "run")
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    with pytest.raises(FolderBusy, match=f"process {process.pid}"):
        hold(folder)
    process.kill()
    process.wait()
    code, err = invoke("tournament", "--resume", str(folder), "--no-progress")  # at once, no clean-up
    assert code == 0, err


@pytest.mark.parametrize("kind", ["duel", "tune"])
def test_a_second_duel_or_tuning_run_is_refused(tmp_path: Path, kind: str) -> None:
    folder = make_run(kind, tmp_path / kind)
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == "held\n"
        _refused(folder, kind, "--resume", str(folder), "--no-progress")
    finally:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_a_playing_run_holds_its_folder_until_it_is_killed(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    run = subprocess.Popen(
        [*ARENA, "tournament", "-p", "greedy", "-p", "random", "--games", "200000", "--rules", "standard",
         "--compiled", "off", "--workers", "1", "--out", str(folder), "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (folder / "games.idx").is_file() or not (folder / "games.idx").stat().st_size:
            assert time.monotonic() < deadline and run.poll() is None
            time.sleep(0.05)
        assert (folder / LOCK).is_file()
        with pytest.raises(FolderBusy):
            hold(folder)
        # The case: a second --resume while the run plays.  It used to append too.
        second = [*ARENA, "tournament", "--resume", str(folder), "--no-progress"]
        done = subprocess.run(second, capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert f"(process {run.pid})" in done.stderr
    finally:
        run.kill()
        run.wait()
    deadline = time.monotonic() + 10
    while True:  # the chunk processes it forked share the lock: they end soon after it
        try:
            hold(folder)
            break
        except FolderBusy:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    release(folder)


def test_the_lock_file_is_never_followed_as_a_link(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (folder / LOCK).symlink_to(outside)
    with pytest.raises(OSError, match="symbolic link"):
        hold(folder)
    assert outside.read_text() == "keep me\n"


def test_the_python_api_lets_go_of_the_folder_when_it_returns(tmp_path: Path) -> None:
    import arena

    run = arena.tournament(players=["greedy", "random"], rules=["standard"], games=2, out=tmp_path / "t")
    arena.duel("greedy", "random", games=2, out=tmp_path / "d")
    arena.tune(
        "threshold",
        ["bank_at=300,400"],
        against=["greedy"],
        rules=["classic"],
        budget=40,
        out=tmp_path / "u",
    )
    folders = [str(run.folder), str(tmp_path / "d"), str(tmp_path / "u")]
    done = subprocess.run([sys.executable, "-c", TAKER, *folders], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr  # another process gets every lock


def test_a_refused_api_resume_lets_go_of_the_folder(tmp_path: Path) -> None:
    import arena
    from arena.api.errors import ArenaError

    run = arena.tournament(players=["greedy", "random"], rules=["standard"], games=2, out=tmp_path / "t")
    with pytest.raises(ArenaError, match="holds a different tournament"):
        arena.tournament(resume=run.folder, players=["greedy", "tactician"])
    done = subprocess.run(
        [sys.executable, "-c", TAKER, str(run.folder)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
