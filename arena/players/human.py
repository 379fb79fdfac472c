"""A seat for the person at the terminal (``arena play --human``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine import Action, Keep, TurnView
from arena.engine.scoring import why_not_legal
from arena.players.advice import Adviser, KeepAdvice, best_choice, optimal_advice
from arena.players.protocol import GameInfo

#: Keep letters; no ``q``, which leaves the game at every prompt.
LETTERS = "abcdefghijklmnoprstuvwxyz"

HELP = """\
  At "Keep which dice?":
    a, b, c ...   keep the dice of that line
    1 5           keep these dice (in any order; commas are fine)
  At "Bank it or roll?":
    b             bank the turn total
    r             roll the dice left
  At either:
    Enter         take the default shown in the prompt: {default}
    ?             this help and the scores
    q             leave the game (it ends here; nothing is recorded)"""


class LeftGame(Exception):
    """Raised by :class:`HumanPlayer` when the person answers ``q``: the game ends here, on
    purpose (not a fault).  ``scores`` are the banked scores at that moment, in seat order."""

    def __init__(self, scores: tuple[int, ...]) -> None:
        super().__init__("left the game")
        self.scores = scores


class HumanPlayer:
    """Asks the person at the terminal for each decision; checks the input and asks again,
    saying what was wrong, until it is legal.

    Enter takes a default: the best choice of ``advise`` where it has advice, else the choice
    ``default_by`` (``optimal`` unless given) would make.  ``?`` shows help and the scores, and
    ``q`` raises :class:`LeftGame`."""

    name = "you"

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        tell: Callable[[str], None] = print,
        advise: Adviser | None = None,
        default_by: Adviser = optimal_advice,
        names: Sequence[str] | None = None,
    ) -> None:
        """``advise``, if given, comments each legal keep (its note is shown beside it);
        ``names`` are the seats' names for the scores in the help (else the players' own)."""
        self._ask = ask
        self._tell = tell
        self._advise = advise
        self._default_by = default_by
        self._names = list(names) if names is not None else None
        self._default_is = ""  # what Enter takes, for the help

    def start_game(self, info: GameInfo) -> None:
        if self._names is None:
            self._names = list(info.names)

    def decide(self, view: TurnView) -> Action:
        tell = self._tell
        need = view.points_to_bank
        status = f"turn so far {view.turn_points}" + (f", {need} more needed to bank" if need else "")
        tell(f"  Your roll: {' '.join(map(str, view.roll))}   ({status})")
        shown = self._advise(view) if self._advise is not None else []
        advice = shown or self._default_by(view)
        for index, (letter, keep) in enumerate(zip(LETTERS, view.legal_keeps, strict=False)):
            note = f"   [{shown[index].note}]" if index < len(shown) else ""
            tell(
                f"    {letter}) keep {' '.join(map(str, keep.dice)):<12} {keep.points:>5} points, "
                f"{_next_dice(keep)}{note}"
            )
        self._default_is = "the adviser's best choice" if shown else "what optimal would choose"
        chosen = self._ask_keep(view, best_choice(advice) if advice else 0)
        keep = view.legal_keeps[chosen]
        return Action(keep.dice, self._ask_bank(view, keep, advice[chosen] if advice else None))

    def _answer(self, prompt: str, view: TurnView) -> str:
        """The next answer other than ``?`` (which shows the help) and ``q`` (which leaves)."""
        while True:
            answer = self._ask(prompt).strip().lower()
            if answer in ("q", "quit"):
                raise LeftGame(view.scores)
            if answer in ("?", "h", "help"):
                self._tell(HELP.format(default=self._default_is))
                self._tell(f"  {scores_text(view, self._names)}")
                continue
            return answer

    def _ask_keep(self, view: TurnView, default: int) -> int:
        """The index in ``view.legal_keeps`` of the keep the person chooses."""
        by_dice = {k.dice: i for i, k in enumerate(view.legal_keeps)}
        letters = LETTERS[: len(view.legal_keeps)]
        prompt = f"  Keep which dice? (a letter or the dice; Enter: {letters[default]}; ?: help) > "
        while True:
            answer = self._answer(prompt, view)
            if not answer:
                return default
            if len(answer) == 1 and answer in letters:
                return letters.index(answer)
            try:
                dice = tuple(sorted(int(part) for part in answer.replace(",", " ").split()))
            except ValueError:
                self._tell(f"  ! '{answer}' is neither a letter from the list nor dice like '1 5'")
                continue
            if dice in by_dice:
                return by_dice[dice]
            self._tell(f"  ! {why_not_legal(dice, view.roll, view.rules)}")

    def _ask_bank(self, view: TurnView, keep: Keep, advice: KeepAdvice | None) -> bool:
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
        default = "b" if advice is None or advice.bank else "r"
        roll = f"all {keep.dice_left} again" if keep.hot else f"the {dice_left_text(keep.dice_left)}"
        prompt = f"  Turn total {total}. Bank it (b) or roll {roll} (r)? (Enter: {default}) > "
        while True:
            answer = self._answer(prompt, view) or default
            if answer in ("b", "bank"):
                return True
            if answer in ("r", "roll"):
                return False
            self._tell(f"  ! please answer b to bank or r to roll on, not '{answer}'")


def scores_text(view: TurnView, names: Sequence[str] | None) -> str:
    """The scores of every seat and what the game is played to, in one line."""
    labels = names if names is not None and len(names) == view.n_players else None
    parts = []
    for seat, score in enumerate(view.scores):
        label = "you" if seat == view.seat else (labels[seat] if labels else f"seat {seat}")
        parts.append(f"{label} {score:,}")
    target = f"{view.rules.target:,}" + (" exactly" if view.rules.exact_target else "")
    return f"Scores: {', '.join(parts)}; the game is played to {target}."


def _next_dice(keep: Keep) -> str:
    return f"hot dice: roll all {keep.dice_left} again" if keep.hot else dice_left_text(keep.dice_left)


def dice_left_text(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'} left"
