"""``arena tournament``: the main job."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from datetime import datetime
from pathlib import Path

import click
from click.core import ParameterSource

from arena.analysis.ranking import results_text
from arena.analysis.reports import ReportError, write_reports
from arena.cli.output import fail
from arena.cli.rules_commands import resolve_rules
from arena.engine import DEFAULT_MAX_ROUNDS, PRESETS
from arena.players import BUILTINS, StrategyError, load_player_spec
from arena.tournament import FORMATS, TournamentSpec, run_tournament
from arena.tournament.dask_backend import INSTALL_HINT, DaskBackendError
from arena.tournament.run_folder import RunFolder, RunFolderError, load_saved_run
from arena.tournament.run_info import now_text, run_info, run_partial_text
from arena.tournament.runner import BACKENDS
from arena.tournament.schedule import Schedule
from arena.tournament.spec import DEFAULT_GAMES, DEFAULT_MOVE_TIMEOUT

DEFAULT_PLAYERS = tuple(BUILTINS)
DEFAULT_RULES = tuple(PRESETS)
# Options that decide the games: given with --resume, they must match the saved run.
GAME_OPTIONS = ("rules", "players", "games", "seed", "format", "seats", "move_timeout")


def default_out() -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path("results") / stamp
    n = 2
    while path.exists():
        path = Path("results") / f"{stamp}-{n}"
        n += 1
    return path


@click.command("tournament")
@click.option(
    "--rules",
    "rules",
    multiple=True,
    metavar="NAME|FILE",
    help="A preset or a TOML ruleset; repeatable. [default: standard, short, classic]",
)
@click.option(
    "-p",
    "--player",
    "players",
    multiple=True,
    metavar="SPEC",
    help="A strategy: built-in with parameters (threshold:bank_at=400), path/to/bot.py[:Class], "
    "package.module:Class or a plugin name; repeatable. [default: every built-in]",
)
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS),
    default="round-robin",
    show_default=True,
    help="round-robin: every pair; free-for-all: all (or --seats K) in one game; gauntlet: the "
    "first player against each other.",
)
@click.option("--seats", type=int, default=None, help="free-for-all: seats per game, drawn from the players.")
@click.option(
    "--games",
    type=int,
    default=DEFAULT_GAMES,
    show_default=True,
    help="Games per pairing (free-for-all: per ruleset), rounded up to whole deals.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Tournament seed.")
@click.option("--workers", type=int, default=None, help="Worker processes. [default: all cores]")
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder, which must not exist. [default: results/<timestamp>]",
)
@click.option(
    "--resume",
    "resume",
    type=click.Path(path_type=Path),
    default=None,
    help="Continue an interrupted run in this folder, with its saved settings.",
)
@click.option(
    "--move-timeout",
    type=float,
    default=DEFAULT_MOVE_TIMEOUT,
    show_default=True,
    help="Seconds a strategy may take for one decision before it loses the game.",
)
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default="local",
    show_default=True,
    help="local: worker processes on this machine; dask: a Dask cluster (--scheduler, or a "
    "LocalCluster of --workers processes).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="tcp://HOST:PORT",
    help="The Dask scheduler to send batches to (with --backend dask).",
)
@click.option("--batch-size", type=int, default=None, hidden=True, help="Games per task (for tests).")
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr. [default: on a terminal]"
)
@click.pass_context
def tournament_command(
    ctx: click.Context,
    rules: tuple[str, ...],
    players: tuple[str, ...],
    format_: str,
    seats: int | None,
    games: int,
    seed: int,
    workers: int | None,
    out: Path | None,
    resume: Path | None,
    move_timeout: float,
    backend: str,
    scheduler: str | None,
    batch_size: int | None,
    progress: bool | None,
) -> None:
    """Play every pairing of strategies on every ruleset, and rank them.

    With no options: the built-in strategies, round-robin, on all three presets, 1,000 games per
    pairing, on all cores.  Results go to results/<timestamp>/: games.csv (one row per player per
    game), summary.csv, pairwise.csv, errors.csv and run.json.
    """
    command = "arena " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv else "arena tournament"
    if workers is not None and workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    if batch_size is not None and batch_size < 1:
        fail(f"--batch-size must be at least 1, got {batch_size}")
    if scheduler is not None and backend != "dask":
        fail("--scheduler goes with --backend dask")
    if backend == "dask" and importlib.util.find_spec("distributed") is None:
        fail(INSTALL_HINT)
    workers = workers or os.cpu_count() or 1
    given = {
        name
        for name in GAME_OPTIONS
        if ctx.get_parameter_source("format_" if name == "format" else name) != ParameterSource.DEFAULT
    }
    try:
        base = None
        if resume is not None:
            if out is not None:
                fail("--resume continues a run in its own folder; leave out --out")
            # Options not given take the saved run's values; given ones must match them.
            base = load_saved_run(resume, command)
        spec = TournamentSpec(
            rulesets=tuple(resolve_rules(r) for r in rules or DEFAULT_RULES)
            if base is None or "rules" in given
            else base.rulesets,
            players=tuple(load_player_spec(p) for p in players or DEFAULT_PLAYERS)
            if base is None or "players" in given
            else base.players,
            format=format_ if base is None or "format" in given else base.format,
            games=games if base is None or "games" in given else base.games,
            seed=seed if base is None or "seed" in given else base.seed,
            seats=seats if base is None or "seats" in given else base.seats,
            move_timeout=move_timeout if base is None or "move_timeout" in given else base.move_timeout,
            max_rounds=base.max_rounds if base is not None else DEFAULT_MAX_ROUNDS,
            command=command,
        )
        schedule = Schedule(spec)
        if resume is not None:
            folder = RunFolder.resume(resume, spec, schedule.table_size)
        else:
            folder = RunFolder.create(out or default_out(), spec)
    except (StrategyError, RunFolderError) as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))
    started = now_text()
    total = len(schedule)
    unit = "ruleset" if spec.format == "free-for-all" else "pairing"
    if scheduler is not None:
        where = f"the Dask cluster at {scheduler}"
    else:
        where = f"{workers} worker{'s' if workers != 1 else ''}" + (
            " (a local Dask cluster)" if backend == "dask" else ""
        )
    per_unit = schedule.games_per_ruleset if unit == "ruleset" else schedule.games_per_table
    n_rules = len(spec.rulesets)
    click.echo(
        f"{spec.format}: {len(spec.players)} players, {n_rules} ruleset{'s' if n_rules != 1 else ''}, "
        f"{per_unit:,} games per {unit}: {total:,} games on {where} -> {folder.path}",
        err=True,
    )
    resumed_from = folder.completed_games
    if resumed_from:
        click.echo(f"resuming after game {folder.completed_games:,} of {total:,}", err=True)
    try:
        outcome = run_tournament(
            spec,
            folder,
            workers=workers,
            batch_size=batch_size,
            progress=progress,
            backend=backend,
            scheduler=scheduler,
        )
    except DaskBackendError as exc:
        if resume is None and resumed_from == 0:
            shutil.rmtree(folder.path)  # our own folder, still empty: leave nothing behind
        fail(str(exc))
    try:
        stats = write_reports(
            folder.path,
            [r.name for r in spec.rulesets],
            tested=spec.labels[0] if spec.format == "gauntlet" else None,
        )
    except ReportError as exc:
        fail(str(exc), 1)
    folder.write_json(
        "run.json",
        run_info(
            spec,
            outcome,
            workers=workers if scheduler is None else None,
            backend=backend,
            scheduler=scheduler,
            started=started,
            resumed_from=resumed_from,
        ),
    )
    if outcome.games_written < total:
        # A stopped run's ranking covers a prefix of the interleaved schedule: say how much.
        click.echo(run_partial_text(spec, outcome.games_written))
    click.echo(results_text(stats), nl=False)
    click.echo(
        f"\n{outcome.games_written:,} games in {folder.path}/ ({outcome.games_played:,} played in "
        f"{outcome.seconds:.1f} s, {outcome.games_per_second:,.0f} games/s); "
        f"{stats.error_count:,} faults in errors.csv"
    )
    if outcome.error is not None:
        click.echo(
            f"arena: error: {outcome.error}; {outcome.games_written:,} of {total:,} games kept; "
            f"continue with `arena tournament --resume {shlex.quote(str(folder.path))}`",
            err=True,
        )
        raise SystemExit(1)
    if outcome.interrupted:
        how = "terminated" if outcome.terminated else "interrupted"
        click.echo(
            f"{how}: {outcome.games_written:,} of {total:,} games kept; continue with "
            f"`arena tournament --resume {shlex.quote(str(folder.path))}`",
            err=True,
        )
        raise SystemExit(143 if outcome.terminated else 130)  # 128 + the signal, as shells report
