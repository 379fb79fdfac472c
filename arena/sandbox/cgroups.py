"""Per-seat control groups: the limits that count every process of a seat together.

RLIMIT_AS and RLIMIT_NPROC bind one process (or one user) each, so a seat that forks could hold
its memory limit many times over.  A control group counts the seat and everything it starts as
one: ``memory`` (the resident memory of all its processes, tmpfs pages of its scratch folder
included), ``pids`` (its processes and threads) and ``cpu`` (the CPU time of all its processes
competes as one seat's, at most one CPU, with the weight :mod:`~arena.sandbox.on_move` gives
it).  Both hierarchies are supported:

- cgroup v1, each controller mounted at ``/sys/fs/cgroup/<controller>``: a group per seat in
  the ``pids``, the ``memory`` and the ``cpu`` hierarchy (``pids.max``,
  ``memory.limit_in_bytes`` and, where swap is accounted, ``memory.memsw.limit_in_bytes``;
  ``cpu.cfs_quota_us`` and ``cpu.shares``);
- cgroup v2, one hierarchy at ``/sys/fs/cgroup``: one group per seat with ``pids.max``,
  ``memory.max`` (``memory.swap.max`` 0), ``cpu.max`` and ``cpu.weight``, where the parent
  enables those controllers.

A seat's groups are named after its reaper (``arena-seat-<pid>``) and made inside the groups
arena itself runs in (so the limits of a container or a login session still bind its seats);
the parent finds them there (to kill every process of the seat at once) and removes them after
the seat has ended.  Making
a group needs root; without it the per-process rlimits are the fallback (README, "Untrusted
bots"; ``docs/security.md``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

#: Where each hierarchy may be mounted: cgroup v1 controllers, then the v2 unified hierarchy.
V1_PIDS = Path("/sys/fs/cgroup/pids")
V1_MEMORY = Path("/sys/fs/cgroup/memory")
V1_CPU = Path("/sys/fs/cgroup/cpu")  # also where cpu and cpuacct are mounted together (a link)
V2 = Path("/sys/fs/cgroup")
ROOTS = (V1_PIDS, V1_MEMORY, V1_CPU, V2)
PREFIX = "arena-seat-"
MIB = 1024 * 1024
#: The CPU a seat's processes may use together, per scheduling period: one CPU.  Every seat
#: gets the same, whatever the machine, so a seat that starts many threads or processes gains
#: nothing over one that computes in one (docs/security.md, "Fair CPU").
PERIOD_US = 100_000
QUOTA_US = PERIOD_US
#: A seat's CPU weight: a plain process's (v1 ``cpu.shares``, v2 ``cpu.weight``) while arena
#: waits for its reply, the kernel's least while it waits for another seat's: (file, full, least).
V1_WEIGHT = ("cpu.shares", "1024", "2")
V2_WEIGHT = ("cpu.weight", "100", "1")


def group_name(reaper: int) -> str:
    return f"{PREFIX}{reaper}"


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy, from /proc/self/cgroup: controller -> path
    (v1 lines ``N:memory:/path``; the v2 line ``0::/path`` under the key "")."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(","):
                paths[controller] = path
    return paths


def _bases() -> dict[Path, Path]:
    """Hierarchy root -> the folder of this process's own group in it."""
    own = _own_paths()
    key = {V1_PIDS: "pids", V1_MEMORY: "memory", V1_CPU: "cpu", V2: ""}
    return {root: root / own.get(key[root], "/").lstrip("/") for root in ROOTS}


def seat_groups(reaper: int) -> list[Path]:
    """The control groups made for the seat whose reaper is ``reaper`` (none if it has none),
    looked up from the process that started the reaper (or from the reaper or seat itself)."""
    name = group_name(reaper)
    return [base / name for base in dict.fromkeys(_bases().values()) if (base / name).is_dir()]


def processes_in(groups: list[Path]) -> set[int]:
    """Every process of a seat, as listed by its groups."""
    pids: set[int] = set()
    for group in groups:
        with contextlib.suppress(OSError, ValueError):
            pids.update(int(pid) for pid in (group / "cgroup.procs").read_text().split())
    return pids


