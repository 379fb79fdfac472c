"""run.json: what was run, with what, how fast."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from arena.tournament.runner import RunOutcome
from arena.tournament.schedule import Schedule
from arena.tournament.spec import TournamentSpec

PACKAGES = ("arena", "click", "pandas", "numpy", "tqdm", "multiprocess", "dill")


def package_versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def run_info(
    spec: TournamentSpec,
    outcome: RunOutcome,
    *,
    workers: int | None,
    started: str,
    resumed_from: int,
    backend: str = "local",
    scheduler: str | None = None,
) -> dict[str, Any]:
    schedule = Schedule(spec)
    return {
        "command": spec.command,
        "seed": spec.seed,
        "format": spec.format,
        "games_per_pairing" if spec.format != "free-for-all" else "games_per_ruleset": spec.games,
        "games_per_table": schedule.games_per_table,
        "seats_per_game": schedule.table_size,
        "games_total": outcome.games_total,
        "games_written": outcome.games_written,
        "complete": outcome.games_written == outcome.games_total,
        "resumed_at_game": resumed_from,
        "faults": outcome.faults,
        "backend": backend,
        "scheduler": scheduler,
        "workers": workers,  # None on a Dask cluster at a scheduler: it has its own
        "started": started,
        "finished": now_text(),
        "seconds": round(outcome.seconds, 3),
        "games_per_second": round(outcome.games_per_second, 1),
        "versions": package_versions(),
        "players": spec.identity()["players"],
        "rulesets": spec.identity()["rulesets"],
        "move_timeout": spec.move_timeout,
        "max_rounds": spec.max_rounds,
    }
