"""Two runs side by side: the same strategies before and after a change.

When both runs played the same deals (same tournament seed, rulesets and players, so every
deal of every table got the same game seed), the comparison is *paired*: each deal was played
on the same dice in both runs, so the luck of the dice cancels out of the per-deal difference
and the interval is narrower than one that counts the games of each run independently.
Otherwise each run's games are counted one by one (Newcombe's interval).

games.csv is read in chunks; what is kept is one row of sums per (ruleset, table, deal,
player), so memory grows with the number of deals and never holds a run's games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.analysis.reports import CHUNK_ROWS, game_chunks
from arena.analysis.stats import Z95, wilson_interval

#: Paired deals before the variance of their differences is trusted; below it (or when every
#: deal gave the same difference, a variance of zero) the interval counts games one by one.
#: The same threshold as the duel's game pairs, for the same reason: a variance from a few
#: observations can be near zero by chance.
MIN_DEALS = 30
#: The key of one row of sums: a player's games in one deal of one table.
DEAL_KEYS = ["ruleset", "table", "deal", "player"]
COLUMNS = [
    "ruleset",
    "player",
    "paired",
    "deals",
    "games_a",
    "wins_a",
    "win_rate_a",
    "games_b",
    "wins_b",
    "win_rate_b",
    "difference",
    "diff_low",
    "diff_high",
    "significant",
    "interval",
    "unpaired_low",
    "unpaired_high",
]
#: How a row's 95% interval was found (the ``interval`` column).
PAIRED_DEALS = "paired deals"
NEWCOMBE = "newcombe"


def newcombe_interval(wins_a: float, games_a: float, wins_b: float, games_b: float) -> tuple[float, float]:
    """95% interval of p_b - p_a for two independent proportions: Newcombe's hybrid score
    interval (Newcombe 1998, Statistics in Medicine 17:873-890, method 10), built from the two
    Wilson intervals.  Unlike the plain normal (Wald) interval it stays honest at 0% and 100%."""
    pa, pb = wins_a / games_a, wins_b / games_b
    low_a, high_a = wilson_interval(wins_a, games_a)
    low_b, high_b = wilson_interval(wins_b, games_b)
    diff = pb - pa
    low = diff - math.sqrt((pb - low_b) ** 2 + (high_a - pa) ** 2)
    high = diff + math.sqrt((high_b - pb) ** 2 + (pa - low_a) ** 2)
    return low, high


def paired_interval(n: int, mean: float, variance: float, z: float = Z95) -> tuple[float, float]:
    """The large-sample interval of a mean of ``n`` paired differences with this sample variance,
    mean ± z·sd/√n (the paired-samples interval, e.g. Rice, Mathematical Statistics and Data
    Analysis, 3rd ed., §11.3), clipped to [-1, 1], the range of a difference of win shares."""
    half = z * math.sqrt(variance / n)
    return max(-1.0, mean - half), min(1.0, mean + half)


def compare_summaries(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Win rates of every (ruleset, player) found in both summaries (columns ruleset, player,
    games, win_rate, and wins where known), their difference (b - a) with Newcombe's 95%
    interval, and whether the interval excludes zero: the unpaired comparison, each run's games
    counted one by one."""
    both = a.merge(b, on=["ruleset", "player"], suffixes=("_a", "_b"))
    rows = []
    counted = "wins_a" in both.columns and "wins_b" in both.columns
    for row in both.itertuples(index=False):
        na, nb = int(row.games_a), int(row.games_b)
        wa, wb = (row.wins_a, row.wins_b) if counted else (row.win_rate_a * na, row.win_rate_b * nb)
        low, high = newcombe_interval(wa, na, wb, nb)
        diff = row.win_rate_b - row.win_rate_a
        rows.append(
            _row(row.ruleset, row.player, None, na, wa, nb, wb, diff, (low, high), NEWCOMBE, (low, high))
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def _row(
    ruleset: str,
    player: str,
    deals: int | None,
    games_a: int,
    wins_a: float,
    games_b: int,
    wins_b: float,
    difference: float,
    interval: tuple[float, float],
    how: str,
    unpaired: tuple[float, float],
) -> dict[str, Any]:
    """One row of the comparison (COLUMNS); ``deals`` is None where the runs are not paired."""
    low, high = interval
    return {
        "ruleset": ruleset,
        "player": player,
        "paired": deals is not None,
        "deals": deals,
        "games_a": games_a,
        "wins_a": wins_a,
        "win_rate_a": wins_a / games_a,
        "games_b": games_b,
        "wins_b": wins_b,
        "win_rate_b": wins_b / games_b,
        "difference": difference,
        "diff_low": low,
        "diff_high": high,
        "significant": not (low <= 0 <= high),
        "interval": how,
        "unpaired_low": unpaired[0],
        "unpaired_high": unpaired[1],
    }


class Codes:
    """Integer codes for labels (rulesets, tables, players), shared by the two runs so that
    their sums merge on integers (32 bits: the sums per deal are what memory grows with)."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self.labels: list[str] = []

    def code(self, label: str) -> int:
        found = self._ids.get(label)
        if found is None:
            found = self._ids[label] = len(self.labels)
            self.labels.append(label)
        return found

    def column(self, values: Iterable[str]) -> np.ndarray:
        """The codes of a column of labels (factorised first: one lookup per distinct label)."""
        local, uniques = pd.factorize(pd.Series(list(values), dtype="object"))
        return np.array([self.code(u) for u in uniques], dtype=np.int32)[local]


def read_deals(path: Path, codes: Codes, chunk_rows: int = CHUNK_ROWS) -> pd.DataFrame:
    """One row per (ruleset, table, deal, player) of a games.csv, as codes of ``codes`` (the
    table is its players sorted, so seat order does not matter): the deal's game seed, and the
    player's games, win shares and first seats in that deal.

    Never matches on the game number: only the deal's coordinates and its seed say which games
    two runs have in common."""
    parts: list[pd.DataFrame] = []
    for chunk in game_chunks(path, chunk_rows):
        games = chunk["game"].to_numpy()
        players = chunk["player"].tolist()
        cuts = np.flatnonzero(games[1:] != games[:-1]) + 1  # a game's rows are consecutive
        starts, ends = np.r_[0, cuts], np.r_[cuts, len(games)]
        tables = [
            codes.code("\x1f".join(sorted(players[s:e])))
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True)
        ]
        frame = pd.DataFrame(
            {
                "ruleset": codes.column(chunk["ruleset"]),
                "table": np.repeat(np.array(tables, dtype=np.int32), ends - starts),
                "deal": chunk["deal"].to_numpy(dtype=np.int64),
                "player": codes.column(players),
                "seed": chunk["seed"].to_numpy(),
                "games": np.ones(len(chunk), dtype=np.int32),
                "wins": chunk["win"].to_numpy(),
                "firsts": (chunk["seat"].to_numpy() == 0).astype(np.int32),
            }
        )
        parts.append(_deal_sums(frame))
    if not parts:
        return pd.DataFrame(columns=[*DEAL_KEYS, "seed", "games", "wins", "firsts"])
    # A deal's games may lie in two chunks (or far apart in another schedule): sum again.
    return _deal_sums(pd.concat(parts, ignore_index=True))


def _deal_sums(frame: pd.DataFrame) -> pd.DataFrame:
    return (
        frame.groupby(DEAL_KEYS, sort=False)
        .agg(seed=("seed", "first"), games=("games", "sum"), wins=("wins", "sum"), firsts=("firsts", "sum"))
        .reset_index()
    )


def complete_deals(deals: pd.DataFrame) -> pd.DataFrame:
    """The deals played in every seat order: each player at the table sat first once and
    played as many games as the table has players.  (An interrupted run can stop mid-deal.)"""
    by_deal = [deals["ruleset"], deals["table"], deals["deal"]]
    size = deals.groupby(by_deal, sort=False)["player"].transform("size")
    whole = ((deals["games"] == size) & (deals["firsts"] == 1)).groupby(by_deal, sort=False).transform("all")
    return deals[whole]


def win_rates(deals: pd.DataFrame, codes: Codes) -> pd.DataFrame:
    """Games and win rate per (ruleset, player) over all of a run's games, labels decoded."""
    totals = deals.groupby(["ruleset", "player"], sort=False).agg(
        games=("games", "sum"), wins=("wins", "sum")
    )
    totals = totals.reset_index()
    totals["win_rate"] = totals["wins"] / totals["games"]
    return _decoded(totals, codes)


def _decoded(frame: pd.DataFrame, codes: Codes) -> pd.DataFrame:
    labels = np.array(codes.labels, dtype=object)
    frame = frame.copy()
    for column in ("ruleset", "player"):
        frame[column] = labels[frame[column].to_numpy(dtype=np.int64)]
    return frame


@dataclass(frozen=True)
class Pairing:
    """Whether one ruleset's games of the two runs are paired deal by deal."""

    ruleset: str
    paired: bool
    deals: int  # complete deals in both runs with the same coordinates and the same seed
    deals_a: int  # complete deals in each run
    deals_b: int
    mismatched: int  # deals with the same coordinates in both runs but different seeds
    reason: str  # why not paired; "" when paired

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Comparison:
    """The result of comparing two runs: a row per (ruleset, player) in both, and the pairing
    of each ruleset in both."""

    rows: pd.DataFrame  # COLUMNS
    pairings: list[Pairing]


def compare_runs(
    a: pd.DataFrame, b: pd.DataFrame, codes: Codes, order: list[str], *, pair: bool = True
) -> Comparison:
    """Compare two runs' deal sums (from :func:`read_deals` with the same ``codes``), ruleset by
    ruleset in ``order``.  A ruleset is paired when the runs have complete deals in common and
    every one of them has the same seed in both; then each (ruleset, player) gets the mean of
    its per-deal differences in win share, B - A.  Otherwise (or with ``pair=False``) the
    ruleset falls back to :func:`compare_summaries` on all of each run's games."""
    full_a, full_b = complete_deals(a), complete_deals(b)
    common = full_a.merge(full_b, on=DEAL_KEYS, suffixes=("_a", "_b"))
    same_seed = common["seed_a"] == common["seed_b"]
    unpaired = compare_summaries(win_rates(a, codes), win_rates(b, codes))
    rows: list[pd.DataFrame] = []
    pairings: list[Pairing] = []
    for name in order:
        code = codes.code(name)
        mask_a, mask_b = full_a["ruleset"] == code, full_b["ruleset"] == code
        if not ((a["ruleset"] == code).any() and (b["ruleset"] == code).any()):
            continue
        in_ruleset = common["ruleset"] == code
        deal_key = ["table", "deal"]
        n_common = len(common.loc[in_ruleset, deal_key].drop_duplicates())
        n_same = len(common.loc[in_ruleset & same_seed, deal_key].drop_duplicates())
        deals_a = len(full_a.loc[mask_a, deal_key].drop_duplicates())
        deals_b = len(full_b.loc[mask_b, deal_key].drop_duplicates())
        mismatched = n_common - n_same
        if not pair:
            reason = "the players or rules differ"
        elif n_common == 0:
            reason = "no deal was played in both runs"
        elif mismatched:
            reason = (
                f"{mismatched:,} of {n_common:,} deals were dealt other dice, from another --seed or ruleset "
                "(a run with isolated players and no --seed draws a secret seed of its own)"
            )
        else:
            reason = ""
        pairing = Pairing(name, not reason, n_same if not reason else 0, deals_a, deals_b, mismatched, reason)
        pairings.append(pairing)
        block = (
            _paired_rows(common[in_ruleset], codes)
            if pairing.paired
            else unpaired[unpaired["ruleset"] == name]
        )
        # The ranking after the change: B's win rate, best first.
        rows.append(block.sort_values(["win_rate_b", "player"], ascending=[False, True]))
    table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=COLUMNS)
    table["deals"] = table["deals"].astype("Int64")  # None where not paired, not a float NaN
    return Comparison(table[COLUMNS], pairings)


