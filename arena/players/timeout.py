"""Move timeouts: a strategy that thinks too long loses the game.

The game loop only notes when a decision starts (two attribute stores, no system call per
move).  A watchdog thread looks every few milliseconds; if a decision has run past the limit it
interrupts the main thread with SIGALRM, whose handler raises :class:`MoveTimeout` inside the
strategy's code.  ``MoveTimeout`` is a ``BaseException``, so a strategy's ``except Exception``
can't swallow it.  Where signals can't be used (not the main thread), an overlong decision is
still caught when it returns.
"""

from __future__ import annotations

import os
import signal
import threading
import time


class MoveTimeout(BaseException):
    """Raised inside a strategy whose decision ran past the move timeout."""


class MoveClock:
    """Times decisions against a limit; one per process (see :func:`move_clock`)."""

    def __init__(self) -> None:
        self.limit: float | None = None
        self.started: float | None = None  # when the current decision began; None between
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._main = threading.main_thread().ident

    def arm(self, limit: float | None) -> None:
        """Set the limit; start the watchdog the first time a limit is set."""
        self.limit = limit
        if limit is None or self._thread is not None:
            return
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGALRM, self._on_alarm)
            self._thread = threading.Thread(target=self._watch, name="arena-move-clock", daemon=True)
            self._thread.start()

    def _watch(self) -> None:
        signalled = None  # the decision already interrupted: never twice
        while True:
            limit = self.limit
            started = self.started
            if (
                limit is not None
                and started is not None
                and started != signalled
                and time.perf_counter() - started > limit
            ):
                signalled = started
                signal.pthread_kill(self._main, signal.SIGALRM)  # type: ignore[arg-type]
            time.sleep(min(0.01, (limit or 1.0) / 4))

    def _on_alarm(self, signum: int, frame: object) -> None:
        limit, started = self.limit, self.started
        if limit is not None and started is not None and time.perf_counter() - started > limit:
            raise MoveTimeout(f"no decision within {limit:g} s")

    def overran(self) -> bool:
        limit, started = self.limit, self.started
        return limit is not None and started is not None and time.perf_counter() - started > limit


_CLOCK: MoveClock | None = None


def move_clock() -> MoveClock:
    """This process's move clock."""
    global _CLOCK
    if _CLOCK is None:
        _CLOCK = MoveClock()
    return _CLOCK


def _forget_clock() -> None:
    # Threads don't survive fork: a worker process needs a clock, and a watchdog, of its own.
    global _CLOCK
    _CLOCK = None


os.register_at_fork(after_in_child=_forget_clock)
