"""Two run folders compared (B minus A): what ``arena compare`` prints and ``arena.compare``
returns.  Reads each folder's games.csv (deal sums) and spec.json, checks that the runs are of
one field, and pairs them deal by deal where they can be (:mod:`arena.analysis.compare`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from arena.analysis.compare import (
    Codes,
    Comparison,
    changed_strategies,
    compare_runs,
    field_differences,
    read_deals,
    ruleset_differences,
)
from arena.analysis.reports import ReportError
from arena.safe_files import DamagedFile, read_json_object


class CompareError(Exception):
    """Two folders that can't be compared (or a run folder's JSON that can't be read), in one
    line."""


@dataclass(frozen=True)
class RunComparison:
    """The comparison and what the command line says around it."""

    a: Path
    b: Path
    result: Comparison
    differences: list[str]  # why the runs are not of one field ([] if they are)
    changed: list[dict[str, Any]]  # the strategies whose spec or file changed
    only_in_one_run: list[dict[str, str]]  # (run, ruleset, player) not compared
    has_specs: bool  # both runs have spec.json (else whether a strategy changed is unknown)

    @property
    def forced(self) -> bool:
        return bool(self.differences)


def read_spec(path: Path) -> dict:
    """A JSON object from the run folder; {} if the file is missing; CompareError if damaged."""
    try:
        return read_json_object(path)
    except DamagedFile as exc:
        raise CompareError(str(exc)) from None


def read_compare_run(folder: Path, codes: Codes) -> tuple[pd.DataFrame, dict]:
    """A run folder's deal sums (see :func:`read_deals`) and its spec.json ({} if missing)."""
    games = folder / "games.csv"
    if not folder.is_dir():
        raise CompareError(f"{folder}: no such run folder")
    if not games.exists():  # a FIFO or device there is refused, in one line, when it is read
        raise CompareError(f"{folder} is not a tournament folder (no games.csv)")
    spec = read_spec(folder / "spec.json")
    for key, field in (("rulesets", "name"), ("players", "label")):
        entries = spec.get(key, [])
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get(field), str) for e in entries
        ):
            raise CompareError(f"{folder / 'spec.json'} is damaged (its {key} are not the ones arena saved)")
    try:
        deals = read_deals(games, codes)
    except ReportError as exc:
        raise CompareError(str(exc)) from None
    if deals.empty:
        raise CompareError(f"{folder} has no finished games yet")
    return deals, spec


def run_players(deals: pd.DataFrame, spec: dict, codes: Codes) -> list[str]:
    """The run's player labels: spec.json's, in its order, else those that played."""
    if spec.get("players"):
        return [p["label"] for p in spec["players"]]
    return [codes.labels[c] for c in pd.unique(deals["player"])]


def _ruleset_players(deals: pd.DataFrame, codes: Codes) -> set[tuple[str, str]]:
    pairs = deals[["ruleset", "player"]].drop_duplicates()
    return {(codes.labels[r], codes.labels[p]) for r, p in pairs.itertuples(index=False)}


def compare_folders(folder_a: Path, folder_b: Path, *, force: bool = False) -> RunComparison:
    """Compare the runs in two folders.  Runs with the same seed, rules and players are
    compared deal by deal on the same dice; others game by game.  Runs whose players met
    different opponents, or whose rulesets of one name have other rules, raise CompareError
    unless ``force``."""
    folder_a, folder_b = Path(folder_a), Path(folder_b)
    codes = Codes()
    deals_a, spec_a = read_compare_run(folder_a, codes)
    deals_b, spec_b = read_compare_run(folder_b, codes)
    players_a, players_b = run_players(deals_a, spec_a, codes), run_players(deals_b, spec_b, codes)
    differences = field_differences(spec_a, spec_b, players_a, players_b) + ruleset_differences(
        spec_a, spec_b
    )
    if differences and not force:
        raise CompareError(
            f"{folder_a} and {folder_b} are not runs of the same field: {'; '.join(differences)} "
            "(--force compares what they share, game by game)"
        )
    order = [r["name"] for r in spec_a.get("rulesets", []) + spec_b.get("rulesets", [])]
    order += [codes.labels[c] for c in pd.unique(pd.concat([deals_a["ruleset"], deals_b["ruleset"]]))]
    result = compare_runs(deals_a, deals_b, codes, list(dict.fromkeys(order)), pair=not differences)
    if result.rows.empty:
        raise CompareError(f"{folder_a} and {folder_b} have no strategy on a ruleset in common")
    shared = set(zip(result.rows["ruleset"], result.rows["player"], strict=True))
    only = [
        {"run": run, "ruleset": r, "player": p}
        for run, deals in (("A", deals_a), ("B", deals_b))
        for r, p in sorted(_ruleset_players(deals, codes) - shared)
    ]
    return RunComparison(
        folder_a,
        folder_b,
        result,
        differences,
        changed_strategies(spec_a, spec_b),
        only,
        bool(spec_a.get("players") and spec_b.get("players")),
    )
