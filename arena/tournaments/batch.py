"""Play a range of scheduled games and return their rows: the work one process does.

Games whose every seat has a declarative policy are played in the compiled kernel
(:mod:`arena.compiled`, with ``spec.compiled``), which runs no strategy code and gives the same
rows.  Every other game is played in Python: it gets fresh player objects, and every call into a
strategy goes through a :class:`~arena.players.match.Guard`, so a faulty strategy loses only the
game it broke, and only its own seat of it: the other seats play that game to its end without
it (``docs/faults.md``).

What a strategy may keep, and for how long: instance attributes live for one game (each game
makes new objects).  Class attributes and module globals live as long as the process that
plays the game; under the local backend that is one *chunk* of ``spec.chunk_games``
consecutive games, each played in a fresh process (see :mod:`arena.tournaments.supervisor`),
so such state is reset between chunks and never carried from one chunk into another.  An
isolated player's seat process serves the games of one seat order of its chunk
(:class:`~arena.sandbox.SeatPool`): the seat orders of a deal share its dice, so a process that
played two of them would know, in the second, dice it saw in the first.

Shared objects.  The only object a view exposes that Python lets a strategy change is the
ruleset (``object.__setattr__`` works on a frozen dataclass); the view's tuples and ``Keep``
records are immutable.  Games are played on a private copy of each ruleset, checked against
the values the process started with after every game (one attribute fetch and an identity
test per field).  A changed copy is replaced before the next game, so no game is played on a
ruleset another game changed; under a supervisor the game that changed it is also re-played
with a check after every call, which finds the call and faults its seat.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import operator
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from arena.engine import Ruleset
from arena.players import PlayerFault, play_match
from arena.players.match import CREATE, GAME, NO_ARGUMENT, DecisionClock, Guard, ReportedFailure
from arena.sandbox import NOWHERE, SeatPlace, SeatPool
from arena.tournaments.event_records import record_json
from arena.tournaments.interrupts import signals_held
from arena.tournaments.results import BatchResult, FaultDetail, GameRecord
from arena.tournaments.rows import csv_field, game_rows
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import TournamentSpec

if TYPE_CHECKING:
    from arena.tournaments.compiled_games import CompiledGames


def chunk_random_seed(tournament_seed: int, first_game: int) -> int:
    """The seed of the ``random`` module's global generator (and numpy's) for the chunk that
    starts at ``first_game``: a keyed hash, so a strategy that reads the generator's state can't
    work back to the tournament seed and from it to the dice."""
    data = f"{tournament_seed}:{first_game}".encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, key=b"arena chunk random").digest(), "little")


#: A ruleset's field values, in declaration order, in one call.
RULE_FIELDS = operator.attrgetter(*(f.name for f in dataclasses.fields(Ruleset)))


def compiled_games(spec: TournamentSpec, *, load: bool = True) -> CompiledGames | None:
    """The compiled kernel for the games of ``spec`` whose every seat has a declarative policy,
    or None: when ``spec.compiled`` is off, numba is missing, or no player has a policy; and
    for keyed seeds (a league's plan), which the kernel can't derive (it knows splitmix64 only).

    Reading the policies makes each player once: call it where strategy code may run (the main
    process, before the templates are forked, or a worker), never in a template.  ``load``:
    load the machine code now (:func:`load_kernel`); a pool passes False and each template
    loads it after the fork, while the main process gets on with its own work."""
    if not spec.compiled or spec.seed_key is not None:
        return None
    from arena.compiled import numba_available, player_policy, ruleset_problem

    if not numba_available() or ruleset_problem(spec) is not None:
        return None
    policies = [player_policy(p) for p in spec.players]  # each read makes players: once
    if not any(policies):
        return None
    # Not cut halfway by Ctrl-C: numpy, stopped in the middle of its first import, stays broken
    # in this process ("cannot load module more than once"), and the reports need it.
    with signals_held():
        from arena.tournaments.compiled_games import CompiledGames

    kernel = CompiledGames(spec, policies)
    if load:
        load_kernel(kernel)
    return kernel


def load_kernel(kernel: CompiledGames, *, note: bool = True) -> None:
    """Load ``kernel``'s machine code from numba's disk cache, or compile it.  The first load
    compiles (about 10 s, once): with ``note``, a terminal is told so after a second."""
    timer = threading.Timer(1.0, _say_compiling) if note and sys.stderr.isatty() else None
    if timer is not None:
        timer.start()
    try:
        kernel.load()
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()  # no thread may be left when chunk processes are forked


def _say_compiling() -> None:
    print(
        "compiling the kernel for declarative strategies (once, about 10 s; cached on disk) ...",
        file=sys.stderr,
        flush=True,
    )


#: Each seat's (seconds deciding, decisions) in one game.
SeatTimes = tuple[tuple[float, int], ...]


class BatchPlayer:
    """Plays games of one tournament in this process.  Built once per process (or per
    template, before the chunk processes are forked from it).

    ``kernel``: the compiled kernel (:func:`compiled_games`) for the games it can play, or None;
    the other games are played in Python.  ``"make"``: made here when ``spec.compiled`` is on."""

    def __init__(
        self,
        spec: TournamentSpec,
        guard: Guard | None = None,
        place: SeatPlace = NOWHERE,
        kernel: CompiledGames | Literal["make"] | None = "make",
    ) -> None:
        self.spec = spec
        self.kernel = compiled_games(spec) if kernel == "make" else kernel
        #: Every game is played by the kernel: no strategy code runs in this process.
        self.compiled_only = self.kernel is not None and self.kernel.compiles_all
        self.place = place  # where isolated players' seat processes log, and what they must not see
        self._isolated = [p.isolated for p in spec.players]
        self.schedule = Schedule(spec)
        # Made when first needed: a Guard with a timeout starts a watchdog thread, and a
        # template that forks chunk processes must have no threads.
        self.guard = guard
        self._ruleset_fields = [csv_field(r.name) for r in spec.rulesets]
        self._player_fields = [csv_field(label) for label in spec.labels]
        # The values every game must be played with, taken before any strategy code runs here.
        self._pristine = [RULE_FIELDS(r) for r in spec.rulesets]
        self._rules = [copy_ruleset(r) for r in spec.rulesets]
        #: Each player's [seconds deciding, decisions] in the piece being played (time_decisions).
        self._times: list[list[float]] | None = None

    def play(self, start: int, stop: int) -> BatchResult:
        """Games start..stop-1, played here, as one result."""
        results: list[BatchResult] = []
        self.play_chunk(start, start, stop, send=results.append)
        return results[0] if results else BatchResult(start, stop, "", 0, ())

    def play_chunk(
        self,
        first: int,
        emit_from: int,
        stop: int,
        *,
        send: Callable[[BatchResult], None],
        every: int | None = None,
        careful: Iterable[int] = (),
        on_changed_rules: Callable[[int], None] | None = None,
    ) -> None:
        """Play games first..stop-1 and ``send`` the results of those from ``emit_from`` on, in
        pieces of ``every`` games (one piece if None).  Games before ``emit_from`` are played
        only to bring class and module state to where it was (a chunk re-played after a kill).

        ``careful``: games in which to check the rulesets after every call.  When a game is
        found to have changed its ruleset, ``on_changed_rules(game)`` is called first (a
        supervised process reports it and exits, to be re-played carefully); then the copy is
        replaced and play goes on.
        """
        spec = self.spec
        if self.compiled_only:
            assert self.kernel is not None
            # No strategy state to bring up to date: games before emit_from need no playing.
            for piece in self.kernel.pieces(emit_from, stop, every or max(1, stop - emit_from)):
                send(piece)
            return
        if self.guard is None:
            self.guard = Guard(spec.move_timeout, game_time=spec.game_time)
        guard = self.guard
        pool = None
        if spec.seat_limits is not None:
            pool = SeatPool(
                spec.players,
                spec.seat_limits,
                spec.move_timeout,
                random_seed=chunk_random_seed(spec.seed, first),
                place=self.place,
                # With game clocks a call's deadline can be shorter than the move timeout.
                deadline=None if spec.game_time is None else (lambda: guard.call_limit),
            )
            pool.start_early(self._seat_keys(first, stop))
        if pool is None:
            self._play_games(
                first, emit_from, stop, send, every, frozenset(careful), on_changed_rules, guard, pool
            )
            return
        # The last piece is sent after the seat processes have gone: when a run has all its
        # rows, none of its seats is still running.
        last: list[BatchResult] = []

        def send_but_last(result: BatchResult) -> None:
            (last.append if result.stop == stop else send)(result)

        try:
            self._play_games(
                first,
                emit_from,
                stop,
                send_but_last,
                every,
                frozenset(careful),
                on_changed_rules,
                guard,
                pool,
            )
        finally:
            pool.close()
        for result in last:
            send(result)

    def _play_games(
        self,
        first: int,
        emit_from: int,
        stop: int,
        send: Callable[[BatchResult], None],
        every: int | None,
        careful: frozenset[int],
        on_changed_rules: Callable[[int], None] | None,
        guard: Guard,
        pool: SeatPool | None,
    ) -> None:
        # The games the kernel can play: played at once, as they run no strategy code and so
        # don't depend on the Python games around them; skipped when re-played for state.
        compiled = self._compiled_rows(first, emit_from, stop)
        parts: list[str] = []
        shares: list[tuple[float, ...]] = []
        details: list[FaultDetail] = []  # one per fault of the piece
        records: list[GameRecord] = []
        self._times = [[0.0, 0] for _ in self.spec.players] if self.spec.time_decisions else None
        game_times: list[SeatTimes] = []
        piece_start = emit_from
        for game in range(first, stop):
            if game in compiled:
                if game < emit_from:
                    continue
                text, share = compiled[game]
                seat_times: SeatTimes = ()
            else:
                played = self._play_game(game, emit_from, careful, on_changed_rules, guard, pool)
                if played is None:
                    continue
                text, share, faults, record, seat_times = played
                details.extend(faults)
                if record is not None:
                    records.append(record)
            if self._times is not None:
                game_times.append(seat_times)
            parts.append(text)
            shares.append(share)
            if (every is not None and game + 1 - piece_start >= every) or game + 1 == stop:
                send(
                    BatchResult(
                        piece_start,
                        game + 1,
                        "".join(parts),
                        len(details),
                        tuple(shares),
                        tuple(details),
                        tuple(records),
                        () if self._times is None else tuple((t, int(n)) for t, n in self._times),
                        game_times=tuple(game_times),
                    )
                )
                parts, shares, details, records, game_times = [], [], [], [], []
                if self._times is not None:
                    self._times = [[0.0, 0] for _ in self.spec.players]
                piece_start = game + 1

    def _play_game(
        self,
        game: int,
        emit_from: int,
        careful: frozenset[int],
        on_changed_rules: Callable[[int], None] | None,
        guard: Guard,
        pool: SeatPool | None,
    ) -> tuple[str, tuple[float, ...], list[FaultDetail], GameRecord | None, SeatTimes] | None:
        """Play ``game`` in Python: its rows, win shares, faults (in the order they happened),
        its record if the spec keeps it and each seat's (seconds deciding, decisions) if the
        spec times them (else ()); None for a game before ``emit_from`` (played only for the
        state it leaves)."""
        spec = self.spec
        guard.board[GAME] = game
        slot = self.schedule.slot(game)
        index = slot.ruleset
        rules = self._rules[index]
        if game in careful:
            guard.watch = lambda index=index: self._restored(index)
        faults: list[PlayerFault] = []
        seated: list = []
        for seat, player in enumerate(slot.seats):
            try:
                if pool is not None and self._isolated[player]:
                    # Starting a seat process is arena's time, not the strategy's: untimed
                    # here, under its own deadline (SeatLimits.start_seconds).
                    try:
                        seated.append(pool.seat(player, slot.order))
                    except ReportedFailure as failure:
                        raise PlayerFault(seat, failure.status, failure.reason) from None
                else:
                    seated.append(guard.call(seat, CREATE, spec.players[player].create, NO_ARGUMENT, None))
            except PlayerFault as fault:
                seated.append(fault)  # out of the game from the start
        # Every game's events are gathered when records are kept: a game with a fault is kept
        # whatever its deal, and a fault is known only once the game is over.
        happened: list | None = [] if spec.record_deals and game >= emit_from else None
        on_fault = faults.append
        if happened is not None:

            def on_fault(fault: PlayerFault) -> None:
                faults.append(fault)
                happened.append(fault)

        clock = DecisionClock(len(seated)) if self._times is not None and game >= emit_from else None
        result = play_match(
            rules,
            seated,
            slot.seed,
            on_event=None if happened is None else happened.append,
            max_rounds=spec.max_rounds,
            guard=guard,
            on_fault=on_fault,
            clock=clock,
        )
        guard.watch = None
        if clock is not None and self._times is not None:
            for seat, player in enumerate(slot.seats):
                self._times[player][0] += clock.seconds[seat]
                self._times[player][1] += clock.decisions[seat]
        del seated
        if self._changed(index):
            if on_changed_rules is not None and game not in careful:
                on_changed_rules(game)
            self._rules[index] = copy_ruleset(spec.rulesets[index], self._pristine[index])
        if game < emit_from:
            return None
        names = [self._player_fields[i] for i in slot.seats]
        ruleset = self._ruleset_fields[index]
        details = [
            FaultDetail(game, f.seat, spec.labels[slot.seats[f.seat]], f.status, f.reason, f.traceback_text)
            for f in faults
        ]
        statuses = {f.seat: (f.status, f.reason) for f in faults}
        text = game_rows(ruleset, game, slot.deal, slot.seed, names, result, statuses)
        record = None
        if happened is not None and (faults or slot.deal < spec.record_deals):
            record = GameRecord(game, record_json([spec.labels[i] for i in slot.seats], happened))
        seat_times = () if clock is None else tuple(zip(clock.seconds, clock.decisions, strict=True))
        return text, result.win_shares, details, record, seat_times

    def _seat_keys(self, first: int, stop: int) -> list[tuple[int, int]]:
        """The (isolated player, seat order) pairs of games first..stop-1, in order of first use:
        the seat processes a chunk needs.  Read off the schedule (a few µs a game), until every
        pair there can be is found."""
        schedule = self.schedule
        wanted = sum(self._isolated) * schedule.orders
        keys: dict[tuple[int, int], None] = {}
        for game in range(first, stop):
            slot = schedule.slot(game)
            for player in slot.seats:
                if self._isolated[player]:
                    keys[player, slot.order] = None
            if len(keys) == wanted:
                break
        return list(keys)

    def _compiled_rows(
        self, first: int, emit_from: int, stop: int
    ) -> dict[int, tuple[str, tuple[float, ...]]]:
        """Rows and win shares of the kernel's games among first..stop-1, by game number; those
        before ``emit_from`` are in the dict with no rows (they are skipped)."""
        kernel = self.kernel
        if kernel is None:
            return {}
        games = [
            g for g, ok in zip(range(first, stop), kernel.compilable(range(first, stop)), strict=True) if ok
        ]
        played = [g for g in games if g >= emit_from]
        rows: dict[int, tuple[str, tuple[float, ...]]] = dict.fromkeys(games, ("", ()))
        rows.update(zip(played, kernel.play_each(played), strict=True))
        return rows

    def _restored(self, index: int) -> bool:
        """:meth:`_changed`, and if so the copy set back to its values in place: the seat that
        changed it is out, and the others play on, on the ruleset as it was."""
        if not self._changed(index):
            return False
        rules = self._rules[index]
        for f, value in zip(dataclasses.fields(Ruleset), self._pristine[index], strict=True):
            object.__setattr__(rules, f.name, value)
        return True

    def _changed(self, index: int) -> bool:
        """True if the copy of ruleset ``index`` games are played on no longer holds the values
        this process started with (compared by identity: no strategy code runs)."""
        return any(map(operator.is_not, RULE_FIELDS(self._rules[index]), self._pristine[index]))


def copy_ruleset(rules: Ruleset, values: tuple | None = None) -> Ruleset:
    """A private copy of ``rules`` (with ``values`` for its fields, if given), equal to it, so
    caches keyed by the ruleset still find their entries."""
    fresh = copy.copy(rules)
    if values is not None:
        for f, value in zip(dataclasses.fields(Ruleset), values, strict=True):
            object.__setattr__(fresh, f.name, value)
    return fresh
