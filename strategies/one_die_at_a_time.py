"""Keep as few dice as possible, the opposite of greedy."""

from __future__ import annotations

from arena.players import Action, TurnView


class OneDieAtATime:
    """Sets aside as few dice as it can to keep the cup full, and banks at 350 or with two dice left.

    002's "Taktik" advice taken to its extreme: "Liegen eine Eins und eine Fünf, nimm oft nur
    die Eins. Ein Würfel mehr im Becher senkt das Nieten-Risiko spürbar."
    """

    name = "one-die-at-a-time"

    def decide(self, view: TurnView) -> Action:
        # Fewest dice first; among those the most points (legal_keeps is sorted by points).
        keep = min(view.legal_keeps, key=lambda k: len(k.dice))
        total = view.turn_points + keep.points
        bank = (total >= 350 or keep.dice_left <= 2) and view.bank_allowed(keep)
        return Action(keep.dice, bank and not view.overshoots(keep))
