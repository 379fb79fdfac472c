"""Which games a tournament plays, numbered 0..N-1 in a fixed order.

Formats are small variations of one scheduler (as in cutechess): each names its *tables* (the
players who meet) and every deal of a table is played in each *seat order* (both orders for a
pair, every rotation for more seats) with the same dice per seat position: duplicate play, so
the luck of the dice cancels out of comparisons.

The order is ruleset, table, deal, seat order.  A game's seed derives from (tournament seed,
ruleset, table, deal), never from the order in which games run, and the schedule is computed
game by game, never held as a list, so memory does not grow with the number of games.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from itertools import combinations

from arena.engine import derive_seed
from arena.tournament.spec import TournamentSpec


def stable_hash(text: str) -> int:
    """A 64-bit hash of a string that is the same in every process and Python version."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True, slots=True)
class GameSlot:
    """One scheduled game."""

    game: int  # its number in the tournament
    ruleset: int  # index into spec.rulesets
    deal: int  # deals count from 0 within a table; each deal is played in every seat order
    seats: tuple[int, ...]  # player indices in seat order
    seed: int


class Schedule:
    """The games of a tournament, addressable by number."""

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        n = len(spec.players)
        self.table_size = (spec.seats or n) if spec.format == "free-for-all" else 2
        if spec.format == "round-robin":
            self._tables: list[tuple[int, ...]] | None = list(combinations(range(n), 2))
        elif spec.format == "gauntlet":
            self._tables = [(0, j) for j in range(1, n)]
        elif self.table_size == n:
            self._tables = [tuple(range(n))]
        else:
            self._tables = None  # free-for-all with fewer seats: each deal draws its table
        self.orders = self.table_size
        n_tables = len(self._tables) if self._tables is not None else 1
        self.deals = -(-spec.games // self.orders)  # rounded up to whole deals
        self.games_per_table = self.deals * self.orders
        self.games_per_ruleset = n_tables * self.games_per_table
        self._ruleset_keys = [stable_hash(json.dumps(r.as_dict(), sort_keys=True)) for r in spec.rulesets]
        labels = spec.labels
        self._table_keys = [stable_hash("\x1f".join(labels[i] for i in t)) for t in self._tables or [()]]

    def __len__(self) -> int:
        return self.games_per_ruleset * len(self.spec.rulesets)

    def slot(self, game: int) -> GameSlot:
        if not 0 <= game < len(self):
            raise IndexError(game)
        ruleset, rest = divmod(game, self.games_per_ruleset)
        table_index, rest = divmod(rest, self.games_per_table)
        deal, order = divmod(rest, self.orders)
        if self._tables is not None:
            table = self._tables[table_index]
            seed = derive_seed(
                self.spec.seed, self._ruleset_keys[ruleset], self._table_keys[table_index], deal
            )
        else:
            seed = derive_seed(self.spec.seed, self._ruleset_keys[ruleset], 0, deal)
            table = draw_table(seed, len(self.spec.players), self.table_size)
        seats = table[order:] + table[:order]
        return GameSlot(game, ruleset, deal, seats, seed)


def draw_table(seed: int, n_players: int, seats: int) -> tuple[int, ...]:
    """``seats`` distinct players of ``n_players``, drawn by a partial Fisher-Yates shuffle on
    :func:`derive_seed` (stable across Python versions, unlike ``random.sample``)."""
    pool = list(range(n_players))
    for i in range(seats):
        j = i + derive_seed(seed, i) % (n_players - i)
        pool[i], pool[j] = pool[j], pool[i]
    return tuple(sorted(pool[:seats]))
