"""Writing in a run folder without ever following a symbolic link.

A run folder may come from someone else (a contest entrant, an archive), and a link planted in
it (``games.csv -> ~/.bashrc``) would make arena write outside it.  So every file arena writes
in a run folder is opened here: the folder that holds it is opened with ``O_NOFOLLOW |
O_DIRECTORY`` and the file relative to that folder with ``O_NOFOLLOW``, so neither the file nor
the folder it sits in may be a link.  A regular file with a second name (a hard link, which may
be a file outside the folder) is refused too, before it is changed.  Both raise
:class:`LinkRefused`, an OSError whose one-line ``strerror`` says why, so callers that report
``exc.strerror`` need nothing new.

The folders above a run folder are the user's own and may be links; the run folder itself and
everything in it may not.  This module imports nothing from arena, so every room may use it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO, Any

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: The os.open flags of each file mode arena writes with; truncation is done after the checks.
_FLAGS = {
    "w": os.O_WRONLY | os.O_CREAT,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "r+": os.O_RDWR,
}
#: Why a link is refused, as LinkRefused's strerror.
LINK = "it is a symbolic link, and arena never writes through one"


class LinkRefused(OSError):
    """A path in a run folder is a symbolic link (or a file with other names): arena won't
    write through it.  ``strerror`` is the one-line reason."""

    def __init__(self, path: Path, why: str = LINK) -> None:
        super().__init__(errno.ELOOP, why, str(path))


def _open_parent(path: Path) -> int:
    """A descriptor of the folder holding ``path``, refused if that folder is a link."""
    try:
        return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and path.parent.is_symlink():
            raise LinkRefused(path.parent) from None
        raise


def open_fd(path: Path, flags: int, mode: int = 0o666) -> int:
    """``os.open`` of ``path`` that follows no link, neither the file nor its folder; a new
    file gets ``mode`` less the umask, as with ``open``."""
    parent = _open_parent(path)
    try:
        try:
            fd = os.open(path.name, flags | os.O_NOFOLLOW | _CLOEXEC, mode, dir_fd=parent)
        except OSError as exc:
            if exc.errno == errno.ELOOP or (exc.errno == errno.EEXIST and _is_link(path.name, parent)):
                raise LinkRefused(path) from None
            raise
    finally:
        os.close(parent)
    if flags & (os.O_WRONLY | os.O_RDWR):
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            os.close(fd)
            raise LinkRefused(path, "it has another name (a hard link), and arena never writes through one")
    return fd


def open_file(
    path: Path, mode: str, *, encoding: str | None = None, newline: str | None = None, buffering: int = -1
) -> IO[Any]:
    """``open(path, mode)`` for writing in a run folder: modes ``w``, ``a``, ``x`` and ``r+``,
    text or binary (``wb``, ``ab``...), never through a link (see the module's description)."""
    binary = "b" in mode
    base = mode.replace("b", "")
    if base not in _FLAGS:
        raise ValueError(f"open_file writes; mode {mode!r} is not one of w, a, x, r+")
    fd = open_fd(path, _FLAGS[base])
    try:
        if base == "w":
            os.ftruncate(fd, 0)
        opened = "r+" if base == "r+" else ("a" if base == "a" else "w")
        return open(
            fd, opened + ("b" if binary else ""), buffering=buffering, encoding=encoding, newline=newline
        )
    except BaseException:
        os.close(fd)
        raise


def write_bytes(path: Path, data: bytes, *, sync: bool = False) -> None:
    """Replace ``path``'s bytes with ``data`` (fsynced if ``sync``), following no link."""
    with open_file(path, "wb") as file:
        file.write(data)
        if sync:
            file.flush()
            os.fsync(file.fileno())


def write_text(path: Path, text: str) -> None:
    """Replace ``path``'s text with ``text`` in UTF-8, line ends as given, following no link."""
    write_bytes(path, text.encode("utf-8"))


def _is_link(name: str, parent: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def make_folder(path: Path) -> None:
    """Create the folder ``path`` if it is missing (its parent must exist); refuse a link."""
    parent = _open_parent(path)
    try:
        try:
            os.mkdir(path.name, dir_fd=parent)
        except FileExistsError:
            if _is_link(path.name, parent):
                raise LinkRefused(path) from None
    finally:
        os.close(parent)


def refuse_links(folder: Path) -> None:
    """Raise :class:`LinkRefused` for the first link found: ``folder`` itself or anything in
    it, at any depth.  Run before a run folder is written, so a folder with a planted link is
    refused in one line before anything changes."""
    if folder.is_symlink():
        raise LinkRefused(folder, "it is a symbolic link; give the run folder's own path")
    for root, folders, files in os.walk(folder, followlinks=False):
        for name in sorted(folders + files):
            if os.path.islink(os.path.join(root, name)):
                raise LinkRefused(Path(root, name))
