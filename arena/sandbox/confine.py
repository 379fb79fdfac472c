"""The walls around a seat process, raised in the forked child before it runs the seat program.

Each layer is applied where the kernel and arena's privileges allow, and what was applied is
returned by name, so the threat model can be stated for the machine at hand (README, "Untrusted
bots").  In the order they are raised:

- ``namespaces``: new PID, mount, network and IPC namespaces (and a user namespace when arena
  does not run as root).  The seat is process 1 of its own PID namespace with a fresh
  ``/proc``: it can't see, signal or read the command line of any other process; it has no
  network; and when it ends, everything it started ends with it.
- ``hidden``: the run folder is covered by an empty read-only tmpfs in the seat's mount
  namespace, so it can't read the spec (the seed) or the games written so far.
- ``limits``: the kernel resource limits of :class:`~arena.sandbox.limits.SeatLimits`.
- ``own-root``: a minimal root of its own (:mod:`arena.sandbox.seat_root`): the runtime and
  its entry's files, read-only, and a scratch folder of bounded size; nothing else.
- ``pids-cgroup``, ``memory-cgroup``: as root, the seat and all it starts are counted together
  in control groups of their own (:mod:`arena.sandbox.cgroups`).
- ``own-uid``: when arena runs as root and the seat has a root of its own, the seat runs under
  a user and group id of its own (:func:`seat_id`), so what the kernel counts per user
  (inotify instances, processes, pipe buffers, queued signals, message queue bytes) is neither
  root's nor another seat's, and it owns no file of the runtime.
- ``cpu-cgroup``: as root, the seat and all it starts share at most one CPU, and get CPU
  before other seats only while arena waits for their reply (:mod:`arena.sandbox.on_move`).
- ``no-capabilities``: when arena runs as root, the seat loses every capability for good.
- ``landlock``: where the kernel offers Landlock, the seat may create, write or delete files
  only in its own scratch folder (``$TMPDIR``); ``no_new_privs`` is set with it.

arena's own processes are made non-dumpable (:func:`protect_this_process`), so even a seat
that shares arena's user can't open their ``/proc/<pid>/fd`` or ``/proc/<pid>/mem``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import resource
from collections.abc import Sequence
from pathlib import Path

from arena.sandbox.limits import LimitError, SeatLimits

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
#: NOROOT, NO_SETUID_FIXUP, KEEP_CAPS off and NO_CAP_AMBIENT_RAISE, each with its lock bit.
LOCKED_SECUREBITS = 0b11101111
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

#: Seats run as this id plus their reaper's process id (user and group alike): one id per
#: living seat process, in a range that systemd leaves to no user of the host (0x70000000 to
#: 0x7FFFFFFF, its "foreign" range; process ids stay below 2**22).
SEAT_IDS = 0x7D000000

#: The environment variable in which a seat is told which walls were raised around it.
LAYERS_VARIABLE = "ARENA_SEAT_LAYERS"

_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    return _libc


def prctl(option: int, value: int) -> bool:
    return libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0


def protect_this_process() -> bool:
    """Make this process non-dumpable: its ``/proc/<pid>/fd``, ``mem`` and ``environ`` become
    root's, closed to processes of the same user (seats), and no core file is written.  Kept
    across fork, so every worker and chunk process of the run is covered.  False where the
    kernel has no prctl (not Linux)."""
    try:
        return prctl(PR_SET_DUMPABLE, 0)
    except (OSError, AttributeError):
        return False


def die_with_parent(signal_number: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        prctl(PR_SET_PDEATHSIG, signal_number)


def enter_namespaces() -> tuple[bool, bool]:
    """Unshare PID, mount, network and IPC namespaces (with a user namespace unless root).
    Returns (done, with a user namespace).  The next fork is process 1 of the new PID
    namespace."""
    flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC
    root = os.geteuid() == 0
    uid, gid = os.geteuid(), os.getegid()
    try:
        if libc().unshare(flags if root else flags | CLONE_NEWUSER) != 0:
            return False, False
    except (OSError, AttributeError):
        return False, False
    if not root:  # map our own ids, so files keep their owners inside
        # A non-dumpable process's /proc files are root's, and arena's processes are made
        # non-dumpable (protect_this_process): the maps could not be written, the ids would be
        # unmapped, and every file the seat made would fail (EOVERFLOW).  No seat runs yet.
        prctl(PR_SET_DUMPABLE, 1)
        try:
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
            Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        except OSError:
            pass
        finally:
            prctl(PR_SET_DUMPABLE, 0)
    return True, not root


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> bool:
    result = libc().mount(
        source.encode(),
        target.encode(),
        fstype.encode() if fstype else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )
    return result == 0


def own_mount_namespace() -> bool:
    """Unshare the mount namespace once more, in the seat: its mounts (a fresh /proc, its own
    root) must not reach its reaper, which shares the namespace made for both and keeps the
    host's view (to remove the seat's control groups)."""
    try:
        return libc().unshare(CLONE_NEWNS) == 0
    except (OSError, AttributeError):
        return False


def detach(target: str) -> bool:
    """Unmount ``target`` and every mount below it (lazily, as ``umount -l``)."""
    return libc().umount2(target.encode(), ctypes.c_int(2)) == 0  # MNT_DETACH


def private_views(hidden: Sequence[Path]) -> tuple[bool, bool]:
    """In process 1 of the new namespaces: a fresh /proc, and an empty read-only tmpfs over each
    of ``hidden``.  Returns (fresh /proc, every hidden path covered)."""
    if not _mount("none", "/", None, MS_REC | MS_PRIVATE, None):
        return False, False
    proc = _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    covered = all(
        _mount("tmpfs", str(path), "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000")
        for path in hidden
        if path.exists()
    )
    return proc, covered


def set_limits(limits: SeatLimits, *, count_processes: bool) -> None:
    """The kernel resource limits.  RLIMIT_NPROC counts every process of the user, so it is set
    only when the seat has a user (or user namespace) of its own; CPU gets a second of slack
    past the soft limit, since a PID namespace's process 1 ignores SIGXCPU and only the hard
    limit's SIGKILL stops it."""
    mib = 1024 * 1024
    settings = [
        (resource.RLIMIT_AS, limits.memory_mb * mib, limits.memory_mb * mib, "--seat-memory"),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1, "--seat-cpu"),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * mib, limits.file_size_mb * mib, "--seat-file-size"),
        (resource.RLIMIT_CORE, 0, 0, ""),
    ]
    if count_processes:
        settings.append((resource.RLIMIT_NPROC, limits.processes, limits.processes, "--seat-processes"))
    for kind, soft, hard, option in settings:
        inherited = resource.getrlimit(kind)[1]
        if inherited != resource.RLIM_INFINITY:  # never above it: raising a hard limit is refused
            soft, hard = min(soft, inherited), min(hard, inherited)
        try:
            resource.setrlimit(kind, (soft, hard))
        except (ValueError, OSError) as exc:
            if not option:
                raise LimitError(f"the seat's core dump limit could not be set ({exc})") from None
            raise LimitError(f"the seat's limit {option} could not be set ({exc}): change {option}") from None


