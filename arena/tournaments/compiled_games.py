"""Play a tournament's games in the compiled kernel (:mod:`arena.compiled.kernel`), with exactly
BatchPlayer's rows and shares: the kernel's adapter to the tournament, which lives here so that
the kernel needs nothing above the engine and the players.

The tables the kernel reads (all numpy arrays, built once per :class:`CompiledGames`):

- rules: one row of ints per ruleset (:data:`RULE_COLUMNS`);
- scoring: the 923 multisets of 1..6 dice numbered densely (``DENSE``); per ruleset and roll
  the range of its legal keeps in flat arrays (points, dice left, hot, dice kept), in exactly
  ``score_table(rules).keeps`` order; ``outcome`` maps a base-6 draw of n dice to its roll;
- policies: per player the keep and bank rule codes, ``bank_at`` by dice left, ``min_dice``,
  ``bank_on_target``, the bank table (flat) and the score-aware fields (:data:`SCORE_COLUMNS`);
- optimal: solved turn situations (``solve_turn``'s ``roll_value``, the same float64 values)
  as one flat array with sorted keys.  A situation the kernel meets unsolved stops it; it is
  solved here and the game is played again from its start (a game is a pure function of its
  seed and the decisions).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from arena.compiled import kernel as K
from arena.compiled import player_policy, ruleset_problem
from arena.engine.dice import _GOLDEN, _MASK, OUTCOME_KEYS, _mix, all_multisets
from arena.engine.rules import Ruleset
from arena.engine.scoring import score_table
from arena.players.match import strategy_seed
from arena.players.policy import BANK_RULES, KEEP_RULES, Policy
from arena.players.solver import solve_turn, warm
from arena.tournaments.results import BatchResult, GameColumns, rows_digest
from arena.tournaments.rows import ENDS, csv_field, win_text
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import TournamentSpec

RULE_COLUMNS = (
    "dice",
    "target",
    "exact_target",
    "entry_threshold",
    "must_roll_after_hot_dice",
    "farkle_penalty",
    "farkle_penalty_to_zero",
    "farkle_penalty_streak",
    "rising_bar",
    "bar_start",
    "bar_step",
    "strikes_to_zero",
)
#: The score-aware policy fields, one int column each (kernel.P_* in the same order).
SCORE_COLUMNS = (
    "roll_keep",
    "die_worth",
    "catch_up",
    "lead_margin[0]",
    "lead_margin[1]",
    "behind_scale[0]",
    "behind_scale[1]",
    "ahead_scale[0]",
    "ahead_scale[1]",
)
#: Every multiset of 1 to 6 dice, numbered densely; index 0 is unused (no dice).
MULTISETS: list[int] = [0] + [key for n in range(1, 7) for key in all_multisets(n)]
DENSE: dict[int, int] = {key: i for i, key in enumerate(MULTISETS)}
#: Games played per kernel call: bounds the memory of the arrays and the row text.
PIECE_GAMES = 20_000
_IV = 0x243F6A8885A308D3


def _rule_row(rules: Ruleset) -> list[int]:
    row = [int(getattr(rules, name)) for name in RULE_COLUMNS]
    row += [
        rules.final_round == "everyone_else",
        rules.ties == "playoff",
        rules.has_farkle_penalty(),
    ]
    return [int(v) for v in row]


def _score_row(policy: Policy) -> list[int]:
    """A policy's score-aware fields as one row of :data:`SCORE_COLUMNS`."""
    roll_keep = -1 if policy.roll_keep is None else KEEP_RULES.index(policy.roll_keep)
    return [
        roll_keep,
        policy.die_worth,
        int(policy.catch_up),
        *policy.lead_margin,
        *policy.behind_scale,
        *policy.ahead_scale,
    ]


def _outcome_table() -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(8, np.int64)
    parts: list[np.ndarray] = []
    for n in range(7):
        offsets[n] = sum(len(p) for p in parts)
        # int16 (923 rolls fit): the six-dice part is 93 KB, not 373 KB, for a random lookup per roll.
        parts.append(np.array([DENSE[k] if k else 0 for k in OUTCOME_KEYS[n]], np.int16))
    offsets[7] = sum(len(p) for p in parts)
    return np.concatenate(parts), offsets


