"""``tactician``: the "Taktik: wann sichern?" section of the general guide (002), as code."""

from __future__ import annotations

from arena.engine import Action, Keep, TurnView
from arena.players.builtin.common import hits_target, keeps_within_target
from arena.players.policy import Policy

#: Turn totals at which to bank, by dice left in the cup (002: with one or two dice "sichern die
#: meisten, sobald ein paar hundert Punkte im Zug liegen"; with three, roll on "nur bei kleinen
#: Zügen"; with four or five "wirfst du fast immer weiter").
BANK_AT = {1: 250, 2: 300, 3: 400, 4: 800, 5: 1500, 6: 3000}
#: What one more die in the cup is worth when choosing what to set aside ("Ein Würfel mehr im
#: Becher senkt das Nieten-Risiko spürbar").
DIE_IN_CUP = 150


class Tactician:
    """Plays by the tactics of the general guide (002, "Taktik: wann sichern?").

    Keeps a lone 1 rather than 1 + 5 to keep dice in the cup; banks by dice left; risks more
    when far behind and banks earlier when far ahead; in the final round, when behind, rolls
    until past the leader or a farkle ("In der letzten Runde gibt es nichts mehr zu verlieren").
    """

    name = "tactician"
    #: The same play as data, for the compiled kernel (tests/test_compiled.py checks it equals
    #: ``decide``): the bank limit by dice left, scaled by 3/2 behind and 3/4 ahead by more than
    #: a fifth of the target; the final-round catch-up; rolling on with the keep that weighs
    #: dice left in the cup.
    policy = Policy(
        keep="most_points",
        bank="threshold",
        bank_at=tuple(BANK_AT[left] for left in range(1, 7)),
        lead_margin=(1, 5),
        behind_scale=(3, 2),
        ahead_scale=(3, 4),
        catch_up=True,
        roll_keep="weighted",
        die_worth=DIE_IN_CUP,
    )

    def decide(self, view: TurnView) -> Action:
        keeps = keeps_within_target(view)
        best = keeps[0]
        if hits_target(view, best) and view.may_bank(best):
            return Action(best.dice, True)
        leader = max((s for seat, s in enumerate(view.scores) if seat != view.seat), default=0)
        if view.final_round and view.score < leader:
            # Nothing to lose: bank only once past the leader.
            past = [
                k for k in keeps if view.score + view.turn_points + k.points > leader and view.may_bank(k)
            ]
            if past:
                return Action(max(past, key=lambda k: k.points).dice, True)
            return Action(self._keep_to_roll_on(keeps).dice, False)
        if self._should_bank(view, best, leader):
            return Action(best.dice, True)
        return Action(self._keep_to_roll_on(keeps).dice, False)

    def _should_bank(self, view: TurnView, keep: Keep, leader: int) -> bool:
        if not view.may_bank(keep):
            return False
        limit = BANK_AT[keep.dice_left]
        gap = leader - view.score
        if gap > view.rules.target // 5:
            limit = limit * 3 // 2  # "Wer weit zurückliegt, muss mehr riskieren."
        elif -gap > view.rules.target // 5:
            limit = limit * 3 // 4  # "Wer vorne liegt, sichert früher."
        return view.turn_points + keep.points >= limit

    @staticmethod
    def _keep_to_roll_on(keeps: tuple[Keep, ...]) -> Keep:
        # "Liegen eine Eins und eine Fünf, nimm oft nur die Eins": weigh dice left in the cup.
        return max(keeps, key=lambda k: (k.points + DIE_IN_CUP * k.dice_left, k.points))
