"""Play a tournament's chunks in fresh processes, under a supervisor no strategy can stop.

The processes of a local run::

    main process      writes games.csv in game order; never runs strategy code
    └─ template       one per worker slot, forked from main before any thread starts; holds
       │              the loaded players and the score tables; single-threaded; never runs
       │              strategy code; supervises its chunk process
       └─ chunk       one per chunk of ``spec.chunk_games`` consecutive games (and per
                      re-play), forked from the template, leader of its own process group

When the compiled kernel plays every game (:attr:`~arena.tournaments.batch.BatchPlayer.compiled_only`),
no strategy code runs anywhere after the policies are read: the template plays its jobs itself,
with no chunk process to fork or supervise, and a job may hold several chunks (:meth:`ChunkPool._job_games`).

**Fresh state per chunk.**  A chunk always holds the same games and always starts from the same
clean template, so a strategy's class attributes and module globals are reset at every chunk
boundary and games.csv has the same bytes for any ``--workers`` or batch size.  What a strategy
may keep: instance attributes for one game; class and module state for the games of one chunk;
nothing across chunks.  The ``random`` module's global generator (and numpy's, if loaded) is
seeded per chunk from the tournament seed, so a strategy that uses it is reproducible too.

**An external deadline.**  The chunk process writes the number of each strategy call to a small
shared board when the call starts and when it returns (:class:`~arena.players.match.Guard`).
The in-process watchdog (SIGALRM) interrupts ordinary Python code at the move timeout; the
template samples the board every :data:`TICK` seconds, and if one call has run longer than the
timeout plus :data:`GRACE` (code stuck in C, a strategy that swallows or ignores the alarm), it
SIGKILLs the chunk's process group and forks a fresh chunk process that re-plays the chunk from
its first game with the instruction "call k is a timeout".  The call is not made; the same
``timeout`` row is written as if the in-process timeout had fired, and play goes on.  Rows sent
before the kill are kept; the re-play sends only the games after them.

**A process that dies** inside a strategy call (``os._exit``, a crash in C, the OOM killer) is
handled the same way, as an ``error`` of that seat at that call ("the strategy's process exited
with status 3").  One that dies outside any strategy call is arena's own failure: the run stops
with one line (:class:`BatchFailed`), keeping every game written.

**Forks.**  At the end of each chunk the template kills the chunk's process group, so processes
a strategy started don't outlive its chunk; when the run ends or is interrupted, each template
does the same and exits.  A template dies with the main process, a chunk process with its
template (Linux's parent-death signal).

**Pure caches.**  Each chunk process starts with the template's caches.  When ``optimal``
plays, the main process solves its common situations once before forking
(:func:`arena.players.solver.warm`); any other situation a chunk had to solve is solved once
more by its template, from the pristine rulesets, so later chunks find it cached.  Speed only,
never results: the template computes them itself, so nothing a strategy did to its own
process's caches reaches another chunk.
"""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import pickle
import random
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any, NoReturn

from arena.engine import Ruleset
from arena.engine.scoring import score_table
from arena.players import match
from arena.players.match import BOARD_SLOTS, GAME, PHASE, Guard
from arena.sandbox import NOWHERE, SeatPlace
from arena.tournaments.batch import (
    RULE_FIELDS,
    BatchPlayer,
    BatchResult,
    chunk_random_seed,
    compiled_games,
    load_kernel,
)
from arena.tournaments.chunks import Job, chunk_count, chunk_jobs
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.warm import warm_solvers

if TYPE_CHECKING:
    from arena.tournaments.compiled_games import CompiledGames, Variant

#: How often a template samples its chunk process's board (seconds).
TICK = 0.01
#: How long past the move timeout a call may run before its process is killed: time for the
#: in-process timeout (SIGALRM) to interrupt ordinary Python code first.
GRACE = 1.0
#: How long a chunk process may go without starting or finishing a strategy call before the
#: template gives up on it (it is stuck in arena's own code, or in a destructor or thread of a
#: strategy that no call can be blamed for).  Only with a move timeout.
STALL = 10.0
#: Jobs queued per template, and jobs in flight per template (results not yet written).
QUEUE = 2
WINDOW = 4
#: Chunks per job, at most, when the kernel plays every game: there is no strategy state to
#: reset between chunks, so bigger jobs only save messages and the fsync of each batch written.
COMPILED_JOB_CHUNKS = 20
PR_SET_PDEATHSIG = 1