def went_over_memory(groups: list[Path]) -> bool:
    """True if the kernel's OOM killer acted in a seat's memory group (its memory limit)."""
    for group in groups:
        for name in ("memory.oom_control", "memory.events"):
            with contextlib.suppress(OSError, ValueError):
                for line in (group / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and int(value) > 0:
                        return True
    return False


def _controllers_v2(base: Path) -> set[str]:
    with contextlib.suppress(OSError):
        return set((base / "cgroup.subtree_control").read_text().split())
    return set()


def _make(group: Path, settings: dict[str, str]) -> Path | None:
    """Make ``group`` with ``settings`` (file -> value; a value starting with ``?`` is written
    where the file exists, one starting with ``~`` where the kernel takes it) and move this
    process into it; None (and nothing left) on failure."""
    try:
        group.mkdir(exist_ok=True)
        for name, value in settings.items():
            optional = value.startswith("?")
            target = group / name
            if optional and not target.exists():
                continue
            if value.startswith("~"):
                # A CPU quota above the one of arena's own group (a container's) is refused
                # in cgroup v1: the seat then runs under that one, which is smaller anyway.
                with contextlib.suppress(OSError):
                    target.write_text(value[1:])
                continue
            target.write_text(value.lstrip("?"))
        (group / "cgroup.procs").write_text(str(os.getpid()))  # as this PID namespace numbers it
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        return None
    return group


def join_seat_groups(memory_mb: int, processes: int, reaper: int) -> tuple[bool, bool, bool]:
    """In the seat process, before it runs any of its code: move it into new groups named
    after ``reaper`` that allow ``processes`` processes and threads and ``memory_mb`` MiB of
    memory for the seat and all it starts, and one CPU for all of them together, at a plain
    process's weight (it loads as any process would; arena lowers it while it waits for
    another seat).  Returns (processes counted, memory counted, CPU shared)."""
    if os.geteuid() != 0:
        return False, False, False
    name = group_name(reaper)
    limit = str(memory_mb * MIB)
    bases = _bases()
    if any((root / "cgroup.procs").exists() for root in (V1_PIDS, V1_MEMORY, V1_CPU)):
        pids = (V1_PIDS / "cgroup.procs").exists() and _make(
            bases[V1_PIDS] / name, {"pids.max": str(processes)}
        )
        memory = (V1_MEMORY / "cgroup.procs").exists() and _make(
            bases[V1_MEMORY] / name,
            # The swap limit can't be below the memory limit, so it is written second.
            {"memory.limit_in_bytes": limit, "memory.memsw.limit_in_bytes": "?" + limit},
        )
        cpu = (V1_CPU / "cgroup.procs").exists() and _make(
            bases[V1_CPU] / name,
            {
                "cpu.cfs_period_us": str(PERIOD_US),
                "cpu.cfs_quota_us": f"~{QUOTA_US}",
                V1_WEIGHT[0]: V1_WEIGHT[1],
            },
        )
        return bool(pids), bool(memory), bool(cpu)
    enabled = _controllers_v2(bases[V2])
    settings: dict[str, str] = {}
    if "pids" in enabled:
        settings["pids.max"] = str(processes)
    if "memory" in enabled:
        settings.update({"memory.max": limit, "memory.swap.max": "?0"})
    if "cpu" in enabled:
        settings.update({"cpu.max": f"~{QUOTA_US} {PERIOD_US}", V2_WEIGHT[0]: V2_WEIGHT[1]})
    if not settings or _make(bases[V2] / name, settings) is None:
        return False, False, False
    return "pids" in enabled, "memory" in enabled, "cpu" in enabled


def weight_file(reaper: int) -> tuple[Path, tuple[str, str]] | None:
    """The file that sets the CPU weight of the seat whose reaper is ``reaper``, with its
    (full, least) values; None where seats get no cpu group (no root, no cpu controller)."""
    if os.geteuid() != 0:
        return None
    bases = _bases()
    name = group_name(reaper)
    if (V1_CPU / "cgroup.procs").exists():
        file, full, least = V1_WEIGHT
        return bases[V1_CPU] / name / file, (full, least)
    if (V1_PIDS / "cgroup.procs").exists() or (V1_MEMORY / "cgroup.procs").exists():
        return None  # cgroup v1 without its cpu controller
    if "cpu" not in _controllers_v2(bases[V2]):
        return None
    file, full, least = V2_WEIGHT
    return bases[V2] / name / file, (full, least)


def remove_seat_groups(reaper: int, attempts: int = 50) -> None:
    """Remove the seat's groups once they are empty (the last processes may still be exiting)."""
    import time

    for group in seat_groups(reaper):
        for _ in range(attempts):
            try:
                group.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)


def _stale_groups() -> Iterator[Path]:
    for base in dict.fromkeys(_bases().values()):
        try:
            groups = list(base.glob(f"{PREFIX}*"))
        except OSError:
            continue
        yield from groups


def sweep_stale_groups() -> None:
    """Remove the empty groups of seats whose reaper no longer exists (left behind when a
    process that owned seats was killed before it could remove them)."""
    for group in _stale_groups():
        try:
            os.kill(int(group.name.rpartition("-")[2]), 0)
            continue  # its reaper lives: in use
        except ProcessLookupError:
            pass
        except (OSError, ValueError):
            continue
        with contextlib.suppress(OSError):
            group.rmdir()  # fails while anything is still in it
