"""Play one game between Player objects, calling their hooks and naming the seat at fault.

The engine raises :class:`~arena.engine.IllegalAction` for an illegal decision; here every
failure is attributed to the seat that caused it, as a :class:`PlayerFault` with a status
(``error``: the strategy raised; ``illegal``: it returned an illegal action) and a one-line
reason, so a tournament can record it and go on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import DEFAULT_MAX_ROUNDS, Game, GameResult, IllegalAction, Ruleset, derive_seed
from arena.engine.events import Event
from arena.players.protocol import GameInfo, Player

#: Mixed into strategy seeds so that a strategy's random stream never equals a dice stream.
STRATEGY_SEED_SALT = 0x5354524154454759  # "STRATEGY"


class PlayerFault(Exception):
    """A player broke the game: it raised, or returned an illegal action."""

    def __init__(self, seat: int, status: str, reason: str) -> None:
        super().__init__(f"seat {seat}: {status}: {reason}")
        self.seat = seat
        self.status = status
        self.reason = reason


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
) -> GameResult:
    """Play one game; ``players[i]`` sits in seat i.  Raises :class:`PlayerFault`."""
    names = tuple(str(getattr(p, "name", type(p).__name__)) for p in players)
    n = len(players)
    for seat, player in enumerate(players):
        start = getattr(player, "start_game", None)
        if start is not None:
            info = GameInfo(rules, seat, n, names, derive_seed(seed, STRATEGY_SEED_SALT, seat))
            _call(seat, start, info)
    deciders = [p.decide for p in players]
    game = Game(rules, n, seed, on_event=on_event, max_rounds=max_rounds)
    view = game.view
    apply = game.apply
    while not game.over:
        seat = game.seat
        try:
            action = deciders[seat](view())
        except Exception as exc:
            raise PlayerFault(seat, "error", one_line(exc)) from exc
        try:
            apply(action)
        except IllegalAction as exc:
            raise PlayerFault(seat, "illegal", str(exc)) from None
    result = game.result()
    for seat, player in enumerate(players):
        end = getattr(player, "end_game", None)
        if end is not None:
            _call(seat, end, result)
    return result


def _call(seat: int, hook: Callable[..., object], arg: object) -> None:
    try:
        hook(arg)
    except Exception as exc:
        raise PlayerFault(seat, "error", one_line(exc)) from exc