class BatchFailed(RuntimeError):
    """Games could not be played (a process died outside any strategy call, or a Dask cluster
    gave up on them); the message is one line."""


# --------------------------------------------------------------------------- main process side
@dataclass
class _Template:
    pid: int
    commands: Connection  # main -> template
    results: Connection  # template -> main
    jobs: deque[Job]
    position: int = 0  # the next game its first job will send
    alive: bool = True


class ChunkPool:
    """Templates forked from this process, and the results of their chunks in game order."""

    def __init__(
        self, spec: TournamentSpec, workers: int, every: int | None = None, place: SeatPlace = NOWHERE
    ) -> None:
        self.spec = spec
        self.every = every
        self.place = place
        self.templates: list[_Template] = []
        warm_solvers(spec)
        for rules in spec.rulesets:
            score_table(rules)  # built once here (30 ms each): the templates and chunks inherit them
        # Made here, before the fork: reading the players' policies makes each player once.  Each
        # template loads the machine code after the fork, while this process goes on (it is half
        # a second of numba's start-up: not on the path to the first game's result twice).
        self.kernel = compiled_games(spec, load=False)
        self.workers = max(1, workers)
        try:
            for _ in range(self.workers):
                self.templates.append(self._fork_template())
        except BaseException:
            self.close(graceful=False)
            raise

    def _fork_template(self) -> _Template:
        commands_in, commands_out = Pipe(duplex=False)
        results_in, results_out = Pipe(duplex=False)
        _flush()
        pid = os.fork()
        if pid == 0:  # the template
            try:
                commands_out.close()
                results_in.close()
                for other in self.templates:  # the main process's ends, inherited
                    other.commands.close()
                    other.results.close()
                first = not self.templates
                _Supervisor(
                    self.spec, commands_in, results_out, self.every, self.place, self.kernel, first
                ).run()
            finally:
                os._exit(0)
        commands_in.close()
        results_out.close()
        return _Template(pid, commands_out, results_in, deque())

    def results(
        self,
        start: int,
        stop: int,
        while_waiting: Callable[[], object] | None = None,
        variant: Variant | None = None,
    ) -> Iterator[BatchResult]:
        """Results of games start..stop-1 in game order; raises :class:`BatchFailed`.
        ``while_waiting`` is called once, the first time there is no result to give yet: work
        of the caller's own (an import the reports need) done while the workers start.
        ``variant``: play the games of that seed and those policies instead of the spec's (a
        pool whose kernel plays every game only): one pool serves a whole tuning race."""
        if variant is not None and (self.kernel is None or not self.kernel.compiles_all):
            raise ValueError("only a pool whose kernel plays every game plays variants")
        jobs = chunk_jobs(start, stop, self._job_games(start, stop), variant)
        pending: dict[int, BatchResult | str] = {}
        open_stops: deque[int] = deque()  # each assigned job's stop, until its games are yielded
        window = WINDOW * len(self.templates)
        next_game = start
        exhausted = False
        while next_game < stop:
            while not exhausted and len(open_stops) < window:
                live = [t for t in self.templates if t.alive and len(t.jobs) < QUEUE]
                if not live:
                    break
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                template = min(live, key=lambda t: len(t.jobs))
                if not template.jobs:
                    template.position = job.emit_from
                template.jobs.append(job)
                open_stops.append(job.stop)
                template.commands.send_bytes(pickle.dumps(job))
            if next_game in pending:
                item = pending.pop(next_game)
                if isinstance(item, str):
                    raise BatchFailed(item)
                next_game = item.stop
                while open_stops and open_stops[0] <= next_game:
                    open_stops.popleft()
                yield item
                continue
            busy = {t.results: t for t in self.templates if t.alive and t.jobs}
            if not busy:  # can't happen: every unwritten game is queued or failed
                raise BatchFailed(f"no process is playing game {next_game:,} (an arena bug)")
            if while_waiting is not None:
                while_waiting()
                while_waiting = None
            for conn in wait(list(busy)):
                self._receive(busy[conn], pending)  # type: ignore[index]

    def _job_games(self, start: int, stop: int) -> int:
        """Games per job: a chunk, or with every game compiled (and no batch size asked for)
        whole chunks enough to keep every worker busy, up to :data:`COMPILED_JOB_CHUNKS`."""
        chunk = self.spec.chunk_games
        if self.kernel is None or not self.kernel.compiles_all or self.every is not None:
            return chunk
        per_worker = chunk_count(start, stop, chunk) // (WINDOW * self.workers)
        return chunk * max(1, min(COMPILED_JOB_CHUNKS, per_worker))

    def _receive(self, template: _Template, pending: dict[int, BatchResult | str]) -> None:
        try:
            kind, payload = pickle.loads(template.results.recv_bytes())
        except (EOFError, OSError):
            template.alive = False
            job = template.jobs[0]
            pending[template.position] = (
                f"a worker process died while playing games {template.position:,} to {job.stop - 1:,}"
            )
            template.jobs.clear()
            return
        if kind == "rows":
            result: BatchResult = payload
            pending[result.start] = result
            template.position = result.stop
        else:  # "failed": the template gave up on its job; it goes on with the next
            position, message = payload
            pending[position] = message
            template.position = template.jobs[0].stop
        if template.position >= template.jobs[0].stop:
            template.jobs.popleft()
            if template.jobs:
                template.position = template.jobs[0].emit_from

    def close(self, graceful: bool) -> None:
        """Stop every template (and, through it, its chunk process group) and reap it."""
        for template in self.templates:
            try:
                if graceful and template.alive:
                    template.commands.send_bytes(pickle.dumps(None))
                else:
                    os.kill(template.pid, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.monotonic() + (5.0 if graceful else 2.0)
        for template in self.templates:
            while True:
                try:
                    done, _ = os.waitpid(template.pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(template.pid, signal.SIGKILL)
                    os.waitpid(template.pid, 0)
                    break
                time.sleep(0.005)
            template.commands.close()
            template.results.close()
        self.templates = []


# --------------------------------------------------------------------------- template side
_CHILD: int | None = None  # the template's chunk process, for the SIGTERM handler


def _on_term(signum: int, frame: object) -> None:
    """A template told to stop (or whose main process died) takes its chunk's group down."""
    if _CHILD is not None:
        _kill_group(_CHILD)
    os._exit(0)


@dataclass
class _Attempt:
    """How one chunk process ended."""

    kind: str  # done, timeout, died, changed, failed
    sent_to: int  # every game before this one was sent to the main process
    call: int = -1
    text: str = ""
    keys: tuple = ()


class _Supervisor:
    """A template's loop: take a job, fork chunk processes until its games are all sent."""

    def __init__(
        self,
        spec: TournamentSpec,
        commands: Connection,
        results: Connection,
        every: int | None,
        place: SeatPlace = NOWHERE,
        kernel: CompiledGames | None = None,
        first: bool = True,
    ):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
        signal.signal(signal.SIGTERM, _on_term)
        die_with_parent(signal.SIGTERM)
        self.spec = spec
        self.commands = commands
        self.results = results
        self.every = every
        # No call may run longer than the move timeout, nor than a whole game clock.
        limits = [t for t in (spec.move_timeout, spec.game_time) if t is not None]
        self.limit = min(limits) if limits else None
        # Outside calls a chunk process may be starting a seat process (SeatLimits.start_seconds).
        self.stall = STALL + (spec.seat_limits.start_seconds if spec.seat_limits is not None else 0.0)
        self.pid = os.getpid()
        #: Why the kernel could not be loaded: every job is answered with it.
        self.broken: str | None = None
        if kernel is not None:
            try:
                load_kernel(kernel, note=first)  # one template tells a terminal of a first compile
            except Exception as exc:  # numba's own failure: the run stops with one line
                self.broken = f"the compiled kernel could not be loaded ({' '.join(str(exc).split())})"
        self.player = BatchPlayer(spec, place=place, kernel=kernel)
        self._variant: tuple[Variant, CompiledGames] | None = None  # the last variant's kernel
        self._buffer = mmap.mmap(-1, 8 * BOARD_SLOTS)  # shared with the chunk processes
        self.board = memoryview(self._buffer).cast("q")
        gc.freeze()  # chunk processes don't copy the template's objects just to scan them

    def run(self) -> None:
        while True:
            try:
                job = pickle.loads(self.commands.recv_bytes())
            except (EOFError, OSError):
                return
            if job is None:
                return
            if self.broken is not None:
                self._send(("failed", (job.emit_from, self.broken)))
                continue
            self._play(job)

    def _play(self, job: Job) -> None:
        if job.variant is not None:
            self._play_variant(job)
            return
        if self.player.compiled_only:
            # The kernel runs no strategy code: nothing to supervise, no chunk process to fork.
            self.player.play_chunk(
                job.emit_from,
                job.emit_from,
                job.stop,
                send=lambda r: self._send(("rows", r)),
                every=self.every,
            )
            return
        injected: dict[int, tuple[str, str]] = {}
        careful: set[int] = set()
        sent_to = job.emit_from
        # Each re-play gets past one more fatal call or finds one more changed ruleset.
        for _ in range(4 * (job.stop - job.first) + 8):
            attempt = self._attempt(job, sent_to, injected, careful)
            sent_to = attempt.sent_to
            if attempt.kind == "done":
                self._learn(attempt.keys)
                return
            if attempt.kind == "failed":
                self._send(("failed", (sent_to, attempt.text)))
                return
            if attempt.kind == "timeout":
                injected[attempt.call] = ("timeout", "")
            elif attempt.kind == "died":
                injected[attempt.call] = ("error", attempt.text)
            elif attempt.kind == "changed":
                careful.add(attempt.call)
        self._send(
            ("failed", (sent_to, f"gave up on games {sent_to:,} to {job.stop - 1:,} after many re-plays"))
        )

    def _play_variant(self, job: Job) -> None:
        """A job of a variant's games: the kernel's tables for it are built once, for its jobs in
        a row."""
        variant = job.variant
        assert variant is not None and self.player.kernel is not None
        if self._variant is None or self._variant[0] != variant:
            self._variant = (variant, self.player.kernel.variant(variant))
        kernel = self._variant[1]
        every = self.every or max(1, job.stop - job.emit_from)
        for piece in kernel.pieces(job.emit_from, job.stop, every):
            self._send(("rows", piece))

    def _send(self, message: Any) -> None:
        self.results.send_bytes(pickle.dumps(message))

    def _attempt(self, job: Job, sent_to: int, injected: dict, careful: set[int]) -> _Attempt:
        global _CHILD
        board = self.board
        board[PHASE] = 0
        board[GAME] = job.first
        reader, writer = Pipe(duplex=False)
        _flush()
        pid = os.fork()
        if pid == 0:
            try:
                reader.close()
                self.commands.close()
                self.results.close()
                _chunk_process(self, job, sent_to, injected, careful, writer)
            finally:
                os._exit(70)
        _CHILD = pid
        writer.close()
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)  # also done by the child: whichever runs first
        reaped = False
        try:
            attempt, reaped = self._watch(pid, reader, job, sent_to)
        finally:
            _kill_group(pid)
            if not reaped:
                os.waitpid(pid, 0)
            _CHILD = None
            reader.close()
        return attempt

    def _watch(self, pid: int, reader: Connection, job: Job, sent_to: int) -> tuple[_Attempt, bool]:
        """Relay the chunk process's rows until it finishes, dies or overruns a call."""
        board = self.board
        limit = self.limit
        phase, since = -1, time.monotonic()
        changed: int | None = None
        closed = False

        def handle(data: bytes) -> _Attempt | None:
            nonlocal sent_to, changed, phase
            kind, payload = pickle.loads(data)
            phase = -1  # a message is progress: time the board afresh (the template may have been stopped)
            if kind == "rows":
                self.results.send_bytes(data)  # relayed as it came: no second pickling
                sent_to = payload.stop
            elif kind == "done":
                return _Attempt("done", sent_to, keys=payload)
            elif kind == "changed":
                changed = payload
            elif kind == "crashed":
                return _Attempt("failed", sent_to, text=payload)
            return None

        while True:
            if closed:
                time.sleep(TICK)
            elif reader.poll(TICK):
                try:
                    outcome = handle(reader.recv_bytes())
                except (EOFError, OSError):
                    closed = True
                    outcome = None
                if outcome is not None:
                    return outcome, False
                continue  # read everything that is waiting before looking at the clock
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                while not closed and reader.poll(0):  # what it sent before it ended
                    try:
                        outcome = handle(reader.recv_bytes())
                    except (EOFError, OSError):
                        break
                    if outcome is not None:
                        return outcome, True
                return self._ended(status, changed, job, sent_to), True
            now = time.monotonic()
            value = board[PHASE]
            if value != phase:
                phase, since = value, now
            elif limit is not None:
                if phase % 2 == 1 and now - since > limit + GRACE:
                    return _Attempt("timeout", sent_to, call=(phase - 1) // 2), False
                if phase % 2 == 0 and now - since > max(self.stall, limit + GRACE):
                    game = board[GAME]
                    return _Attempt(
                        "failed",
                        sent_to,
                        text=f"the process playing game {game:,} stopped responding outside any "
                        f"strategy call for {self.stall:g} s (a strategy's destructor or thread?)",
                    ), False

    def _ended(self, status: int, changed: int | None, job: Job, sent_to: int) -> _Attempt:
        if changed is not None:
            return _Attempt("changed", sent_to, call=changed)
        phase = self.board[PHASE]
        how = _how(status)
        if phase % 2 == 1:  # inside call (phase - 1) // 2: the strategy's doing
            return _Attempt("died", sent_to, call=(phase - 1) // 2, text=f"the strategy's process {how}")
        game = self.board[GAME]
        return _Attempt(
            "failed",
            sent_to,
            text=f"the process playing game {game:,} {how} outside any strategy call "
            f"(games {sent_to:,} to {job.stop - 1:,} not written)",
        )

    def _learn(self, keys: tuple) -> None:
        """Solve, from the pristine rulesets, the situations a chunk process had to solve."""
        if not keys:
            return
        from arena.players import solver

        for index, minimum, cap in keys:
            solver.solve_turn(self.spec.rulesets[index], minimum, cap)


# --------------------------------------------------------------------------- chunk process side
def _chunk_process(
    template: _Supervisor, job: Job, sent_to: int, injected: dict, careful: set[int], writer: Connection
) -> NoReturn:
    """Play ``job`` in this fresh process and send its rows; never returns."""
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)  # its own process group: killed as one, and out of the terminal's Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # dies quietly
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(signal.SIGKILL)
    if os.getppid() != template.pid:  # the template died before the line above
        os._exit(0)
    try:
        spec = template.spec
        match.strategy_interrupts_are_faults = True
        seed = chunk_random_seed(spec.seed, job.first)
        random.seed(seed)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            numpy.random.seed(seed % 2**32)
        solver = sys.modules.get("arena.players.solver")
        solved_before = len(solver.SOLVED) if solver is not None else 0
        player = template.player
        player.guard = Guard(spec.move_timeout, template.board, injected, spec.game_time)

        def changed_rules(game: int) -> None:
            _flush()
            writer.send(("changed", game))
            _exit_quietly(0)

        player.play_chunk(
            job.first,
            sent_to,
            job.stop,
            send=lambda result: writer.send(("rows", result)),
            every=template.every,
            careful=careful,
            on_changed_rules=changed_rules,
        )
        # What the strategies printed goes out before the template, told "done", kills the group.
        _flush()
        writer.send(("done", _solved_keys(spec, solved_before)))
    except BaseException as exc:  # arena's own failure, not a strategy's: those are faults
        with contextlib.suppress(BaseException):
            writer.send(
                (
                    "crashed",
                    f"arena failed while playing games {sent_to:,} to {job.stop - 1:,}: "
                    f"{match.one_line(exc)}",
                )
            )
        _exit_quietly(70)
    _exit_quietly(0)


def _solved_keys(spec: TournamentSpec, before: int) -> tuple[tuple[int, int, int | None], ...]:
    """The solver situations this process solved, by ruleset index; only plausible ones (the
    template solves them: a strategy must not make it do unbounded work)."""
    solver = sys.modules.get("arena.players.solver")
    if solver is None:
        return ()
    pristine = [RULE_FIELDS(rules) for rules in spec.rulesets]
    keys = []
    for rules, minimum, cap in solver.SOLVED[before : before + 2000]:
        if type(rules) is not Ruleset or type(minimum) is not int or not (cap is None or type(cap) is int):
            continue
        values = RULE_FIELDS(rules)
        for index, expected in enumerate(pristine):
            # Field by field, exact built-in types only: no strategy code runs here.
            if all(type(a) is type(b) and a == b for a, b in zip(values, expected, strict=True)):
                limit = spec.rulesets[index].target
                if 0 <= minimum <= limit and (cap is None or 0 <= cap <= limit):
                    keys.append((index, minimum, cap))
                break
    return tuple(keys)


# --------------------------------------------------------------------------- helpers
def _kill_group(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown"
        return f"was killed by signal {number} ({name})"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def die_with_parent(signum: int) -> None:
    """Ask Linux to send ``signum`` to this process when its parent dies (elsewhere: nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _flush() -> None:
    # A fork copies unwritten output too: flush it, or it would be written twice.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()


def _exit_quietly(code: int) -> NoReturn:
    _flush()
    os._exit(code)
