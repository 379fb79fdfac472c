"""Build summary.csv, pairwise.csv and errors.csv from games.csv with pandas.

games.csv is read in chunks cut at game boundaries and every statistic is a sum per group, so
memory stays flat however many games the run holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

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
]
PAIRWISE_COLUMNS = ["ruleset", "player", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high"]
ERROR_COLUMNS = ["ruleset", "game", "player", "status", "reason"]


class ReportError(Exception):
    """games.csv can't be read as a run's results; the message is one line."""


def game_chunks(path: Path, chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    """games.csv in chunks that never split a game's rows."""
    carry: pd.DataFrame | None = None
    try:
        reader = pd.read_csv(
            path, dtype=GAME_COLUMNS, chunksize=chunk_rows, keep_default_na=False, na_values={"reason": []}
        )
        for chunk in reader:
            if carry is not None:
                chunk = pd.concat([carry, chunk], ignore_index=True)
            last = chunk["game"].iloc[-1]
            carry = chunk[chunk["game"] == last]
            done = chunk[chunk["game"] != last]
            if len(done):
                yield done
    except (ValueError, KeyError, pd.errors.ParserError) as exc:
        raise ReportError(f"{path} is not a games.csv arena wrote: {' '.join(str(exc).split())}") from None
    if carry is not None and len(carry):
        yield carry


def build_reports(
    path: Path, ruleset_order: list[str] | None = None, chunk_rows: int = CHUNK_ROWS
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(summary, pairwise, errors) of the games in ``path``."""
    sums: pd.DataFrame | None = None  # running totals, so memory doesn't grow with the chunks
    pairs: pd.DataFrame | None = None
    order = list(ruleset_order or [])
    errors: list[pd.DataFrame] = []
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
        sums = _add(sums, per_player)
        pairs = _add(pairs, _pair_sums(chunk))
        bad = chunk[chunk["error"] == 1]
        if len(bad):
            errors.append(bad[ERROR_COLUMNS])
    summary = _summary(sums, order)
    pairwise = _pairwise(pairs, order, summary)
    error_table = pd.concat(errors, ignore_index=True) if errors else pd.DataFrame(columns=ERROR_COLUMNS)
    return summary, pairwise, error_table


def _add(total: pd.DataFrame | None, part: pd.DataFrame) -> pd.DataFrame:
    return part if total is None else total.add(part, fill_value=0)


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


def _summary(sums: pd.DataFrame | None, order: list[str]) -> pd.DataFrame:
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


def write_reports(
    folder: Path, ruleset_order: list[str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Write summary.csv, pairwise.csv and errors.csv next to games.csv; return the tables."""
    summary, pairwise, errors = build_reports(folder / "games.csv", ruleset_order)
    for name, table in (("summary.csv", summary), ("pairwise.csv", pairwise), ("errors.csv", errors)):
        table.to_csv(folder / name, index=False, lineterminator="\n", float_format="%.6f")
    return summary, pairwise, errors
