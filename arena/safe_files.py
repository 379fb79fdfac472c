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

The same walls bound every file an *entry* names (a strategy's source, a ``cmd:`` program and
the files its arguments name), which arena reads to copy, import or fingerprint it:
:func:`entry_sha256`, :func:`read_entry_bytes`, :func:`check_entry_file` and :func:`named_file`
accept only a regular file, and refuse one past :data:`SOURCE_FILE_LIMIT` or
:data:`ENTRY_FILE_LIMIT` by its size before reading it (a sparse file of terabytes costs no
read at all).  The size alone is the test: a file system that compresses makes a file's blocks
a poor sign of sparseness.

The folders above a run folder are the user's own and may be links; the run folder itself and
everything in it may not.  This module imports nothing from arena, so every room may use it.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import hashlib
import io
import json
import os
import secrets
import stat
from collections.abc import Iterator
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
#: The most bytes of a file an entry names that arena reads or hashes: a ``cmd:`` program, a
#: file its arguments name (a script, a model's weights).  A Python interpreter is 6 MiB, node
#: about 100 MiB; past this, hashing it at every start would cost seconds (a sparse 16 TiB
#: file, days), so it is refused instead.
ENTRY_FILE_LIMIT = 256 << 20
#: The most bytes of a Python strategy's source (a ``.py`` file arena parses, and copies into a
#: league): the largest example is a few KiB, a strategy with a table in it a few MiB.
SOURCE_FILE_LIMIT = 16 << 20
#: What TooLarge says of a file an entry names.
ENTRY_CAP = "the most arena reads of a file an entry names"


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
    """A small file of a run folder (spec.json, run.json) is larger than arena ever writes, or
    a file an entry names is larger than its cap (``what`` says which)."""

    def __init__(self, path: Path, limit: int, what: str = "far more than arena writes there") -> None:
        why = f"it is larger than {limit / (1 << 20):g} MiB, {what}"
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


def _owning_open(
    path: Path,
    mode: str,
    opener: Any,
    buffering: int,
    encoding: str | None,
    newline: str | None,
) -> IO[Any]:
    """``open(path, mode)`` with the descriptor from ``opener``: the file object owns it from
    the moment ``opener`` returns, so the descriptor is closed exactly once however an exception
    (a Ctrl-C) lands.  Opening a descriptor with ``open(fd)`` and closing it in an ``except``
    closed it twice when Ctrl-C came just after ``open(fd)`` returned: the dropped file object
    closed it, then the ``except``; the second close failed with "Bad file descriptor" in place of
    the Ctrl-C, or closed a file another thread had opened meanwhile under that number."""
    return open(path, mode, buffering=buffering, encoding=encoding, newline=newline, opener=opener)


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

    def opener(name: str, flags: int) -> int:
        fd = open_fd(path, _FLAGS[base])
        if base == "w":
            try:
                os.ftruncate(fd, 0)
            except BaseException:
                os.close(fd)
                raise
        return fd

    return _owning_open(path, base + ("b" if binary else ""), opener, buffering, encoding, newline)


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

    def opener(name: str, flags: int) -> int:
        fd = os.open(path, os.O_RDONLY | _SAFE)
        _checked(fd, path)
        return fd

    return _owning_open(path, mode, opener, -1, encoding, newline)


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


def read_entry_bytes(path: Path, limit: int = SOURCE_FILE_LIMIT) -> bytes:
    """The bytes of a file an entry names (a strategy's source), read as :func:`read_bytes`
    reads: only a regular file, opened without blocking, refused past ``limit`` bytes."""
    try:
        return read_bytes(path, limit)
    except TooLarge:
        raise TooLarge(path, limit, ENTRY_CAP) from None


def check_entry_file(path: Path, limit: int = SOURCE_FILE_LIMIT) -> None:
    """Raise a :class:`FileRefused` unless ``path`` (links followed) is a regular file of at
    most ``limit`` bytes; nothing is read.  For a file something else reads next (Python's
    import of a strategy file), so a FIFO can't hang it and a huge file can't fill memory."""
    with open_read(path) as file:
        if os.fstat(file.fileno()).st_size > limit:
            raise TooLarge(path, limit, ENTRY_CAP)


