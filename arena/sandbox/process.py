"""One seat process: started behind the walls of :mod:`arena.sandbox.confine`, spoken to one
line at a time, and killed when it overruns its deadline.

The processes of one seat::

    arena (a chunk process, or the main process for ``arena play``)
    └─ reaper     forked; its own session; holds nothing but the seat's stdout; when the seat
       │          ends, writes one ``ended`` line saying how (exit status, signal, CPU limit)
       └─ seat    process 1 of new namespaces where the kernel allows; confined; then exec'd:
                  arena's Python host (:mod:`arena.sandbox.host`) or the user's program

The seat is a fresh program (``execve``), so nothing of arena's memory (the seed, the game,
the other players) is in it.  Its stderr goes to the player's log, never to the terminal.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from arena.players.timeout import MoveTimeout
from arena.sandbox import cgroups, confine, on_move, syscalls, wire
from arena.sandbox.last_words import STDERR_TAIL
from arena.sandbox.limits import LimitError, SeatLimits, in_force
from arena.sandbox.seat_root import RootError, SeatView, enter_seat_root


class NoReply(Exception):
    """The seat did not answer by its deadline (it has been killed)."""


class SeatProcess:
    """A seat's process and its pipes.  :meth:`request` sends one message and returns the reply."""

    def __init__(
        self,
        argv: Sequence[str],
        limits: SeatLimits,
        *,
        log: Callable[[], BinaryIO | None] | None = None,
        hidden: Sequence[Path] = (),
        cwd: str | None = None,
        environment: Mapping[str, str] | None = None,
        exposed: Sequence[Path] | None = None,
        own: Sequence[Path] = (),
    ) -> None:
        """``exposed``: the paths the seat may read (:mod:`arena.sandbox.exposure`); with them
        it runs in a minimal root of its own where the kernel allows, without them it sees the
        whole file system (read-only where Landlock exists).  ``own``: those of them that are
        the entry's own files (shown as the seat's where it runs under an id of its own)."""
        self.argv = list(argv)
        self.exposed = None if exposed is None else tuple(exposed)
        self.own = tuple(own)
        self.limits = in_force(limits)[0]  # under the hard limits this process inherited
        self._open_log = log  # called on the seat's first stderr output, so silent seats leave no file
        self.log: BinaryIO | None = None
        self.hidden = tuple(hidden)
        self.cwd = cwd or os.getcwd()
        self.environment = dict(environment or {})
        self.pid = 0
        self.alive = False
        self.ended = ""  # how the seat ended, once it has
        self.stderr_tail = b""
        self._logged = 0
        self._buffer = b""
        self._scratch: Path | None = None
        self._reaped = False
        self._err_closed = False

    # ------------------------------------------------------------------ starting
    def start(self) -> None:
        """Fork the reaper, which forks the seat; returns at once (the seat says hello later)."""
        confine.load_binding()
        syscalls.load()
        scratch = Path(tempfile.mkdtemp(prefix="arena-seat-"))
        self._scratch = scratch
        to_seat_r, to_seat_w = os.pipe()
        from_seat_r, from_seat_w = os.pipe()
        err_r, err_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                _reaper_and_seat(self, parent, scratch, to_seat_r, from_seat_w, err_w)
            finally:
                os._exit(127)
        for fd in (to_seat_r, from_seat_w, err_w):
            os.close(fd)
        self.pid = pid
        self.alive = True
        on_move.started(pid)
        self._to = to_seat_w
        self._from = from_seat_r
        self._err = err_r
        os.set_blocking(from_seat_r, False)
        os.set_blocking(to_seat_w, False)  # a seat that stops reading must not block arena (see _send)
        self._poll = select.poll()
        self._poll.register(from_seat_r, select.POLLIN)
        self._poll.register(err_r, select.POLLIN)

    # ------------------------------------------------------------------ talking
    def request(self, message: bytes, limit: float | None, grace: float) -> tuple[dict[str, Any], bool]:
        """Send ``message`` and wait for one reply line.  Returns (the reply, late): late if it
        came after ``limit`` seconds.  With no reply by ``limit + grace`` the seat is killed and
        :class:`NoReply` raised.  A seat that has ended answers its ``ended`` line (or one made
        up here).  Interruptions by the caller's own move watchdog (MoveTimeout) only mark the
        reply late: the seat gets its grace."""
        reply, late = self.exchange(message, limit, grace)
        return (self.decoded(reply) if isinstance(reply, bytes) else reply), late

    def exchange(
        self, message: bytes, limit: float | None, grace: float
    ) -> tuple[bytes | dict[str, Any], bool]:
        """As :meth:`request`, but the reply is the line as the seat sent it, not yet decoded
        (:meth:`decoded` does that); a reply made up here (the seat ended, or sent a line past
        the limit) is a message already."""
        on_move.give(self.pid)  # the CPU goes to the seat arena waits for
        started = time.perf_counter()
        deadline = None if limit is None else started + limit + grace
        late = self._send(message, deadline)
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line, self._buffer = self._buffer[: end + 1], self._buffer[end + 1 :]
                if limit is not None and time.perf_counter() - started > limit:
                    late = True
                return line, late
            if len(self._buffer) > wire.MAX_LINE:
                self.kill()
                return {"type": "error", "reason": "protocol: a reply longer than 1 MiB"}, late
            wait = None if deadline is None else max(0, int((deadline - time.perf_counter()) * 1000) + 1)
            try:
                events = self._poll.poll(wait)
            except MoveTimeout:
                late = True
                continue
            if not events:
                if deadline is not None and time.perf_counter() >= deadline:
                    self.kill()
                    raise NoReply
                continue
            for fd, _ in events:
                if fd == self._err:
                    self._drain_stderr()
                    continue
                try:
                    chunk = os.read(self._from, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    self._finish()
                    return {"type": "ended", "reason": self.ended}, late
                self._buffer += chunk

    def _send(self, message: bytes, deadline: float | None) -> bool:
        """Write ``message`` to the seat's stdin, waiting for room in the pipe until ``deadline``
        (a seat that answers without reading fills it); past it, kill the seat and raise
        :class:`NoReply`.  Returns True if the caller's move watchdog interrupted the wait."""
        late = False
        try:
            written = os.write(self._to, message)
        except BlockingIOError:
            written = 0
        except OSError:  # it has gone: its ended line, or the end of its stdout, says how
            return late
        if written == len(message):  # nearly always: the pipe had room
            return late
        rest = memoryview(message)[written:]
        while rest:
            try:
                rest = rest[os.write(self._to, rest) :]
                continue
            except BlockingIOError:
                pass
            except OSError:  # it has gone: its ended line, or the end of its stdout, says how
                return late
            wait = None if deadline is None else int((deadline - time.perf_counter()) * 1000) + 1
            if wait is not None and wait <= 1:
                self.kill()
                raise NoReply
            room = select.poll()  # not select(): a chunk with many seats may hold fds past 1024
            room.register(self._to, select.POLLOUT)
            try:
                room.poll(wait)
            except MoveTimeout:
                late = True
        return late

    def decoded(self, line: bytes) -> dict[str, Any]:
        """A reply line as a message; one arena can't read, or an ``ended`` line, ends the seat."""
        try:
            message = wire.decode(line)
        except wire.ProtocolError as exc:
            # Out of step with the messages (a debug line on stdout, say): no later reply could
            # be trusted to answer its own message, so the process ends here.
            self.kill()
            return {"type": "error", "reason": f"protocol: {exc}"}
        if message["type"] == "ended":
            # The reaper's line once the seat has gone, or the same line forged by a seat that
            # lives on: never wait for the reaper here (it waits for the seat), kill instead.
            self.ended = str(message.get("reason", "the seat's process ended"))
            self.kill()
        return message

    def _drain_stderr(self) -> None:
        try:
            data = os.read(self._err, 65536)
        except OSError:
            data = b""
        if not data:
            if not self._err_closed:
                self._err_closed = True
                with contextlib.suppress(ValueError, OSError, KeyError):
                    self._poll.unregister(self._err)
            return
        self.stderr_tail = (self.stderr_tail + data)[-STDERR_TAIL:]
        if self.log is None and self._open_log is not None:
            self.log = self._open_log()
            self._open_log = None
        if self.log is None:
            return
        # The cap holds for the player's whole log (every seat process of it, in every worker),
        # so a bot that crashes every game can't fill the disk one new process at a time.
        try:
            logged = max(self._logged, os.fstat(self.log.fileno()).st_size)
        except (OSError, ValueError, AttributeError):
            logged = self._logged
        room = self.limits.file_size_mb * 1024 * 1024 - logged
        if room <= 0:
            return
        if len(data) > room:
            data = data[:room] + b"\n[arena: the rest of this player's stderr is left out]\n"
        self._logged += len(data)
        with contextlib.suppress(OSError):
            self.log.write(data)
            self.log.flush()

    # ------------------------------------------------------------------ ending
    def _finish(self) -> None:
        """The seat has ended: reap the reaper and note how, if the ended line didn't."""
        if not self.alive:
            return
        self.alive = False
        self._drain_all_stderr()
        _, status = os.waitpid(self.pid, 0)
        self._reaped = True
        if not self.ended:
            self.ended = f"the seat's process ended ({_how(status)})"
        self._close_fds()

    def _drain_all_stderr(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while not self._err_closed and select.select([self._err], [], [], 0)[0]:
                self._drain_stderr()

    def kill(self) -> None:
        """SIGKILL the seat and everything it started, then reap its reaper.  Where the seat has
        a pids cgroup, its processes are killed through it and the reaper is left to reap the
        seat (so the cgroup empties at once and can be removed); otherwise, or if the reaper
        does not end in a second, the reaper's process group goes (the seat with it)."""
        if not self.alive:
            return
        self.alive = False
        # The move watchdog's MoveTimeout must not cut this short (it would leave the reaper
        # running and the cgroup behind): it is held off, and raised when the seat has gone.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            self._kill()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def _kill(self) -> None:
        groups = cgroups.seat_groups(self.pid)
        group = groups[0] if groups else None
        if group is not None:
            for pid in cgroups.processes_in(groups):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            give_up = time.monotonic() + 1.0
            while time.monotonic() < give_up:
                with contextlib.suppress(ChildProcessError):
                    if os.waitpid(self.pid, os.WNOHANG)[0]:
                        break
                    with contextlib.suppress(OSError):  # room for the reaper's ended line
                        os.read(self._from, 1 << 20)
                    time.sleep(0.002)
                    continue
                break
            else:
                group = None
            if group is not None:
                self._reaped = True
        if not self._reaped:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self._reaped = True
        self._drain_all_stderr()
        if not self.ended:
            self.ended = "the seat's process was killed by arena"
        self._close_fds()

    def close(self) -> None:
        """Say bye, give the seat a moment to leave, then make sure it has."""
        if self.alive:
            with contextlib.suppress(OSError):
                os.write(self._to, wire.BYE)
            give_up = time.monotonic() + 0.2
            while self.alive and time.monotonic() < give_up:
                ready, _, _ = select.select([self._from], [], [], max(0.0, give_up - time.monotonic()))
                if not ready:
                    break
                try:
                    if not os.read(self._from, 65536):
                        self._finish()
                except BlockingIOError:
                    continue
            self.kill()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def _close_fds(self) -> None:
        on_move.forget(self.pid)
        cgroups.remove_seat_groups(self.pid)
        for fd in (self._to, self._from, self._err):
            with contextlib.suppress(OSError):
                os.close(fd)


def signal_name(number: int) -> str:
    """SIGKILL for 9; a real-time or unknown signal, which Python has no name for, by number."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal_name(os.WTERMSIG(status))}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def seat_environment(scratch: Path, extra: Mapping[str, str], layers: Sequence[str]) -> dict[str, str]:
    """A small, clean environment: nothing of arena's own but PATH and the locale."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "HOME": str(scratch),
        "TMPDIR": str(scratch),
        confine.LAYERS_VARIABLE: ",".join(layers),
    }
    env.update(extra)
    return env


# ---------------------------------------------------------------------- the child processes
def _reaper_and_seat(
    seat: SeatProcess, parent: int, scratch: Path, stdin: int, stdout: int, stderr: int
) -> None:
    """In the forked child: become the reaper, fork the seat, confine it and exec it."""
    os.setsid()
    confine.die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(0)
    os.dup2(stdin, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.closerange(3, 1 << 16)
    for number in (
        signal.SIGINT,
        signal.SIGTERM,
        signal.SIGPIPE,
        signal.SIGALRM,
        signal.SIGXFSZ,
        signal.SIGHUP,
    ):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.chdir(seat.cwd)
    layers: list[str] = []
    in_namespaces, user_namespace = confine.enter_namespaces()
    reaper = os.getpid()
    child = os.fork()
    if child:
        _reap(child, seat.limits, parent)
    # The seat: process 1 of its namespaces, if they were made.
    try:
        confine.die_with_parent(signal.SIGKILL)
        if in_namespaces and confine.own_mount_namespace():
            layers.append("namespaces")
            fresh_proc, covered = confine.private_views(seat.hidden)
            if fresh_proc:
                layers.append("private-proc")
            if covered and seat.hidden:
                layers.append("hidden")
        counted = cgroups.join_seat_groups(seat.limits.memory_mb, seat.limits.processes, reaper)
        names = ("pids-cgroup", "memory-cgroup", "cpu-cgroup")
        layers += [name for name, done in zip(names, counted, strict=True) if done]
        own_id = None
        if "namespaces" in layers and seat.exposed is not None:
            # A user id of its own where arena is root (in a user namespace, arena's id is it).
            owner = confine.seat_id(reaper) if os.geteuid() == 0 and not user_namespace else None
            view = SeatView(
                seat.exposed, scratch, seat.limits.file_size_mb, Path(seat.cwd), seat.hidden, seat.own, owner
            )
            try:
                own_id = owner if enter_seat_root(view).owned else None
                layers.append("own-root")
            except (RootError, OSError):
                # Left as it was: the walls below still stand (docs/security.md, fallbacks).
                with contextlib.suppress(OSError):
                    confine.detach(str(scratch))
                os.chdir(seat.cwd)
        confine.set_limits(seat.limits, count_processes=user_namespace or own_id is not None)
        layers.append("limits")
        if confine.restrict_writes(scratch):
            layers.append("landlock")
        dropped, own_uid = confine.drop_capabilities(own_id)
        layers += [name for name, done in (("no-capabilities", dropped), ("own-uid", own_uid)) if done]
        if syscalls.restrict_system_calls():
            layers.append("seccomp")
        env = seat_environment(scratch, seat.environment, layers)
        os.execve(seat.argv[0], seat.argv, env)
    except BaseException as exc:
        why = str(exc) if isinstance(exc, LimitError) else f"{type(exc).__name__}: {exc}"
        text = f"could not start {seat.argv[0]}: {why}"
        with contextlib.suppress(BaseException):
            os.write(1, wire.reply("error", reason=text[:300]))
    os._exit(127)


def _reap(child: int, limits: SeatLimits, parent: int) -> None:
    """The reaper: wait for the seat, remove its pids cgroup, then write one ``ended`` line
    saying how it ended.  If arena's process dies first (Ctrl-C, a killed chunk), the reaper
    is told by SIGTERM and ends the seat, so its cgroup is removed all the same."""
    os.close(0)
    os.close(2)

    def end_seat(signum: int, frame: object) -> None:
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)

    signal.signal(signal.SIGTERM, end_seat)
    confine.die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:  # it died before the line above
        end_seat(signal.SIGTERM, None)
    try:
        _, status, usage = os.wait4(child, 0)
        over_memory = cgroups.went_over_memory(cgroups.seat_groups(os.getpid()))
        cgroups.remove_seat_groups(os.getpid())
        cpu = usage.ru_utime + usage.ru_stime
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            if cpu >= limits.cpu_seconds:
                how = f"went over its CPU time limit ({limits.cpu_seconds} s)"
            elif number == signal.SIGKILL and over_memory:
                how = f"went over its memory limit ({limits.memory_mb} MiB for all its processes)"
            elif number == signal.SIGXFSZ:
                how = f"wrote past its file size limit ({limits.file_size_mb} MiB)"
            else:
                how = f"was killed by {signal_name(number)}"
        else:
            how = f"exited with status {os.waitstatus_to_exitcode(status)}"
        os.write(1, wire.reply("ended", reason=f"the seat's process {how}"))
    finally:
        os._exit(0)
