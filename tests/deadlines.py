"""A deadline for a block of a test, so arena hanging fails the test instead of the test run."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class StillWaiting(BaseException):
    """Raised by :func:`at_most`.  Not an OSError, which arena's code suppresses around system
    calls, and not an Exception, which click's CliRunner would catch."""


@contextlib.contextmanager
def at_most(seconds: float) -> Iterator[None]:
    """Interrupt the block with :class:`StillWaiting` after ``seconds`` (a system call blocked
    on a FIFO or a pipe is interrupted too)."""

    def expired(signum: int, frame: object) -> None:
        raise StillWaiting(f"arena still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
