"""Show a game turn by turn in readable form, from the engine's events."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import Ruleset
from arena.engine import events as ev
from arena.engine.scoring import explain
from arena.players.human import dice_left_text


def dice_text(dice: Sequence[int]) -> str:
    return " ".join(map(str, dice))


class GameNarrator:
    """An ``on_event`` callback that writes each event as a line of text."""

    def __init__(self, rules: Ruleset, names: Sequence[str], write: Callable[[str], None]) -> None:
        self.rules = rules
        self.names = list(names)
        self.write = write
        self.scores = [0] * len(names)
        self.round = 0
        self._last_seat = len(names)  # the seat of the last turn before a playoff
        # The rising bar (000): the last turn's bank, or None after a missed turn (or at first).
        self._last_bank: int | None = None
        self._missed = False
        self._handlers: dict[type, Callable] = {
            ev.TurnStarted: self._turn_started,
            ev.Rolled: self._rolled,
            ev.Kept: self._kept,
            ev.Banked: self._banked,
            ev.Farkled: self._farkled,
            ev.Overshot: self._overshot,
            ev.Struck: self._struck,
            ev.StruckOut: self._struck_out,
            ev.FarklePenalty: self._farkle_penalty,
            ev.FinalRound: self._final_round,
            ev.PlayoffStarted: self._playoff_started,
            ev.GameOver: self._game_over,
        }

    def __call__(self, event: ev.Event) -> None:
        self._handlers[type(event)](event)

    def _name(self, seat: int) -> str:
        return self.names[seat]

    def _turn_started(self, e: ev.TurnStarted) -> None:
        if not e.playoff and e.seat <= self._last_seat:  # seat 0, or the first seat still in
            self.round += 1
            self.write(f"Round {self.round}")
        if not e.playoff:
            self._last_seat = e.seat
        need = f", needs {e.bank_minimum} to bank{self._bar_reason(e)}" if e.bank_minimum else ""
        label = "playoff turn" if e.playoff else f"score {e.score}"
        self.write(f"  {self._name(e.seat)} ({label}{need})")

    def _bar_reason(self, e: ev.TurnStarted) -> str:
        """Why the minimum is what it is, where the rising bar (000) set it."""
        rules = self.rules
        if not rules.rising_bar or e.playoff:
            return ""
        if self._last_bank is not None and e.bank_minimum == self._last_bank + rules.bar_step:
            return f": the bar, {self._last_bank} banked in the turn before + {rules.bar_step}"
        if self._missed and e.bank_minimum == rules.bar_start:
            return f": the bar, back to {rules.bar_start} after a missed turn"
        return ""

    def _rolled(self, e: ev.Rolled) -> None:
        self.write(f"    rolls {dice_text(e.dice)}")

    def _kept(self, e: ev.Kept) -> None:
        reading = explain(e.dice, self.rules) or ()
        why = " + ".join(f"{label} {p}" for label, p in reading) if len(reading) > 1 else reading[0][0]
        after = f"hot dice, all {e.dice_left} again" if e.hot else dice_left_text(e.dice_left)
        self.write(f"    keeps {dice_text(e.dice)} = {e.points} ({why}); turn {e.turn_points}, {after}")

    def _banked(self, e: ev.Banked) -> None:
        self._last_bank, self._missed = e.points, False
        self.scores[e.seat] = e.score
        self.write(f"    banks {e.points}: score {e.score}")

    def _farkled(self, e: ev.Farkled) -> None:
        self._last_bank, self._missed = None, True
        self.write(f"    FARKLE: nothing scores, {e.lost} lost" if e.lost else "    FARKLE: nothing scores")

    def _overshot(self, e: ev.Overshot) -> None:
        self._last_bank, self._missed = None, True
        self.write(f"    OVERSHOT: passes the exact target of {self.rules.target}, {e.lost} lost")

    def _struck(self, e: ev.Struck) -> None:
        self.write(f"    strike {e.strikes} of {self.rules.strikes_to_zero}")

    def _struck_out(self, e: ev.StruckOut) -> None:
        self.scores[e.seat] = 0
        self.write(f"    {self.rules.strikes_to_zero} strikes in a row: score {e.lost} back to 0")

    def _farkle_penalty(self, e: ev.FarklePenalty) -> None:
        self.scores[e.seat] = e.score
        self.write(
            f"    {self.rules.farkle_penalty_streak} farkles in a row: penalty {e.penalty}, score {e.score}"
        )

    def _final_round(self, e: ev.FinalRound) -> None:
        self.write(
            f"  ** {self._name(e.seat)} reaches {e.score}: final round, "
            f"{e.turns_left} more turn{'s' if e.turns_left != 1 else ''} **"
        )

    def _playoff_started(self, e: ev.PlayoffStarted) -> None:
        tied = ", ".join(self._name(s) for s in e.seats)
        self.write(f"  ** tie between {tied}: one playoff turn each **")

    def _game_over(self, e: ev.GameOver) -> None:
        standings = " · ".join(f"{self._name(s)} {score}" for s, score in enumerate(e.scores))
        winners = " and ".join(self._name(s) for s in e.winners)
        verb = "wins" if len(e.winners) == 1 else "share the win"
        if e.reason == "forfeit":  # the other seats broke the game and are out (docs/faults.md)
            ended = " (every other player is out)"
        else:
            ended = "" if e.reason == "target" else f" (stopped: {e.reason.replace('_', ' ')})"
        rounds = f"{self.round} round{'s' if self.round != 1 else ''}"
        self.write(f"Game over after {rounds}{ended}: {winners} {verb}")
        self.write(f"  final scores: {standings}")
