"""Play one game between Player objects; every call into a strategy goes through a guard.

Everything arena reads from a strategy goes through :class:`Guard`: the constructor, the
``name`` and the hook lookups, ``start_game``, each ``decide`` together with everything the
engine does with the returned action (it is applied to the game inside the timed call, so an
action object whose methods loop or raise is the strategy's fault, and so is a ``repr`` the
engine needs to explain why it is illegal), ``end_game``, and the text and traceback of
whatever the strategy raised.  Each call is timed
against the move timeout, and every failure is attributed to its seat as a
:class:`PlayerFault` with a status (``error``: the strategy raised; ``illegal``: it returned an
illegal action; ``timeout``: it ran past the move timeout) and a one-line reason of at most
:data:`REASON_LIMIT` characters, so a tournament can record it and go on.

A fault changes nothing for the other seats (``docs/faults.md``): with ``on_fault``,
:func:`play_match` reports the fault, puts the seat out of the game
(:meth:`~arena.engine.game.Game.retire`) and plays on, so the others finish the game they would
have played with that seat skipped; the faulted seat ranks last and wins nothing.

Supervision from outside.  Each guarded call is numbered, and its number is written to a
*board* (a few integers in shared memory) when it starts and when it ends: two integer stores
per call, no system call.  A supervising process (:mod:`arena.tournaments.supervisor`) reads
the board, so it can kill a process whose call overran the deadline by more than a grace
period, or that died inside a call, and then re-play the chunk in a fresh process with the
instruction "call k is a timeout / an error" (:attr:`Guard.injected`): the call is not made,
the same fault is recorded as if the in-process timeout had fired, and play goes on.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import traceback
from collections.abc import Callable, Mapping, Sequence
from time import perf_counter
from typing import Any

from arena.engine import DEFAULT_MAX_ROUNDS, Game, GameResult, IllegalAction, Ruleset, TurnEnd, TurnView
from arena.engine.events import Event
from arena.players.names import name_refusal, normal_name
from arena.players.protocol import GameInfo, Player
from arena.players.text import csv_text, visible
from arena.players.timeout import MoveTimeout, move_clock

#: In a worker process, which ignores Ctrl-C, a KeyboardInterrupt can only come from a strategy,
#: so there it is the strategy's fault; in the main process it is the user's Ctrl-C.  Workers set
#: this (see arena.tournaments.supervisor).
strategy_interrupts_are_faults = False

#: The key of the hash that makes strategy seeds (see :func:`strategy_seed`).
STRATEGY_SEED_KEY = b"arena strategy seed"

#: Fault reasons are cut to this many characters (a 2 MB exception message or a keep of 200,000
#: dice must not bloat games.csv).
REASON_LIMIT = 300
#: A fault's traceback (for debugging, not for games.csv) is cut to this many characters.
TRACEBACK_LIMIT = 20_000
#: Stands for the text of an exception whose ``__str__`` fails.
TEXT_UNAVAILABLE = "<exception text unavailable>"

#: Board slots: the phase (2k+1 while call k runs, 2k+2 once it has returned) and the game.
PHASE = 0
GAME = 1
BOARD_SLOTS = 2

#: What a guarded call is, for the fault reasons: a decision, a hook, or setting a player up.
DECIDE = "decide"
CREATE = "create"
PREPARE = "prepare"  # reading the name and looking up the hooks
START_GAME = "start_game"
END_GAME = "end_game"
END_TURN = "end_turn"


def strategy_seed(game_seed: int, seat: int) -> int:
    """The seed of a seat's ``GameInfo.rng``: a keyed BLAKE2b hash of the game seed and the seat.

    One-way on purpose.  The dice are a function of the game seed, so a seed a strategy could
    turn back into the game seed (as it could a mix of bijections) would let it replay the dice
    and know every roll in advance; a hash can't be inverted."""
    data = f"{game_seed}:{seat}".encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, key=STRATEGY_SEED_KEY).digest(), "little")


