"""Play one game between Player objects, calling their hooks and naming the seat at fault.

The engine raises :class:`~arena.engine.IllegalAction` for an illegal decision; here every
failure is attributed to the seat that caused it, as a :class:`PlayerFault` with a status
(``error``: the strategy raised; ``illegal``: it returned an illegal action) and a one-line
reason, so a tournament can record it and go on.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import DEFAULT_MAX_ROUNDS, Game, GameResult, IllegalAction, Ruleset, derive_seed
from arena.engine.events import Event
from arena.players.protocol import GameInfo, Player
from arena.players.timeout import MoveClock, MoveTimeout, move_clock

#: In a worker process, which ignores Ctrl-C, a KeyboardInterrupt can only come from a strategy,
#: so there it is the strategy's fault; in the main process it is the user's Ctrl-C.  Workers set
#: this (see arena.tournament.runner).
strategy_interrupts_are_faults = False

#: Mixed into strategy seeds so that a strategy's random stream never equals a dice stream.
STRATEGY_SEED_SALT = 0x5354524154454759  # "STRATEGY"


class PlayerFault(Exception):
    """A player broke the game: it raised (``error``), returned an illegal action (``illegal``)
    or ran past the move timeout (``timeout``).  ``game`` is the game as it stood."""

    def __init__(self, seat: int, status: str, reason: str, game: Game | None = None) -> None:
        super().__init__(f"seat {seat}: {status}: {reason}")
        self.seat = seat
        self.status = status
        self.reason = reason
        self.game = game

    @property
    def traceback_text(self) -> str:
        """The full traceback of what the strategy raised (its ``__cause__``), or "" if the
        fault was not an exception (an illegal action, a timeout)."""
        cause = self.__cause__
        if cause is None:
            return ""
        return "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def play_match(
    rules: Ruleset,
    players: Sequence[Player],
    seed: int,
    *,
    on_event: Callable[[Event], None] | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    move_timeout: float | None = None,
) -> GameResult:
    """Play one game; ``players[i]`` sits in seat i.  Raises :class:`PlayerFault`.

    With ``move_timeout`` (seconds) a decision, or a hook, that runs longer loses the game.
    """
    names = tuple(str(getattr(p, "name", type(p).__name__)) for p in players)
    n = len(players)
    clock = move_clock() if move_timeout is not None else None
    if clock is not None:
        clock.arm(move_timeout)
    for seat, player in enumerate(players):
        start = getattr(player, "start_game", None)
        if start is not None:
            info = GameInfo(rules, seat, n, names, derive_seed(seed, STRATEGY_SEED_SALT, seat))
            _call(seat, start, info, clock, None)
    deciders = [p.decide for p in players]
    game = Game(rules, n, seed, on_event=on_event, max_rounds=max_rounds)
    if move_timeout is None:
        _loop(game, deciders)
    else:
        _timed_loop(game, deciders, move_timeout)
    result = game.result()
    for seat, player in enumerate(players):
        end = getattr(player, "end_game", None)
        if end is not None:
            _call(seat, end, result, clock, game)
    return result


def _loop(game: Game, deciders: list[Callable]) -> None:
    view = game.view
    apply = game.apply
    while not game.over:
        seat = game.seat
        try:
            action = deciders[seat](view())
        except KeyboardInterrupt as exc:
            if not strategy_interrupts_are_faults:
                raise  # the user's Ctrl-C: stop the tournament
            raise PlayerFault(seat, "error", one_line(exc), game) from exc
        except BaseException as exc:  # SystemExit too: a strategy may not end the tournament
            raise PlayerFault(seat, "error", one_line(exc), game) from exc
        try:
            apply(action)
        except IllegalAction as exc:
            raise PlayerFault(seat, "illegal", str(exc), game) from None


def _guarded(
    clock: MoveClock | None, fn: Callable[[Any], Any], arg: object
) -> tuple[Any, BaseException | None, bool]:
    """``fn(arg)`` timed by ``clock``: (its value, what it raised, whether it overran).

    Anything a strategy raises is caught, SystemExit included (a strategy may not end the
    tournament), and so is the watchdog's MoveTimeout wherever its signal lands: it interrupts a
    call at most once.  A KeyboardInterrupt is the user's Ctrl-C unless this is a worker.
    """
    value = failure = None
    over = False
    try:
        try:
            if clock is not None:
                clock.started = time.perf_counter()
            value = fn(arg)
        except MoveTimeout:
            raise
        except KeyboardInterrupt as exc:
            if not strategy_interrupts_are_faults:
                raise
            failure = exc
        except BaseException as exc:
            failure = exc
        finally:
            if clock is not None:
                over = clock.overran()
                clock.started = None
    except MoveTimeout:
        if clock is not None:
            clock.started = None
        over = True
    return value, failure, over


def _timed_loop(game: Game, deciders: list[Callable], limit: float) -> None:
    """The game loop with each decision timed against ``limit`` seconds."""
    clock = move_clock()
    view = game.view
    apply = game.apply
    while not game.over:
        seat = game.seat
        action, failure, over = _guarded(clock, deciders[seat], view())
        if over:
            raise PlayerFault(seat, "timeout", f"no decision within {limit:g} s", game)
        if failure is not None:
            raise PlayerFault(seat, "error", one_line(failure), game) from failure
        try:
            apply(action)
        except IllegalAction as exc:
            raise PlayerFault(seat, "illegal", str(exc), game) from None


def _call(
    seat: int, hook: Callable[..., object], arg: object, clock: MoveClock | None, game: Game | None
) -> None:
    """Call a start_game or end_game hook; any failure is the seat's fault."""
    _, failure, over = _guarded(clock, hook, arg)
    if over and clock is not None:
        raise PlayerFault(seat, "timeout", f"{hook.__name__} took longer than {clock.limit:g} s", game)
    if failure is not None:
        raise PlayerFault(seat, "error", f"{hook.__name__}: {one_line(failure)}", game) from failure
