"""A FIFO, device or socket planted in a run folder under a name arena opens is refused in one
line, at once: arena used to block forever opening or reading it (a FIFO no one writes), or
read it without end.  A small file far larger than arena writes (spec.json, run.json) is
refused without being read.  The wall behind it is arena.safe_files: every open there is
non-blocking, and only a regular file is kept open.

Each command runs under :func:`tests.deadlines.at_most`, so a command that hangs fails its test
instead of hanging the suite."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena import safe_files
from arena.safe_files import SMALL_FILE_LIMIT, NotRegular, open_file, open_read, read_bytes, refuse_unsafe
from arena.tournaments.folder_lock import LOCK
from tests.deadlines import at_most
from tests.run_folders import contents, invoke, make_run, received

SECONDS = 20  # far more than a refusal takes (well under a second): only a hang gets there


def _fifo(place: Path) -> str:
    os.mkfifo(place)
    return "a FIFO"


def _socket(place: Path) -> str:
    # Bound by its short relative name: a unix socket's path may be only 107 bytes long.
    here = os.getcwd()
    os.chdir(place.parent)
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(place.name)
    finally:
        os.chdir(here)
    return "a socket"


def _device(place: Path) -> str:
    """A character device like /dev/null (reads end at once, writes vanish); root only."""
    try:
        os.mknod(place, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:
        pytest.skip("making a device node needs root")
    return "a character device"


PLANTS: dict[str, Callable[[Path], str]] = {"fifo": _fifo, "socket": _socket, "device": _device}


def plant(folder: Path, name: str, kind: str) -> str:
    """Replace ``name`` in ``folder`` with a special file of ``kind``; return its words."""
    place = folder / name
    place.unlink(missing_ok=True)
    return PLANTS[kind](place)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament folder."""
    return make_run("tournament", tmp_path_factory.mktemp("finished") / "run")


def refused(args: list[str], where: Path, why: str) -> None:
    """``arena ARGS`` ends, exits 2, and says in one line that ``where`` is refused and why."""
    with at_most(SECONDS):
        code, err = invoke(*args)
    assert code == 2, err
    assert err.count("\n") == 1, err
    assert f"{where}: {why}" in err or f"{where} can't be read: {why}" in err, err


NAMES = [
    "spec.json",
    "games.idx",
    "games.csv",
    "run.json",
    "errors.log",
    "summary.csv",
    LOCK,
    "seat-logs/greedy.log",
]


@pytest.mark.parametrize("kind", sorted(PLANTS))
@pytest.mark.parametrize("name", NAMES)
def test_resume_refuses_a_planted_special_file_at_once(
    finished: Path, tmp_path: Path, name: str, kind: str
) -> None:
    folder = received(finished, tmp_path)
    what = plant(folder, name, kind)
    before = contents(folder)
    refused(
        ["tournament", "--resume", str(folder), "--no-progress"],
        folder / name,
        f"it is {what}, not a regular file",
    )
    assert contents(folder) == before  # nothing written, nothing cut
    assert not stat.S_ISREG((folder / name).lstat().st_mode)


def test_the_command_line_exits_2_within_seconds(finished: Path, tmp_path: Path) -> None:
    folder = received(finished, tmp_path)
    plant(folder, "games.idx", "fifo")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "--resume", str(folder), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=SECONDS,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{folder / 'games.idx'}: it is a FIFO, not a regular file; the folder is refused" in done.stderr
    assert time.monotonic() - started < SECONDS


@pytest.mark.parametrize("kind", ["duel", "tune"])
def test_duel_and_tune_resumes_refuse_a_planted_fifo(tmp_path: Path, kind: str) -> None:
    folder = make_run(kind, tmp_path / kind)
    names = ["games.csv", "run.json"] if kind == "tune" else ["games.csv"]  # tune reads run.json first
    for name in names:
        (folder / f"{name}.kept").write_bytes((folder / name).read_bytes())
        plant(folder, name, "fifo")
        refused(
            [kind, "--resume", str(folder), "--no-progress"],
            folder / name,
            "it is a FIFO, not a regular file",
        )
        (folder / name).unlink()
        (folder / f"{name}.kept").rename(folder / name)


# --- the reading commands ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["spec.json", "run.json", "games.csv"])
def test_report_refuses_a_planted_fifo(finished: Path, tmp_path: Path, name: str) -> None:
    folder = received(finished, tmp_path)
    plant(folder, name, "fifo")
    refused(["report", str(folder)], folder / name, "it is a FIFO, not a regular file")
    if name != "run.json":  # compare reads spec.json and games.csv
        refused(["compare", str(folder), str(finished)], folder / name, "it is a FIFO, not a regular file")


