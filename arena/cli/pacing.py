"""``arena play --human --pace``: the opponents' turns at a speed a person can follow.

Without it, every opponent's turn is printed at once and the person's next prompt follows, so a
long turn, or the turns of several opponents, scroll past.  A :class:`Pacer` is an ``on_event``
callback placed after the narrator: with ``enter`` it waits for Enter once an opponent's turn has
ended (before the next turn starts, so the lines that settle the turn, a penalty or a strike,
are shown first); with a number of seconds it pauses that long after each roll of an opponent,
so the roll and what it keeps appear one after the other, as at a table.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from arena.engine import events as ev
from arena.players.human import LeftGame

#: The longest pause ``--pace SECONDS`` takes: a typo of 100 would freeze the game.
MAX_PAUSE = 10.0
#: What ``--pace`` takes besides a number of seconds.
PACE_WORDS = ("enter", "off")


def parse_pace(text: str) -> str | float:
    """``enter``, ``off`` or a pause in seconds (0 to :data:`MAX_PAUSE`); ValueError with the
    reason, in words, otherwise."""
    word = text.strip().lower()
    if word in PACE_WORDS:
        return word
    try:
        seconds = float(word)
    except ValueError:
        raise ValueError(f"--pace takes enter, off or a pause in seconds, not {text!r}") from None
    if not 0 <= seconds <= MAX_PAUSE:
        raise ValueError(f"--pace {text}: a pause is 0 to {MAX_PAUSE:g} seconds")
    return seconds


class Pacer:
    """Paces the turns of every seat but ``human_seat``.  ``pace``: ``"enter"``, ``"off"`` or
    seconds.  ``ask`` reads a line (``q`` there leaves the game, as at the person's prompts);
    ``scores`` gives the banked scores, for :class:`~arena.players.human.LeftGame`."""

    def __init__(
        self,
        human_seat: int,
        pace: str | float,
        ask: Callable[[str], str],
        scores: Callable[[], Sequence[int]],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.human_seat = human_seat
        self.pace = pace
        self._ask = ask
        self._scores = scores
        self._sleep = sleep
        self._opponent_turn: bool = False  # the turn under way is an opponent's

    def before(self, event: ev.Event) -> None:
        """Called before ``event`` is shown: the next turn waits until the person is ready."""
        if isinstance(event, ev.TurnStarted):
            if self._opponent_turn and self.pace == "enter":
                answer = self._ask("  (Enter to go on, q to leave) ").strip().lower()
                if answer in ("q", "quit"):
                    raise LeftGame(tuple(self._scores()))
            self._opponent_turn = event.seat != self.human_seat

    def after(self, event: ev.Event) -> None:
        """Called after ``event`` is shown: an opponent's roll stays a moment before its keep."""
        if isinstance(event, ev.Rolled) and self._opponent_turn and isinstance(self.pace, float):
            self._sleep(self.pace)


def paced(narrate: Callable[[ev.Event], None], pacer: Pacer) -> Callable[[ev.Event], None]:
    """One ``on_event`` callback: the wait before a turn, the narrator's line, the pause after."""

    def on_event(event: ev.Event) -> None:
        pacer.before(event)
        narrate(event)
        pacer.after(event)

    return on_event
