"""What happens in a game, as small immutable records.

A :class:`~arena.engine.game.Game` given an ``on_event`` callback reports each of these as it
happens, so a game can be shown turn by turn or logged.  Without a callback nothing is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int
    score: int
    bank_minimum: int  # turn total needed before banking (entry or bar); 0 for none
    playoff: bool = False


@dataclass(frozen=True, slots=True)
class Rolled:
    seat: int
    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Kept:
    seat: int
    dice: tuple[int, ...]
    points: int
    turn_points: int
    dice_left: int
    hot: bool


@dataclass(frozen=True, slots=True)
class Banked:
    seat: int
    points: int
    score: int


@dataclass(frozen=True, slots=True)
class Farkled:
    """A roll scored nothing: the turn's points are lost (all three documents)."""

    seat: int
    lost: int


@dataclass(frozen=True, slots=True)
class Overshot:
    """The turn passed the exact target and is forfeited (001 "verfällt vollständig")."""

    seat: int
    lost: int


@dataclass(frozen=True, slots=True)
class Struck:
    """A turn missed the bar: one more strike (000 "Striche")."""

    seat: int
    strikes: int


@dataclass(frozen=True, slots=True)
class StruckOut:
    """Strikes in a row set the score to zero (000)."""

    seat: int
    lost: int


@dataclass(frozen=True, slots=True)
class FarklePenalty:
    """Farkles in a row cost points from the score (002 variant); never below zero."""

    seat: int
    penalty: int
    score: int


@dataclass(frozen=True, slots=True)
class FinalRound:
    """Someone reached the target; ``turns_left`` more turns are played (001 / 000 / 002)."""

    seat: int
    score: int
    turns_left: int


@dataclass(frozen=True, slots=True)
class PlayoffStarted:
    """Equal top scores under ``ties = "playoff"``: these seats play a decider turn each."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver:
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str


Event = (
    TurnStarted
    | Rolled
    | Kept
    | Banked
    | Farkled
    | Overshot
    | Struck
    | StruckOut
    | FarklePenalty
    | FinalRound
    | PlayoffStarted
    | GameOver
)


def event_type(event: object) -> str:
    """``TurnStarted`` -> ``turn_started``: the event's class in the style of JSON keys."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()
