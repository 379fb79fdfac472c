"""One arena process writes a run folder at a time.

Every process that writes a run folder (a tournament, duel or tuning run, new or resumed, and
``arena report --plot``) holds an exclusive ``flock`` on :data:`LOCK` inside it while it writes;
a second one is refused in one line before it writes anything (two ``--resume`` of one folder
at once used to both append).  The kernel drops the lock when the process ends, however it
ends, so a killed run can be resumed at once: there is no stale lock to clear by hand.

The lock file is opened without following links, only if it is a regular file
(:mod:`arena.safe_files`), and close-on-exec, so the programs a run starts (``cmd:`` bots)
never hold it.  Forked chunk processes share it with their parent, which is what it is for:
they write the folder's seat logs.  The file stays empty (the refusal finds the holder's
process id in /proc/locks), so a folder's bytes never depend on which process wrote it.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from arena.safe_files import FileRefused, open_fd, refuse_unsafe

#: The lock file in a run folder (hidden: it is not one of the run's results).
LOCK = ".arena.lock"

#: The folders this process holds, by (device, inode), so a folder renamed after it was
#: locked (a new run's folder) is still known: each maps to the lock file's descriptor.
_held: dict[tuple[int, int], int] = {}


class FolderRefused(Exception):
    """The folder can't be written by this process; the message is one line."""


class FolderBusy(FolderRefused):
    """Another process writes the folder."""


def claim(folder: Path) -> None:
    """Get ready to write ``folder``: refuse it if it is a link or holds a link, FIFO, device
    or socket (a folder from someone else with a planted one), then :func:`hold` its lock.  Raises
    :class:`FolderRefused` with one line, before anything in the folder is changed."""
    try:
        refuse_unsafe(folder)
        hold(folder)
    except FileRefused as exc:
        raise FolderRefused(f"{exc.filename}: {exc.strerror}; the folder is refused") from None
    except FolderBusy:
        raise
    except OSError as exc:
        raise FolderRefused(f"cannot lock {folder}: {exc.strerror or exc}") from None


def hold(folder: Path) -> None:
    """Take ``folder``'s lock for this process, or raise :class:`FolderBusy`.  Taking it again
    in the process that holds it changes nothing; it is kept until :func:`release` or the
    process ends."""
    info = os.stat(folder, follow_symlinks=False)
    key = (info.st_dev, info.st_ino)
    if key in _held:
        return
    fd = open_fd(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _holder(fd)
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise
        who = f" (process {holder})" if holder else ""
        raise FolderBusy(
            f"{folder} is being written by another arena process{who}; "
            "wait for it to end (or stop it), then try again"
        ) from None
    _held[key] = fd


def release(folder: Path) -> None:
    """Drop ``folder``'s lock if this process holds it (the Python API, once a run is written)."""
    try:
        info = os.stat(folder, follow_symlinks=False)
    except OSError:
        return
    fd = _held.pop((info.st_dev, info.st_ino), None)
    if fd is not None:
        os.close(fd)  # closing the last descriptor of the open file drops the flock


def release_all() -> None:
    """Drop every lock this process holds (a command that is done writing)."""
    while _held:
        os.close(_held.popitem()[1])


def _holder(fd: int) -> str:
    """The process id holding the lock on ``fd``'s file, from /proc/locks (Linux); '' if it
    can't be told.  Read there, not from the file, so the lock file stays empty and a folder's
    bytes never depend on who wrote it."""
    info = os.fstat(fd)
    place = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()  # "1: FLOCK ADVISORY WRITE PID MAJOR:MINOR:INODE 0 EOF"
                if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == place and fields[4].isdigit():
                    return fields[4]
    except OSError:
        pass
    return ""
