"""A template to copy: every field a strategy can see, explained.

Run it against the built-ins:

    arena play --rules standard -p strategies/template.py -p optimal --seed 1

Its parameters are its constructor's keyword arguments; set them in the spec, and
`arena strategies list` shows them with their types and defaults:

    arena play -p strategies/template.py:bank_at=500,min_dice=2 -p optimal --seed 1
"""

from __future__ import annotations

from arena.players import Action, GameInfo, TurnView


class Template:
    """Keeps the most points; banks at bank_at (400) or with under min_dice (3) dice left (a template)."""

    # The name shown in results.  Parameters set in a spec are added to it (template:bank_at=500)
    # unless the name already holds an "=": then it is taken to show them itself.
    name = "template"

    def __init__(self, bank_at: int = 400, min_dice: int = 3) -> None:
        """Optional.  Parameters with a type (int, float, bool or str) and a default; a spec sets
        them as NAME=VALUE, converted to that type.  Raise ValueError for a bad value: arena
        shows its message in one line."""
        if bank_at < 0:
            raise ValueError(f"bank_at must be zero or more, got {bank_at}")
        self.bank_at = bank_at
        self.min_dice = min_dice

    def start_game(self, info: GameInfo) -> None:
        """Optional.  Called once before the first roll of each game.

        info.rules      the Ruleset in play (every rule as a field; `arena rules show NAME`)
        info.seat       your seat, 0 is the first to play
        info.n_players  how many seats
        info.names      every seat's player name
        info.rng        a random.Random for your own choices: seeded per game and seat,
                        separate from the dice, so your play is reproducible
        """
        self.rng = info.rng

    def decide(self, view: TurnView) -> Action:
        """Called after every roll that scores.  Return Action(keep, bank).

        view.roll            the dice just rolled, ascending, e.g. (1, 3, 5, 5, 6)
        view.turn_points     points set aside earlier this turn (before this roll)
        view.legal_keeps     every legal selection from the roll, best points first; each has
                               .dice       the dice to set aside, e.g. (1, 5)
                               .points     what they score
                               .dice_left  dice rolled next if you roll on (hot dice: all again)
                               .hot        True if every die of the roll scores ("hot dice")
        view.bank_minimum    turn total needed before banking is allowed (entry threshold or
                             rising bar); 0 if none
        view.points_to_bank  what this turn still needs to reach bank_minimum
        view.scores          every seat's banked score;  view.score is yours
        view.seat            your seat;  view.n_players  how many seats
        view.rules           the Ruleset (view.rules.target, .exact_target, .dice, ...)
        view.points_to_target  points you still need to reach the target
        view.strikes         strikes per seat (rising bar, 000);  view.farkle_streaks  farkles
                             in a row per seat;  view.entered  per seat, entry behind them
        view.final_round     True once someone has reached the target: your last turn
        view.turn            your turn number in this game, from 0
        view.roll_number     rolls so far this turn, this one included
        view.playoff         True in a tie-break turn, where only this turn's points count
        view.bank_allowed(keep)  True if banking after that keep is allowed
        view.overshoots(keep)    True if that keep passes an exact target (the turn is lost)

        Return Action(keep.dice, bank): bank=True banks the turn's points after setting the
        keep aside; bank=False rolls the dice left.  An illegal action loses the game.
        """
        keep = view.legal_keeps[0]  # the most points
        total = view.turn_points + keep.points
        wants_bank = total >= self.bank_at or keep.dice_left < self.min_dice
        return Action(keep.dice, wants_bank and view.bank_allowed(keep))

    # Optional: end_turn(self, turn) is told how every turn of every seat ended, before the next
    # decision: an arena.players.TurnEnd with seat, turn, how ("banked", "farkled" or
    # "forfeited"), points, struck and strikes (the rising bar), penalty, score, scores and
    # playoff.  A strategy that keeps a history of its opponents keeps it there.  It is left out
    # here because a game with the hook is played decision by decision, which is slower.

    def end_game(self, result) -> None:
        """Optional.  Called after the game with its GameResult (scores, winners, turns, ...)."""
