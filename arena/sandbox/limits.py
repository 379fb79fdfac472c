"""What a seat process may use: the limits ``--isolate`` puts on every seat, with their defaults.

The deadline per decision is the tournament's move timeout; the parent waits :attr:`grace`
seconds more for the seat's own watchdog to answer "timeout", then kills the seat.  The rest
are kernel resource limits (``setrlimit``) set in the seat process before it runs any of the
strategy's code, so they hold for everything it does and everything it starts.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any


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
