"""``arena duel``: two strategies head to head, with a stopping rule, saved in a run folder."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import NoReturn

import click
from click.core import ParameterSource

from arena.api.duels import write_duel_files
from arena.api.runs import default_folder
from arena.cli.compiled_option import compiled_option, wants_compiled
from arena.cli.output import fail, json_text, say, stdout_for_json
from arena.cli.rules_commands import RULES_HELP, resolve_rules
from arena.cli.seat_options import Seating, game_time_option, seat_options, warn_limits_in_force
from arena.players import StrategyError
from arena.tournaments.batch import FaultDetail
from arena.tournaments.duel import (
    DuelTally,
    Sprt,
    SprtError,
    duel_limit,
    duel_spec,
    replay_games,
    run_spec_duel,
)
from arena.tournaments.duel_report import duel_text, interim_line
from arena.tournaments.fault_log import FaultCollector, FaultStop, FaultWatch, full_traceback, warning_block
from arena.tournaments.interrupts import StopState, stop_signals
from arena.tournaments.run_folder import RunFolder, RunFolderError, load_saved_run, load_saved_spec
from arena.tournaments.run_info import now_text
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, TournamentSpec

SPRT_HELP = (
    "Stop as soon as the sequential probability ratio test accepts H0 (A is elo0 stronger than B) "
    "or H1 (elo1 stronger): the exact generalized likelihood ratio on game pairs that fishtest and "
    "fastchess use.  model=logistic (the default) counts Elo as a win rate, 20 Elo = 52.9% of the "
    "points; use it under duplicate dice, which then shorten the test by themselves.  "
    "model=normalized counts Elo in standard deviations of the score (fishtest's and fastchess's "
    "default): duplicate dice shrink that deviation, so the same normalized Elo is a smaller "
    "real edge than with independent dice, and two copies of one deterministic strategy take "
    "hundreds of pairs to decide (447 at elo0=0,elo1=20) instead of 50."
)


def default_duel_out() -> Path:
    return default_folder("-duel")


#: Seconds between the interim lines of a duel with an SPRT (as fastchess prints them).
INTERIM_SECONDS = 5.0


def interim(
    sprt: Sprt | None, as_json: bool, progress: bool | None, seconds: float | None, labels: tuple[str, ...]
) -> InterimLines | None:
    """The interim lines of a duel with an SPRT: where its progress bar is shown (a terminal,
    or --progress), every INTERIM_SECONDS; not with --json."""
    if sprt is None or as_json:
        return None
    if seconds is None:
        shown = sys.stderr.isatty() if progress is None else progress
        if not shown:
            return None
        seconds = INTERIM_SECONDS
    return InterimLines(labels, seconds)


class InterimLines:
    """Prints the SPRT's standing on stderr every ``seconds``, as the duel goes on."""

    def __init__(self, labels: tuple[str, ...], seconds: float) -> None:
        self.labels = (labels[0], labels[1])
        self.seconds = seconds
        self.next = time.monotonic() + seconds

    def __call__(self, tally: DuelTally) -> None:
        now = time.monotonic()
        if now >= self.next and tally.verdict is None:
            self.next = now + self.seconds
            say(interim_line(tally, self.labels), err=True)


