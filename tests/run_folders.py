"""Run folders for the tests of the walls around them (links, special files, the lock): the
command line run in-process, runs of each kind made in a folder, and a folder's bytes."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from arena.cli.main import cli

#: The options that start a small run of each kind in a folder given with ``--out``.
STARTS = {
    "tournament": ["tournament", "-p", "greedy", "-p", "random", "--games", "4", "--seed", "0",
                   "--rules", "standard", "--no-progress"],
    "duel": ["duel", "greedy", "random", "--games", "4", "--no-progress"],
    "tune": ["tune", "threshold", "--param", "bank_at=300,400", "--against", "greedy", "--rules", "classic",
             "--budget", "40", "--no-progress"],
}  # fmt: skip


def invoke(*args: str) -> tuple[int, str]:
    """``arena ARGS...`` in this process: its exit status and what it wrote to stderr."""
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stderr


def make_run(kind: str, folder: Path) -> Path:
    """A finished run of ``kind`` (a key of :data:`STARTS`) in ``folder``."""
    code, err = invoke(*STARTS[kind], "--out", str(folder))
    assert code == 0, err
    return folder


def received(finished: Path, tmp_path: Path) -> Path:
    """A copy of the run folder ``finished`` as someone could hand it over: with ``seat-logs/``
    as a run of isolated players leaves it."""
    folder = tmp_path / "received"
    shutil.copytree(finished, folder, symlinks=True)
    (folder / "seat-logs").mkdir()
    (folder / "seat-logs" / "greedy.log").write_bytes(b"")
    return folder


def contents(path: Path) -> dict[str, bytes]:
    """The bytes of the file ``path``, or of each regular file in the folder ``path`` by its
    relative name: what a refused command must leave as it was."""
    if path.is_file():
        return {"": path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