def named_file(name: str, limit: int = ENTRY_FILE_LIMIT) -> bool:
    """Whether ``name`` (a ``cmd:`` program or argument, links followed) is a regular file to
    read or hash: True for one of at most ``limit`` bytes; False for a folder (a seat sees it,
    arena reads none of it), one of the devices under ``/dev`` that every seat has, or a word
    that names nothing.  A FIFO, socket or other device, or a regular file past ``limit``, is a
    :class:`FileRefused`: only looked at (``stat``), never opened, so it can't hang anything."""
    try:
        info = os.stat(name)
    except (OSError, ValueError):  # nothing there, a name too long, a NUL
        return False
    if stat.S_ISDIR(info.st_mode):
        return False
    if not stat.S_ISREG(info.st_mode):
        if os.path.realpath(name).startswith("/dev/") and not stat.S_ISFIFO(info.st_mode):
            return False
        raise NotRegular(Path(name), info.st_mode)
    if info.st_size > limit:
        raise TooLarge(Path(name), limit, ENTRY_CAP)
    return True


def entry_sha256(path: Path, limit: int = ENTRY_FILE_LIMIT) -> str:
    """The SHA-256 of a file an entry names (a ``cmd:`` program, a file its arguments name),
    read in pieces as :func:`open_read` opens it: only a regular file (a FIFO, device or socket
    is :class:`NotRegular` at once, never a hang), and :class:`TooLarge` past ``limit`` bytes,
    checked before reading (a sparse giant is refused by its size, not read) and while reading
    (a file that grows)."""
    digest = hashlib.sha256()
    with open_read(path) as file:
        if os.fstat(file.fileno()).st_size > limit:
            raise TooLarge(path, limit, ENTRY_CAP)
        total = 0
        while piece := file.read(min(1 << 20, limit + 1 - total)):
            total += len(piece)
            if total > limit:
                raise TooLarge(path, limit, ENTRY_CAP)
            digest.update(piece)
    return digest.hexdigest()


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


@contextlib.contextmanager
def replacing(
    path: Path,
    mode: Literal["w", "wb"] = "wb",
    *,
    encoding: str | None = None,
    newline: str | None = None,
    sync: bool = False,
) -> Iterator[IO[Any]]:
    """A new file that takes ``path``'s place, whole, when the block ends (fsynced first if
    ``sync``).  If the block raises (Ctrl-C, SIGTERM, a full disk), ``path`` is left as it was
    and the new file is removed: a report is never left half-written, so a stop at any moment
    leaves every file either as it was or as it is meant to be.

    The file is written under a hidden name beside ``path`` (opened as :func:`open_file`
    opens) and renamed over it: a rename replaces a name, so a link planted at ``path`` since
    the check below is replaced, never written through.  ``path`` is refused as
    :func:`open_file` refuses it (a link, a FIFO, device or socket, a file with another name)."""
    _refuse_in_place(path)
    temp = path.with_name(f".{path.name[:64]}.{os.getpid()}-{secrets.token_hex(3)}.partial")
    try:
        with open_file(temp, "xb" if mode == "wb" else "x", encoding=encoding, newline=newline) as file:
            yield file
            if sync:
                file.flush()
                os.fsync(file.fileno())
        _rename_in_folder(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # gone already if the rename was made
            _unlink_in_folder(temp)
        raise


def _refuse_in_place(path: Path) -> None:
    """Raise what :func:`open_fd` raises for writing ``path``, without opening it."""
    parent = _open_parent(path)
    try:
        info = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return
    finally:
        os.close(parent)
    if stat.S_ISLNK(info.st_mode):
        raise LinkRefused(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(path, info.st_mode)
    if info.st_nlink > 1:
        raise LinkRefused(path, "it has another name (a hard link), and arena never writes through one")


def _rename_in_folder(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` (in the same folder), through a descriptor of a folder
    that is not a link."""
    parent = _open_parent(target)
    try:
        os.replace(source.name, target.name, src_dir_fd=parent, dst_dir_fd=parent)
    finally:
        os.close(parent)


def _unlink_in_folder(path: Path) -> None:
    parent = _open_parent(path)
    try:
        os.unlink(path.name, dir_fd=parent)
    finally:
        os.close(parent)


def write_bytes(path: Path, data: bytes, *, sync: bool = False) -> None:
    """Replace ``path``'s bytes with ``data`` (fsynced if ``sync``), following no link, whole or
    not at all (:func:`replacing`)."""
    with replacing(path, "wb", sync=sync) as file:
        file.write(data)


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
