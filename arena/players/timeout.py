"""Move timeouts: a strategy that thinks too long loses the game.

In the main thread the caller of a strategy reads no clock: it only marks the call in progress
(``clock.running = token``, one attribute store, with a token unique to the call) and clears the
mark afterwards.  A watchdog thread looks every few milliseconds (at most a quarter of the
limit); once it has seen the same call running for longer than the limit it marks the call
expired and interrupts the main thread with SIGALRM, whose handler raises :class:`MoveTimeout`
inside the strategy's code.  ``MoveTimeout`` is a ``BaseException``, so a strategy's
``except Exception`` can't swallow it; one that swallows it anyway is still caught when it
returns (its call is marked expired), and one stuck where no signal reaches is killed by the
supervisor outside its process.  The watchdog times a call from the first look that sees it,
so it never stops a call before the limit; it stops one at most two looks after it.

Where signals can't be used (not the main thread), the caller reads the clock before and after
each call instead (``started`` and :meth:`MoveClock.overran`): an overlong call is caught when it
returns.
"""

from __future__ import annotations

import os
import signal
import threading
import time


class MoveTimeout(BaseException):
    """Raised inside a strategy whose decision ran past the move timeout."""


class MoveClock:
    """Times calls into strategies against a limit; one per process (see :func:`move_clock`)."""

    def __init__(self) -> None:
        self.limit: float | None = None
        #: The call in progress, watched by the watchdog: a token unique to the call; None between.
        self.running: object | None = None
        #: The last call the watchdog found past the limit (and signalled).
        self.expired: object | None = None
        #: Where no watchdog watches: when the current call began (perf_counter); None between.
        self.started: float | None = None
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

    def watches_this_thread(self) -> bool:
        """True if the watchdog times calls made in this thread (it can signal only the main one)."""
        return self._thread is not None and threading.get_ident() == self._main

    def _watch(self) -> None:
        seen = None  # the call running at the last look
        since = 0.0  # when that call was first seen
        while True:
            running = self.running
            now = time.perf_counter()
            limit = self.limit
            if running is not seen:
                seen, since = running, now
            overdue = running is not None and limit is not None and now - since > limit
            if overdue and self.expired is not running:  # never twice for one call
                self.expired = running
                signal.pthread_kill(self._main, signal.SIGALRM)  # type: ignore[arg-type]
            time.sleep(min(0.01, (limit or 1.0) / 4))

    def _on_alarm(self, signum: int, frame: object) -> None:
        running = self.running
        if running is not None and running is self.expired:
            raise MoveTimeout(f"no decision within {self.limit:g} s")

    def overran(self) -> bool:
        """Where no watchdog watches: True if the call that began at ``started`` is past the limit."""
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
