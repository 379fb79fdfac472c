"""Which games a tournament plays, numbered 0..N-1 in a fixed order.

Formats are small variations of one scheduler (as in cutechess): each names its *tables* (the
players who meet) and every deal of a table is played in each *seat order* (both orders for a
pair, every rotation for more seats) with the same dice per seat position: duplicate play, so
the luck of the dice cancels out of comparisons.

The schedule is interleaved: the deal is the outermost index, then ruleset, table and seat
order, so game numbers cycle through every ruleset and table deal by deal.  Any prefix of a run
(one stopped by Ctrl-C, say) then holds every (ruleset, table) in proportion, each within one
deal of the others, and the two or more seat orders of a deal are consecutive games.  A game's
seed derives from (tournament seed, ruleset, table, deal), or for a league's plan from its table's
key, the ruleset and the deal (:mod:`arena.tournaments.keyed_seeds`), never from its number or the
order in which games run, and the schedule is computed game by game, never held as a list, so memory does
not grow with the number of games.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from itertools import combinations

from arena.engine import derive_seed
from arena.tournaments.keyed_seeds import GameSeeds
from arena.tournaments.spec import TournamentSpec


def stable_hash(text: str) -> int:
    """A 64-bit hash of a string that is the same in every process and Python version."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


@dataclass(frozen=True, slots=True)
class GameSlot:
    """One scheduled game."""

    game: int  # its number in the tournament
    ruleset: int  # index into spec.rulesets
    deal: int  # deals count from 0 within a table; each deal is played in every seat order
    order: int  # which of the deal's seat orders (0 to orders - 1): its games share the dice
    seats: tuple[int, ...]  # player indices in seat order
    seed: int


@dataclass(frozen=True, slots=True)
class ScheduleShape:
    """The sizes of a schedule, from the settings alone (no strategy needs loading, so a report
    can size an interrupted run from its spec.json)."""

    rulesets: int
    tables: int  # 1 for a free-for-all that draws each deal's table
    orders: int  # seat orders per deal: the seats at a table
    deals: int  # per (ruleset, table)

    @classmethod
    def of(cls, fmt: str, players: int, seats: int | None, games: int, rulesets: int) -> ScheduleShape:
        """The shape of a tournament of ``fmt`` (a format), ``players`` players, ``seats`` per
        free-for-all table (None: everyone), ``games`` per pairing or ruleset."""
        table_size = (seats or players) if fmt == "free-for-all" else 2
        if fmt == "round-robin":
            tables = players * (players - 1) // 2
        elif fmt == "gauntlet":
            tables = players - 1
        else:
            tables = 1
        return cls(rulesets, tables, table_size, -(-games // table_size))  # whole deals, rounded up

    @property
    def games_per_round(self) -> int:
        """Games of one deal on every (ruleset, table): the period of the interleaved order."""
        return self.rulesets * self.tables * self.orders

    @property
    def games_per_table(self) -> int:
        return self.deals * self.orders

    @property
    def total(self) -> int:
        return self.deals * self.games_per_round

    def prefix_spread(self, games: int) -> tuple[int, int]:
        """The fewest and most games any one (ruleset, table) has among the first ``games``.

        Whole rounds give every (ruleset, table) the same games; the round in progress has
        reached the first ones only, by at most one deal (``orders`` games) each.
        """
        rounds, rest = divmod(max(0, min(games, self.total)), self.games_per_round)
        base = rounds * self.orders
        first = min(rest, self.orders)  # the first (ruleset, table) of the round in progress
        last = max(0, rest - (self.rulesets * self.tables - 1) * self.orders)
        return base + last, base + first


class Schedule:
    """The games of a tournament, addressable by number.

    Game ``g`` is ``((deal * rulesets + ruleset) * tables + table) * orders + order``: deal by
    deal, every ruleset and table in turn, each deal in all its seat orders one after another.
    """

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        n = len(spec.players)
        shape = ScheduleShape.of(spec.format, n, spec.seats, spec.games, len(spec.rulesets))
        self.shape = shape
        self.table_size = shape.orders
        if spec.format == "round-robin":
            self._tables: list[tuple[int, ...]] | None = list(combinations(range(n), 2))
        elif spec.format == "gauntlet":
            self._tables = [(0, j) for j in range(1, n)]
        elif self.table_size == n:
            self._tables = [tuple(range(n))]
        else:
            self._tables = None  # free-for-all with fewer seats: each deal draws its table
        self.orders = shape.orders
        self.deals = shape.deals
        self.games_per_table = shape.games_per_table
        self.games_per_ruleset = shape.tables * shape.games_per_table
        self._ruleset_keys = [stable_hash(json.dumps(r.as_dict(), sort_keys=True)) for r in spec.rulesets]
        labels = spec.labels
        # Keyed by the players' names, sorted: the same players meet on the same dice whatever
        # order -p named them in, so runs of the same field compare deal by deal.
        self._table_keys = [
            stable_hash("\x1f".join(sorted(labels[i] for i in t))) for t in self._tables or [()]
        ]
        # A keyed spec (a league's plan): each table's games are seeded by a hash keyed by that
        # table's key, over the ruleset and the deal (arena.tournaments.keyed_seeds).
        self._keyed: GameSeeds | None = None
        if spec.seed_key is not None:
            if self._tables is None:
                raise ValueError("keyed seeds need fixed tables (a round-robin or a gauntlet)")
            self._keyed = GameSeeds(
                [spec.seed_key.key_for(t) for t in self._tables],
                [json.dumps(r.as_dict(), sort_keys=True) for r in spec.rulesets],
            )

    def __len__(self) -> int:
        return self.shape.total

    def slot(self, game: int) -> GameSlot:
        """Game number ``game``: its ruleset, deal, seats and seed, in O(1)."""
        if not 0 <= game < len(self):
            raise IndexError(game)
        shape = self.shape
        rest, order = divmod(game, shape.orders)
        rest, table_index = divmod(rest, shape.tables)
        deal, ruleset = divmod(rest, shape.rulesets)
        if self._keyed is not None:
            assert self._tables is not None
            table = self._tables[table_index]
            seed = self._keyed.seed(table_index, ruleset, deal)
        elif self._tables is not None:
            table = self._tables[table_index]
            seed = derive_seed(
                self.spec.seed, self._ruleset_keys[ruleset], self._table_keys[table_index], deal
            )
        else:
            seed = derive_seed(self.spec.seed, self._ruleset_keys[ruleset], 0, deal)
            table = draw_table(seed, len(self.spec.players), self.table_size)
        seats = table[order:] + table[:order]
        return GameSlot(game, ruleset, deal, order, seats, seed)


def draw_table(seed: int, n_players: int, seats: int) -> tuple[int, ...]:
    """``seats`` distinct players of ``n_players``, drawn by a partial Fisher-Yates shuffle on
    :func:`derive_seed` (stable across Python versions, unlike ``random.sample``)."""
    pool = list(range(n_players))
    for i in range(seats):
        j = i + derive_seed(seed, i) % (n_players - i)
        pool[i], pool[j] = pool[j], pool[i]
    return tuple(sorted(pool[:seats]))
