"""``arena tournament``: the main job."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click
from click.core import ParameterSource

from arena.api.runs import DEFAULT_PLAYERS, DEFAULT_RULES, default_folder, write_run_files
from arena.cli.compiled_option import compiled_option, with_compiled
from arena.cli.live_totals import LiveTotals
from arena.cli.output import fail, json_text, say, stdout_for_json
from arena.cli.report_commands import run_json
from arena.cli.rules_commands import resolve_rules
from arena.cli.seat_options import Seating, game_time_option, seat_options, warn_limits_in_force
from arena.engine import DEFAULT_MAX_ROUNDS
from arena.players import StrategyError
from arena.tournaments import FORMATS, TournamentSpec, run_tournament
from arena.tournaments.batch import FaultDetail
from arena.tournaments.dask_backend import INSTALL_HINT, DaskBackendError
from arena.tournaments.fault_log import (
    FaultGroup,
    FaultStop,
    FaultWatch,
    fault_counts,
    fault_groups,
    first_fault_of,
    full_traceback,
    game_describer,
    warning_block,
)
from arena.tournaments.games_check import read_journal
from arena.tournaments.interrupts import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    StopState,
    signals_held,
    stop_signals,
)
from arena.tournaments.run_folder import RunFolder, RunFolderError, RunFolderWriteError, load_saved_run
from arena.tournaments.run_info import now_text, run_partial_text
from arena.tournaments.runner import BACKENDS, RunOutcome
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import DEFAULT_GAMES, DEFAULT_MOVE_TIMEOUT

if TYPE_CHECKING:
    from arena.analysis.reports import RunStats, RunTotals

#: The files of a run folder, as ``--json`` lists them (those the run has).
RUN_FILES: tuple[str, ...] = ("games.csv", "summary.csv", "pairwise.csv", "gauntlet.csv", "errors.csv")
RUN_FILES += ("errors.log", "run.json", "spec.json", "games.idx")
# Options that decide the games: given with --resume, they must match the saved run.
GAME_OPTIONS = ("rules", "players", "games", "seed", "format", "seats", "move_timeout", "game_time")


def write_reports(
    folder: Path, ruleset_order: list[str], *, tested: str | None, totals: RunTotals | None = None
) -> RunStats:
    """:func:`arena.analysis.reports.write_reports`, imported when a run ends: pandas takes about
    0.2 s to load, only the reports need it, and the processes forked to play go without it.
    ``totals``: the sums made as the run was played (:mod:`arena.cli.live_totals`)."""
    from arena.analysis.reports import write_reports as write

    return write(folder, ruleset_order, tested=tested, totals=totals)


def _import_reports() -> None:
    import arena.analysis.ranking
    import arena.analysis.reports  # noqa: F401


class _PrefetchReports:
    """Passes each batch on to ``then``; as soon as the workers are started (or at the first
    batch, on a backend that doesn't say) starts importing the reports' modules (pandas: about
    0.2 s) in a thread, while the main process mostly waits for games and the workers load the
    compiled kernel.  By then every process that plays has been forked, so none of them carries
    pandas or the thread."""

    def __init__(self, then: Callable[[Any], None]) -> None:
        self.then = then
        self.started = False

    def start(self) -> None:
        if not self.started:
            self.started = True
            threading.Thread(target=_import_reports, name="arena-import-reports", daemon=True).start()

    def __call__(self, result: Any) -> None:
        self.start()
        self.then(result)


def default_out() -> Path:
    return default_folder()


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
@click.option(
    "--seed",
    type=int,
    default=0,
    help="Tournament seed. [default: 0; with isolated players a secret one, kept in the run folder]",
)
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
@game_time_option
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
    help="The Dask scheduler to send chunks of games to (with --backend dask).",
)
@click.option("--batch-size", type=int, default=None, hidden=True, help="Games per write (for tests).")
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr. [default: on a terminal]"
)
@click.option(
    "--fail-fast",
    is_flag=True,
    help="Stop at the first game a strategy breaks and show its full traceback (what was written is "
    "kept; --resume continues).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON instead of the ranking: the summary, pairwise and gauntlet tables, the timing "
    "and where each file of the run folder is.  Anything else a run prints goes to stderr.",
)
@compiled_option
@seat_options
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
    game_time: float | None,
    backend: str,
    scheduler: str | None,
    batch_size: int | None,
    progress: bool | None,
    fail_fast: bool,
    compiled: str,
    seating: Seating,
    as_json: bool,
) -> None:
    """Play every pairing of strategies on every ruleset, and rank them.

    With no options: the built-in strategies, round-robin, on all three presets, 1,000 games per
    pairing, on all cores.  Results go to results/<timestamp>/: games.csv (one row per player per
    game), summary.csv, pairwise.csv, errors.csv, errors.log and run.json.
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
    run: _Run | None = None
    stop = StopState()
    try:
        with stdout_for_json() if as_json else contextlib.nullcontext() as json_out, stop_signals() as stop:
            try:
                spec, schedule, folder = _open_run(
                    rules,
                    players,
                    format_,
                    seats,
                    games,
                    seed,
                    move_timeout,
                    resume,
                    out,
                    given,
                    command,
                    seating,
                    compiled,
                    game_time,
                )
                run = _Run(spec, schedule, folder, stop, backend, scheduler, workers, json_out)
                isolated = any(p.isolated for p in spec.players)
                run.secret_seed = resume is None and "seed" not in given and isolated
                run.play(batch_size, progress, fail_fast, resume is not None)
                run.finish()
            except KeyboardInterrupt:  # between the steps above (each handles its own): stop the same way
                if run is None:
                    say("interrupted before any game was played", err=True)
                    raise SystemExit(stop.exit_status) from None
                run.stopped()
    except KeyboardInterrupt:  # one that lands as the block ends: noted in `stop` (interrupts.py)
        stop.signum = stop.signum or signal.SIGINT
    if stop.stopped and run is not None:  # a stop noted as the block ended
        run.stopped()
    if stop.stopped:
        say("interrupted before any game was played", err=True)
        raise SystemExit(stop.exit_status)


def _open_run(
    rules: tuple[str, ...],
    players: tuple[str, ...],
    format_: str,
    seats: int | None,
    games: int,
    seed: int,
    move_timeout: float,
    resume: Path | None,
    out: Path | None,
    given: set[str],
    command: str,
    seating: Seating,
    compiled: str = "off",
    game_time: float | None = None,
) -> tuple[TournamentSpec, Schedule, RunFolder]:
    """The spec and a new or resumed run folder; bad input is one line, exit 2."""
    try:
        base = None
        if resume is not None:
            if out is not None:
                fail("--resume continues a run in its own folder; leave out --out")
            # Options not given take the saved run's values; given ones must match them.
            base = load_saved_run(resume, command)
        timeout = move_timeout if base is None or "move_timeout" in given else base.move_timeout
        kept = None if base is None or "players" in given else base  # the saved run whose players stay
        loaded = tuple(seating.load(p, timeout) for p in players or DEFAULT_PLAYERS) if kept is None else ()
        if base is None:  # a new run: with isolated players and no --seed, a secret one
            run_seed = Seating.seed_for(seed, "seed" in given, loaded)
        else:
            run_seed = seed if "seed" in given else base.seed
        spec = TournamentSpec(
            rulesets=tuple(resolve_rules(r) for r in rules or DEFAULT_RULES)
            if base is None or "rules" in given
            else base.rulesets,
            players=loaded if kept is None else kept.players,
            format=format_ if base is None or "format" in given else base.format,
            games=games if base is None or "games" in given else base.games,
            seed=run_seed,
            seats=seats if base is None or "seats" in given else base.seats,
            move_timeout=timeout,
            game_time=game_time if base is None or "game_time" in given else base.game_time,
            max_rounds=base.max_rounds if base is not None else DEFAULT_MAX_ROUNDS,
            seat_limits=seating.limits_for(loaded) if kept is None else kept.seat_limits,
            command=command,
        )
        spec = with_compiled(compiled, spec)
        warn_limits_in_force(spec.seat_limits)
        schedule = Schedule(spec)
        if resume is not None:
            folder = RunFolder.resume(resume, spec, schedule.table_size)
        else:
            folder = RunFolder.create(out or default_out(), spec)
    except (StrategyError, RunFolderError) as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))
    return spec, schedule, folder


