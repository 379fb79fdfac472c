"""How each turn ended, as one record: what the optional ``end_turn`` hook of a strategy is told.

A strategy that keeps a history (how often an opponent farkles, how much it banks) would
otherwise have to infer it from the views of its own turns.  The game makes one
:class:`TurnEnd` per turn, of every seat, as the turn settles (``Game(on_turn_end=...)``),
without building the events of its rolls.

A turn ends in one of three ways (all three documents): it is **banked**, it **farkled** (a roll
that scores nothing loses the turn's points), or it is **forfeited** (001: a keep that passes the
exact target "verfällt vollständig").  Two rules act on the score after a turn that was not
banked: the rising bar's strike (000 "Striche": each missed turn is a strike, three in a row set
the score to zero) and 002's farkle penalty (farkles in a row cost points).  A playoff turn
(002's tie-break) is banked or farkled like any other, but changes no score.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How a turn ended.
BANKED = "banked"
FARKLED = "farkled"
FORFEITED = "forfeited"


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """One turn, once it is over, as every seat is told it.

    - ``seat``: whose turn it was; ``turn``: that seat's turn number in the game, from 0.
    - ``how``: ``"banked"``, ``"farkled"`` or ``"forfeited"`` (passed an exact target, 001).
    - ``points``: the points banked, or the turn's points lost.
    - ``struck``: the turn missed the rising bar (000): one more strike; ``strikes``: the seat's
      strikes in a row after it (0 after a bank, and after three strikes set the score to 0).
    - ``penalty``: points the seat's score lost after the turn: 002's farkle penalty, or 000's
      third strike (the whole score); 0 for none.
    - ``score``: the seat's score after the turn; ``scores``: every seat's, in seat order.
    - ``playoff``: a tie-break turn (002): only its points count, no score changes.
    """

    seat: int
    turn: int
    how: str
    points: int
    struck: bool
    strikes: int
    penalty: int
    score: int
    scores: tuple[int, ...]
    playoff: bool = False


__all__ = ["BANKED", "FARKLED", "FORFEITED", "TurnEnd"]