def seat_id(reaper: int) -> int:
    """The user and group id of the seat whose reaper is ``reaper``: no two living seats share
    one (every seat order, every worker), and none is the host's."""
    return SEAT_IDS + reaper


def drop_capabilities(own_id: int | None = None) -> tuple[bool, bool]:
    """As root: give up every capability, for good, and with ``own_id`` become that user and
    group (no supplementary groups).  Without capabilities root is an ordinary user: it can't
    trace or read the memory of a non-dumpable process, change a mount, lift a limit, or kill
    a process it can't name (and its PID namespace names none outside); under an id of its own
    it shares no per-user count of the kernel with the host or another seat.  The bounding set
    is emptied and the securebits locked, so no program it runs gets them back.  Returns
    (capabilities dropped, id changed)."""
    if os.geteuid() != 0:
        return False, False
    lib = libc()
    try:
        last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        lib.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)
    lib.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0)
    if lib.prctl(PR_SET_SECUREBITS, ctypes.c_ulong(LOCKED_SECUREBITS), 0, 0, 0) != 0:
        return False, False
    changed = False
    if own_id is not None:
        # After the securebits (NO_SETUID_FIXUP keeps CAP_SETUID in force for these calls),
        # before capset empties the sets.
        try:
            os.setgroups([])
            os.setresgid(own_id, own_id, own_id)
            os.setresuid(own_id, own_id, own_id)
            changed = True
        except OSError:
            changed = False
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    return lib.capset(header, data) == 0, changed


def load_binding() -> None:
    """Import the Landlock binding and the C library in arena's process, before a seat is
    forked: the seat raises its walls after it has moved into a root of its own, where arena's
    installed packages may not be."""
    libc()
    with contextlib.suppress(ImportError):
        import landlock  # noqa: F401


def restrict_writes(scratch: Path) -> bool:
    """Landlock: from now on, files may be created, written, truncated or removed only beneath
    ``scratch`` (and ``/dev/null`` written).  False where the kernel or the binding is missing."""
    try:
        import landlock
    except ImportError:
        return False
    try:
        if landlock.landlock_abi_version() < 1:
            return False
        access = landlock.FSAccess
        dir_rights = (
            access.REMOVE_DIR
            | access.REMOVE_FILE
            | access.MAKE_CHAR
            | access.MAKE_DIR
            | access.MAKE_REG
            | access.MAKE_SOCK
            | access.MAKE_FIFO
            | access.MAKE_BLOCK
            | access.MAKE_SYM
        )
        file_rights = access.WRITE_FILE
        if landlock.landlock_abi_version() >= 2:
            dir_rights |= access.REFER
        if landlock.landlock_abi_version() >= 3:
            file_rights |= access.TRUNCATE
        rules = landlock.Ruleset(restrict_rules=dir_rights | file_rights)
        rules.allow(str(scratch), rules=dir_rights | file_rights)
        rules.allow("/dev/null", rules=access.WRITE_FILE)
        rules.apply()
    except Exception:
        return False
    return True