def test_reading_follows_a_link_but_not_to_a_device(finished: Path, tmp_path: Path) -> None:
    folder = received(finished, tmp_path)
    (folder / "spec.json").unlink()
    # /dev/null, not /dev/zero: without the wall this test would read the latter until memory ran out.
    (folder / "spec.json").symlink_to("/dev/null")
    refused(["report", str(folder)], folder / "spec.json", "it is a character device, not a regular file")


def test_the_python_api_refuses_a_planted_fifo(finished: Path, tmp_path: Path) -> None:
    import arena
    from arena.api.errors import ArenaError

    folder = received(finished, tmp_path)
    plant(folder, "spec.json", "fifo")
    with (
        at_most(SECONDS),
        pytest.raises(ArenaError, match=r"spec\.json can't be read: it is a FIFO, not a regular file"),
    ):
        arena.load_run(folder)


# --- a small file far too large ------------------------------------------------------------------
def _oversize(place: Path) -> None:
    place.unlink()
    with open(place, "wb") as file:
        file.truncate(SMALL_FILE_LIMIT + 1)  # sparse: no time, no disk


def test_an_oversized_spec_json_is_refused_in_one_line(finished: Path, tmp_path: Path) -> None:
    folder = received(finished, tmp_path)
    _oversize(folder / "spec.json")
    before = contents(folder)
    why = "it is larger than 16 MiB, far more than arena writes there"
    refused(["tournament", "--resume", str(folder), "--no-progress"], folder / "spec.json", why)
    assert contents(folder) == before
    refused(["report", str(folder)], folder / "spec.json", why)


def test_an_oversized_run_json_is_refused_by_report(finished: Path, tmp_path: Path) -> None:
    folder = received(finished, tmp_path)
    _oversize(folder / "run.json")
    refused(["report", str(folder)], folder / "run.json", "it is larger than 16 MiB")


# --- the wall itself: arena.safe_files -----------------------------------------------------------
def _look_misses_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry looks absent to open_fd's first look: a FIFO put in place after it."""
    real = safe_files._mode
    missed: list[bool] = []

    def look(name: str, parent: int) -> int | None:
        if not missed:
            missed.append(True)
            return None
        return real(name, parent)

    monkeypatch.setattr(safe_files, "_mode", look)


@pytest.mark.parametrize("mode", ["r+b", "ab", "w"])
def test_a_fifo_that_appears_after_the_look_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    fifo = tmp_path / "games.csv"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so a write-only open succeeds
    try:
        _look_misses_once(monkeypatch)
        with at_most(SECONDS), pytest.raises(NotRegular, match="it is a FIFO, not a regular file"):
            open_file(fifo, mode)
    finally:
        os.close(reader)


def test_a_write_only_fifo_with_no_reader_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "errors.log"
    os.mkfifo(fifo)
    _look_misses_once(monkeypatch)  # so the open itself meets it: ENXIO, then the look again
    with at_most(SECONDS), pytest.raises(NotRegular, match="it is a FIFO"):
        open_file(fifo, "w")


def test_a_fifo_is_refused_for_reading_and_a_file_is_read_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    with at_most(SECONDS), pytest.raises(NotRegular, match="it is a FIFO"):
        open_read(tmp_path / "fifo")
    (tmp_path / "spec.json").write_bytes(b"{}\n")
    with open_read(tmp_path / "spec.json") as file:
        assert os.get_blocking(file.fileno()) and file.read() == b"{}\n"
    with open_file(tmp_path / "spec.json", "ab") as file:
        assert os.get_blocking(file.fileno())
    assert read_bytes(tmp_path / "spec.json", limit=3) == b"{}\n"
    with pytest.raises(OSError, match="larger than"):
        read_bytes(tmp_path / "spec.json", limit=2)


def test_a_fifo_nested_deeper_than_the_stack_is_found(tmp_path: Path) -> None:
    deep = tmp_path / "run"
    deep.mkdir()
    for _ in range(200):
        deep /= "d"
        deep.mkdir()
    os.mkfifo(deep / "x")
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 100)  # a stack 100 frames deep: os.walk needed one per folder
    try:
        with pytest.raises(NotRegular) as refusal:
            refuse_unsafe(tmp_path / "run")
    finally:
        sys.setrecursionlimit(limit)
    assert refusal.value.filename == str(deep / "x")