def _paired_rows(common: pd.DataFrame, codes: Codes) -> pd.DataFrame:
    """Per player: the mean per-deal difference in win share, B - A, over the paired deals,
    with its 95% interval (paired normal; Newcombe's on the games where the deals can't give a
    trustworthy variance) and, for comparison, Newcombe's interval on the same games."""
    common = common.assign(
        rate_a=common["wins_a"] / common["games_a"], rate_b=common["wins_b"] / common["games_b"]
    )
    common = common.assign(d=common["rate_b"] - common["rate_a"])
    per_player = (
        common.groupby(["ruleset", "player"], sort=False)
        .agg(
            deals=("d", "size"),
            difference=("d", "mean"),
            variance=("d", "var"),
            d_min=("d", "min"),
            d_max=("d", "max"),
            games_a=("games_a", "sum"),
            wins_a=("wins_a", "sum"),
            games_b=("games_b", "sum"),
            wins_b=("wins_b", "sum"),
        )
        .reset_index()
    )
    rows = []
    for row in _decoded(per_player, codes).itertuples(index=False):
        unpaired = newcombe_interval(row.wins_a, row.games_a, row.wins_b, row.games_b)
        if row.deals >= MIN_DEALS and row.d_max > row.d_min:
            low, high = paired_interval(row.deals, row.difference, row.variance)
            how = PAIRED_DEALS
        else:
            low, high = unpaired
            how = NEWCOMBE
        rows.append(
            _row(
                row.ruleset,
                row.player,
                int(row.deals),
                int(row.games_a),
                float(row.wins_a),
                int(row.games_b),
                float(row.wins_b),
                float(row.difference),
                (low, high),
                how,
                unpaired,
            )
        )
    return pd.DataFrame(rows, columns=COLUMNS)