class ReportedFailure(Exception):
    """A failure described elsewhere, recorded as it is: a seat process reporting what its
    strategy raised (with its traceback), or how a seat process died.  ``status`` is
    ``error``, ``illegal`` or ``timeout``.  ``from_stderr``: the traceback is the last lines
    the seat wrote to stderr before it died (:mod:`arena.sandbox.last_words`), which a terminal
    that shows the seat's stderr has shown already."""

    def __init__(
        self, status: str, reason: str, traceback_text: str = "", *, from_stderr: bool = False
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.traceback_text = traceback_text
        self.from_stderr = from_stderr


class PlayerFault(Exception):
    """A player broke the game: it raised (``error``), returned an illegal action (``illegal``)
    or ran past the move timeout (``timeout``).  ``game`` is the game as it stood.  The reason is
    made safe to store and print (:func:`clean_reason`)."""

    def __init__(
        self, seat: int, status: str, reason: str, game: Game | None = None, traceback_text: str = ""
    ) -> None:
        reason = clean_reason(reason)
        super().__init__(f"seat {seat}: {status}: {reason}")
        self.seat = seat
        self.status = status
        self.reason = reason
        self.game = game
        self._traceback = traceback_text

    @property
    def traceback_text(self) -> str:
        """The full traceback of what the strategy raised, or "" if the fault was not an
        exception (an illegal action, a timeout, a process that died)."""
        # A seat's ReportedFailure brings the strategy's own traceback, or none (a program that
        # died, a cmd: bot's error reply): arena's frames that raised it would only mislead.
        if self._traceback or self.__cause__ is None or type(self.__cause__) is ReportedFailure:
            return self._traceback
        return format_traceback(self.__cause__)


def shorten(text: str, limit: int = REASON_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis where it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clean_reason(text: str) -> str:
    """A fault reason as arena stores and prints it: on one line, every hidden character (an
    ESC, a bidi override; see :mod:`arena.players.text`) written as a visible escape, cut to
    :data:`REASON_LIMIT` characters, and with an apostrophe in front if it would start with a
    spreadsheet formula character.  Its text is the entry's choice, and it goes into games.csv,
    errors.csv, errors.log and onto the terminal."""
    text = text[: 2 * REASON_LIMIT]
    if not text.isprintable():  # plain text (most reasons) is kept as it is
        text = visible(" ".join(text.split()))
    return shorten(csv_text(text))


def one_line(exc: BaseException) -> str:
    """``Type: message`` on one line and at most :data:`REASON_LIMIT` characters.  Never raises
    (an exception whose ``__str__`` fails gives :data:`TEXT_UNAVAILABLE`), except that a
    :class:`MoveTimeout` passes through, so a ``__str__`` that runs forever can be stopped."""
    try:
        name = type(exc).__name__
        if type(name) is not str:
            name = "exception"
    except MoveTimeout:
        raise
    except BaseException:
        name = "exception"
    try:
        text = str(exc)
    except MoveTimeout:
        raise
    except BaseException:
        text = TEXT_UNAVAILABLE
    # Cut before splitting: a 2 MB message costs no more than a short one.
    text = " ".join(text[: 2 * REASON_LIMIT].split())
    return shorten(f"{name}: {text}" if text else name)


def format_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` as text, cut to :data:`TRACEBACK_LIMIT` characters (its head and
    its last lines); a placeholder if formatting it fails."""
    try:
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except MoveTimeout:
        raise
    except BaseException:
        return f"{TEXT_UNAVAILABLE} (the traceback could not be formatted)\n"
    if len(text) <= TRACEBACK_LIMIT:
        return text
    tail = TRACEBACK_LIMIT // 5
    left_out = len(text) - TRACEBACK_LIMIT
    return f"{text[: TRACEBACK_LIMIT - tail]}\n… ({left_out:,} characters left out) …\n{text[-tail:]}"


def cut_middle(text: str, limit: int = REASON_LIMIT) -> str:
    """``text`` on one line and cut to ``limit`` characters by leaving out its middle, which
    keeps the end of an engine message ("…: 200000 dice, but only 6 were rolled")."""
    if len(text) > 4 * limit:
        text = f"{text[: 2 * limit]} {text[-2 * limit :]}"  # split only what can be kept
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    tail = limit // 3
    return f"{text[: limit - tail - 3]} … {text[-tail:]}"


def timeout_reason(kind: str, limit: float | None) -> str:
    """The reason recorded when a call of ``kind`` ran past ``limit`` seconds (None: past the
    deadline of the player's seat process)."""
    if limit is None:
        return "no answer within its seat's deadline" if kind == DECIDE else f"{kind}: no answer in time"
    if kind == DECIDE:
        return f"no decision within {limit:g} s"
    if kind == CREATE:
        return f"creating the player took longer than {limit:g} s"
    if kind == PREPARE:
        return f"reading the player's name and hooks took longer than {limit:g} s"
    return f"{kind} took longer than {limit:g} s"


def clock_reason(kind: str, game_time: float) -> str:
    """The reason recorded when a seat's call of ``kind`` ran past what was left of its game
    clock (``game_time`` seconds for all its calls in one game; ``docs/faults.md``)."""
    if kind == DECIDE:
        return f"used up its game time ({game_time:g} s)"
    return f"{kind}: used up its game time ({game_time:g} s)"


def error_reason(kind: str, text: str) -> str:
    """The reason recorded when a call of ``kind`` failed with ``text``."""
    if kind == DECIDE:
        return text
    if kind == CREATE:
        return f"creating the player failed: {text}"
    if kind == PREPARE:
        return f"reading the player's name and hooks failed: {text}"
    return f"{kind}: {text}"


class _NoArgument:
    """Marks a guarded call that takes no argument (a constructor)."""


NO_ARGUMENT = _NoArgument()


class Guard:
    """Makes every call into a strategy: timed, numbered on the board, and any failure a fault.

    ``limit``: the move timeout in seconds (None: untimed).  ``board``: the shared integers a
    supervisor reads (see the module docstring); a private one if None.  ``injected``: call
    number -> (status, text) for calls a supervisor found fatal in an earlier attempt at the
    same games: such a call is not made; it is recorded as that fault (``timeout``; or ``error``
    with ``text`` as the failure).  Calls are numbered from 0 in the order they are made.

    Timing (see :mod:`arena.players.timeout`): in the main thread a call is only marked as
    running, with a token unique to it, and the watchdog's signal stops it; elsewhere the clock
    is read before and after each call.

    ``game_time``: a chess clock, the seconds each seat may spend in all its decisions and
    ``end_turn`` calls of one game together (:meth:`start_clocks` sets every seat's clock at a
    game's start; ``start_game`` and ``end_game``, once a game each, have the move timeout
    alone, as they include a seat process's setting up).  Such a call's deadline is the move
    timeout or what is left of the seat's clock, whichever comes first, and running out is a
    ``timeout`` fault like a move timeout (``docs/faults.md``).  Only a guard with a game time
    reads the clock around each call.
    """

    def __init__(
        self,
        limit: float | None = None,
        board: memoryview | None = None,
        injected: Mapping[int, tuple[str, str]] | None = None,
        game_time: float | None = None,
    ) -> None:
        self.limit = limit
        self.game_time = game_time
        #: Each seat's time left on its game clock in the game being played (game_time only).
        self.left: list[float] | None = None
        #: The deadline of the call in progress (seconds; None: untimed): a seat process's
        #: parent waits this long for the reply (:class:`arena.sandbox.RemoteSeat`).
        self.call_limit: float | None = limit
        #: True while the call in progress runs on what is left of its seat's game clock.
        self._on_clock = False
        watched = limit if limit is not None else game_time
        self.clock = move_clock() if watched is not None else None
        if self.clock is not None:
            self.clock.arm(watched)
        self.board = board if board is not None else memoryview(bytearray(8 * BOARD_SLOTS)).cast("q")
        self.calls = 0
        self.injected = dict(injected or {})
        self._next_injected = min(self.injected, default=-1)
        #: Checked after every call while set (a re-play hunting the call that changed a shared
        #: object); True means the call just made changed it.
        self.watch: Callable[[], bool] | None = None

    def _injected(self, k: int, seat: int, kind: str, game: Game | None) -> PlayerFault:
        status, text = self.injected[k]
        later = [c for c in self.injected if c > k]
        self._next_injected = min(later, default=-1)
        if status == "timeout":
            # Did the call killed from outside run on its game clock?
            self._on_clock = False
            if kind in (DECIDE, END_TURN):
                self._set_deadline(seat)
            reason = self._timeout_reason(kind)
            self._clear_deadline(seat, 0.0)
            return PlayerFault(seat, "timeout", reason, game)
        return PlayerFault(seat, status, error_reason(kind, text), game)

    def start_clocks(self, seats: int) -> None:
        """A new game of ``seats`` seats: every seat's game clock set to the game time."""
        if self.game_time is not None:
            self.left = [self.game_time] * seats

    def stop_clocks(self) -> None:
        """The game is over: calls are timed by the move timeout alone until the next game."""
        self.left = None

    def _set_deadline(self, seat: int) -> float:
        """Before a call of ``seat`` with a game clock: its deadline, the earlier of the move
        timeout and the seat's clock, set for the watchdog (and a seat process's parent).
        Returns when the call starts (perf_counter)."""
        left = self.left
        if left is None or seat >= len(left):
            return 0.0
        rest = max(left[seat], 0.0)
        self._on_clock = self.limit is None or rest < self.limit
        deadline = rest if self._on_clock else self.limit
        self.call_limit = deadline
        if self.clock is not None:
            self.clock.limit = deadline
        return perf_counter()

    def _clear_deadline(self, seat: int, started: float) -> bool:
        """After a call of ``seat`` with a game clock: its time taken off the seat's clock, the
        move timeout set back; True if the clock ran out during the call."""
        left = self.left
        if left is None or seat >= len(left):
            return False
        if started:
            left[seat] -= perf_counter() - started
        if self.clock is not None:
            self.clock.limit = self.limit if self.limit is not None else self.game_time
        self.call_limit = self.limit
        return started > 0 and left[seat] < 0

    def _timeout_reason(self, kind: str) -> str:
        if self._on_clock and self.game_time is not None:
            return clock_reason(kind, self.game_time)
        return timeout_reason(kind, self.limit)

    def _watched(self, seat: int, game: Game | None) -> None:
        watch = self.watch
        if watch is not None and watch():
            # The call that changed it has returned, so the board says so before its fault is
            # raised: raised inside a decision's bookkeeping (play, move), the fault skips the
            # board's "returned" mark, and a supervisor would go on timing the call as running,
            # taking arena's own time after it (a second on a loaded machine) for a move timeout
            # and re-playing the call as one: "timeout" in one run, "error" in the next.
            board = self.board
            if board[PHASE] % 2:
                board[PHASE] += 1
            raise PlayerFault(
                seat,
                "error",
                "changed the ruleset it was shown (view.rules or info.rules), which strategies may only read",
                game,
            )

    def _signalled(self) -> bool:
        """True if calls made here are timed by the watchdog's signal alone (no clock reads)."""
        return self.clock is not None and self.clock.watches_this_thread()

    def _begin(self, token: object) -> None:
        """Start timing the call ``token``."""
        clock = self.clock
        if clock is None:
            return
        if clock.watches_this_thread():
            clock.running = token
        else:
            clock.started = perf_counter()

    def _end(self, token: object) -> bool:
        """Stop timing the call ``token``; True if it ran past the limit."""
        clock = self.clock
        if clock is None:
            return False
        if clock.watches_this_thread():
            clock.running = None
            return clock.expired is token  # the watchdog signalled it (it may have swallowed the signal)
        over = clock.overran()
        clock.started = None
        return over

    def call(self, seat: int, kind: str, fn: Callable[..., Any], arg: object, game: Game | None) -> Any:
        """``fn(arg)`` (``fn()`` for :data:`NO_ARGUMENT`), timed; its value, or a PlayerFault."""
        k = self.calls
        self.calls = k + 1
        if k == self._next_injected:
            raise self._injected(k, seat, kind, game)
        board = self.board
        board[PHASE] = 2 * k + 1
        token = object()
        value = failure = None
        over = False
        # Of the hooks only end_turn runs on the game clock: it is called during play, after
        # every turn; start_game and end_game, once a game each, have the move timeout alone.
        on_clock = self.left is not None and kind == END_TURN
        started = self._set_deadline(seat) if on_clock else 0.0
        try:
            try:
                self._begin(token)
                value = fn() if arg is NO_ARGUMENT else fn(arg)
            except MoveTimeout:
                raise
            except KeyboardInterrupt as exc:
                if not strategy_interrupts_are_faults:
                    raise  # the user's Ctrl-C: stop
                failure = _Failure(exc)
            except BaseException as exc:  # SystemExit too: a strategy may not end the tournament
                # The text is read here, still timed: a __str__ that runs forever is a timeout.
                failure = _Failure(exc)
            finally:
                over = self._end(token)
        except MoveTimeout:
            self._end(token)
            over = True
        if on_clock:
            over = self._clear_deadline(seat, started) or over
        else:
            self._on_clock = False
        board[PHASE] = 2 * k + 2
        if over:
            raise PlayerFault(seat, "timeout", self._timeout_reason(kind), game)
        if failure is not None:
            reason = failure.text if failure.reported else error_reason(kind, failure.text)
            raise PlayerFault(seat, "error", reason, game, failure.traceback) from failure.exc
        if self.watch is not None:
            self._watched(seat, game)
        return value

    def move(self, seat: int, decide: Callable[[Any], Any], view: Any, game: Game) -> None:
        """One decision, applied to ``game``: both timed, so anything the engine does with the
        returned object (unpacking it, iterating its dice, ``repr`` of it to explain why it is
        illegal) runs inside the call.  Raises a PlayerFault (``illegal`` for an action the
        engine refuses; an illegal action changes nothing).  :meth:`play` makes every decision
        of a game this way."""
        k = self.calls
        self.calls = k + 1
        if k == self._next_injected:
            raise self._injected(k, seat, DECIDE, game)
        self.board[PHASE] = k + k + 1
        token = object()
        applying = False
        fault: PlayerFault | None
        started = self._set_deadline(seat) if self.left is not None else 0.0
        try:
            try:
                self._begin(token)
                action = decide(view)
                if self.watch is not None:  # a re-play looking for the call that changed a ruleset
                    self._watched(seat, game)
                applying = True
                game.apply(action)
            except BaseException as exc:
                fault = self._failed(exc, seat, token, applying, game)
            else:
                fault = self._timeout(seat, game) if self._end(token) else None
        except MoveTimeout:  # the signal came as the call ended
            self._end(token)
            fault = self._timeout(seat, game)
        ran_out = self.left is not None and self._clear_deadline(seat, started)
        if ran_out and (fault is None or fault.status != "timeout"):
            fault = self._timeout(seat, game)  # late, whatever it returned or raised (as in call)
        self.board[PHASE] = k + k + 2
        if fault is not None:
            raise fault

    def play(self, game: Game, deciders: Sequence[Callable[[Any], Any]]) -> None:
        """Play ``game`` to its end, ``deciders[seat]`` deciding for each seat, every decision
        guarded as by :meth:`move`.  The hot loop of every tournament: :meth:`move` written out
        on local variables, with each decision's view as its token.  With game clocks each
        decision goes through :meth:`move`, which reads the clock around it."""
        if self.left is not None:
            while not game.over:
                turn = game.view()
                self.move(turn.seat, deciders[turn.seat], turn, game)
            return
        board = self.board
        clock = self.clock
        signalled = self._signalled()
        watch = self.watch
        view = None if game.over else game.view()
        send = None if view is None else game.sender()
        fault: PlayerFault | None
        calls = self.calls
        try:
            while view is not None:
                k = calls
                calls = k + 1
                seat = view.seat
                if k == self._next_injected:
                    raise self._injected(k, seat, DECIDE, game)
                board[0] = k + k + 1  # PHASE: call k runs
                token = view
                applying = False
                try:
                    try:
                        if signalled:
                            clock.running = token  # type: ignore[union-attr]
                        elif clock is not None:
                            clock.started = perf_counter()
                        action = deciders[seat](view)
                        if watch is not None:  # a re-play looking for the call that changed a ruleset
                            self._watched(seat, game)
                        applying = True
                        # send is None only when view is (no loop); a Refusal it returns is
                        # answered on the next line, so view is a TurnView or None again at once.
                        view = send(action)  # type: ignore[misc, assignment]
                        if type(view) is not TurnView:  # an illegal action, or the end of the game
                            view = game.answer(view)
                    except BaseException as exc:
                        fault = self._failed(exc, seat, token, applying, game)
                    else:
                        if signalled:
                            clock.running = None  # type: ignore[union-attr]
                            # Signalled: it swallowed the MoveTimeout, or returned just as it came.
                            over = clock.expired is token  # type: ignore[union-attr]
                        else:
                            over = self._end(token)
                        fault = self._timeout(seat, game) if over else None
                except MoveTimeout:  # the signal came as the call ended
                    self._end(token)
                    fault = self._timeout(seat, game)
                board[0] = k + k + 2  # PHASE: call k has returned
                if fault is not None:
                    raise fault
        finally:
            self.calls = calls

    def _timeout(self, seat: int, game: Game) -> PlayerFault:
        return PlayerFault(seat, "timeout", self._timeout_reason(DECIDE), game)

    def _failed(
        self, exc: BaseException, seat: int, token: object, applying: bool, game: Game
    ) -> PlayerFault:
        """The fault of a decision that raised ``exc``, and the end of its call.  Still timed
        while it reads the exception's text (strategy code: a ``__str__`` that runs forever is a
        timeout).  Raises again the user's Ctrl-C and the fault of a changed ruleset."""
        failure = None
        over = False
        try:
            try:
                if isinstance(exc, MoveTimeout):
                    over = True
                elif isinstance(exc, KeyboardInterrupt) and not strategy_interrupts_are_faults:
                    raise exc
                elif isinstance(exc, PlayerFault) and not applying:
                    raise exc  # the check of the ruleset found it changed
                else:
                    failure = _Failure(exc, illegal=applying and isinstance(exc, IllegalAction))
            finally:
                over = self._end(token) or over
        except MoveTimeout:
            self._end(token)
            over = True
        if over or failure is None:
            return self._timeout(seat, game)
        if failure.illegal:
            return PlayerFault(seat, "illegal", failure.text, game)
        fault = PlayerFault(seat, "error", failure.text, game, failure.traceback)
        fault.__cause__ = failure.exc  # as `raise fault from failure.exc`
        return fault


class _Failure:
    """What a strategy's call raised, read while the call is still timed."""

    __slots__ = ("exc", "illegal", "reported", "text", "traceback")

    def __init__(self, exc: BaseException, illegal: bool = False) -> None:
        self.exc = exc
        self.illegal = illegal
        self.reported = False
        if type(exc) is ReportedFailure:  # already the whole reason, from a seat process
            self.reported = True
            self.illegal = exc.status == "illegal"
            self.text, self.traceback = shorten(exc.reason), exc.traceback_text
        elif illegal:  # the engine's explanation of an illegal action: no type name, middle cut
            self.text, self.traceback = cut_middle(str(exc)), ""
        else:
            self.text, self.traceback = one_line(exc), format_traceback(exc)


def _prepare(player: Player) -> tuple[str, Callable | None, Callable, Callable | None, Callable | None]:
    """The player's name as text and its hooks (``start_game``, ``decide``, ``end_game``,
    ``end_turn``), read once per game (strategy code: guarded)."""
    name = str(getattr(player, "name", type(player).__name__))
    if type(name) is not str:  # a str subclass whose methods are the strategy's
        name = str.__str__(name)
    start = getattr(player, "start_game", None)
    decide = player.decide
    end = getattr(player, "end_game", None)
    # A method of the class, as arena's host for an isolated strategy reads it (before any
    # game): a hook set on an instance alone would be heard in one place and not the other.
    turn_end = None
    if getattr(type(player), "end_turn", None) is not None:
        turn_end = player.end_turn  # type: ignore[attr-defined]
    return name, start, decide, end, turn_end


def _checked_name(seat: int, name: str) -> str:
    """A name read for a game, its spaces folded, or the seat's fault if it breaks the name
    rule: a strategy may change its name after it was loaded (on its instances or its class),
    and a name is never stored or shown unchecked."""
    refusal = name_refusal(name)
    if refusal is not None:
        raise PlayerFault(seat, "error", refusal)
    return normal_name(name)


#: The name a seat shows the others when its player failed before it could say one.
UNNAMED = "?"


class DecisionClock:
    """The seconds each seat spent deciding, and its decisions, over the games it is given to
    (``arena duel``'s time per decision).  A decision is timed from the call to ``decide`` until
    it returns, as arena's process sees it: for an isolated player that includes the trip to
    its seat process.  Its ``end_turn`` calls count as its time too (not as decisions).  Only
    what asks for it pays for it: a tournament's games are not timed."""

    def __init__(self, seats: int) -> None:
        self.seconds = [0.0] * seats
        self.decisions = [0] * seats

    def timed(self, seat: int, decide: Callable[[TurnView], Any]) -> Callable[[TurnView], Any]:
        seconds, decisions = self.seconds, self.decisions

        def timed_decide(view: TurnView) -> Any:
            start = perf_counter()
            try:
                return decide(view)
            finally:
                seconds[seat] += perf_counter() - start
                decisions[seat] += 1

        return timed_decide

    def timed_hook(self, seat: int, hook: Callable[[Any], None]) -> Callable[[Any], None]:
        """``hook`` (``end_turn``), its time counted with the seat's decisions: a strategy can't
        move its thinking out of ``decide`` to look faster."""
        seconds = self.seconds

        def timed(argument: Any) -> None:
            start = perf_counter()
            try:
                hook(argument)
            finally:
                seconds[seat] += perf_counter() - start

        return timed


def play_match(
    rules: Ruleset,
    players: Sequence[Player | PlayerFault],
    seed: int,
    *,
    on_event: Callable[[Event], None] | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    move_timeout: float | None = None,
    guard: Guard | None = None,
    on_fault: Callable[[PlayerFault], None] | None = None,
    clock: DecisionClock | None = None,
    game_time: float | None = None,
) -> GameResult:
    """Play one game; ``players[i]`` sits in seat i.

    Without ``on_fault`` the first fault stops the game: :class:`PlayerFault` is raised.  With
    it, each fault is passed to ``on_fault`` (which may raise to stop the game) and the game
    goes on without that seat: it is retired (see :meth:`~arena.engine.game.Game.retire`),
    gets no more calls, ranks last and wins nothing, while the others play to the end and get
    their ``end_game``.  A seat given as a :class:`PlayerFault` (its player could not be
    made) is out from the start; so is one whose name, hooks or ``start_game`` fail.

    With ``move_timeout`` (seconds) a call into a strategy that runs longer is a fault; with
    ``game_time`` (seconds) so is a seat's call that runs past what is left of its game clock,
    all its calls of this game together (a chess clock: docs/faults.md).  A tournament passes
    its own ``guard`` (which carries both) instead.  ``clock`` times each seat's decisions.
    """
    if guard is None:
        guard = Guard(move_timeout, game_time=game_time)
    guard.start_clocks(len(players))
    try:
        return _play_match(rules, players, seed, on_event, max_rounds, guard, on_fault, clock)
    finally:
        guard.stop_clocks()  # calls between games (creating players) are on no game's clock


def _play_match(
    rules: Ruleset,
    players: Sequence[Player | PlayerFault],
    seed: int,
    on_event: Callable[[Event], None] | None,
    max_rounds: int,
    guard: Guard,
    on_fault: Callable[[PlayerFault], None] | None,
    clock: DecisionClock | None,
) -> GameResult:

    def faulted(fault: PlayerFault) -> None:
        if on_fault is None:
            raise fault
        on_fault(fault)

    n = len(players)
    prepared: list[tuple[str, Callable | None, Callable, Callable | None, Callable | None] | None] = []
    for seat, player in enumerate(players):
        if isinstance(player, PlayerFault):
            faulted(player)
            prepared.append(None)
            continue
        try:
            name, *hooks = guard.call(seat, PREPARE, _prepare, player, None)
            prepared.append((_checked_name(seat, name), *hooks))
        except PlayerFault as fault:
            faulted(fault)
            prepared.append(None)
    names = tuple(UNNAMED if p is None else p[0] for p in prepared)
    for seat, hooks in enumerate(prepared):
        if hooks is not None and hooks[1] is not None:
            info = GameInfo(rules, seat, n, names, strategy_seed(seed, seat))
            try:
                guard.call(seat, START_GAME, hooks[1], info, None)
            except PlayerFault as fault:
                faulted(fault)
                prepared[seat] = None
    deciders = [_out_of_game if p is None else p[2] for p in prepared]
    if clock is not None:
        deciders = [clock.timed(seat, decide) for seat, decide in enumerate(deciders)]
    out = [seat for seat, p in enumerate(prepared) if p is None]
    told = [None if p is None else p[4] for p in prepared]  # the end_turn hooks
    if clock is not None:
        told = [None if hook is None else clock.timed_hook(seat, hook) for seat, hook in enumerate(told)]
    if any(told):
        ends = _TurnEndsTold(told, guard, faulted, prepared)
        game = Game(
            rules, n, seed, on_event=on_event, max_rounds=max_rounds, out=out, on_turn_end=ends.pending.append
        )
        late = ends.play(game, deciders)
    else:
        game = Game(rules, n, seed, on_event=on_event, max_rounds=max_rounds, out=out)
        late = _play_through(game, guard, deciders, faulted, prepared)
    result = game.result() if late is None else retired_after(game.result(), late)
    for seat, hooks in enumerate(prepared):
        if hooks is not None and hooks[3] is not None:
            # Each hook gets its own copy: what one does to it can't reach the others or the rows.
            try:
                guard.call(seat, END_GAME, hooks[3], copy.copy(result), game)
            except PlayerFault as fault:
                faulted(fault)
                result = retired_after(result, seat)
    return result


def _play_through(
    game: Game,
    guard: Guard,
    deciders: list[Callable[[TurnView], Any]],
    faulted: Callable[[PlayerFault], None],
    prepared: list[Any],
) -> int | None:
    """Play ``game`` to its end in the guard's hot loop, putting out each seat that faults; the
    seat whose last decision, which ended the game, came too late, or None."""
    while True:
        try:
            guard.play(game, deciders)
            return None
        except PlayerFault as fault:
            faulted(fault)
            prepared[fault.seat] = None
            if game.over:
                return fault.seat
            if game.retire(fault.seat) is None:
                return None


class _TurnEndsTold:
    """Plays a game decision by decision, telling every seat with an ``end_turn`` hook how each
    turn ended (:class:`~arena.engine.TurnEnd`, which the game makes as each turn settles)
    before the next decision is made, whoever makes it.  Each hook call is the seat's own
    guarded call, so a hook that raises or runs late is that seat's fault (it is put out),
    never the fault of the seat whose move ended the turn.  Only games with such a hook are
    played this way (about half the speed of the fastest Python strategies); the others keep
    the guard's hot loop."""

    def __init__(
        self,
        hooks: list[Callable | None],
        guard: Guard,
        faulted: Callable[[PlayerFault], None],
        prepared: list[Any],
    ) -> None:
        self.hooks = hooks
        self.guard = guard
        self.faulted = faulted
        self.prepared = prepared
        self.pending: list[TurnEnd] = []  # the game's turn ends not yet told (Game.on_turn_end)

    def _put_out(self, fault: PlayerFault, game: Game) -> None:
        self.faulted(fault)
        self.prepared[fault.seat] = None
        self.hooks[fault.seat] = None
        if not game.over:
            game.retire(fault.seat)

    def _tell(self, game: Game) -> None:
        """Every turn end so far, to every seat still in with the hook, in seat order."""
        while self.pending:
            end = self.pending.pop(0)
            for seat, hook in enumerate(self.hooks):
                if hook is None:
                    continue
                try:
                    # Each its own copy: a hook that changes it (object.__setattr__) can't change
                    # what the next seat is told.
                    self.guard.call(seat, END_TURN, hook, copy.copy(end), game)
                except PlayerFault as fault:
                    self._put_out(fault, game)

    def play(self, game: Game, deciders: list[Callable[[TurnView], Any]]) -> int | None:
        """Play ``game`` to its end; the seat whose game-ending decision came too late, or None."""
        late: int | None = None
        while True:
            self._tell(game)
            if game.over:
                break
            view = game.view()
            try:
                self.guard.move(view.seat, deciders[view.seat], view, game)
            except PlayerFault as fault:
                too_late = game.over  # the decision that ended the game came too late
                self._put_out(fault, game)
                if too_late:
                    late = fault.seat
                    self._tell(game)
                    break
        return late


def _out_of_game(view: TurnView) -> Any:
    """The decider of a retired seat: never called (the engine skips the seat)."""
    raise AssertionError(f"seat {view.seat} is out of the game")


def retired_after(result: GameResult, seat: int) -> GameResult:
    """``result`` with ``seat`` put out after the game ended (its ``end_game`` failed, or the
    decision that ended the game came too late): it ranks last and wins nothing; the others keep
    their order, and a win it held goes to the seats ranked next, as if it had not been there."""
    n = len(result.scores)
    retired = (*result.retired, seat)
    live = [s for s in range(n) if s not in retired]
    ranks = tuple(
        len(live) + 1 if s in retired else 1 + sum(result.ranks[o] < result.ranks[s] for o in live)
        for s in range(n)
    )
    winners = tuple(s for s in live if ranks[s] == 1)
    share = 1.0 / len(winners) if winners else 0.0
    shares = tuple(share if s in winners else 0.0 for s in range(n))
    return dataclasses.replace(result, winners=winners, win_shares=shares, ranks=ranks, retired=retired)
