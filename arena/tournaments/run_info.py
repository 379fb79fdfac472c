"""run.json: what was run, with what, how fast; and how much of it, for a run that stopped early."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from arena.distribution import DISTRIBUTION
from arena.sandbox.limits import in_force
from arena.tournaments.runner import RunOutcome
from arena.tournaments.schedule import Schedule, ScheduleShape
from arena.tournaments.spec import SCHEDULE_ORDER, TournamentSpec

PACKAGES = ("arena", "click", "pandas", "numpy", "tqdm", "multiprocess", "dill")


def package_versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            # arena's own version is that of its distribution, named apart from the import package
            found[name] = version(DISTRIBUTION if name == "arena" else name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def proportion_text(shape: ScheduleShape, played: int, unit: str) -> str | None:
    """How the first ``played`` games of an interleaved schedule spread over its (ruleset, table)
    units, e.g. ``every pairing in proportion (250 games each)``; ``unit`` names one.  None
    before the first game: there is nothing to spread."""
    fewest, most = shape.prefix_spread(played)
    if most == 0:
        return None
    each = f"{fewest:,} games each" if fewest == most else f"{fewest:,} to {most:,} games each"
    if fewest == 0:
        return f"not every {unit} has a game yet ({each})"
    return f"every {unit} in proportion ({each})"


def partial_text(played: int, total: int, proportion: str | None) -> str:
    """The line that marks the ranking of a run that stopped early, e.g. ``partial: 7,500 of
    30,000 games played (25.0 %); every pairing in proportion (250 games each)``."""
    share = f"{100 * played / total:.1f}" if total else "0.0"
    if share == "100.0" and played < total:
        share = "99.9"  # a run a few games short must not read as whole
    share += " %"
    text = f"partial: {played:,} of {total:,} games played ({share})"
    return f"{text}; {proportion}" if proportion else text


def schedule_unit(fmt: str, shape: ScheduleShape) -> str | None:
    """What one (ruleset, table) of a schedule is called in the partial line; None when there is
    only one (one pairing on one ruleset, a free-for-all on one ruleset): proportion says nothing."""
    if shape.rulesets * shape.tables == 1:
        return None
    if fmt == "free-for-all":
        return "ruleset"  # a free-for-all has one table per ruleset, or draws each deal's
    return "pairing on every ruleset" if shape.rulesets > 1 else "pairing"


def run_partial_text(spec: TournamentSpec, played: int) -> str:
    """:func:`partial_text` for a run of ``spec`` that stopped after ``played`` games."""
    shape = Schedule(spec).shape
    unit = schedule_unit(spec.format, shape)
    proportion = proportion_text(shape, played, unit) if unit is not None else None
    return partial_text(played, shape.total, proportion)


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
        # The written games are a prefix of the interleaved schedule, so this share of every
        # (ruleset, pairing) is played, to within one deal.
        "share_played": round(outcome.games_written / outcome.games_total, 6) if outcome.games_total else 1.0,
        "stopped_by": stop_reason(outcome),
        "schedule": SCHEDULE_ORDER,
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
        # What isolated seats got: the limits asked for, each at most the hard limit arena inherited.
        "seat_limits_in_force": None if spec.seat_limits is None else in_force(spec.seat_limits)[0].as_dict(),
    }


def stop_reason(outcome: RunOutcome) -> str | None:
    """Why a run stopped before its last game: None if it didn't."""
    if outcome.error is not None:
        return outcome.error
    if outcome.terminated:
        return "SIGTERM"
    if outcome.interrupted:
        return "Ctrl-C (SIGINT)"
    return None
