"""Running sums of a run's games, block by block, with numpy: what summary, pairwise, seats,
lengths and the ratings are built from.

A block's games are laid side by side by table size (one row a game, one column a seat), so
every statistic is a few array operations per block, never a Python step per game.  Sums are
exact integers (win shares in millionths, pairwise results in halves), kept per group in dicts
whose size is the number of groups, not of games; so the totals are the same whatever the order
of the games or the size of the blocks.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from arena.analysis.games_csv import GameBlock

#: games.csv writes a win share with at most six decimals (rows.win_text): summed in millionths,
#: as integers, the totals are exact whatever order the games come in.
WIN_UNITS = 1_000_000
#: One game's finishing order as ids: (rank, player id) per seat, sorted.
IdOrder = tuple[tuple[int, int], ...]
#: A group's key (ids and integers) and its [count, sums...].
Groups = Iterator[tuple[tuple[int, ...], list[int]]]


def group_sums(
    keys: list[np.ndarray], values: list[np.ndarray]
) -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """For every distinct combination of the integer ``keys`` columns: the key and
    [count, sum of each of ``values``], all exact integers.

    The key columns are packed into one int64 (mixed radix), then counted with ``bincount`` when
    the packed range is small, else grouped by ``unique``; sums of integers in float64 are exact
    below 2^53, far above a block's totals."""
    n = len(keys[0])
    if n == 0:
        return
    lows = [int(k.min()) for k in keys]
    spans = [int(k.max()) - low + 1 for k, low in zip(keys, lows, strict=True)]
    total = 1
    for span in spans:
        total *= span
    if total < 2**62:
        packed = np.zeros(n, dtype=np.int64)
        for k, low, span in zip(keys, lows, spans, strict=True):
            packed = packed * span + (k - low)
        if total <= 4 * n + 4096:  # dense: one counting pass
            slot, inverse = None, packed
            size = total
        else:
            slot, inverse = np.unique(packed, return_inverse=True)
            size = len(slot)
        counts = np.bincount(inverse, minlength=size)
        sums = [np.bincount(inverse, weights=v, minlength=size) for v in values]
        present = np.flatnonzero(counts)
        codes = present if slot is None else slot[present]
        columns: list[np.ndarray] = []
        for low, span in zip(reversed(lows), reversed(spans), strict=True):
            codes, digit = np.divmod(codes, span)
            columns.append(digit + low)
        columns.reverse()
    else:  # too many combinations to pack: group the rows of the stacked keys
        rows, inverse = np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)
        inverse = inverse.ravel()
        counts = np.bincount(inverse)
        sums = [np.bincount(inverse, weights=v) for v in values]
        present = np.arange(len(rows))
        columns = [rows[:, j] for j in range(len(keys))]
    listed = [c.tolist() for c in columns]
    count_list = counts[present].tolist()
    sum_lists = [np.rint(s[present]).astype(np.int64).tolist() for s in sums]
    for i, key in enumerate(zip(*listed, strict=True)):
        yield key, [count_list[i], *(s[i] for s in sum_lists)]


def game_starts(block: GameBlock) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each game of the block and its number of rows (seats).  A game's rows are
    consecutive, as arena writes them and :func:`~arena.analysis.games_csv.game_blocks` cuts them."""
    starts = np.flatnonzero(np.r_[True, block.game[1:] != block.game[:-1]])
    return starts, np.diff(np.r_[starts, len(block)])


def game_tables(starts: np.ndarray, sizes: np.ndarray) -> Iterator[np.ndarray]:
    """For each table size, the row numbers of its games: one row a game, one column a seat."""
    for k in np.unique(sizes).tolist():
        yield starts[sizes == k][:, None] + np.arange(k)


def _add(
    totals: dict[tuple[int, ...], list[int]], groups: Iterator[tuple[tuple[int, ...], list[int]]]
) -> None:
    for key, values in groups:
        row = totals.get(key)
        if row is None:
            totals[key] = values
        else:
            for k, value in enumerate(values):
                row[k] += value


class RunTally:
    """The sums per group over every block added; keys are ids of the run's :class:`Names`.

    - ``players``: (ruleset, player) -> [games, win units, score, turns, farkles, faults,
      games that ended at the round limit]
    - ``pairs``: (ruleset, player, opponent) -> [games together, halves: 2 ahead, 1 level]
    - ``seats``: (ruleset, seats at the table, seat) -> [games, win units]
    - ``lengths``: (ruleset, rounds) -> [games]
    - ``player_lengths``: (ruleset, player, rounds) -> [games]: the lengths of each player's games

    The lengths leave out the games that ended at the round limit: their length is the limit, a
    setting of the run, not how long the game took (``players`` counts them).
    - ``orders``: (ruleset, finishing order as ids) -> games
    """

    def __init__(self) -> None:
        self.players: dict[tuple[int, ...], list[int]] = {}
        self.pairs: dict[tuple[int, ...], list[int]] = {}
        self.seats: dict[tuple[int, ...], list[int]] = {}
        self.lengths: dict[tuple[int, ...], list[int]] = {}
        self.player_lengths: dict[tuple[int, ...], list[int]] = {}
        self.orders: dict[tuple[int, IdOrder], int] = {}

    def add(self, block: GameBlock) -> None:
        n = len(block)
        if not n:
            return
        win_units = np.rint(block.win * WIN_UNITS)
        _add(
            self.players,
            group_sums(
                [block.ruleset, block.player],
                [win_units, block.score, block.turns, block.farkles, block.fault, block.round_limit],
            ),
        )
        starts, sizes = game_starts(block)
        _add(self.seats, group_sums([block.ruleset, np.repeat(sizes, sizes), block.seat], [win_units]))
        rounds = np.maximum.reduceat(block.turns, starts)
        ended = ~block.round_limit[starts]
        if ended.any():
            _add(self.lengths, group_sums([block.ruleset[starts][ended], rounds[ended]], []))
            by_row = np.repeat(ended, sizes)
            keys = [block.ruleset[by_row], block.player[by_row], np.repeat(rounds, sizes)[by_row]]
            _add(self.player_lengths, group_sums(keys, []))
        for rows in game_tables(starts, sizes):
            self._add_tables(block.ruleset[rows[:, 0]], block.player[rows], block.rank[rows])

    def _add_tables(self, ruleset: np.ndarray, player: np.ndarray, rank: np.ndarray) -> None:
        """Pairwise results and finishing orders of games with the same number of seats."""
        k = player.shape[1]
        if k > 1:
            # Each pair of seats once; the other direction follows: n games, 2n - h halves.
            a, b = np.array([(i, j) for i in range(k) for j in range(i + 1, k)]).T
            me, other = player[:, a].ravel(), player[:, b].ravel()
            halves = (2 * (rank[:, a] < rank[:, b]) + (rank[:, a] == rank[:, b])).ravel()
            apart = me != other  # (a player seated twice is not its own opponent)
            table = np.repeat(ruleset, len(a))
            for (r, x, y), (n, h) in group_sums([table[apart], me[apart], other[apart]], [halves[apart]]):
                _add(self.pairs, iter((((r, x, y), [n, h]), ((r, y, x), [n, 2 * n - h]))))
        # A finishing order is the seats sorted by (rank, player): one cell per seat.
        width = int(player.max()) + 1
        cells = np.sort(rank * width + player, axis=1)
        for key, (count,) in group_sums([ruleset, *cells.T], []):
            order = tuple(divmod(cell, width) for cell in key[1:])
            full = (key[0], order)
            self.orders[full] = self.orders.get(full, 0) + count