# --- what the two runs' settings say ------------------------------------------------------------
def field_differences(
    spec_a: dict[str, Any], spec_b: dict[str, Any], players_a: list[str], players_b: list[str]
) -> list[str]:
    """Why two runs' players did not meet the same opponents, one phrase per reason; empty if
    they did.  The rule: the same player labels (a changed strategy keeps its label), the same
    format and seats, and in a gauntlet the same first player."""
    found = []
    only_a = [p for p in players_a if p not in set(players_b)]
    only_b = [p for p in players_b if p not in set(players_a)]
    if only_a or only_b:
        parts = [
            f"only in {run}: {', '.join(names)}" for run, names in (("A", only_a), ("B", only_b)) if names
        ]
        found.append("different players (" + "; ".join(parts) + ")")
    for key in ("format", "seats"):
        if key in spec_a and key in spec_b and spec_a[key] != spec_b[key]:
            found.append(f"{key} {spec_a[key]} in A, {spec_b[key]} in B")
    if spec_a.get("format") == spec_b.get("format") == "gauntlet" and players_a[:1] != players_b[:1]:
        found.append(f"the gauntlet's first player is {players_a[0]} in A, {players_b[0]} in B")
    return found


def ruleset_differences(spec_a: dict[str, Any], spec_b: dict[str, Any]) -> list[str]:
    """Rulesets that have one name in both runs but other rules, naming what differs."""
    rules_b = {r["name"]: r for r in spec_b.get("rulesets", [])}
    found = []
    for ra in spec_a.get("rulesets", []):
        rb = rules_b.get(ra["name"])
        if rb is None or rb == ra:
            continue
        keys = [k for k in dict.fromkeys([*ra, *rb]) if ra.get(k) != rb.get(k)]
        shown = ", ".join(f"{k} {_value(ra.get(k))} -> {_value(rb.get(k))}" for k in keys[:4])
        more = f" and {len(keys) - 4} more" if len(keys) > 4 else ""
        found.append(f"ruleset {ra['name']} has other rules in B ({shown}{more})")
    return found


def _value(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "none"}[value]
    return str(value)


def changed_strategies(spec_a: dict[str, Any], spec_b: dict[str, Any]) -> list[dict[str, Any]]:
    """Players of both runs (by label) whose spec, parameters or strategy file (its sha256, as
    spec.json records it) changed between the runs."""
    players_b = {p["label"]: p for p in spec_b.get("players", [])}
    changed = []
    for pa in spec_a.get("players", []):
        pb = players_b.get(pa["label"])
        if pb is None:
            continue
        if any(pa.get(k) != pb.get(k) for k in ("spec", "params", "file_sha256")):
            changed.append(
                {
                    "player": pa["label"],
                    "spec_a": pa.get("spec"),
                    "spec_b": pb.get("spec"),
                    "sha256_a": pa.get("file_sha256"),
                    "sha256_b": pb.get("file_sha256"),
                }
            )
    return changed
