"""The system calls a seat may not make: a seccomp filter, compiled by libseccomp.

The seat's other walls (its own root, namespaces, no capabilities, Landlock) already refuse
most of what is listed here.  The filter closes the rest and narrows the kernel a hostile entry
can reach: it can't make new namespaces (a user namespace would give it capabilities over
mounts of its own), mount or pivot anything, trace or read other processes, load kernel
modules or BPF programs, open files by handle, use io_uring (whose operations seccomp can't
see), keyrings, ``perf_event_open`` or ``userfaultfd``, or set the clock.  Each such call fails
with ``EPERM`` (``clone3`` with ``ENOSYS``, so the C library falls back to ``clone``, whose
namespace flags the filter can check), and a system call of another architecture's table
(the 32-bit ABI on x86-64) ends the process.

It also closes the channels between seats through the kernel objects they share: every seat
reads the same runtime (bind mounts share inodes, so do the devices and ``/sys``), and a lock,
a notice or the page cache of a shared file is seen by every process that opens it.  So

- no lock or lease: ``flock`` and ``fcntl``'s lock commands (``F_GETLK``, ``F_SETLK``,
  ``F_SETLKW`` and their ``F_OFD_`` twins, ``F_SETLEASE``, ``F_GETLEASE``) fail with
  ``ENOLCK``, "no locks available", as on a file system without locking (a seat's scratch
  folder is its own, so nothing needs them there; SQLite wants the ``unix-none`` VFS or
  ``:memory:``);
- no notice of another's reads: ``inotify``, ``fanotify`` and ``fcntl(F_NOTIFY)`` (dnotify)
  fail with ``ENOSYS`` or ``EINVAL``, as on a kernel built without them (libraries then poll);
- no look at the page cache of a shared file: ``mincore`` and ``cachestat`` fail with
  ``ENOSYS``, a read with ``RWF_NOWAIT`` with ``EOPNOTSUPP``, and advice that would evict pages
  (``posix_fadvise``, ``madvise`` ``MADV_COLD``/``MADV_PAGEOUT``) is taken and ignored.

libseccomp (``libseccomp.so.2``, part of every mainstream distribution) turns the list into
the BPF program for this machine's architecture; arena binds it through ctypes.  Where it is
missing the seat runs without this layer (``$ARENA_SEAT_LAYERS`` has no ``seccomp``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno

from arena.sandbox.confine import prctl

#: Calls refused with EPERM.
DENIED = (
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "mount_setattr", "fsopen",
    "fsmount", "fsconfig", "fspick", "move_mount", "open_tree", "ptrace", "process_vm_readv",
    "process_vm_writev", "kcmp", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "swapon", "swapoff", "reboot", "syslog", "acct", "open_by_handle_at", "name_to_handle_at",
    "quotactl", "lookup_dcookie", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "iopl", "ioperm", "vhangup", "uselib", "nfsservctl",
)  # fmt: skip
#: Calls refused whatever their arguments, with the errno of a kernel that lacks them (see the
#: module docstring: each is a way to see what another seat does to a shared file).
CHANNELS = {
    "flock": errno.ENOLCK,
    "inotify_init": errno.ENOSYS,
    "inotify_init1": errno.ENOSYS,
    "inotify_add_watch": errno.ENOSYS,
    "fanotify_init": errno.ENOSYS,
    "fanotify_mark": errno.ENOSYS,
    "mincore": errno.ENOSYS,
    "cachestat": errno.ENOSYS,
    "fadvise64": 0,  # advice: taken, and ignored
}
#: Calls refused when one argument, masked, equals a value: (call, argument, mask, value, errno).
#: fcntl's command is an int: the mask keeps a caller from hiding it behind high bits.
CHANNEL_ARGUMENTS = (
    *(("fcntl", 1, 0xFFFFFFFF, command, errno.ENOLCK) for command in (5, 6, 7, 36, 37, 38, 1024, 1025)),
    ("fcntl", 1, 0xFFFFFFFF, 1026, errno.EINVAL),  # F_NOTIFY
    ("madvise", 2, 0xFFFFFFFF, 20, 0),  # MADV_COLD
    ("madvise", 2, 0xFFFFFFFF, 21, 0),  # MADV_PAGEOUT
    ("preadv2", 5, 0x8, 0x8, errno.EOPNOTSUPP),  # RWF_NOWAIT
)
#: clone's flags that make new namespaces: a clone with any of them is refused.
NAMESPACE_FLAGS = (0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x02000000)
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7
PR_SET_NO_NEW_PRIVS = 38


def scmp_act_errno(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


DENY = scmp_act_errno(errno.EPERM)


class _ArgCompare(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


_library: ctypes.CDLL | None = None


def load() -> bool:
    """Load libseccomp (in arena's process, before a seat is forked); False where it is
    missing."""
    global _library
    if _library is None:
        name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
        try:
            library = ctypes.CDLL(name, use_errno=True)
        except OSError:
            return False
        library.seccomp_init.restype = ctypes.c_void_p
        library.seccomp_init.argtypes = [ctypes.c_uint32]
        library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        library.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.POINTER(_ArgCompare),
        ]
        library.seccomp_load.argtypes = [ctypes.c_void_p]
        library.seccomp_release.argtypes = [ctypes.c_void_p]
        _library = library
    return True


def restrict_system_calls() -> bool:
    """In the seat, just before it runs the seat program: install the filter (for this process
    and everything it starts, for good).  False where libseccomp is missing or refuses."""
    if not load() or _library is None:
        return False
    lib = _library
    if not prctl(PR_SET_NO_NEW_PRIVS, 1):  # a filter may be installed without capabilities
        return False
    context = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not context:
        return False
    try:
        for name in DENIED:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0 and lib.seccomp_rule_add_array(context, DENY, number, 0, None):
                return False
        clone3 = lib.seccomp_syscall_resolve_name(b"clone3")
        if clone3 >= 0 and lib.seccomp_rule_add_array(context, scmp_act_errno(errno.ENOSYS), clone3, 0, None):
            return False
        for name, code in CHANNELS.items():
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number >= 0 and lib.seccomp_rule_add_array(context, scmp_act_errno(code), number, 0, None):
                return False
        for name, argument, mask, value, code in CHANNEL_ARGUMENTS:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            condition = _ArgCompare(argument, SCMP_CMP_MASKED_EQ, mask, value)
            if number >= 0 and lib.seccomp_rule_add_array(
                context, scmp_act_errno(code), number, 1, ctypes.byref(condition)
            ):
                return False
        clone = lib.seccomp_syscall_resolve_name(b"clone")
        for flag in NAMESPACE_FLAGS:
            # The flags are clone's first argument on every architecture but s390 (second).
            condition = _ArgCompare(0, SCMP_CMP_MASKED_EQ, flag, flag)
            if lib.seccomp_rule_add_array(context, DENY, clone, 1, ctypes.byref(condition)):
                return False
        return lib.seccomp_load(context) == 0
    finally:
        lib.seccomp_release(context)
