"""Bounded reads of everything an entry names: a FIFO named ``bot.py``, a link to ``/dev/zero``,
a sparse file of terabytes, a folder named ``bot.py``, given to ``league add``, to every command
that loads a strategy file, and on a ``cmd:`` line, are each refused in one line at once, never
a hang, a traceback or unbounded memory (docs/security.md, "Attacks, walls and tests")."""

from __future__ import annotations

import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.leagues import League
from arena.storage import league_db

REPO = Path(__file__).resolve().parents[1]
GREEDY_BOT = REPO / "strategies" / "external" / "greedy_bot.py"
#: A hang is a failure, not a stuck suite: each command gets this long (it needs about 2 s).
PATIENCE = 30
#: The address space each command may use: reading /dev/zero whole fails well before the
#: machine's memory runs out, as a MemoryError traceback the tests see.
MEMORY = 3 << 30


def sparse(path: Path) -> Path:
    """A sparse file of terabytes (as large as the file system allows), taking no disk."""
    with path.open("wb"):
        pass
    for size in (8 << 40, 1 << 40, 64 << 30):
        try:
            os.truncate(path, size)
            return path
        except OSError:
            continue
    pytest.skip("this file system holds no sparse file of 64 GiB")


def hostile(tmp_path: Path, kind: str) -> Path:
    """A file named ``bot.py`` (in a folder of its own) that is not a strategy file arena may read."""
    folder = tmp_path / kind
    folder.mkdir()
    path = folder / "bot.py"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "sparse":
        sparse(path)
    else:
        path.mkdir()
    return path


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def arena(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=PATIENCE,
        preexec_fn=limited,
    )


def one_line(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr


KINDS = ["fifo", "zero", "sparse", "folder"]


@pytest.mark.parametrize("kind", KINDS)
def test_league_add_refuses_a_hostile_entry_file_in_one_line_and_stores_nothing(
    tmp_path: Path, kind: str
) -> None:
    league = tmp_path / "league"
    League.create(league, seed=1).close()
    path = hostile(tmp_path, kind)
    line = one_line(arena("league", "add", str(league), str(path)), 1)
    assert str(path) in line
    with sqlite3.connect(league_db.database_path(league)) as c:
        assert c.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 0
    assert not list((league / "entries").glob("*")) if (league / "entries").exists() else True


@pytest.mark.parametrize(
    ("kind", "command"), [*((kind, "tournament") for kind in KINDS), ("fifo", "duel"), ("fifo", "play")]
)
def test_every_command_refuses_a_hostile_strategy_file_in_one_line(
    tmp_path: Path, kind: str, command: str
) -> None:
    path = str(hostile(tmp_path, kind))
    out = str(tmp_path / "run")
    args = {
        "tournament": [
            "tournament",
            "-p",
            path,
            "-p",
            "greedy",
            "--games",
            "2",
            "--out",
            out,
            "--no-progress",
        ],
        "duel": ["duel", path, "greedy", "--max-games", "2", "--out", out],
        "play": ["play", "-p", path, "-p", "greedy", "--seed", "1"],
    }[command]
    line = one_line(arena(*args), 2)
    assert path in line and ("regular file" in line or "MiB" in line)


@pytest.mark.parametrize("kind", ["fifo", "sparse"])
def test_a_cmd_argument_that_is_a_fifo_or_a_sparse_giant_is_refused_in_one_line(
    tmp_path: Path, kind: str
) -> None:
    path = hostile(tmp_path, kind)
    spec = f"cmd:{sys.executable} {GREEDY_BOT} bot {path}"
    out = str(tmp_path / "run")
    line = one_line(
        arena("tournament", "-p", spec, "-p", "greedy", "--games", "2", "--out", out, "--no-progress"), 2
    )
    assert f"the argument {path}: " in line and ("a FIFO" in line or "larger than 256 MiB" in line)


@pytest.mark.slow
def test_resume_refuses_a_cmd_argument_replaced_by_a_sparse_giant(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    shutil.copy(GREEDY_BOT, script)
    spec = f"cmd:{sys.executable} {script}"
    out = tmp_path / "run"
    args = ["-p", spec, "-p", "greedy", "--games", "4", "--seed", "1", "--no-progress"]
    assert arena("tournament", *args, "--out", str(out)).returncode == 0
    script.unlink()
    sparse(script)
    line = one_line(arena("tournament", "--resume", str(out), "--no-progress"), 2)
    assert f"the argument {script}: it is larger than 256 MiB" in line


@pytest.mark.slow
def test_a_league_entrys_program_check_refuses_a_sparse_giant_at_once(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    shutil.copy(GREEDY_BOT, script)
    league = tmp_path / "league"
    made = League.create(league, games=2, seed=1)
    made.add(f"cmd:{sys.executable} {script}")
    made.add("greedy")
    made.close()
    script.unlink()
    sparse(script)
    done = arena("league", "run", str(league), "--trusted")
    assert done.returncode == 3, done.stderr  # its games wait (issue 39, point 3): not a finished run
    assert f"{script} to fingerprint it: it is larger than 256 MiB" in done.stderr


def test_entry_sha256_reads_only_regular_files_up_to_its_cap(tmp_path: Path) -> None:
    from arena.safe_files import ENTRY_FILE_LIMIT, NotRegular, TooLarge, entry_sha256

    small = tmp_path / "small"
    small.write_bytes(b"x" * ((1 << 20) + 1))
    assert len(entry_sha256(small)) == 64
    with pytest.raises(TooLarge, match="larger than 1 MiB"):
        entry_sha256(small, limit=1 << 20)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegular, match="a FIFO"):
        entry_sha256(fifo)
    with pytest.raises(NotRegular, match="character device"):
        entry_sha256(Path("/dev/zero"))
    with pytest.raises(TooLarge, match=f"larger than {ENTRY_FILE_LIMIT >> 20} MiB"):
        entry_sha256(sparse(tmp_path / "giant"))