def _text_table(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    data = [t.encode() for t in texts]
    offsets = np.zeros(len(data) + 1, np.int64)
    offsets[1:] = np.cumsum([len(d) for d in data])
    return np.frombuffer(b"".join(data) or b"\0", np.uint8).copy(), offsets


def _shares(win: np.ndarray) -> list[tuple[float, ...]]:
    """Each game's win shares as BatchPlayer gives them (1/k for each of k winners), as tuples.
    A game has one of few patterns of winners: each pattern's tuple is built once and shared.
    The winners' bits say how many won (the kernel's nwin is their count), so the bits alone key a
    pattern: a set of ints, where np.unique on (bits, count) pairs sorted 20,000 rows per piece."""
    seats = win.shape[1]
    codes = (win.astype(np.int64) << np.arange(seats, dtype=np.int64)).sum(axis=1).tolist()
    patterns: dict[int, tuple[float, ...]] = {}
    for code in set(codes):
        share = 1.0 / max(code.bit_count(), 1)
        patterns[code] = tuple(share if code >> s & 1 else 0.0 for s in range(seats))
    return [patterns[c] for c in codes]


@dataclass(frozen=True)
class Variant:
    """Another seed, number of games and policies for the players of a :class:`CompiledGames`:
    what a job of a long-lived pool says instead of a whole spec (whose players may come from a
    strategy file and can't be sent between processes)."""

    seed: int
    games: int
    policies: tuple[Policy | None, ...]


class CompiledGames:
    """Games of ``spec`` played in the kernel.  Players without a policy may be in the spec;
    games that seat one can't be played here (see :meth:`compilable`)."""

    def __init__(self, spec: TournamentSpec, policies: Sequence[Policy | None] | None = None) -> None:
        """``policies``: each player's policy when already read (reading one makes players)."""
        problem = ruleset_problem(spec)
        if problem is not None:
            raise ValueError(problem)
        self.spec = spec
        self.schedule = Schedule(spec)
        self.policies: list[Policy | None] = (
            [player_policy(p) for p in spec.players] if policies is None else list(policies)
        )
        self._build_rules(spec.rulesets)
        self._solved: dict[int, tuple[int, int, int]] = {}  # key -> (offset, rows, ruleset)
        self._sit_keys = np.zeros(0, np.int64)
        self._sit_off = np.zeros(0, np.int64)
        self._sit_rows = np.zeros(0, np.int64)
        self._sit_vals = np.zeros(0, np.float64)
        self._value_parts: list[np.ndarray] = []
        self._build_players()
        ruleset_fields = [csv_field(r.name) for r in spec.rulesets]
        player_fields = [csv_field(label) for label in spec.labels]
        self._r_text, self._r_off = _text_table(ruleset_fields)
        self._p_text, self._p_off = _text_table(player_fields)
        seats = self.schedule.table_size
        wins = [win_text(0.0)] + [win_text(1.0 / k) for k in range(1, seats + 1)]  # by winners
        self._w_text, self._w_off = _text_table(wins)
        self._e_text, self._e_off = _text_table(["", *ENDS])  # by the kernel's code: 1 target, 2 limit
        longest = max(len(f.encode()) for f in ruleset_fields) + max(len(f.encode()) for f in player_fields)
        self._row_bound = longest + 7 * 21 + 16 + int(self._w_off.max()) + max(map(len, ENDS)) + 2

    def variant(self, variant: Variant) -> CompiledGames:
        """The games of the same players and rulesets under another seed, number of games and
        policies (a tuning race's candidate, round after round): the rule tables, the texts and
        the solved situations are shared, only the players' and the schedule's are built."""
        other = copy.copy(self)
        other.spec = dataclasses.replace(self.spec, seed=variant.seed, games=variant.games)
        other.schedule = Schedule(other.spec)
        if len(variant.policies) != len(self.policies):
            raise ValueError(f"a variant needs {len(self.policies)} policies, got {len(variant.policies)}")
        other.policies = list(variant.policies)
        other._solved = dict(self._solved)  # added to by the variant's own games
        other._value_parts = list(self._value_parts)
        other._build_players()
        return other

    # ----------------------------------------------------------------- tables
    def _build_players(self) -> None:
        """The tables that depend on the policies and the seed (and situations to solve)."""
        self._build_policies()
        self._build_schedule()
        if any(p is not None and p.keep == "optimal" for p in self.policies):
            for index, rules in enumerate(self.spec.rulesets):
                warm(rules)
                self._add_warm(index, rules)
            self._publish()
        self._random = any(p is not None and "random" in (p.keep, p.bank, p.roll_keep) for p in self.policies)

    def _build_rules(self, rulesets: Sequence[Ruleset]) -> None:
        self._rules = np.array([_rule_row(r) for r in rulesets], np.int64)
        count = len(MULTISETS)
        keep_start = np.zeros((len(rulesets), count), np.int64)
        keep_count = np.zeros((len(rulesets), count), np.int64)
        points: list[int] = []
        left: list[int] = []
        hot: list[bool] = []
        ndice: list[int] = []
        for r, rules in enumerate(rulesets):
            keeps = score_table(rules).keeps
            for roll, options in keeps.items():
                d = DENSE[roll]
                keep_start[r, d] = len(points)
                keep_count[r, d] = len(options)
                for keep in options:
                    points.append(keep.points)
                    left.append(keep.dice_left)
                    hot.append(keep.hot)
                    ndice.append(len(keep.dice))
        self._keep_start, self._keep_count = keep_start, keep_count
        self._k_points = np.array(points, np.int64)
        self._k_left = np.array(left, np.int64)
        self._k_hot = np.array(hot, np.bool_)
        self._k_ndice = np.array(ndice, np.int64)
        self._outcome, self._outcome_off = _outcome_table()

    def _build_policies(self) -> None:
        n = len(self.policies)
        self._pol_keep = np.zeros(n, np.int64)
        self._pol_bank = np.zeros(n, np.int64)
        self._pol_at = np.zeros((n, 7), np.int64)
        self._pol_min = np.ones(n, np.int64)
        self._pol_on_target = np.zeros(n, np.int64)
        self._pol_table_off = np.zeros(n, np.int64)
        self._pol_table_cols = np.ones(n, np.int64)
        # No policy: no roll_keep (-1) and fractions of 0/1 and 1/1 (never a division by zero).
        self._pol_score = np.tile(np.array([-1, 0, 0, 0, 1, 1, 1, 1, 1], np.int64), (n, 1))
        cells: list[int] = []
        for i, policy in enumerate(self.policies):
            if policy is None:
                continue
            self._pol_keep[i] = KEEP_RULES.index(policy.keep)
            self._pol_bank[i] = BANK_RULES.index(policy.bank)
            for left in range(1, 7):
                self._pol_at[i, left] = policy.bank_at_for(left)
            self._pol_min[i] = policy.min_dice
            self._pol_on_target[i] = policy.bank_on_target
            self._pol_score[i] = _score_row(policy)
            if policy.table:
                self._pol_table_off[i] = len(cells)
                self._pol_table_cols[i] = len(policy.table[0])
                cells.extend(int(c) for row in policy.table for c in row)
        self._pol_table = np.array(cells or [0], np.uint8)

    def _build_schedule(self) -> None:
        if self.spec.seed_key is not None:  # slot_seeds derives splitmix64 seeds only
            raise ValueError("the compiled kernel can't play keyed seeds (a league's plan)")
        sched = self.schedule
        state = _IV
        part = self.spec.seed
        while True:  # derive_seed's folding of the tournament seed (which may be wider than 64 bits)
            state = _mix((state + _GOLDEN + (part & _MASK)) & _MASK)
            part >>= 64
            if not part:
                break
        self._seed_state = np.uint64(state)
        self._ruleset_keys = np.array(sched._ruleset_keys, np.uint64)
        self._table_keys = np.array(sched._table_keys, np.uint64)
        tables = sched._tables
        if tables is None:  # a free-for-all with fewer seats than players: each deal draws its table
            self._fixed = np.zeros((0, sched.table_size), np.int64)
        else:
            self._fixed = np.array(tables, np.int64)

    # ----------------------------------------------------------------- optimal situations
    def _add(self, ruleset: int, minimum: int, cap: int | None) -> None:
        low = 0 if cap is None else cap + 1
        key = (ruleset << K.SIT_RULESET_SHIFT) | (minimum << K.SIT_MINIMUM_SHIFT) | low
        if key in self._solved:
            return
        solution = solve_turn(self.spec.rulesets[ruleset], minimum, cap)
        table = np.array(solution.roll_value, np.float64)
        values = np.zeros((table.shape[0], 7))
        values[:, : table.shape[1]] = table
        offset = sum(part.size for part in self._value_parts)
        self._value_parts.append(values.ravel())
        self._solved[key] = (offset, table.shape[0], ruleset)

    def _add_warm(self, index: int, rules: Ruleset) -> None:
        from arena.players.solver import SOLVED

        for solved_rules, minimum, cap in SOLVED:
            if solved_rules == rules:
                self._add(index, minimum, cap)

    def _publish(self) -> None:
        keys = sorted(self._solved)
        self._sit_keys = np.array(keys, np.int64)
        self._sit_off = np.array([self._solved[k][0] for k in keys], np.int64)
        self._sit_rows = np.array([self._solved[k][1] for k in keys], np.int64)
        self._sit_vals = np.concatenate(self._value_parts) if self._value_parts else np.zeros(1)
        self._value_parts = [self._sit_vals]

    def _solve_key(self, key: int) -> None:
        ruleset = key >> K.SIT_RULESET_SHIFT
        minimum = (key >> K.SIT_MINIMUM_SHIFT) & ((1 << (K.SIT_RULESET_SHIFT - K.SIT_MINIMUM_SHIFT)) - 1)
        cap = (key & ((1 << K.SIT_MINIMUM_SHIFT) - 1)) - 1
        self._add(ruleset, minimum, None if cap < 0 else cap)
        self._publish()

    # ----------------------------------------------------------------- playing
    def slots(self, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Ruleset, deal, seed and seats of each game number, as Schedule.slot gives them."""
        sched = self.schedule
        return K.slot_seeds(
            games,
            sched.shape.orders,
            sched.shape.tables,
            sched.shape.rulesets,
            self._seed_state,
            self._ruleset_keys,
            self._table_keys,
            self._fixed,
            len(self.spec.players),
        )

    def compilable(self, games: Sequence[int] | np.ndarray) -> np.ndarray:
        """Per game number: True if every seat of that game has a policy."""
        games = np.asarray(games, np.int64)
        has = np.array([p is not None for p in self.policies])
        return has[self.slots(games)[3]].all(axis=1)

    def _play(
        self, games: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list[tuple[float, ...]], GameColumns]:
        """Rows as bytes, the end offset of each game's rows, each game's win shares, and the
        rows' numbers."""
        rulesets, deals, seeds, seats = self.slots(games)
        if not all(self.policies[p] is not None for p in np.unique(seats)):
            raise ValueError("some of these games seat a player without a declarative policy")
        g, n = seats.shape
        strat = np.zeros((g, n), np.uint64)
        if self._random:
            for i, seed in enumerate(seeds.tolist()):
                for s in range(n):
                    strat[i, s] = strategy_seed(seed, s)
        scores = np.zeros((g, n), np.int64)
        ranks = np.zeros((g, n), np.int64)
        win = np.zeros((g, n), np.bool_)
        nwin = np.zeros(g, np.int64)
        turns = np.zeros((g, n), np.int64)
        farkles = np.zeros((g, n), np.int64)
        ends = np.zeros(g, np.int64)
        first = 0
        while True:
            position, key = K.play_games(
                seeds, rulesets, seats, strat, self._rules, self._keep_start, self._keep_count,
                self._k_points, self._k_left, self._k_hot, self._k_ndice, self._outcome, self._outcome_off,
                self._pol_keep, self._pol_bank, self._pol_at, self._pol_min, self._pol_on_target,
                self._pol_table, self._pol_table_off, self._pol_table_cols, self._pol_score,
                self._sit_keys, self._sit_off, self._sit_rows, self._sit_vals,
                self.spec.max_rounds, first, scores, ranks, win, nwin, turns, farkles, ends,
            )  # fmt: skip
            if position < 0:
                break
            self._solve_key(int(key))
            first = int(position)
        buf = np.empty(g * n * self._row_bound, np.uint8)
        row_ends = np.empty(g, np.int64)
        size = K.format_rows(
            games, deals, seeds, rulesets, seats, scores, ranks, win, nwin, turns, farkles, ends,
            self._r_text, self._r_off, self._p_text, self._p_off, self._w_text, self._w_off,
            self._e_text, self._e_off, buf, row_ends,
        )  # fmt: skip
        columns = GameColumns(
            ruleset=rulesets.astype(np.int16),
            deal=deals.astype(np.int64),
            end=ends.astype(np.int8),
            winners=nwin.astype(np.int8),
            player=seats.astype(np.int16).ravel(),
            score=scores.astype(np.int32).ravel(),
            rank=ranks.astype(np.int8).ravel(),
            won=win.ravel(),
            turns=turns.astype(np.int32).ravel(),
            farkles=farkles.astype(np.int32).ravel(),
        )
        return buf[:size], row_ends, _shares(win), columns

    def play(self, start: int, stop: int) -> BatchResult:
        """Games start..stop-1, as ``BatchPlayer(spec).play(start, stop)`` gives them."""
        parts: list[str] = []
        shares: list[tuple[float, ...]] = []
        for piece in self.pieces(start, stop, PIECE_GAMES):
            parts.append(piece.rows)
            shares.extend(piece.shares)
        return BatchResult(start, stop, "".join(parts), 0, tuple(shares))

    def pieces(self, start: int, stop: int, every: int = PIECE_GAMES) -> Iterator[BatchResult]:
        """Games start..stop-1 in results of ``every`` games (memory stays flat however many),
        each with its :class:`~arena.tournaments.results.GameColumns`."""
        for lo in range(start, stop, every):
            hi = min(stop, lo + every)
            data, _ends, shares, columns = self._play(np.arange(lo, hi, dtype=np.int64))
            # str() of the array's buffer decodes it in place: 8x faster than tobytes().decode().
            rows = str(data.data, "utf-8")
            yield BatchResult(lo, hi, rows, 0, tuple(shares), columns=columns, digest=rows_digest(data.data))

    def load(self) -> None:
        """Load the compiled functions now (from numba's disk cache, or compile them): done once
        in a process that then forks workers, so none of them loads them again."""
        flags = self.compilable(np.arange(min(len(self.schedule), 64)))
        if flags.any():
            self._play(np.array([int(np.argmax(flags))], np.int64))

    @property
    def compiles_all(self) -> bool:
        """True if every player has a policy, so every game of the spec is played here."""
        return all(p is not None for p in self.policies)

    def play_each(self, games: Sequence[int] | np.ndarray) -> list[tuple[str, tuple[float, ...]]]:
        """The rows and win shares of each of ``games`` (game numbers, in any order), in the
        order given: for a field in which only some games can be played here."""
        games = np.asarray(games, np.int64)
        out: list[tuple[str, tuple[float, ...]]] = []
        for lo in range(0, len(games), PIECE_GAMES):
            data, ends, shares, _columns = self._play(games[lo : lo + PIECE_GAMES])
            # Offsets are bytes; names may be multi-byte: cut the bytes, then decode each.
            starts = [0, *ends[:-1].tolist()]
            texts = (str(data[a:b].data, "utf-8") for a, b in zip(starts, ends.tolist(), strict=True))
            out.extend(zip(texts, shares, strict=True))
        return out

    def play_games(self, games: Sequence[int] | np.ndarray) -> list[str]:
        """The rows of each of ``games`` (game numbers, in any order), one string per game."""
        return [rows for rows, _ in self.play_each(games)]


__all__ = ["CompiledGames"]