@click.command("duel")
@click.argument("player_a", metavar="[A", required=False)
@click.argument("player_b", metavar="B]", required=False)
@click.option(
    "--rules", "rules_name", default="standard", show_default=True, metavar="NAME|FILE", help=RULES_HELP
)
@click.option(
    "--sprt",
    "sprt_text",
    default=None,
    metavar="elo0=0,elo1=20[,alpha=0.05,beta=0.05,model=logistic]",
    help=SPRT_HELP,
)
@click.option("--games", type=int, default=1000, show_default=True, help="Games to play without --sprt.")
@click.option(
    "--max-games", type=int, default=20_000, show_default=True, help="Most games to play with --sprt."
)
@click.option(
    "--seed",
    type=int,
    default=0,
    help="Seed of the dice. [default: 0; with isolated players a secret one, kept in the run folder]",
)
@click.option("--workers", type=int, default=None, help="Worker processes. [default: all cores]")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder, which must not exist. [default: results/<timestamp>-duel]",
)
@click.option(
    "--resume",
    type=click.Path(path_type=Path),
    default=None,
    help="Continue an interrupted duel in this folder, with its saved settings.",
)
@click.option(
    "--move-timeout",
    type=float,
    default=DEFAULT_MOVE_TIMEOUT,
    show_default=True,
    help="Seconds a strategy may take for one decision (or its constructor, or a hook) before it "
    "loses the game.",
)
@game_time_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (duel.json) instead of text.")
@click.option("--batch-size", type=int, default=None, hidden=True, help="Games per task (for tests).")
@click.option(
    "--interim-seconds",
    "report_seconds",
    type=float,
    default=None,
    hidden=True,
    help="Seconds between the SPRT's interim lines, shown even off a terminal (for tests).",
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr. [default: on a terminal]"
)
@click.option(
    "--fail-fast", is_flag=True, help="Stop at the first game a strategy breaks and show its full traceback."
)
@compiled_option
@seat_options
@click.pass_context
def duel_command(
    ctx: click.Context,
    player_a: str | None,
    player_b: str | None,
    rules_name: str,
    sprt_text: str | None,
    games: int,
    max_games: int,
    seed: int,
    workers: int | None,
    out: Path | None,
    resume: Path | None,
    move_timeout: float,
    game_time: float | None,
    as_json: bool,
    batch_size: int | None,
    report_seconds: float | None,
    progress: bool | None,
    fail_fast: bool,
    compiled: str,
    seating: Seating,
) -> None:
    """Play A against B in game pairs (both seat orders of each deal, same dice) and say which is
    stronger, by how much, and how sure that is.  The games and the verdict are saved in a run
    folder (games.csv, duel.json, run.json) that `arena report` reads; `arena duel --resume DIR`
    continues an interrupted duel with its saved players and settings.

    A and B are player specs, as after -p elsewhere: a built-in with optional parameters
    (threshold:bank_at=400), `path/to/bot.py[:Class][:NAME=VALUE,...]`, package.module:Class, an
    installed plugin's name or cmd:PROGRAM.  With --resume they may be left out."""
    command = "arena " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv else "arena duel"
    if workers is not None and workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    if batch_size is not None and batch_size < 2:
        fail(f"--batch-size must be at least 2 (one pair), got {batch_size}")
    given = {
        name
        for name in (
            "player_a",
            "player_b",
            "rules_name",
            "seed",
            "games",
            "max_games",
            "move_timeout",
            "game_time",
        )
        if ctx.get_parameter_source(name) != ParameterSource.DEFAULT
    }
    # --json: stdout is kept for duel.json; what a strategy prints (when loaded or playing, here
    # or in the worker processes) goes to stderr.
    with stdout_for_json() if as_json else contextlib.nullcontext() as json_out:
        try:
            sprt = Sprt.parse(sprt_text) if sprt_text is not None else None
            if resume is not None:
                if out is not None:
                    fail("--resume continues a duel in its own folder; leave out --out")
                spec, sprt = resumed_settings(resume, command, given, sprt, player_a, player_b, rules_name)
                if {"seed", "move_timeout", "game_time", "games", "max_games"} & given:
                    limit = (
                        duel_limit(max_games if sprt else games, sprt)
                        if {"games", "max_games"} & given
                        else 0
                    )
                    spec = duel_spec(
                        spec.rulesets[0],
                        spec.players[0],
                        spec.players[1],
                        games=limit or spec.games,
                        seed=seed if "seed" in given else spec.seed,
                        move_timeout=move_timeout if "move_timeout" in given else spec.move_timeout,
                        command=command,
                        seat_limits=spec.seat_limits,
                        game_time=game_time if "game_time" in given else spec.game_time,
                    )
                use_compiled = wants_compiled(compiled, spec)
                folder = RunFolder.resume(resume, spec, 2, kind="duel")
                if folder.completed_games % 2:  # only without its journal (games.idx) can this happen
                    raise RunFolderError(
                        f"{resume / 'games.csv'} ends in half a game pair; the duel can't be resumed from it"
                    )
                # Read the saved games once now, so a damaged file is one line before anything runs.
                replay_games(
                    folder.path / "games.csv", spec.labels, DuelTally(sprt), folder.completed_games // 2
                )
            else:
                if player_a is None or player_b is None:
                    fail("give two players, A and B (or --resume DIR to continue a duel)")
                rules = resolve_rules(rules_name)
                a = seating.load(player_a, move_timeout)
                b = seating.load(player_b, move_timeout)
                limit = duel_limit(max_games if sprt else games, sprt)
                if limit < 2:
                    fail(
                        f"{'--max-games' if sprt else '--games'} must be at least 2 (one pair), "
                        f"got {max_games if sprt else games}"
                    )
                spec = duel_spec(
                    rules,
                    a,
                    b,
                    games=limit,
                    seed=Seating.seed_for(seed, "seed" in given, (a, b)),
                    move_timeout=move_timeout,
                    command=command,
                    seat_limits=seating.limits_for((a, b)),
                    game_time=game_time,
                )
                use_compiled = wants_compiled(compiled, spec)
                folder = RunFolder.create(
                    out or default_duel_out(),
                    spec,
                    {"kind": "duel", "sprt": sprt.as_dict() if sprt else None},
                )
        except (StrategyError, SprtError, RunFolderError) as exc:
            fail(str(exc))
        except ValueError as exc:
            fail(str(exc))
        warn_limits_in_force(spec.seat_limits)
        workers = workers or os.cpu_count() or 1
        a_label, b_label = spec.labels
        rules = spec.rulesets[0]
        say(
            f"duel: {a_label} vs {b_label} on {rules.name}, "
            + (f"SPRT {sprt}, at most {spec.games:,} games" if sprt else f"{spec.games:,} games")
            + f" on {workers} worker{'s' if workers != 1 else ''} -> {folder.path}",
            err=True,
        )
        resumed_from = folder.completed_games
        if resumed_from:
            say(f"resuming after game {resumed_from:,}", err=True)
        started = now_text()
        collector = FaultCollector()
        # Ctrl-C or SIGTERM from the games to the last file (each whole or not at all) stops
        # with the line that says how to go on, 130 or 143 (after the games it was "Aborted!", 1).
        again = f"arena duel --resume {shlex.quote(str(folder.path))}"
        outcome = None
        writing = StopState()
        try:
            with stop_signals() as writing:
                try:
                    stop = StopState()
                    try:
                        with stop_signals() as stop:  # SIGTERM stops the duel as Ctrl-C does
                            outcome = run_spec_duel(
                                rules,
                                spec,
                                sprt=sprt,
                                workers=workers,
                                progress=progress,
                                folder=folder,
                                batch_size=batch_size,
                                on_batch=FaultWatch(fail_fast, collector),
                                compiled=use_compiled,
                                on_tally=interim(sprt, as_json, progress, report_seconds, spec.labels),
                            )
                    except FaultStop as fault:
                        fail_at_fault(fault.detail, folder.path)
                    except RunFolderError as exc:
                        fail(str(exc))
                    try:
                        data = write_duel_files(
                            folder, spec, outcome, workers=workers, started=started, resumed_from=resumed_from
                        )
                        if as_json:
                            print(json_text(data), file=json_out)
                        else:
                            say(duel_text(outcome, rules.name, folder.path))
                        for block in duel_warnings(collector, outcome.games_played):
                            say(block, err=True)
                    except KeyboardInterrupt:
                        pass
                except KeyboardInterrupt:  # between the steps above
                    pass
        except KeyboardInterrupt:  # one that lands as the block ends: noted in `writing`
            writing.signum = writing.signum or signal.SIGINT
        if outcome is None or (writing.stopped and not outcome.interrupted):
            kept = folder.completed_games if outcome is None else outcome.tally.games
            word = "terminated" if writing.terminated else "interrupted"
            say(f"{word}: {kept:,} games kept; continue with `{again}`", err=True)
            raise SystemExit(writing.exit_status)
        if outcome.error is not None:
            say(
                f"arena: error: {outcome.error}; {outcome.tally.games:,} games kept; continue with `{again}`",
                err=True,
            )
            raise SystemExit(1)
        if outcome.interrupted:
            word = "terminated" if stop.terminated else "interrupted"
            say(f"{word}: {outcome.tally.games:,} games kept; continue with `{again}`", err=True)
            raise SystemExit(stop.exit_status)


