"""Build summary.csv, pairwise.csv and errors.csv from games.csv with pandas.

games.csv is read in chunks cut at game boundaries and every statistic is a sum per group, so
memory stays flat however many games the run holds.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from arena.analysis.ratings import MultiplayerRatings, bradley_terry_elo
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
    "rating",
    "rating_sd",
    "elo",
    "elo_low",
    "elo_high",
]
PAIRWISE_COLUMNS = ["ruleset", "player", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high"]
ERROR_COLUMNS = ["ruleset", "game", "player", "status", "reason"]


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


def build_reports(
    path: Path,
    ruleset_order: list[str] | None = None,
    *,
    elo_fit: bool = False,
    errors_path: Path | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> RunStats:
    """The statistics of the games in ``path``.  ``elo_fit``: add a Bradley-Terry Elo (for
    two-player round-robins).  ``errors_path``: write the fault rows there as they are found."""
    sums, pairs, seats, lengths = Totals(), Totals(), Totals(), Totals()  # running sums: flat memory
    order = list(ruleset_order or [])
    error_count = 0
    if errors_path is not None:
        pd.DataFrame(columns=ERROR_COLUMNS).to_csv(errors_path, index=False, lineterminator="\n")
    ratings = MultiplayerRatings()
    for chunk in game_chunks(path, chunk_rows):
        chunk = chunk.assign(error=(chunk["status"] != "ok").astype("int64"))
        order += [r for r in chunk["ruleset"].unique() if r not in order]
        per_player = chunk.groupby(["ruleset", "player"], sort=False).agg(
            games=("game", "size"),
            wins=("win", "sum"),
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
            .agg(games=("game", "size"), wins=("win", "sum")),
        )
        per_game = (
            chunk.groupby(["ruleset", "game"], sort=False)["turns"].max().rename("rounds").reset_index()
        )
        lengths.add(per_game.groupby(["ruleset", "rounds"]).size().to_frame("games"))
        _feed(ratings, chunk)
        bad = chunk[chunk["error"] == 1]
        error_count += len(bad)
        if len(bad) and errors_path is not None:  # streamed: memory doesn't grow with the faults
            bad[ERROR_COLUMNS].to_csv(errors_path, mode="a", header=False, index=False, lineterminator="\n")
    summary = _summary(sums.frame(), order, ratings)
    pairwise = _pairwise(pairs.frame(), order, summary)
    if elo_fit and len(pairwise):
        summary = _with_elo(summary, pairwise)
    return RunStats(
        summary,
        pairwise,
        error_count,
        _seat_table(seats.frame(), order),
        _length_table(lengths.frame(), order),
    )


def _feed(ratings: MultiplayerRatings, chunk: pd.DataFrame) -> None:
    """Rate every game of the chunk in game order (rows are in game, then seat, order)."""
    games = chunk["game"].to_numpy()
    players = chunk["player"].tolist()
    rulesets = chunk["ruleset"].tolist()
    ranks = chunk["rank"].tolist()
    start = 0
    for end in range(1, len(games) + 1):
        if end == len(games) or games[end] != games[start]:
            ratings.add_game(rulesets[start], players[start:end], ranks[start:end])
            start = end


def _with_elo(summary: pd.DataFrame, pairwise: pd.DataFrame) -> pd.DataFrame:
    summary = summary.copy()
    for ruleset, table in pairwise.groupby("ruleset", sort=False):
        rows = list(zip(table["player"], table["opponent"], table["games"], table["wins"], strict=True))
        fitted = bradley_terry_elo(rows)
        mask = summary["ruleset"] == ruleset
        for column, k in (("elo", 0), ("elo_low", 1), ("elo_high", 2)):
            summary.loc[mask, column] = [
                fitted[p][k] if p in fitted else float("nan") for p in summary.loc[mask, "player"]
            ]
    return summary


def _seat_table(seats: pd.DataFrame | None, order: list[str]) -> pd.DataFrame:
    columns = ["ruleset", "seats", "seat", "games", "wins", "win_rate", "ci_low", "ci_high", "fair_share"]
    if seats is None:
        return pd.DataFrame(columns=columns)
    table = seats.reset_index().rename(columns={"table": "seats"})
    table["games"] = table["games"].astype("int64")
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


def _summary(sums: pd.DataFrame | None, order: list[str], ratings: MultiplayerRatings) -> pd.DataFrame:
    if sums is None:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    total = sums.reset_index()
    for column in ("games", "score", "turns", "farkles", "errors"):
        total[column] = total[column].astype("int64")
    total = _with_interval(total)
    total["mean_score"] = total["score"] / total["games"]
    total["mean_turns"] = total["turns"] / total["games"]
    total["points_per_turn"] = total["score"] / total["turns"].where(total["turns"] > 0)
    total["farkle_rate"] = total["farkles"] / total["turns"].where(total["turns"] > 0)
    values = [ratings.value(r, p) for r, p in zip(total["ruleset"], total["player"], strict=True)]
    total["rating"] = [mu for mu, _ in values]
    total["rating_sd"] = [sigma for _, sigma in values]
    for column in ("elo", "elo_low", "elo_high"):
        total[column] = float("nan")
    total["ruleset_order"] = total["ruleset"].map({r: i for i, r in enumerate(order)})
    total = total.sort_values(["ruleset_order", "win_rate", "player"], ascending=[True, False, True])
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


def write_reports(folder: Path, ruleset_order: list[str] | None = None, *, elo_fit: bool = False) -> RunStats:
    """Write summary.csv, pairwise.csv and errors.csv next to games.csv; return the statistics."""
    stats = build_reports(
        folder / "games.csv", ruleset_order, elo_fit=elo_fit, errors_path=folder / "errors.csv"
    )
    for name, table in (("summary.csv", stats.summary), ("pairwise.csv", stats.pairwise)):
        table.to_csv(folder / name, index=False, lineterminator="\n", float_format="%.6f")
    return stats
