"""A seat's own file system: a minimal root holding only what the seat may see.

Raised in the seat process (process 1 of its own mount and PID namespaces) before it runs any
of its code, the way bubblewrap and container runtimes build a root: an empty tmpfs becomes
``/``, and into it go, each as a read-only bind mount at its own path,

- the runtime: the system folders (``/usr`` and friends), a few files of ``/etc`` that
  programs need to start, arena's Python (its prefixes and the folders of its import path that
  belong to it) and arena's own package;
- the entry's own files: a strategy file, a module's own file, a ``cmd:`` program and the files
  its arguments name (:mod:`arena.sandbox.exposure` works them out in the parent);

and, writable, a scratch folder of its own: a tmpfs of at most ``--seat-file-size`` MiB in all,
at the path ``$TMPDIR`` names.  ``/dev`` holds ``null``, ``zero``, ``full``, ``random`` and
``urandom`` only (no terminal), ``/proc`` is the seat's own (``/proc/sys`` read-only) and
``/sys`` holds only the CPU list.  The old root is detached, so no path leads back to it: no
other entry's files, no run folder (whatever the current folder), no home folder, no host
socket, no other seat's scratch folder.  The new root itself is read-only, so nothing outside
the scratch folder can be changed: neither contents nor metadata (mode, times, extended
attributes).  The current folder is recreated, empty but for the entry's files, so relative
paths in a ``cmd:`` bot's arguments work.

Where the seat will run under an id of its own (``owner``), its scratch folder is that id's,
and the entry's own files are bound through an idmapped mount (``mount_setattr`` with
``MOUNT_ATTR_IDMAP``, Linux 5.12, on file systems that allow it) that shows each bound path's
owner as the seat's id: a strategy file of mode 0600 in a folder of mode 0700 still loads,
while the runtime keeps its owners (the seat owns none of its files).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.sandbox.confine import libc

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
MOUNT_ATTR_NODEV = 0x4
MOUNT_ATTR_IDMAP = 0x100000
OPEN_TREE_CLONE = 1
AT_EMPTY_PATH = 0x1000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
CLONE_NEWUSER = 0x10000000
#: System call numbers that the C library has no wrapper for.
SYSCALLS = {
    "x86_64": {"pivot_root": 155, "open_tree": 428, "move_mount": 429, "mount_setattr": 442},
    "aarch64": {"pivot_root": 41, "open_tree": 428, "move_mount": 429, "mount_setattr": 442},
}
#: Device files a seat gets in its /dev.
DEVICES = ("null", "zero", "full", "random", "urandom")
LINKS_IN_DEV = (
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
)


class RootError(OSError):
    """The minimal root could not be built; the message says which step failed."""


@dataclass(frozen=True)
class SeatView:
    """What a seat may see: read-only paths (each a file or folder, seen at its own absolute
    path), its scratch folder (writable, ``scratch_mb`` MiB at most), its current folder, and
    folders that stay covered even where a read-only path holds them (the run folder).  With
    ``owner``, the seat will run as that user and group id: the scratch folder is its, and
    ``own`` (the entry's files among ``read_only``) are shown as its."""

    read_only: tuple[Path, ...]
    scratch: Path
    scratch_mb: int
    cwd: Path
    hidden: tuple[Path, ...] = ()
    own: tuple[Path, ...] = ()
    owner: int | None = None


@dataclass(frozen=True)
class SeatRoot:
    """The root entered: the current folder, and whether the entry's files are shown as
    ``owner``'s (False: the seat must keep the ids it has, or it could not read them)."""

    cwd: Path
    owned: bool


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _syscall_number(name: str) -> int | None:
    return SYSCALLS.get(platform.machine(), {}).get(name)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = libc().mount(
        source.encode() if source else None,
        target.encode(),
        fstype.encode() if fstype else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )
    if result != 0:
        errno = ctypes.get_errno()
        raise RootError(errno, f"mount {fstype or source or ''} on {target}: {os.strerror(errno)}")


def _locked_flags(path: str) -> int:
    """The flags of the mount that holds ``path`` which a bind of it must keep (in a user
    namespace the kernel refuses to drop them)."""
    flags = 0
    with contextlib.suppress(OSError):
        st = os.statvfs(path)
        for st_flag, ms_flag in (
            (os.ST_NOSUID, MS_NOSUID),
            (os.ST_NODEV, MS_NODEV),
            (os.ST_NOEXEC, MS_NOEXEC),
        ):
            if st.f_flag & st_flag:
                flags |= ms_flag
    return flags


def _read_only_recursively(target: str, nodev: bool) -> bool:
    """Make the bind at ``target`` and every mount below it read-only (mount_setattr, Linux
    5.12); False where the kernel has no such call."""
    number = _syscall_number("mount_setattr")
    if number is None:
        return False
    attr = _MountAttr(MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | (MOUNT_ATTR_NODEV if nodev else 0), 0, 0, 0)
    result = libc().syscall(
        ctypes.c_long(number),
        ctypes.c_int(AT_FDCWD),
        target.encode(),
        ctypes.c_uint(AT_RECURSIVE),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    return result == 0


def bind_read_only(source: str, target: str, *, device: bool = False) -> None:
    """Bind ``source`` at ``target``, read-only, without set-uid (and without devices unless
    ``device``), together with the mounts below it."""
    _mount(source, target, None, MS_BIND | MS_REC)
    if _read_only_recursively(target, nodev=not device):
        return
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | (0 if device else MS_NODEV) | _locked_flags(source)
    _mount(None, target, None, flags)


def _syscall(name: str, *args: object) -> int:
    number = _syscall_number(name)
    if number is None:
        return -1
    return int(libc().syscall(ctypes.c_long(number), *args))


def _user_namespace(uid: int, gid: int, owner: int) -> int:
    """A file descriptor of a new user namespace in which ``uid`` and ``gid`` are ``owner``
    (the map of an idmapped mount): a child makes it, this process writes its maps (as root it
    may map any id), opens it and lets the child go.  Raises OSError."""
    made_r, made_w = os.pipe()
    go_r, go_w = os.pipe()
    child = os.fork()
    if child == 0:
        try:
            os.close(made_r)
            os.close(go_w)
            if libc().unshare(ctypes.c_int(CLONE_NEWUSER)) == 0:
                os.write(made_w, b"1")
            os.read(go_r, 1)
        finally:
            os._exit(0)
    os.close(made_w)
    os.close(go_r)
    try:
        if os.read(made_r, 1) != b"1":
            raise OSError(0, "no user namespace for an idmapped mount")
        Path(f"/proc/{child}/uid_map").write_text(f"{uid} {owner} 1")
        Path(f"/proc/{child}/gid_map").write_text(f"{gid} {owner} 1")
        return os.open(f"/proc/{child}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.close(made_r)
        os.close(go_w)
        os.waitpid(child, 0)


def owned_tree(source: str, owner: int, namespaces: dict[tuple[int, int], int]) -> int:
    """A detached read-only copy of the mount tree at ``source`` (without set-uid or devices),
    idmapped so that the owner of ``source`` (user and group) shows as ``owner``; its file
    descriptor, for :func:`attach`.  ``namespaces`` keeps the user namespaces made for the
    maps, by (uid, gid).  Raises OSError where the kernel or the file system refuses."""
    st = os.stat(source)
    key = (st.st_uid, st.st_gid)
    if key not in namespaces:
        namespaces[key] = _user_namespace(st.st_uid, st.st_gid, owner)
    clone = OPEN_TREE_CLONE | os.O_CLOEXEC | AT_RECURSIVE
    tree = _syscall("open_tree", ctypes.c_int(AT_FDCWD), source.encode(), ctypes.c_uint(clone))
    if tree < 0:
        errno = ctypes.get_errno()
        raise RootError(errno, f"open_tree {source}: {os.strerror(errno)}")
    flags = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_IDMAP
    attr = _MountAttr(flags, 0, 0, namespaces[key])
    size = ctypes.c_size_t(ctypes.sizeof(attr))
    recursive = ctypes.c_uint(AT_EMPTY_PATH | AT_RECURSIVE)
    if _syscall("mount_setattr", ctypes.c_int(tree), b"", recursive, ctypes.byref(attr), size) != 0:
        errno = ctypes.get_errno()
        os.close(tree)
        raise RootError(errno, f"an idmapped mount of {source}: {os.strerror(errno)}")
    return tree


def attach(tree: int, target: str) -> None:
    """Mount the tree of :func:`owned_tree` at ``target``."""
    empty = ctypes.c_uint(MOVE_MOUNT_F_EMPTY_PATH)
    if _syscall("move_mount", ctypes.c_int(tree), b"", ctypes.c_int(AT_FDCWD), target.encode(), empty) != 0:
        errno = ctypes.get_errno()
        raise RootError(errno, f"mounting on {target}: {os.strerror(errno)}")


def owned_trees(paths: Sequence[Path], owner: int) -> dict[Path, int] | None:
    """:func:`owned_tree` of each of ``paths`` that exists, or None (and nothing left open) if
    one can't be made: then none is used, and the seat keeps the ids it has, so the entry's
    files stay readable to it."""
    namespaces: dict[tuple[int, int], int] = {}
    trees: dict[Path, int] = {}
    try:
        for path in paths:
            real = os.path.realpath(path)
            if os.path.exists(real) and not (path.parent == Path("/") and path.is_symlink()):
                trees[path] = owned_tree(real, owner, namespaces)
    except OSError:
        for tree in trees.values():
            os.close(tree)
        return None
    finally:
        for fd in namespaces.values():
            os.close(fd)
    return trees


def _place_for(root: Path, path: Path, is_dir: bool) -> str:
    """Make the mount point for ``path`` inside ``root``: its parent folders, then an empty
    folder or file."""
    target = root / path.relative_to("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if is_dir:
        target.mkdir(exist_ok=True)
    elif not target.exists():
        target.touch()
    return str(target)


def seen_at(path: Path) -> Path:
    """Where the seat sees ``path``: at its real folder (``/lib/x`` is ``/usr/lib/x``), under
    its own name (a link such as a virtual environment's ``bin/python`` stays a link when its
    folder is bound, and is followed when the path itself is bound)."""
    if path.parent == path:
        return path
    return Path(os.path.realpath(path.parent)) / path.name


def _put(root: Path, path: Path, tree: int | None = None) -> None:
    """Put ``path`` into ``root``: a top-level link (``/lib -> usr/lib``) as the same link,
    anything else as a read-only bind of what it names, or ``tree`` (:func:`owned_tree`)."""
    if path.parent == Path("/") and path.is_symlink():
        target = root / path.name
        if not target.is_symlink():
            target.symlink_to(os.readlink(path))
        return
    real = os.path.realpath(path)
    if not os.path.exists(real):
        return
    place = _place_for(root, seen_at(path), os.path.isdir(real))
    if tree is not None:
        attach(tree, place)
    else:
        bind_read_only(real, place)


def _pivot(root: Path) -> None:
    """Make ``root`` the root of this mount namespace and detach the old one."""
    number = _syscall_number("pivot_root")
    if number is None:
        raise RootError(0, f"pivot_root: unknown on {platform.machine()}")
    os.chdir(root)
    # pivot_root(".", "."): the old root ends up on top of the new one, and is then detached.
    if libc().syscall(ctypes.c_long(number), b".", b".") != 0:
        errno = ctypes.get_errno()
        raise RootError(errno, f"pivot_root: {os.strerror(errno)}")
    if libc().umount2(b".", ctypes.c_int(MNT_DETACH)) != 0:
        errno = ctypes.get_errno()
        raise RootError(errno, f"detaching the old root: {os.strerror(errno)}")
    os.chdir("/")


def _devices(root: Path) -> None:
    """A /dev of empty files in a small tmpfs, each with the host's device bound on it."""
    dev = root / "dev"
    dev.mkdir(exist_ok=True)
    _mount("arena-seat-dev", str(dev), "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,nr_inodes=64,mode=755")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            (dev / name).touch()
            bind_read_only(f"/dev/{name}", str(dev / name), device=True)
    for name, target in LINKS_IN_DEV:
        (dev / name).symlink_to(target)
    _mount(None, str(dev), None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC)


def _processes(root: Path) -> None:
    """The seat's own /proc (its PID namespace), the kernel's settings in it read-only."""
    proc = root / "proc"
    proc.mkdir(exist_ok=True)
    _mount("proc", str(proc), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in ("sys", "sysrq-trigger"):
        if (proc / name).exists():
            bind_read_only(str(proc / name), str(proc / name))
    cpus = Path("/sys/devices/system/cpu")  # how many processors there are, for runtimes that ask
    if cpus.is_dir():
        bind_read_only(str(cpus), _place_for(root, cpus, True))


def enter_seat_root(view: SeatView) -> SeatRoot:
    """Build the seat's root (see the module docstring) on ``view.scratch``, which becomes a
    mount point hidden inside it, move into it and return the current folder (``view.cwd``,
    or the scratch folder where the current folder can't be made) and whether the entry's
    files are ``view.owner``'s.  Raises :class:`RootError`; this process must be alone in new
    mount and PID namespaces."""
    root = view.scratch
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("arena-seat-root", str(root), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    placed: list[Path] = []
    owner = view.owner
    # All or none: an entry's files shown as the seat's where all can be, or as they are.
    trees = owned_trees(view.own, owner) if owner is not None else None
    owned = trees is not None
    try:
        for path in sorted(set(view.read_only), key=lambda p: (len(seen_at(p).parts), str(p))):
            seen = seen_at(path)
            if any(seen == p or p in seen.parents for p in placed):
                continue  # already there, inside a folder bound before
            _put(root, path, (trees or {}).get(path))
            if not (path.parent == Path("/") and path.is_symlink()):
                placed.append(seen)
    finally:
        for tree in (trees or {}).values():
            os.close(tree)
    _devices(root)
    _processes(root)
    # The scratch folder: a tmpfs of its own, with a size and a number of files.
    scratch = _place_for(root, view.scratch, True)
    mib = max(1, view.scratch_mb)
    options = f"size={mib}m,nr_inodes={max(256, 64 * mib)},mode=700"
    if owned and owner is not None:
        options += f",uid={owner},gid={owner}"
    _mount("arena-seat-scratch", scratch, "tmpfs", MS_NOSUID | MS_NODEV, options)
    (root / "tmp").mkdir(exist_ok=True)
    cwd = view.cwd
    try:
        _place_for(root, cwd, True)
    except OSError:
        cwd = view.scratch
    for path in view.hidden:  # a run folder inside something bound stays covered
        inside = root / path.relative_to("/")
        if inside.is_dir() and path != cwd:
            flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
            _mount("arena-seat-hidden", str(inside), "tmpfs", flags, "size=4k,mode=000")
    _pivot(root)
    # From here the old root is gone: a failure can't be undone, and the seat stays here.
    with contextlib.suppress(RootError):
        _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    try:
        os.chdir(cwd)
    except OSError:
        cwd = view.scratch
        os.chdir(cwd)
    return SeatRoot(cwd, owned)


def read_only_paths(paths: Sequence[Path]) -> tuple[Path, ...]:
    """``paths`` as absolute paths, without repeats, in a stable order."""
    return tuple(dict.fromkeys(Path(os.path.abspath(p)) for p in paths))