def fail_at_fault(detail: FaultDetail, folder: Path) -> NoReturn:
    """``--fail-fast``: the fault's full traceback, one line, exit status 1.  The games up to
    the fault's batch are kept in ``folder``."""
    for line in full_traceback(detail):
        say(line, err=True)
    fail(
        f"--fail-fast: {detail.player} faulted in game {detail.game:,} (seat {detail.seat}): "
        f"{detail.status}: {detail.reason}; continue with "
        f"`arena duel --resume {shlex.quote(str(folder))}`",
        1,
    )


def duel_warnings(collector: FaultCollector, games: int) -> list[str]:
    """A warning block for each player that faulted: both play every game of a duel."""
    return [
        warning_block(player, counts, games, collector.first_of(player))
        for player, counts in collector.counts.items()
    ]


def resumed_settings(
    path: Path,
    command: str,
    given: set[str],
    sprt: Sprt | None,
    player_a: str | None,
    player_b: str | None,
    rules_name: str,
) -> tuple[TournamentSpec, Sprt | None]:
    """The saved duel in ``path`` and its SPRT; options given anew must match them (raises
    RunFolderError naming what differs)."""
    saved = load_saved_spec(path)
    if saved.get("kind", "tournament") != "duel":
        raise RunFolderError(
            f"{path} holds a tournament, not a duel; continue it with `arena tournament --resume {path}`"
        )
    try:
        saved_sprt = Sprt(**saved["sprt"]) if saved.get("sprt") is not None else None
    except (TypeError, ValueError):
        raise RunFolderError(
            f"{path / 'spec.json'} is damaged (its sprt settings); the duel can't be resumed"
        ) from None
    base = load_saved_run(path, command)
    differs = []
    if sprt is not None and sprt != saved_sprt:
        differs.append("sprt")
    sprt = saved_sprt if sprt is None else sprt
    if {"player_a", "player_b"} & given:
        players = (player_a or base.players[0].text, player_b or base.players[1].text)
        if tuple(p.strip() for p in players) != tuple(p.text for p in base.players):
            differs.append("players")
    if "rules_name" in given and resolve_rules(rules_name) != base.rulesets[0]:
        differs.append("rules")
    if differs:
        raise RunFolderError(
            f"{path} holds a different duel (differs in: {', '.join(differs)}); "
            "resume it with its own settings, or start a new duel"
        )
    return base, sprt
