"""Build summary.csv, pairwise.csv, gauntlet.csv and errors.csv from games.csv with pandas.

games.csv is read in blocks cut at game boundaries (games_csv.py) and every statistic is a sum
per group, taken with numpy a block at a time (tally.py), so memory stays flat however many
games the run holds; pandas builds the final tables, one row per group.  Every number is a
function of the set of games, not of their order in the file: sums are exact (integers, or win
shares in millionths) and the ratings are fitted to counts of finishing orders (see ratings.py).

summary.csv, one row per ruleset and player, best Elo first:
  ruleset, player; games, wins (a shared win counts its share), win_rate with its 95% Wilson
  interval ci_low, ci_high; mean_score, mean_turns, points_per_turn, farkle_rate (farkles per
  turn), errors (games the player lost by a fault), round_limit (its games that ended at the
  round limit, with nobody at the target: they count as played, ranked by score); elo, elo_low,
  elo_high: the Plackett-Luce strength on the Elo scale that best explains every finishing
  order, given the opponents each player met, centred on 0, with its 95% interval (NaN for a
  player who never met anyone).
pairwise.csv, one row per ruleset, player and opponent who sat at one table:
  games together, wins (finishing ahead of the opponent; level counts half), win_rate, ci_low,
  ci_high (Wilson), significant (True when that interval excludes 50 %).
gauntlet.csv (gauntlet runs): the tested player against each opponent; see gauntlet.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pandas as pd

from arena.analysis.games_csv import (
    BLOCK_ROWS,
    CHUNK_ROWS,
    ERROR_COLUMNS,
    GAME_COLUMNS,
    GameBlock,
    Names,
    ReportError,
    game_blocks,
    game_chunks,
)
from arena.analysis.gauntlet import GAUNTLET_COLUMNS, GauntletPairs
from arena.analysis.ratings import Order, finishing_order, plackett_luce_elo
from arena.analysis.stats import wilson_interval
from arena.analysis.tally import WIN_UNITS, RunTally, game_starts
from arena.players.text import csv_text
from arena.safe_files import replacing

__all__ = [  # the reading side lives in games_csv.py; these names stay importable from here
    "CHUNK_ROWS",
    "GAME_COLUMNS",
    "ReportError",
    "RunStats",
    "build_reports",
    "game_chunks",
    "write_reports",
]

SUMMARY_COLUMNS = [
    "ruleset",
    "player",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "mean_score",
    "mean_turns",
    "points_per_turn",
    "farkle_rate",
    "errors",
    "round_limit",
    "elo",
    "elo_low",
    "elo_high",
]
PAIRWISE_COLUMNS = [
    "ruleset",
    "player",
    "opponent",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "significant",
]


@dataclass(frozen=True)
class RunStats:
    """Everything the reports show, from one pass over games.csv."""

    summary: pd.DataFrame
    pairwise: pd.DataFrame
    error_count: int  # fault rows; build_reports streams them to a file when given one
    seats: pd.DataFrame  # win rate by seat position: the first-seat advantage
    lengths: pd.DataFrame  # games by length in rounds, per ruleset
    gauntlet: pd.DataFrame  # the tested player against each opponent (gauntlet runs; else empty)
    #: games by length in rounds, per ruleset and player: the lengths of the games each played
    player_lengths: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["ruleset", "player", "rounds", "games"])
    )


class RunTotals:
    """Everything the reports sum, block by block: the tally, the gauntlet's pairs (``tested``:
    its tested player, or None) and the faults counted, with the names the ids stand for.
    Filled from games.csv by :func:`build_reports`, or from the numbers the workers sent with
    the rows, as a run is played (:meth:`arena.analysis.games_csv.Names.numbers_block`)."""

    def __init__(self, tested: str | None = None) -> None:
        self.tested = tested
        self.names = Names()
        self.tally = RunTally()
        self.gauntlet = GauntletPairs(tested, self.names) if tested is not None else None
        self.error_count = 0
        self.games = 0

    def add(self, block: GameBlock) -> None:
        """Add whole games (blocks in file order)."""
        self.tally.add(block)
        if self.gauntlet is not None:
            self.gauntlet.add(block)
        self.error_count += len(block.faults)
        if len(block):
            self.games += len(game_starts(block)[0])


def build_reports(
    path: Path,
    ruleset_order: list[str] | None = None,
    *,
    tested: str | None = None,
    errors_path: Path | None = None,
    chunk_rows: int = BLOCK_ROWS,
    totals: RunTotals | None = None,
) -> RunStats:
    """The statistics of the games in ``path``.  ``tested``: the tested player of a gauntlet,
    reported against each opponent from game pairs.  ``errors_path``: write the fault rows there
    as they are found.  ``totals``: the games' sums, already made as they were played (every
    game of ``path``, none with a fault): then games.csv is not read again."""
    if totals is None or totals.tested != tested:
        totals = RunTotals(tested)
        # errors.csv takes its place whole once every block is read (a Ctrl-C meanwhile leaves
        # the one there was): streamed, so memory doesn't grow with faults.
        with _errors_file(errors_path) as errors:
            for block in game_blocks(path, totals.names, chunk_rows):
                totals.add(block)
                if len(block.faults) and errors is not None:
                    neutral(block.faults).to_csv(errors, header=False, index=False, lineterminator="\n")
    elif errors_path is not None:
        if totals.error_count:
            raise ValueError("totals with faults can't write errors.csv: read games.csv instead")
        with _errors_file(errors_path):
            pass
    names, tally, gauntlet, error_count = totals.names, totals.tally, totals.gauntlet, totals.error_count
    order = list(ruleset_order or [])
    order += [r for r in names.rulesets if r not in order]
    rulesets, players = names.rulesets, names.players
    sums = _frame(
        {(rulesets[r], players[p]): v for (r, p), v in tally.players.items()},
        ["ruleset", "player"],
        ["games", "win_units", "score", "turns", "farkles", "errors", "round_limit"],
    )
    pairs = _frame(
        {
            (rulesets[r], players[a], players[b]): [n, halves / 2]
            for (r, a, b), (n, halves) in tally.pairs.items()
        },
        ["ruleset", "player", "player_other"],
        ["games", "wins"],
    )
    seats = _frame(
        {(rulesets[r], k, seat): v for (r, k, seat), v in tally.seats.items()},
        ["ruleset", "table", "seat"],
        ["games", "win_units"],
    )
    lengths = _frame(
        {(rulesets[r], rounds): v for (r, rounds), v in tally.lengths.items()},
        ["ruleset", "rounds"],
        ["games"],
    )
    player_lengths = _frame(
        {(rulesets[r], players[p], rounds): v for (r, p, rounds), v in tally.player_lengths.items()},
        ["ruleset", "player", "rounds"],
        ["games"],
    )
    orders: dict[tuple[str, Order], int] = {}  # finishing orders and their counts: the ratings' data
    for (r, cells), count in tally.orders.items():
        key = (rulesets[r], finishing_order([players[p] for _, p in cells], [rank for rank, _ in cells]))
        orders[key] = orders.get(key, 0) + count
    summary = _summary(sums, order, _ratings(orders))
    return RunStats(
        summary,
        _pairwise(pairs, order, summary),
        error_count,
        _seat_table(seats, order),
        _length_table(lengths, order),
        gauntlet.frame(order) if gauntlet is not None else pd.DataFrame(columns=GAUNTLET_COLUMNS),
        _player_length_table(player_lengths, summary),
    )


def _frame(rows: dict[tuple, list], index: list[str], columns: list[str]) -> pd.DataFrame | None:
    """Sums per group as a frame indexed by the group; None for no groups."""
    if not rows:
        return None
    return pd.DataFrame(
        list(rows.values()), index=pd.MultiIndex.from_tuples(list(rows), names=index), columns=columns
    )


def _ratings(orders: dict[tuple[str, Order], int]) -> dict[tuple[str, str], tuple[float, float, float]]:
    """Plackett-Luce Elo per (ruleset, player), fitted per ruleset."""
    by_ruleset: dict[str, dict[Order, int]] = {}
    for (ruleset, order), count in orders.items():
        by_ruleset.setdefault(ruleset, {})[order] = count
    return {
        (ruleset, player): value
        for ruleset, counts in by_ruleset.items()
        for player, value in plackett_luce_elo(counts).items()
    }


def _seat_table(seats: pd.DataFrame | None, order: list[str]) -> pd.DataFrame:
    columns = ["ruleset", "seats", "seat", "games", "wins", "win_rate", "ci_low", "ci_high", "fair_share"]
    if seats is None:
        return pd.DataFrame(columns=columns)
    table = seats.reset_index().rename(columns={"table": "seats"})
    table["games"] = table["games"].astype("int64")
    table["wins"] = table.pop("win_units").astype("int64") / WIN_UNITS
    table = _with_interval(table)
    table["fair_share"] = 1 / table["seats"]
    table["ruleset_order"] = table["ruleset"].map({r: i for i, r in enumerate(order)})
    return table.sort_values(["ruleset_order", "seats", "seat"])[columns].reset_index(drop=True)


def _length_table(lengths: pd.DataFrame | None, order: list[str]) -> pd.DataFrame:
    if lengths is None:
        return pd.DataFrame(columns=["ruleset", "rounds", "games"])
    table = lengths.reset_index()
    table["games"] = table["games"].astype("int64")
    table["ruleset_order"] = table["ruleset"].map({r: i for i, r in enumerate(order)})
    return table.sort_values(["ruleset_order", "rounds"])[["ruleset", "rounds", "games"]].reset_index(
        drop=True
    )


def _player_length_table(lengths: pd.DataFrame | None, summary: pd.DataFrame) -> pd.DataFrame:
    """Games by length per ruleset and player, players in ranking order."""
    columns = ["ruleset", "player", "rounds", "games"]
    if lengths is None:
        return pd.DataFrame(columns=columns)
    table = lengths.reset_index()
    table["games"] = table["games"].astype("int64")
    rank = {(r, p): i for i, (r, p) in enumerate(zip(summary["ruleset"], summary["player"], strict=True))}
    table["rank"] = [rank.get(k, len(rank)) for k in zip(table["ruleset"], table["player"], strict=True)]
    return table.sort_values(["rank", "rounds"])[columns].reset_index(drop=True)


def _with_interval(table: pd.DataFrame) -> pd.DataFrame:
    bounds = [wilson_interval(w, n) for w, n in zip(table["wins"], table["games"], strict=True)]
    table["win_rate"] = table["wins"] / table["games"]
    table["ci_low"] = [low for low, _ in bounds]
    table["ci_high"] = [high for _, high in bounds]
    return table


def _summary(
    sums: pd.DataFrame | None, order: list[str], ratings: dict[tuple[str, str], tuple[float, float, float]]
) -> pd.DataFrame:
    if sums is None:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    total = sums.reset_index()
    for column in ("games", "score", "turns", "farkles", "errors", "round_limit"):
        total[column] = total[column].astype("int64")
    total["wins"] = total.pop("win_units").astype("int64") / WIN_UNITS
    total = _with_interval(total)
    total["mean_score"] = total["score"] / total["games"]
    total["mean_turns"] = total["turns"] / total["games"]
    total["points_per_turn"] = total["score"] / total["turns"].where(total["turns"] > 0)
    total["farkle_rate"] = total["farkles"] / total["turns"].where(total["turns"] > 0)
    nan = (float("nan"),) * 3
    values = [ratings.get(key, nan) for key in zip(total["ruleset"], total["player"], strict=True)]
    for k, column in enumerate(("elo", "elo_low", "elo_high")):
        total[column] = [value[k] for value in values]
    total["ruleset_order"] = total["ruleset"].map({r: i for i, r in enumerate(order)})
    # Best Elo first.  Rounded for the sort, so that equal strengths (two copies of a strategy)
    # are not ordered by the fit's last bits but by win rate, then name.
    total["elo_key"] = total["elo"].round(6)
    total = total.sort_values(
        ["ruleset_order", "elo_key", "win_rate", "player"],
        ascending=[True, False, False, True],
        na_position="last",
    )
    return total[SUMMARY_COLUMNS].reset_index(drop=True)


def _pairwise(pairs: pd.DataFrame | None, order: list[str], summary: pd.DataFrame) -> pd.DataFrame:
    if pairs is None:
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    total = pairs.reset_index().rename(columns={"player_other": "opponent"})
    total["games"] = total["games"].astype("int64")
    total = _with_interval(total)
    # The 95% interval excludes 50 %: the player finishes ahead of (or behind) this opponent more
    # often than an equal would.  Counted game by game, which under duplicate dice is the wider
    # (more cautious) interval: the luck the two seat orders share cancels only in pairs.
    total["significant"] = (total["ci_low"] > 0.5) | (total["ci_high"] < 0.5)
    # Rows follow the ranking: players, then opponents, in summary order.
    rank = {(r, p): i for i, (r, p) in enumerate(zip(summary["ruleset"], summary["player"], strict=True))}
    total["a"] = [rank.get(k, 0) for k in zip(total["ruleset"], total["player"], strict=True)]
    total["b"] = [rank.get(k, 0) for k in zip(total["ruleset"], total["opponent"], strict=True)]
    total["ruleset_order"] = total["ruleset"].map({r: i for i, r in enumerate(order)})
    total = total.sort_values(["ruleset_order", "a", "b"])
    return total[PAIRWISE_COLUMNS].reset_index(drop=True)


def write_reports(
    folder: Path,
    ruleset_order: list[str] | None = None,
    *,
    tested: str | None = None,
    totals: RunTotals | None = None,
) -> RunStats:
    """Write summary.csv, pairwise.csv and errors.csv next to games.csv, and gauntlet.csv for a
    gauntlet (``tested``: its tested player); return the statistics.  ``totals``: as in
    :func:`build_reports`."""
    stats = build_reports(
        folder / "games.csv", ruleset_order, tested=tested, errors_path=folder / "errors.csv", totals=totals
    )
    tables = [("summary.csv", stats.summary), ("pairwise.csv", stats.pairwise)]
    if tested is not None:
        tables.append(("gauntlet.csv", stats.gauntlet))
    for name, table in tables:
        # Each file whole or not at all (safe_files.replacing): a Ctrl-C here leaves no half table.
        with replacing(folder / name, "w", encoding="utf-8", newline="") as file:
            neutral(table).to_csv(file, index=False, lineterminator="\n", float_format="%.6f")
    return stats


@contextlib.contextmanager
def _errors_file(path: Path | None) -> Iterator[IO[str] | None]:
    """errors.csv with its header, to take ``path``'s place when the block ends; None (nothing
    written) if ``path`` is."""
    if path is None:
        yield None
        return
    with replacing(path, "w", encoding="utf-8", newline="") as file:
        pd.DataFrame(columns=ERROR_COLUMNS).to_csv(file, index=False, lineterminator="\n")
        yield file


#: Columns whose text an entry (or a folder someone handed over) chooses: names and reasons.
ENTRY_TEXT_COLUMNS = ("ruleset", "player", "opponent", "tested", "reason")


def neutral(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with no text cell of :data:`ENTRY_TEXT_COLUMNS` starting with a spreadsheet
    formula character (:func:`arena.players.text.csv_text`); numbers are left as they are.  A
    run arena wrote has no such cell (names can't start with one, reasons are neutralized when
    recorded): this guards the tables made from a games.csv someone handed over."""
    columns = [c for c in ENTRY_TEXT_COLUMNS if c in table.columns]
    if not columns or not len(table):
        return table
    table = table.copy()
    for column in columns:
        table[column] = table[column].map(lambda v: csv_text(v) if isinstance(v, str) else v)
    return table
