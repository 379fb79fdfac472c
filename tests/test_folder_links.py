"""arena never writes through a symbolic link: a run folder received with a link planted in it
(or that is itself a link) is refused in one line before anything changes, and every file arena
writes in a run folder is opened without following links (arena.safe_files), the wall behind
that check."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.safe_files import LinkRefused, make_folder, open_file, write_bytes
from arena.tournaments.folder_lock import LOCK
from tests.run_folders import contents, invoke, make_run, received

SECRET = b"the user's own file, outside the run folder\n"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tournament folder."""
    return make_run("tournament", tmp_path_factory.mktemp("finished") / "run")


def _plant(folder: Path, name: str, tmp_path: Path) -> Path:
    """Replace ``name`` in ``folder`` with a link to a file (or folder) outside; return it."""
    place = folder / name
    outside = tmp_path / "outside"
    if place.is_dir():
        shutil.copytree(place, outside)
        shutil.rmtree(place)
    else:
        outside.write_bytes(SECRET)
        place.unlink(missing_ok=True)
    place.symlink_to(outside)
    return outside


KINDS = [
    "games.csv", "games.idx", "spec.json", "run.json", "summary.csv", "pairwise.csv", "errors.csv",
    "errors.log", "seat-logs", "seat-logs/greedy.log", LOCK,
]  # fmt: skip


@pytest.mark.parametrize("name", KINDS)
def test_resume_refuses_a_folder_with_a_planted_link(finished: Path, tmp_path: Path, name: str) -> None:
    folder = received(finished, tmp_path)
    outside = _plant(folder, name, tmp_path)
    before = contents(outside)
    code, err = invoke("tournament", "--resume", str(folder), "--no-progress")
    assert code == 2
    assert err.count("\n") == 1
    assert f"{folder / name}: it is a symbolic link, and arena never writes through one" in err
    assert contents(outside) == before


def test_report_plot_refuses_a_planted_plot_link(finished: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    folder = received(finished, tmp_path)
    code, err = invoke("report", str(folder), "--plot")
    assert code == 0, err
    outside = _plant(folder, "winrate-standard.png", tmp_path)
    code, err = invoke("report", str(folder), "--plot")
    assert code == 2 and err.count("\n") == 1 and "winrate-standard.png: it is a symbolic link" in err
    assert outside.read_bytes() == SECRET


def test_a_run_folder_that_is_a_link_is_refused(finished: Path, tmp_path: Path) -> None:
    folder = received(finished, tmp_path)
    link = tmp_path / "link"
    link.symlink_to(folder)
    before = contents(folder)
    code, err = invoke("tournament", "--resume", str(link), "--no-progress")
    assert code == 2 and err.count("\n") == 1
    assert f"{link}: it is a symbolic link; give the run folder's own path" in err
    assert contents(folder) == before


@pytest.mark.parametrize("kind", ["duel", "tune"])
def test_duel_and_tune_resumes_refuse_a_planted_link(tmp_path: Path, kind: str) -> None:
    folder = make_run(kind, tmp_path / kind)
    outside = _plant(folder, "games.csv", tmp_path)
    code, err = invoke(kind, "--resume", str(folder), "--no-progress")
    assert code == 2 and err.count("\n") == 1 and "games.csv: it is a symbolic link" in err, err
    assert outside.read_bytes() == SECRET


def test_a_new_run_never_goes_through_a_dangling_link(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.symlink_to(tmp_path / "elsewhere")
    code, err = invoke("tournament", "-p", "greedy", "-p", "random", "--games", "2", "--out", str(out))
    assert code == 2 and err.count("\n") == 1, err
    assert f"{out} is a symbolic link; choose another --out" in err
    assert not (tmp_path / "elsewhere").exists() and out.is_symlink()


# --- the wall itself: arena.safe_files ------------------------------------------------------------
@pytest.mark.parametrize("mode", ["w", "a", "x", "r+", "wb", "ab"])
def test_no_write_mode_follows_a_link(tmp_path: Path, mode: str) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(SECRET)
    (tmp_path / "file").symlink_to(outside)
    with pytest.raises(LinkRefused):
        open_file(tmp_path / "file", mode)
    assert outside.read_bytes() == SECRET


def test_a_file_in_a_linked_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "seat-logs").symlink_to(outside)
    with pytest.raises(LinkRefused, match="symbolic link"):
        write_bytes(tmp_path / "seat-logs" / "x.log", b"words")
    with pytest.raises(LinkRefused):
        make_folder(tmp_path / "seat-logs")
    assert list(outside.iterdir()) == []


def test_a_hard_link_is_refused_before_it_is_truncated(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(SECRET)
    os.link(outside, tmp_path / "summary.csv")
    with pytest.raises(LinkRefused, match="another name"):
        write_bytes(tmp_path / "summary.csv", b"")
    assert outside.read_bytes() == SECRET


def test_plain_files_are_written_as_before(tmp_path: Path) -> None:
    write_bytes(tmp_path / "a", b"one\n")
    with open_file(tmp_path / "a", "a", encoding="utf-8", newline="") as file:
        file.write("two\r\n")
    with open_file(tmp_path / "a", "r+b") as file:
        assert file.read() == b"one\ntwo\r\n"
    with pytest.raises(FileExistsError):
        open_file(tmp_path / "a", "x")
    make_folder(tmp_path / "sub")
    make_folder(tmp_path / "sub")  # an existing folder is fine
    assert (tmp_path / "a").read_bytes() == b"one\ntwo\r\n" and (tmp_path / "sub").is_dir()
