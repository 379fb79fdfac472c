"""What a seat process may use: the limits ``--isolate`` puts on every seat, with their defaults.

The deadline per decision is the tournament's move timeout; the parent waits :attr:`grace`
seconds more for the seat's own watchdog to answer "timeout", then kills the seat.  The rest
are kernel resource limits (``setrlimit``) set in the seat process before it runs any of the
strategy's code, so they hold for everything it does and everything it starts.
"""

from __future__ import annotations

import dataclasses
import math
import resource
from dataclasses import asdict, dataclass, fields
from typing import Any

MIB = 1024 * 1024


class LimitError(ValueError):
    """A seat limit out of range; the message names it."""


@dataclass(frozen=True)
class SeatLimits:
    """Limits of one seat process (documented in the README, section "Untrusted bots")."""

    #: Memory in MiB: of the seat and all it starts together (a memory cgroup, where arena can
    #: make one), and the address space of each of its processes (RLIMIT_AS: allocating past it
    #: fails, MemoryError in Python).
    memory_mb: int = 2048
    #: CPU seconds over the seat process's life: the games of one seat order of a chunk
    #: (RLIMIT_CPU).
    cpu_seconds: int = 3600
    #: Processes and threads the seat may have at once, itself included (a pids cgroup, or
    #: RLIMIT_NPROC in a user namespace).
    processes: int = 64
    #: MiB the seat may store in its scratch folder in all (a tmpfs of that size, in its own
    #: root), and the largest file it may write (RLIMIT_FSIZE).
    file_size_mb: int = 16
    #: Seconds to start, load the strategy and answer the handshake.
    start_seconds: float = 30.0
    #: Seconds past the deadline before the parent kills a seat that has not answered.
    grace: float = 0.5

    def __post_init__(self) -> None:
        for name in ("memory_mb", "cpu_seconds", "processes", "file_size_mb"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise LimitError(f"seat limit {name} must be a whole number of at least 1, got {value!r}")
        for name in ("start_seconds", "grace"):
            value = getattr(self, name)
            if type(value) not in (int, float) or not 0 < value < math.inf:
                raise LimitError(f"seat limit {name} must be a positive number of seconds, got {value!r}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> SeatLimits:
        """The limits saved in a run folder; a bad entry is a :class:`LimitError` naming it."""
        if not isinstance(data, dict):
            raise LimitError(f"seat_limits must be a JSON object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise LimitError(f"seat_limits: unknown limit {unknown[0]!r}")
        return cls(**data)


#: Each kernel limit a seat gets: its field, the rlimit, the unit of the field in the rlimit's
#: units, the option that sets it and the shell's name for the limit a process inherits.
KERNEL_LIMITS = (
    ("memory_mb", resource.RLIMIT_AS, MIB, "--seat-memory", "MiB", "ulimit -v"),
    ("cpu_seconds", resource.RLIMIT_CPU, 1, "--seat-cpu", "s", "ulimit -t"),
    ("file_size_mb", resource.RLIMIT_FSIZE, MIB, "--seat-file-size", "MiB", "ulimit -f"),
    ("processes", resource.RLIMIT_NPROC, 1, "--seat-processes", "processes", "ulimit -u"),
)


def in_force(limits: SeatLimits) -> tuple[SeatLimits, tuple[str, ...]]:
    """The limits a seat started from this process gets, and one line per limit lowered.

    A process can lower its kernel limits but never raise a hard one, so a seat limit above the
    hard limit arena inherited (a shell's ``ulimit``, a CI runner's, a batch system's) is lowered
    to it: the seat runs under the inherited limit, which is the stricter one anyway."""
    changes: dict[str, int] = {}
    notes: list[str] = []
    for name, kind, unit, option, word, shell in KERNEL_LIMITS:
        hard = resource.getrlimit(kind)[1]
        if hard == resource.RLIM_INFINITY:
            continue
        asked = getattr(limits, name)
        allowed = max(1, hard // unit)
        if asked > allowed:
            changes[name] = allowed
            notes.append(
                f"{option} {asked:,} is above the hard limit arena inherited ({shell}): "
                f"isolated seats get {allowed:,} {word}"
            )
    return (dataclasses.replace(limits, **changes) if changes else limits), tuple(notes)
