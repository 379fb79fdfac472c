"""Opening files in a run folder: never through a symbolic link, never anything but a regular file.

A run folder may come from someone else (a contest entrant, an archive), so its entries are
hostile.  Two kinds of entry are walls here:

- **A link** planted in it (``games.csv -> ~/.bashrc``) would make arena write outside it.  So
  every file arena writes in a run folder is opened here: the folder that holds it is opened
  with ``O_NOFOLLOW | O_DIRECTORY`` and the file relative to that folder with ``O_NOFOLLOW``,
  so neither the file nor the folder it sits in may be a link.  A regular file with a second
  name (a hard link, which may be a file outside the folder) is refused too, before it is
  changed.  Both raise :class:`LinkRefused`.
- **A FIFO, device or socket** under a name arena opens would make it hang on ``open`` or
  ``read`` forever (a FIFO no one writes), or read without end (``/dev/zero`` bound there).  So
  every open here, reading or writing, is made with ``O_NONBLOCK | O_NOCTTY`` (opening a FIFO
  can't block, a terminal can't become ours) after a look at the entry (so a device is not even
  opened), then the descriptor is ``fstat``-ed and anything but a regular file is refused
  (:class:`NotRegular`: the look before and the open are not one step, the ``fstat`` is the
  wall); only then is ``O_NONBLOCK`` cleared for normal use.  A small file (spec.json, run.json)
  is read whole, and refused past :data:`SMALL_FILE_LIMIT` bytes (:class:`TooLarge`), so a
  huge one can't take all the memory.

Each is a :class:`FileRefused`, an OSError whose one-line ``strerror`` says why, so callers
that report ``exc.strerror`` need nothing new.  :func:`refuse_unsafe` checks a whole folder
before it is written.  Reading follows links, as the reading commands always have (a link can
only make them read the wrong file), but refuses what is not a regular file all the same.

The folders above a run folder are the user's own and may be links; the run folder itself and
everything in it may not.  This module imports nothing from arena, so every room may use it.
"""

from __future__ import annotations

import collections
import errno
import io
import json
import os
import stat
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, overload

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: Added to every open: a FIFO opens at once (a write-only one with no reader fails, ENXIO), a
#: terminal does not become the controlling one; O_NONBLOCK is cleared once the file is checked.
_SAFE = os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
#: The os.open flags of each file mode arena writes with; truncation is done after the checks.
_FLAGS = {
    "w": os.O_WRONLY | os.O_CREAT,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "r+": os.O_RDWR,
}
#: Why a link is refused, as LinkRefused's strerror.
LINK = "it is a symbolic link, and arena never writes through one"
#: Why a regular file with a second name is refused for writing.
HARD_LINK = "it has another name (a hard link), and arena never writes through one"
#: The most bytes read from a small file of a run folder (spec.json, run.json): arena writes a
#: few KiB there, a spec with hundreds of players well under 1 MiB.
SMALL_FILE_LIMIT = 16 << 20


class FileRefused(OSError):
    """A path in a run folder arena won't open.  ``strerror`` is the one-line reason."""

    def __init__(self, path: Path, why: str, code: int) -> None:
        super().__init__(code, why, str(path))


class LinkRefused(FileRefused):
    """A path in a run folder is a symbolic link (or a file with other names): arena won't
    write through it."""

    def __init__(self, path: Path, why: str = LINK) -> None:
        super().__init__(path, why, errno.ELOOP)


class NotRegular(FileRefused):
    """A path in a run folder is a FIFO, device, socket or folder where arena opens a file:
    opening or reading it could block forever or never end."""

    def __init__(self, path: Path, mode: int) -> None:
        super().__init__(path, f"it is {_kind(mode)}, not a regular file", errno.EINVAL)


class TooLarge(FileRefused):
    """A small file of a run folder (spec.json, run.json) is larger than arena ever writes."""

    def __init__(self, path: Path, limit: int) -> None:
        why = f"it is larger than {limit / (1 << 20):g} MiB, far more than arena writes there"
        super().__init__(path, why, errno.EFBIG)


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, words in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return words
    return "a special file"


