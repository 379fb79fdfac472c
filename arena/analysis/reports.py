"""Build summary.csv, pairwise.csv, gauntlet.csv and errors.csv from games.csv with pandas.

games.csv is read in chunks cut at game boundaries and every statistic is a sum per group, so
memory stays flat however many games the run holds.  Every number is a function of the set of
games, not of their order in the file: sums are exact (integers, or win shares in millionths)
and the ratings are fitted to counts of finishing orders (see ratings.py).

summary.csv, one row per ruleset and player, best Elo first:
  ruleset, player; games, wins (a shared win counts its share), win_rate with its 95% Wilson
  interval ci_low, ci_high; mean_score, mean_turns, points_per_turn, farkle_rate (farkles per
  turn), errors (games the player lost by a fault); elo, elo_low, elo_high: the Plackett-Luce
  strength on the Elo scale that best explains every finishing order, given the opponents each
  player met, centred on 0, with its 95% interval (NaN for a player who never met anyone).
pairwise.csv, one row per ruleset, player and opponent who sat at one table:
  games together, wins (finishing ahead of the opponent; level counts half), win_rate, ci_low,
  ci_high (Wilson).
gauntlet.csv (gauntlet runs): the tested player against each opponent; see gauntlet.py.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from arena.analysis.gauntlet import GAUNTLET_COLUMNS, GauntletPairs
from arena.analysis.ratings import Order, finishing_order, plackett_luce_elo
from arena.analysis.stats import wilson_interval

CHUNK_ROWS = 10_000
GAME_COLUMNS = {
    "ruleset": "string",
    "game": "int64",
    "deal": "int64",
    "seed": "uint64",
    "seat": "int64",
    "player": "string",
    "score": "int64",
    "rank": "int64",
    "win": "float64",
    "turns": "int64",
    "farkles": "int64",
    "status": "string",
    "reason": "string",
}
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
    "elo",
    "elo_low",
    "elo_high",
]
PAIRWISE_COLUMNS = ["ruleset", "player", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high"]
ERROR_COLUMNS = ["ruleset", "game", "player", "status", "reason"]
#: games.csv writes a win share with at most six decimals (rows.win_text): summed in millionths,
#: as integers, the totals are exact whatever order the games come in.
WIN_UNITS = 1_000_000


class ReportError(Exception):
    """games.csv can't be read as a run's results; the message is one line."""


class _Prefix(io.RawIOBase):
    """The first ``limit`` bytes of a file, read-only: an interrupted run is read as far as its
    last complete line without changing the file."""

    def __init__(self, path: Path, limit: int) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: self._left]
        n = self._file.readinto(view)
        self._left -= n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def _complete_length(path: Path) -> int:
    """Bytes up to and including the last newline (a torn last line is left out)."""
    with open(path, "rb") as f:
        f.seek(0, io.SEEK_END)
        end = f.tell()
        step = 4096
        while end > 0:
            start = max(0, end - step)
            f.seek(start)
            block = f.read(end - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            end = start
    return 0


def game_chunks(path: Path, chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    """games.csv in chunks that never split a game's rows.  A torn last line and a last game
    with fewer rows than the first (an interrupted run) are left out."""
    carry: pd.DataFrame | None = None
    rows_per_game: int | None = None
    try:
        source = io.BufferedReader(_Prefix(path, _complete_length(path)))
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        reader = pd.read_csv(
            source, dtype=GAME_COLUMNS, chunksize=chunk_rows, keep_default_na=False, na_values={"reason": []}
        )
        for chunk in reader:
            missing = [c for c in GAME_COLUMNS if c not in chunk.columns]
            if missing:
                raise ReportError(f"{path} is not a games.csv arena wrote (no column {', '.join(missing)})")
            if not len(chunk):
                continue  # a run stopped before its first batch: a header and nothing more
            if rows_per_game is None:
                rows_per_game = int((chunk["game"] == chunk["game"].iloc[0]).sum())
            if carry is not None:
                chunk = pd.concat([carry, chunk], ignore_index=True)
            last = chunk["game"].iloc[-1]
            carry = chunk[chunk["game"] == last]
            done = chunk[chunk["game"] != last]
            if len(done):
                yield done
    except (ValueError, KeyError, TypeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ReportError(f"{path} is not a games.csv arena wrote: {' '.join(str(exc).split())}") from None
    finally:
        source.close()
    if carry is not None and len(carry) and len(carry) >= (rows_per_game or 0):
        yield carry


@dataclass(frozen=True)
class RunStats:
    """Everything the reports show, from one pass over games.csv."""

    summary: pd.DataFrame
    pairwise: pd.DataFrame
    error_count: int  # fault rows; build_reports streams them to a file when given one
    seats: pd.DataFrame  # win rate by seat position: the first-seat advantage
    lengths: pd.DataFrame  # games by length in rounds, per ruleset
    gauntlet: pd.DataFrame  # the tested player against each opponent (gauntlet runs; else empty)


def build_reports(
    path: Path,
    ruleset_order: list[str] | None = None,
    *,
    tested: str | None = None,
    errors_path: Path | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> RunStats:
    """The statistics of the games in ``path``.  ``tested``: the tested player of a gauntlet,
    reported against each opponent from game pairs.  ``errors_path``: write the fault rows there
    as they are found."""
    sums, pairs, seats, lengths = Totals(), Totals(), Totals(), Totals()  # running sums: flat memory
    orders: dict[tuple[str, Order], int] = {}  # finishing orders and their counts: the ratings' data
    gauntlet = GauntletPairs(tested) if tested is not None else None
    order = list(ruleset_order or [])
    error_count = 0
    if errors_path is not None:
        pd.DataFrame(columns=ERROR_COLUMNS).to_csv(errors_path, index=False, lineterminator="\n")
    for chunk in game_chunks(path, chunk_rows):
        chunk = chunk.assign(
            error=(chunk["status"] != "ok").astype("int64"),
            win_units=(chunk["win"] * WIN_UNITS).round().astype("int64"),
        )
        order += [r for r in chunk["ruleset"].unique() if r not in order]
        per_player = chunk.groupby(["ruleset", "player"], sort=False).agg(
            games=("game", "size"),
            win_units=("win_units", "sum"),
            score=("score", "sum"),
            turns=("turns", "sum"),
            farkles=("farkles", "sum"),
            errors=("error", "sum"),
        )
        sums.add(per_player)
        pairs.add(_pair_sums(chunk))
        seats.add(
            chunk.assign(table=chunk.groupby("game")["seat"].transform("size"))
            .groupby(["ruleset", "table", "seat"])
            .agg(games=("game", "size"), win_units=("win_units", "sum")),
        )
        per_game = (
            chunk.groupby(["ruleset", "game"], sort=False)["turns"].max().rename("rounds").reset_index()
        )
        lengths.add(per_game.groupby(["ruleset", "rounds"]).size().to_frame("games"))
        for key, count in _order_counts(chunk).items():
            orders[key] = orders.get(key, 0) + count
        if gauntlet is not None:
            gauntlet.add(chunk)
        bad = chunk[chunk["error"] == 1]
        error_count += len(bad)
        if len(bad) and errors_path is not None:  # streamed: memory doesn't grow with the faults
            bad[ERROR_COLUMNS].to_csv(errors_path, mode="a", header=False, index=False, lineterminator="\n")
    summary = _summary(sums.frame(), order, _ratings(orders))
    return RunStats(
        summary,
        _pairwise(pairs.frame(), order, summary),
        error_count,
        _seat_table(seats.frame(), order),
        _length_table(lengths.frame(), order),
        gauntlet.frame(order) if gauntlet is not None else pd.DataFrame(columns=GAUNTLET_COLUMNS),
    )


def _order_counts(chunk: pd.DataFrame) -> dict[tuple[str, Order], int]:
    """How often each finishing order occurs in the chunk, per ruleset.  Games of one table size
    are laid side by side (one row a game, players in rank order, ties by name), so only the
    distinct orders are handled one by one."""
    rows = chunk.sort_values(["game", "rank", "player"])
    size = rows.groupby("game", sort=False)["game"].transform("size").to_numpy()
    counts: dict[tuple[str, Order], int] = {}
    for k in sorted(set(size.tolist())):
        table = rows[size == k]
        n = len(table) // k
        wide = pd.DataFrame({"ruleset": table["ruleset"].to_numpy()[::k]})
        players = table["player"].to_numpy().reshape(n, k)
        ranks = table["rank"].to_numpy().reshape(n, k)
        for seat in range(k):
            wide[f"p{seat}"] = players[:, seat]
            wide[f"r{seat}"] = ranks[:, seat]
        for key, count in wide.groupby(list(wide.columns), sort=False).size().items():
            ruleset, *cells = key
            order = finishing_order(cells[0::2], cells[1::2])
            counts[(ruleset, order)] = counts.get((ruleset, order), 0) + int(count)
    return counts


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


class Totals:
    """Sums per group across chunks, kept in a dict: memory is the number of groups (players,
    pairs, seats), never the number of games.  (pandas' DataFrame.add re-aligns its index on
    every call, and memory crept up chunk by chunk.)"""

    def __init__(self) -> None:
        self._rows: dict[tuple, list[float]] = {}
        self._columns: list[str] = []
        self._index_names: list[str] = []

    def add(self, frame: pd.DataFrame) -> None:
        if not self._columns:
            self._columns = list(frame.columns)
            self._index_names = list(frame.index.names)
        for key, values in zip(frame.index, frame.to_numpy(dtype=float), strict=True):
            row = self._rows.get(key)
            if row is None:
                self._rows[key] = list(values)
            else:
                for k, value in enumerate(values):
                    row[k] += value

    def frame(self) -> pd.DataFrame | None:
        if not self._rows:
            return None
        index = pd.MultiIndex.from_tuples(list(self._rows), names=self._index_names)
        return pd.DataFrame(list(self._rows.values()), index=index, columns=self._columns)


def _pair_sums(chunk: pd.DataFrame) -> pd.DataFrame:
    """Per (ruleset, player, opponent): games together and the share of them the player finished
    ahead (1 ahead, 0.5 level, 0 behind)."""
    seats = chunk[["ruleset", "game", "player", "rank"]]
    both = seats.merge(seats, on=["ruleset", "game"], suffixes=("", "_other"))
    both = both[both["player"] != both["player_other"]]
    ahead = (both["rank"] < both["rank_other"]).astype("float64") + 0.5 * (both["rank"] == both["rank_other"])
    both = both.assign(ahead=ahead)
    return both.groupby(["ruleset", "player", "player_other"], sort=False).agg(
        games=("game", "size"), wins=("ahead", "sum")
    )


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
    for column in ("games", "score", "turns", "farkles", "errors"):
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
    # Rows follow the ranking: players, then opponents, in summary order.
    rank = {(r, p): i for i, (r, p) in enumerate(zip(summary["ruleset"], summary["player"], strict=True))}
    total["a"] = [rank.get(k, 0) for k in zip(total["ruleset"], total["player"], strict=True)]
    total["b"] = [rank.get(k, 0) for k in zip(total["ruleset"], total["opponent"], strict=True)]
    total["ruleset_order"] = total["ruleset"].map({r: i for i, r in enumerate(order)})
    total = total.sort_values(["ruleset_order", "a", "b"])
    return total[PAIRWISE_COLUMNS].reset_index(drop=True)


def write_reports(
    folder: Path, ruleset_order: list[str] | None = None, *, tested: str | None = None
) -> RunStats:
    """Write summary.csv, pairwise.csv and errors.csv next to games.csv, and gauntlet.csv for a
    gauntlet (``tested``: its tested player); return the statistics."""
    stats = build_reports(
        folder / "games.csv", ruleset_order, tested=tested, errors_path=folder / "errors.csv"
    )
    tables = [("summary.csv", stats.summary), ("pairwise.csv", stats.pairwise)]
    if tested is not None:
        tables.append(("gauntlet.csv", stats.gauntlet))
    for name, table in tables:
        table.to_csv(folder / name, index=False, lineterminator="\n", float_format="%.6f")
    return stats
