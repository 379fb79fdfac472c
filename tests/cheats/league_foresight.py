"""Cheat 10, a league's seed from its own pages: a new version of an entrant that carries the
league seed, worked back from one game seed a viewer page printed (splitmix64 runs backwards,
``unmix`` below), and finds each of its games' seeds as a league of the old scheme derived them:
``derive_seed(league seed, ruleset, the pair's names, deal)``, the deal found by matching the
strategy seed in ``GameInfo``.  It then replays the dice and rolls on whenever the next roll
scores, so it never farkles.  Plays greedy when no guess matches.

The test writes a copy of this file with ``LEAGUE_SEED`` set to what it recovered.
"""

import json

from arena.engine import Action, derive_seed
from arena.engine.dice import _GOLDEN, _MASK, next_turn_stream, roll_key, seat_streams
from arena.engine.scoring import score_table
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.match import strategy_seed
from arena.tournaments.schedule import stable_hash

LEAGUE_SEED = 0
DEALS = range(64)
_IV = 0x243F6A8885A308D3


def _unshift(z: int, shift: int) -> int:
    result = z
    for _ in range(64 // shift + 1):
        result = z ^ (result >> shift)
    return result & _MASK


def unmix(z: int) -> int:
    """The inverse of splitmix64's finaliser (arena.engine.dice._mix)."""
    z = _unshift(z, 31)
    z = _unshift(z * pow(0x94D049BB133111EB, -1, 1 << 64) & _MASK, 27)
    z = _unshift(z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64) & _MASK, 30)
    return z


def league_seed_from(game_seed: int, rules_key: int, table_key: int, deal: int) -> int:
    """The 64-bit tournament seed that ``derive_seed`` turned into ``game_seed``."""
    h = game_seed
    for part in (deal, table_key, rules_key):
        h = (unmix(h) - _GOLDEN - part) & _MASK
    return (unmix(h) - _GOLDEN - _IV) & _MASK


def old_game_seed(seed: int, rules, names, deal: int) -> int:
    rules_key = stable_hash(json.dumps(rules.as_dict(), sort_keys=True))
    table_key = stable_hash("\x1f".join(sorted(names)))
    return derive_seed(seed, rules_key, table_key, deal)


class LeagueForesight(GreedyPlayer):
    name = "hero"

    def start_game(self, info):
        self.streams = None
        for deal in DEALS:
            game_seed = old_game_seed(LEAGUE_SEED, info.rules, info.names, deal)
            if strategy_seed(game_seed, info.seat) == info.strategy_seed:
                self.streams = seat_streams(derive_seed(game_seed), info.n_players)
                return

    def decide(self, view):
        honest = super().decide(view)
        if self.streams is None or not honest.bank:
            return honest
        keep = next(k for k in view.legal_keeps if k.dice == honest.keep)
        stream = next_turn_stream(self.streams[view.seat], view.turn)
        if score_table(view.rules).keeps[roll_key(stream, view.roll_number, keep.dice_left)]:
            return Action(honest.keep, False)
        return honest
