"""Stopping a long command: Ctrl-C, SIGTERM and a file-size limit in the main process.

SIGTERM (``kill``, a container or job scheduler stopping arena) is turned into the same clean
stop as Ctrl-C: a :class:`Terminated`, which is a ``KeyboardInterrupt``, so every place that
stops cleanly on Ctrl-C stops cleanly on SIGTERM too; the command then exits with 143 instead of
130 (128 + the signal's number, as a shell reports it).  Processes forked while this is in force
get SIGTERM's default back, so the worker pool's terminate() ends them quietly.

SIGXFSZ is ignored, so a write past a file-size limit (``ulimit -f``) fails with an OSError
(EFBIG) that arena reports in one line, instead of killing the process.

A stop is also *noted* in a :class:`StopState`, shared by every :func:`stop_signals` block of
the command, so it is honoured even where Python loses the exception: a signal whose handler
runs inside a destructor or a generator being closed has its KeyboardInterrupt printed as
"Exception ignored in ..." and dropped, and the command would go on as if no Ctrl-C had come
(a run finished and exited 0 with a traceback on stderr).  While a block runs, such a dropped
stop is not printed, and the commands look at :attr:`StopState.stopped` at their checkpoints
(after each batch, after the reports).  A stop that lands as a block ends, while it puts the
old handlers back, is noted and not raised, so the commands look at the state after their
outermost block too.

:func:`signals_held` holds Ctrl-C and SIGTERM off for a block that must not be cut in the
middle: a batch and its journal line, or the first import of numpy, numba or pandas (an import
of numpy stopped halfway leaves it broken for the rest of the process: "cannot load module
more than once per process", so the reports could not be written).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass

EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: stop as on Ctrl-C."""


@dataclass
class StopState:
    terminated: bool = False  # SIGTERM, not Ctrl-C
    #: The first stop signal noted in the block (0: none yet).
    signum: int = 0

    @property
    def stopped(self) -> bool:
        """True once Ctrl-C or SIGTERM came, even if its exception was lost (see the module)."""
        return self.signum != 0

    @property
    def exit_status(self) -> int:
        return EXIT_TERMINATED if self.terminated else EXIT_INTERRUPTED


def _on_stop(state: StopState) -> signal.Handlers | object:
    def handler(signum: int, frame: object) -> None:
        if not state.signum:
            state.signum = signum
        if signum == signal.SIGTERM:
            state.terminated = True
            raise Terminated
        raise KeyboardInterrupt

    handler.arena_stop_handler = True  # type: ignore[attr-defined]
    handler.arena_stop_state = state  # type: ignore[attr-defined]
    return handler


@contextlib.contextmanager
def stop_signals() -> Iterator[StopState]:
    """Ctrl-C raises KeyboardInterrupt and SIGTERM :class:`Terminated` while the block runs,
    each noted in the state, and SIGXFSZ is ignored (in the main thread; elsewhere nothing
    changes).  A block inside another shares its state, so the command sees a stop noted in
    any of them.  The state says whether, and by which signal, the block was stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield StopState()
        return
    outer = getattr(signal.getsignal(signal.SIGINT), "arena_stop_state", None)
    state = outer if isinstance(outer, StopState) else StopState()
    handler = _on_stop(state)
    previous_int = signal.signal(signal.SIGINT, handler)  # type: ignore[arg-type]
    previous_term = signal.signal(signal.SIGTERM, handler)  # type: ignore[arg-type]
    previous_xfsz = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    previous_hook = sys.unraisablehook

    def unraisable(info: sys.UnraisableHookArgs) -> None:
        # A stop lost in a destructor: noted in the state, honoured at the next checkpoint.
        if not (isinstance(info.exc_value, KeyboardInterrupt) and state.stopped):
            previous_hook(info)

    sys.unraisablehook = unraisable
    try:
        yield state
    finally:
        _restore(
            state,
            previous_hook,
            {signal.SIGXFSZ: previous_xfsz, signal.SIGTERM: previous_term, signal.SIGINT: previous_int},
        )


def _restore(state: StopState, hook: object, handlers: dict[signal.Signals, object]) -> None:
    """Put back the handlers a :func:`stop_signals` block replaced.  A stop that lands while
    they are put back runs the block's handler, which notes it in the state and raises: that
    exception is dropped here (it would replace the block's own, a SystemExit with the command's
    exit status, or come out after the block's last checkpoint as click's "Aborted!", exit 1),
    and the command sees the stop in the state after the block (tests/test_stop_races.py)."""
    while True:
        try:
            sys.unraisablehook = hook  # type: ignore[assignment]
            for signum, handler in handlers.items():
                signal.signal(signum, handler)  # type: ignore[arg-type]
            return
        except KeyboardInterrupt:
            # Noted by the block's handler, unless Ctrl-C's old one (put back last) raised it.
            state.signum = state.signum or signal.SIGINT


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block is done; a signal that came meanwhile is raised
    again right after it (in the main thread; elsewhere nothing changes).

    A signal mask would not do: Python runs its handlers in the main thread whichever thread
    the signal reaches, and the worker pool has threads of its own.  So the handlers are swapped
    for one that only notes the signal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def note(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if pending:
            signal.raise_signal(pending[0])


def _defaults_in_child() -> None:
    # A forked worker must not turn the pool's SIGTERM into an exception (and a traceback).
    if getattr(signal.getsignal(signal.SIGTERM), "arena_stop_handler", False):
        with contextlib.suppress(ValueError, OSError):  # not forked from the main thread
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    if getattr(signal.getsignal(signal.SIGINT), "arena_stop_handler", False):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signal.SIGINT, signal.default_int_handler)


os.register_at_fork(after_in_child=_defaults_in_child)