class _Run:
    """One session of a run, from the first line it prints to its exit status."""

    def __init__(
        self,
        spec: TournamentSpec,
        schedule: Schedule,
        folder: RunFolder,
        stop: StopState,
        backend: str,
        scheduler: str | None,
        workers: int,
        json_out: TextIO | None = None,
    ) -> None:
        self.spec, self.schedule, self.folder, self.stop = spec, schedule, folder, stop
        self.json_out = json_out  # --json: the run's JSON goes here, in place of the ranking
        self.backend, self.scheduler, self.workers = backend, scheduler, workers
        self.total = len(schedule)
        self.resumed_from = folder.completed_games
        self.started = now_text()
        self.outcome: RunOutcome | None = None
        self.fault: FaultDetail | None = None  # --fail-fast stopped the run at this fault
        self.interrupted = False
        self.terminated = False  # by SIGTERM, during play (the runner's handler)
        self.secret_seed = False  # the dice come from a seed drawn for this run (isolated players)
        self.groups: list[FaultGroup] = []  # the run's distinct faults, from its journal
        #: The reports' sums, made as the batches are written (compiled games only).
        self.live = LiveTotals(spec, self.resumed_from)

    @property
    def hint(self) -> str:
        return (
            f"{self.folder.completed_games:,} of {self.total:,} games kept; continue with "
            f"`arena tournament --resume {shlex.quote(str(self.folder.path))}`"
        )

    def announce(self) -> None:
        spec, schedule = self.spec, self.schedule
        unit = "ruleset" if spec.format == "free-for-all" else "pairing"
        if self.scheduler is not None:
            where = f"the Dask cluster at {self.scheduler}"
        else:
            where = f"{self.workers} worker{'s' if self.workers != 1 else ''}" + (
                " (a local Dask cluster)" if self.backend == "dask" else ""
            )
        per_unit = schedule.games_per_ruleset if unit == "ruleset" else schedule.games_per_table
        n_rules = len(spec.rulesets)
        say(
            f"{spec.format}: {len(spec.players)} players, {n_rules} ruleset{'s' if n_rules != 1 else ''}, "
            f"{per_unit:,} games per {unit}: {self.total:,} games on {where} -> {self.folder.path}",
            err=True,
        )
        if self.secret_seed:
            say(
                "the dice come from a secret seed, kept in the run folder's spec.json (no seat can "
                "read it): another run plays other dice, so arena compare pairs it game by game, "
                "not deal by deal",
                err=True,
            )
        if self.folder.note:
            say(f"repair: {self.folder.note}", err=True)
        if self.resumed_from:
            say(f"resuming after game {self.resumed_from:,} of {self.total:,}", err=True)

    def play(self, batch_size: int | None, progress: bool | None, fail_fast: bool, resuming: bool) -> None:
        began = time.perf_counter()
        watch = FaultWatch(fail_fast)
        try:
            self.announce()
            live = self.live

            def each_batch(result: Any) -> None:
                watch(result)
                live.add(result)

            prefetch = _PrefetchReports(each_batch)
            self.outcome = run_tournament(
                self.spec,
                self.folder,
                workers=self.workers,
                batch_size=batch_size,
                progress=progress,
                backend=self.backend,
                scheduler=self.scheduler,
                on_batch=prefetch,
                while_waiting=prefetch.start,
            )
        except DaskBackendError as exc:
            if not resuming and self.resumed_from == 0:
                shutil.rmtree(self.folder.path)  # our own folder, still empty: leave nothing behind
            fail(str(exc))
        except RunFolderWriteError as exc:  # a full disk: every batch written before is kept
            fail(f"{exc}; {self.hint}", 1)
        except FaultStop as stop:
            self.fault = stop.detail
        except KeyboardInterrupt:  # a second Ctrl-C or SIGTERM while the first was being handled
            self.interrupted = True
            self.terminated = self.stop.terminated
        if self.outcome is None:
            written = self.folder.completed_games
            seconds = time.perf_counter() - began
            d = self.fault
            error = f"--fail-fast: {d.player} faulted in game {d.game:,}" if d is not None else None
            self.outcome = RunOutcome(
                self.total,
                written,
                written - self.resumed_from,
                seconds,
                watch.faults,
                interrupted=True,
                error=error,
                terminated=self.terminated,
            )
        self.interrupted = self.interrupted or (self.outcome.interrupted and self.outcome.error is None)
        self.terminated = self.terminated or self.outcome.terminated

    def finish(self) -> None:
        """Reports, run.json and errors.log; the ranking and the fault warnings; the exit status.
        Ctrl-C or SIGTERM here stops as during play; a full disk is one line."""
        outcome = self.outcome
        assert outcome is not None
        try:
            with signals_held():  # an import of pandas (numpy) cut halfway would break the reports
                _import_reports()
            from arena.analysis.ranking import results_text

            stats = self._write_reports(outcome)
            if self.fault is None and self.json_out is not None:
                self.json_out.write(json_text(self._json(stats, outcome)) + "\n")
            elif self.fault is None:
                if self.folder.completed_games < self.total:
                    # A stopped run's ranking covers a prefix of the interleaved schedule: say how much.
                    say(run_partial_text(self.spec, self.folder.completed_games))
                say(results_text(stats), nl=False)
                say(
                    f"\n{outcome.games_written:,} games in {self.folder.path}/ ({outcome.games_played:,} "
                    f"played in {outcome.seconds:.1f} s, {outcome.games_per_second:,.0f} games/s); "
                    f"{stats.error_count:,} faults in errors.csv"
                )
            if self.fault is None:
                for block in self._warnings(stats):
                    say(block, err=True)
        except KeyboardInterrupt:
            self.interrupted = True
        # A Ctrl-C Python lost in a destructor during the reports (see interrupts.py) stops too.
        self.interrupted = self.interrupted or self.stop.stopped
        if self.fault is not None:
            for line in full_traceback(self.fault):
                say(line, err=True)
            d = self.fault
            fail(
                f"--fail-fast: {d.player} faulted in game {d.game:,} (seat {d.seat}): {d.status}: "
                f"{d.reason}; {self.hint}",
                1,
            )
        if outcome.error is not None:
            fail(f"{outcome.error}; {self.hint}", 1)
        if self.interrupted:
            self.stopped()

    def stopped(self) -> NoReturn:
        """Say that Ctrl-C or SIGTERM stopped the run and how to go on; exit 130 or 143."""
        terminated = self.terminated or self.stop.terminated
        say(f"{'terminated' if terminated else 'interrupted'}: {self.hint}", err=True)
        raise SystemExit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)

    def _json(self, stats: RunStats, outcome: RunOutcome) -> dict[str, Any]:
        """``--json``: the run's tables as ``arena report --json`` has them, the timing, and the path
        of each file in the run folder."""
        path = self.folder.path
        return {
            **run_json(path, stats, self.folder.completed_games, self.total),
            "files": {name: str(path / name) for name in RUN_FILES if (path / name).exists()},
            "played_now": outcome.games_played,
            "seconds": round(outcome.seconds, 3),
            "games_per_second": round(outcome.games_per_second, 1),
            "faults": stats.error_count,
        }

    def _write_reports(self, outcome: RunOutcome) -> RunStats:
        from arena.analysis.reports import ReportError

        path = self.folder.path
        try:
            stats = write_run_files(
                self.spec,
                self.schedule,
                self.folder,
                outcome,
                workers=self.workers if self.scheduler is None else None,
                backend=self.backend,
                scheduler=self.scheduler,
                started=self.started,
                resumed_from=self.resumed_from,
                reports=functools.partial(
                    write_reports, totals=self.live.for_reports(self.folder.completed_games)
                ),
            )
            self.groups = fault_groups(read_journal(path))
        except ReportError as exc:
            fail(str(exc), 1)
        except OSError as exc:
            where = exc.filename or path
            fail(f"cannot write {where}: {exc.strerror or exc}; {self.hint}", 1)
        return stats

    def _warnings(self, stats: RunStats) -> list[str]:
        """A warning block for every player that faulted in any game of the run, then one for the
        games that ended at the round limit."""
        from arena.analysis.ranking import round_limit_text

        limit = round_limit_text(stats.summary, self.spec.max_rounds)
        return [*self._fault_warnings(stats), *([limit] if limit else [])]

    def _fault_warnings(self, stats: RunStats) -> list[str]:
        if not stats.error_count:
            return []
        path = self.folder.path
        counts = fault_counts(path / "errors.csv")
        games = stats.summary.groupby("player")["games"].sum()
        describe = game_describer(self.spec, self.schedule)
        blocks = []
        for player in self.spec.labels:
            if player not in counts:
                continue
            first = first_fault_of(self.groups, player)
            blocks.append(
                warning_block(
                    player,
                    counts[player],
                    int(games.get(player, 0)),
                    first,
                    describe(first.first_game, first.first_seat) if first is not None else "",
                    f"all faults: {path / 'errors.csv'}, tracebacks: {path / 'errors.log'}",
                )
            )
        return blocks