def _checked(fd: int, path: Path) -> os.stat_result:
    """``fd``'s status once it is known to be a regular file, opened blocking again; else the
    descriptor is closed and :class:`NotRegular` raised."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotRegular(path, info.st_mode)
    os.set_blocking(fd, True)
    return info


def _open_parent(path: Path) -> int:
    """A descriptor of the folder holding ``path``, refused if that folder is a link."""
    try:
        return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _SAFE)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and path.parent.is_symlink():
            raise LinkRefused(path.parent) from None
        raise


def _mode(name: str, parent: int) -> int | None:
    """The type and mode bits of ``name`` in the folder ``parent``, not following a link; None
    if there is no such entry."""
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        return None


def open_fd(path: Path, flags: int, mode: int = 0o666) -> int:
    """``os.open`` of ``path`` that follows no link, neither the file nor its folder, and opens
    nothing but a regular file (see the module's description); a new file gets ``mode`` less
    the umask, as with ``open``."""
    parent = _open_parent(path)
    try:
        found = _mode(path.name, parent)  # a look first, so a device is not even opened
        if found is not None and stat.S_ISLNK(found):
            raise LinkRefused(path)
        if found is not None and not stat.S_ISREG(found):
            raise NotRegular(path, found)
        try:
            fd = os.open(path.name, flags | os.O_NOFOLLOW | _SAFE, mode, dir_fd=parent)
        except OSError as exc:
            now = _mode(path.name, parent)  # changed since the look
            if exc.errno == errno.ELOOP or (now is not None and stat.S_ISLNK(now)):
                raise LinkRefused(path) from None
            if now is not None and not stat.S_ISREG(now):  # a FIFO with no reader, a socket: ENXIO
                raise NotRegular(path, now) from None
            raise
    finally:
        os.close(parent)
    info = _checked(fd, path)
    if flags & (os.O_WRONLY | os.O_RDWR) and info.st_nlink > 1:
        os.close(fd)
        raise LinkRefused(path, HARD_LINK)
    return fd


# The modes arena writes with, so that a caller gets a binary or a text file's type.
_BinaryWriteMode = Literal["wb", "ab", "xb", "r+b", "rb+"]
_TextWriteMode = Literal["w", "a", "x", "r+"]


@overload
def open_file(
    path: Path, mode: _BinaryWriteMode, *, encoding: None = None, newline: None = None, buffering: int = -1
) -> BinaryIO: ...
@overload
def open_file(
    path: Path,
    mode: _TextWriteMode,
    *,
    encoding: str | None = None,
    newline: str | None = None,
    buffering: int = -1,
) -> io.TextIOWrapper: ...
@overload
def open_file(
    path: Path, mode: str, *, encoding: str | None = None, newline: str | None = None, buffering: int = -1
) -> IO[Any]: ...
def open_file(
    path: Path, mode: str, *, encoding: str | None = None, newline: str | None = None, buffering: int = -1
) -> IO[Any]:
    """``open(path, mode)`` for writing in a run folder: modes ``w``, ``a``, ``x`` and ``r+``,
    text or binary (``wb``, ``ab``...), never through a link and never anything but a regular
    file (see the module's description)."""
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


@overload
def open_read(
    path: Path, mode: Literal["rb"] = "rb", *, encoding: None = None, newline: None = None
) -> io.BufferedReader: ...
@overload
def open_read(
    path: Path, mode: Literal["r"], *, encoding: str | None = None, newline: str | None = None
) -> io.TextIOWrapper: ...
@overload
def open_read(
    path: Path, mode: str = "rb", *, encoding: str | None = None, newline: str | None = None
) -> IO[Any]: ...
def open_read(
    path: Path, mode: str = "rb", *, encoding: str | None = None, newline: str | None = None
) -> IO[Any]:
    """``open(path, mode)`` for reading a file of a run folder (``r`` or ``rb``): a link is
    followed, as the reading commands always have, but only a regular file is opened, so a
    FIFO, device or socket is refused at once instead of blocking or never ending.  A missing
    file raises FileNotFoundError, as ``open`` does."""
    if mode not in ("r", "rb"):
        raise ValueError(f"open_read reads; mode {mode!r} is not r or rb")
    found = os.stat(path).st_mode  # a look first, so a device is not even opened
    if not stat.S_ISREG(found):
        raise NotRegular(path, found)
    fd = os.open(path, os.O_RDONLY | _SAFE)
    _checked(fd, path)
    try:
        return open(fd, mode, encoding=encoding, newline=newline)
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path, limit: int = SMALL_FILE_LIMIT) -> bytes:
    """The bytes of a small file of a run folder (spec.json, run.json), opened as
    :func:`open_read` opens; :class:`TooLarge` past ``limit`` bytes, so a huge file given in its
    place is refused without being read."""
    with open_read(path) as file:
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            raise TooLarge(path, limit)
        # Read by the size found, not by the limit: read(n) sets n bytes aside at once.
        parts: list[bytes] = []
        total, want = 0, size + 1
        while total <= limit:
            part = file.read(min(want, limit + 1 - total))
            if not part:
                break
            parts.append(part)
            total += len(part)
            want = 1 << 16  # it grew since the fstat
    if total > limit:
        raise TooLarge(path, limit)
    return b"".join(parts)


def read_text(path: Path, limit: int = SMALL_FILE_LIMIT) -> str:
    """:func:`read_bytes` as UTF-8 text (UnicodeDecodeError, a ValueError, if it is not)."""
    return read_bytes(path, limit).decode("utf-8")


class DamagedFile(ValueError):
    """A file arena wrote that can't be read back as what it wrote; the message is one line."""


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object arena wrote to ``path`` (spec.json, run.json); {} if the file is missing
    (a run that never finished).  :class:`DamagedFile` with a one-line reason if it can't be
    read (a FIFO, a file far too large, not JSON) or holds something other than an object."""
    try:
        data = json.loads(read_text(path))
    except FileNotFoundError:
        return {}
    except FileRefused as exc:  # a FIFO, device or socket; a file far too large
        raise DamagedFile(f"{path} can't be read: {exc.strerror}") from None
    except (OSError, ValueError) as exc:
        raise DamagedFile(f"{path} can't be read: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise DamagedFile(f"{path} is damaged (not the object arena writes)")
    return data


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


def make_folder(path: Path) -> None:
    """Create the folder ``path`` if it is missing (its parent must exist); refuse a link."""
    parent = _open_parent(path)
    try:
        try:
            os.mkdir(path.name, dir_fd=parent)
        except FileExistsError:
            found = _mode(path.name, parent)
            if found is not None and stat.S_ISLNK(found):
                raise LinkRefused(path) from None
    finally:
        os.close(parent)


def refuse_unsafe(folder: Path, *, hard_links: bool = False) -> None:
    """Raise a :class:`FileRefused` for the first entry found that arena must not open: a
    ``folder`` that is itself a link, or anything in it, at any depth, that is a link (a
    :class:`LinkRefused`) or neither a regular file nor a folder (a FIFO, device or socket: a
    :class:`NotRegular`); with ``hard_links``, also a regular file with another name (a
    :class:`LinkRefused`), for folders whose files are written by a library that can't open
    them here (SQLite's database).  Run before a run folder is written, so a folder with such
    a planted entry is refused in one line before anything changes."""
    if folder.is_symlink():
        raise LinkRefused(folder, "it is a symbolic link; give the run folder's own path")
    waiting = collections.deque([folder])  # not recursion: a folder nested very deep is fine
    while waiting:
        try:
            with os.scandir(waiting.popleft()) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            continue  # as os.walk: a folder that can't be listed is left (opening in it fails)
        for entry in entries:
            path = Path(entry.path)
            if entry.is_symlink():
                raise LinkRefused(path)
            if entry.is_dir(follow_symlinks=False):
                waiting.append(path)
            elif entry.is_file(follow_symlinks=False):
                if hard_links and entry.stat(follow_symlinks=False).st_nlink > 1:
                    raise LinkRefused(path, HARD_LINK)
            elif not entry.is_file(follow_symlinks=False):
                try:
                    found = entry.stat(follow_symlinks=False).st_mode
                except OSError:
                    found = 0
                raise NotRegular(path, found)
