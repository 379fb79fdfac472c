"""A seat for the person at the terminal (``arena play --human``)."""

from __future__ import annotations

from collections.abc import Callable

from arena.engine import Action, Keep, TurnView
from arena.engine.scoring import why_not_legal

LETTERS = "abcdefghijklmnopqrstuvwxyz"


class HumanPlayer:
    """Asks the person at the terminal for each decision; checks the input and asks again,
    saying what was wrong, until it is legal."""

    name = "you"

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        tell: Callable[[str], None] = print,
        advise: Callable[[TurnView], list[str]] | None = None,
    ) -> None:
        """``advise``, if given, comments each legal keep (one line each, shown beside it)."""
        self._ask = ask
        self._tell = tell
        self._advise = advise

    def decide(self, view: TurnView) -> Action:
        tell = self._tell
        need = view.points_to_bank
        status = f"turn so far {view.turn_points}" + (f", {need} more needed to bank" if need else "")
        tell(f"  Your roll: {' '.join(map(str, view.roll))}   ({status})")
        notes = self._advise(view) if self._advise is not None else []
        for index, (letter, keep) in enumerate(zip(LETTERS, view.legal_keeps, strict=False)):
            note = f"   [{notes[index]}]" if index < len(notes) else ""
            tell(
                f"    {letter}) keep {' '.join(map(str, keep.dice)):<12} {keep.points:>5} points, "
                f"{_next_dice(keep)}{note}"
            )
        keep = self._ask_keep(view)
        return Action(keep.dice, self._ask_bank(view, keep))

    def _ask_keep(self, view: TurnView) -> Keep:
        by_dice = {k.dice: k for k in view.legal_keeps}
        while True:
            answer = self._ask("  Keep which dice? (a letter from the list, or the dice, e.g. '1 5') > ")
            answer = answer.strip().lower()
            if len(answer) == 1 and answer in LETTERS[: len(view.legal_keeps)]:
                return view.legal_keeps[LETTERS.index(answer)]
            try:
                dice = tuple(sorted(int(part) for part in answer.replace(",", " ").split()))
            except ValueError:
                self._tell(f"  ! '{answer}' is neither a letter from the list nor dice like '1 5'")
                continue
            if dice in by_dice:
                return by_dice[dice]
            self._tell(f"  ! {why_not_legal(dice, view.roll, view.rules)}")

    def _ask_bank(self, view: TurnView, keep: Keep) -> bool:
        total = view.turn_points + keep.points
        if view.overshoots(keep):
            self._tell(f"  That passes the exact target ({view.points_to_target} missing): the turn is lost.")
            return False
        if not view.bank_allowed(keep):
            why = (
                "after hot dice you must roll again"
                if keep.hot and view.rules.must_roll_after_hot_dice
                else f"banking needs {view.bank_minimum} in the turn"
            )
            self._tell(f"  Turn total {total}; rolling on ({why}).")
            return False
        while True:
            roll = f"all {keep.dice_left} again" if keep.hot else f"the {dice_left_text(keep.dice_left)}"
            answer = self._ask(f"  Turn total {total}. Bank it (b) or roll {roll} (r)? > ")
            answer = answer.strip().lower()
            if answer in ("b", "bank"):
                return True
            if answer in ("r", "roll"):
                return False
            self._tell(f"  ! please answer b to bank or r to roll on, not '{answer}'")


def _next_dice(keep: Keep) -> str:
    return f"hot dice: roll all {keep.dice_left} again" if keep.hot else dice_left_text(keep.dice_left)


def dice_left_text(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'} left"
