"""Cheat 6, foresight from outside: work the game seed out of the strategy seed in ``GameInfo``
by trying small tournament seeds (arena's default is 0; users type 1, 11, 42) and the first
deals, exactly as arena derives game seeds (all of it public code); then replay the dice and
roll on whenever the next roll scores, so it never farkles.  Needs nothing from arena's
processes, so no sandbox wall stands in its way.  Plays like ``greedy`` (and says it is
greedy) when no guess matches."""

import json

from arena.engine import Action, derive_seed
from arena.engine.dice import next_turn_stream, roll_key, seat_streams
from arena.engine.scoring import score_table
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.match import strategy_seed
from arena.tournaments.schedule import stable_hash

SEEDS = range(50)
DEALS = range(60)


def guess_game_seed(info) -> int | None:
    rules_key = stable_hash(json.dumps(info.rules.as_dict(), sort_keys=True))
    table_key = stable_hash("\x1f".join(sorted(info.names)))
    for seed in SEEDS:
        for deal in DEALS:
            game_seed = derive_seed(seed, rules_key, table_key, deal)
            if strategy_seed(game_seed, info.seat) == info.strategy_seed:
                return game_seed
    return None


class SeedGuess(GreedyPlayer):
    name = "greedy"

    def start_game(self, info):
        found = guess_game_seed(info)
        self.streams = None if found is None else seat_streams(derive_seed(found), info.n_players)

    def decide(self, view):
        honest = super().decide(view)
        if self.streams is None or not honest.bank:
            return honest
        keep = next(k for k in view.legal_keeps if k.dice == honest.keep)
        stream = next_turn_stream(self.streams[view.seat], view.turn)
        if score_table(view.rules).keeps[roll_key(stream, view.roll_number, keep.dice_left)]:
            return Action(honest.keep, False)
        return honest
