"""``arena league``: a standing contest (init, add, retire, reinstate, run, table, games); see
docs/league.md."""

from __future__ import annotations

import errno
import importlib.util
import math
import shlex
import signal
import sys
from typing import TYPE_CHECKING

import click

from arena.cli.output import echo_json, fail, say
from arena.tournaments.dask_backend import INSTALL_HINT
from arena.tournaments.interrupts import EXIT_INTERRUPTED, EXIT_TERMINATED, StopState, stop_signals

if TYPE_CHECKING:
    from arena.leagues.play import RunReport

#: ``league run``'s exit status when games wait for an entry that can't play now (not left out
#: with --skip): the league is not complete, though every game that could be played was.
EXIT_GAMES_WAIT = 3


def _open(folder: str, *, read_only: bool = False):
    from arena.leagues import League, LeagueError

    _remember(folder)
    try:
        return League(folder, read_only=read_only)
    except LeagueError as exc:
        fail(str(exc), 1)


def _remember(folder: str) -> None:
    """Keep the league's folder for :class:`_LeagueGroup`'s one line about its database."""
    click.get_current_context().meta["arena_league_folder"] = folder


class _LeagueGroup(click.Group):
    """Its commands, with what SQLite finds wrong said in one line (read-only, busy, not a
    database, damaged: SQLite finds damage only when it reads the page that holds it, so any
    command may meet it)."""

    def invoke(self, ctx: click.Context) -> object:
        import sqlite3

        try:
            return super().invoke(ctx)
        except sqlite3.Error as exc:
            from pathlib import Path

            from arena.storage.league_db import database_path, describe_error

            folder = ctx.meta.get("arena_league_folder")
            path = database_path(Path(folder)) if folder is not None else Path("data/league.sqlite")
            fail(describe_error(exc, path), 1)


@click.group("league", cls=_LeagueGroup)
def league_group() -> None:
    """A standing contest: entries stored by content, games played where missing."""


@league_group.command("init")
@click.argument("folder")
@click.option(
    "--rules",
    "rules",
    multiple=True,
    default=("standard",),
    show_default=True,
    help="A ruleset (repeat for more).",
)
@click.option(
    "--games",
    type=int,
    default=100,
    show_default=True,
    help="Games per pair of active entries and ruleset, in whole deals.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="The league seed: it decides every game's dice. Default: a secret one, drawn and kept in "
    "the league's database (a seed anyone knows lets them foresee the dice).",
)
@click.option(
    "--move-timeout",
    type=float,
    default=10.0,
    show_default=True,
    help="Seconds an entry may take for one decision; longer is a timeout fault.",
)
@click.option(
    "--game-time",
    type=float,
    default=None,
    help="A chess clock: seconds an entry may take for all its decisions of one game together; "
    "running out is a timeout fault (default: no game clock).",
)
@click.option(
    "--name", "league_name", default=None, help="The league's name on its pages (default: the folder's name)."
)
@click.option(
    "--schedule",
    type=click.Choice(["round-robin", "ladder"]),
    default="round-robin",
    show_default=True,
    help="round-robin: every pair plays; ladder: each entry plays opponents near its rating until "
    "its 95% interval is narrower than --interval-width.",
)
@click.option(
    "--interval-width",
    type=float,
    default=100.0,
    show_default=True,
    help="A ladder's stopping width in Elo (high minus low of an entry's 95% interval).",
)
@click.option("--json", "as_json", is_flag=True, help="Say what was done as one JSON object.")
def init_command(
    folder: str,
    rules: tuple[str, ...],
    games: int,
    seed: int | None,
    move_timeout: float,
    game_time: float | None,
    league_name: str | None,
    schedule: str,
    interval_width: float,
    as_json: bool,
) -> None:
    """Create a league in FOLDER."""
    from pathlib import Path

    from arena.leagues import League, LeagueError
    from arena.storage.league_db import database_path

    try:
        league = League.create(
            folder,
            rules,
            games,
            seed,
            move_timeout,
            game_time,
            name=league_name,
            schedule=schedule,
            interval_width=interval_width,
        )
    except LeagueError as exc:
        fail(str(exc), 1)
    names = ", ".join(r["name"] for r in league.settings["rulesets"])
    if seed is not None:
        say(
            f"arena: warning: --seed {seed} is no secret: anyone who knows it can foresee every game's dice; "
            "leave --seed out for a contest (a secret seed is drawn and kept in the league's database)",
            err=True,
        )
    if as_json:
        # The drawn secret is never printed: null, and "secret_seed" says it was drawn.
        echo_json(
            {
                "folder": folder,
                "name": league.settings["name"],
                "rulesets": [r["name"] for r in league.settings["rulesets"]],
                "games": league.settings["games"],
                "seed": seed,
                "secret_seed": seed is None,
                "move_timeout": league.settings["move_timeout"],
                "game_time": league.settings["game_time"],
                "schedule": schedule,
                "interval_width": float(interval_width),
            }
        )
        return
    where = f"a secret seed, kept in {database_path(Path(folder))}" if seed is None else f"seed {seed}"
    clock = f"{move_timeout:g} s a move" + ("" if game_time is None else f", {game_time:g} s a game")
    if schedule == "ladder":
        clock += f"; a ladder to intervals narrower than {interval_width:g} Elo"
    say(f"league created in {folder}: {names}; {league.settings['games']} games per pair; {where}; {clock}")


@league_group.command("add")
@click.argument("folder")
@click.argument("spec")
@click.option("--name", default=None, help="The entrant's name (default: the strategy's own).")
@click.option("--json", "as_json", is_flag=True, help="Say what was done as one JSON object.")
def add_command(folder: str, spec: str, name: str | None, as_json: bool) -> None:
    """Register SPEC (a file, a module, a built-in or a cmd: program) in the league."""
    from arena.leagues import LeagueError

    league = _open(folder)
    try:
        entry, status = league.add_entry(spec, name)
    except LeagueError as exc:
        fail(str(exc), 1)
    if as_json:
        echo_json({"name": entry.name, "version": entry.version, "added": status != "same"})
        return
    if status == "again":
        say(f"{entry.name} version {entry.version} plays again")
    elif status == "added":
        say(f"added {entry.name} version {entry.version}")
    else:
        say(f"{entry.name} version {entry.version} already has this content: nothing added")


@league_group.command("retire")
@click.argument("folder")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Say what was done as one JSON object.")
def retire_command(folder: str, name: str, as_json: bool) -> None:
    """Withdraw the entrant NAME: it plays no new games; its games stay in the standings."""
    _retirement(folder, name, as_json, retiring=True)


@league_group.command("reinstate")
@click.argument("folder")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Say what was done as one JSON object.")
def reinstate_command(folder: str, name: str, as_json: bool) -> None:
    """Bring the retired entrant NAME back: the next run plays the games it missed."""
    _retirement(folder, name, as_json, retiring=False)


def _retirement(folder: str, name: str, as_json: bool, *, retiring: bool) -> None:
    from arena.cli.retirement_text import retirement_line
    from arena.leagues import LeagueError

    league = _open(folder)
    try:
        done = league.retire(name) if retiring else league.reinstate(name)
    except LeagueError as exc:
        fail(str(exc), 1)
    if as_json:
        echo_json(
            {
                "name": done.name,
                "version": done.version,
                "retired": done.retired,
                "since": done.since,
                "changed": done.changed,
                "games": done.games,
            }
        )
        return
    say(retirement_line(done))


@league_group.command("run")
@click.argument("folder")
@click.option(
    "--workers", type=click.IntRange(1), default=1, show_default=True, help="Processes that play games."
)
@click.option("--trusted", is_flag=True, help="Play entries in arena's processes, not isolated.")
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where games are played: here, or on a Dask cluster.",
)
@click.option("--json", "as_json", is_flag=True, help="Say what was done as one JSON object.")
@click.option("--scheduler", default=None, help="The Dask scheduler's address (with --backend dask).")
@click.option(
    "--move-timeout",
    type=float,
    default=None,
    help="Change the league's move timeout (seconds) for this run and later ones, with a warning "
    "(default: the league's, set at init).",
)
@click.option(
    "--game-time",
    type=float,
    default=None,
    help="Change the league's game clock (seconds per entry and game; 0: none) for this run and "
    "later ones, with a warning (default: the league's, set at init).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="A progress bar on stderr: games played, games left, time to go. [default: on a terminal]",
)
@click.option(
    "--skip",
    "skip",
    multiple=True,
    metavar="NAME",
    help="Leave the active entrant NAME's games for a later run (repeat for more): the run "
    "plays the others and exits 0 though those wait.",
)
@click.option(
    "--schedule",
    type=click.Choice(["round-robin", "ladder"]),
    default=None,
    help="Change the league's schedule for this run and later ones (default: the league's).",
)
@click.option(
    "--interval-width",
    type=float,
    default=None,
    help="Change a ladder's stopping width in Elo for this run and later ones (default: the league's).",
)
def run_command(
    folder: str,
    workers: int,
    trusted: bool,
    backend: str,
    scheduler: str | None,
    as_json: bool,
    move_timeout: float | None,
    game_time: float | None,
    progress: bool | None,
    skip: tuple[str, ...],
    schedule: str | None,
    interval_width: float | None,
) -> None:
    """Play what is missing: every pair of active entries (round robin), or until every entry's
    interval is narrow enough (ladder).

    An entry that can't play now (it doesn't load, or its program changed since it was added)
    holds up its own games only: each such entry is named with why and how many of its games
    wait, and the run exits 3 (EXIT_GAMES_WAIT), unless --skip named it."""
    from pathlib import Path

    from arena.leagues import LeagueError
    from arena.leagues.seeds import legacy_warning

    if scheduler is not None and backend != "dask":
        fail("--scheduler goes with --backend dask")
    if backend == "dask" and importlib.util.find_spec("distributed") is None:
        fail(INSTALL_HINT)
    # Ctrl-C or SIGTERM, from the games to the last line, stops with the line that names the
    # command that continues, 130 or 143: every batch is stored whole or not at all (one
    # transaction each).  After the games it was "Aborted!", 1, or a silent kill.
    stop = StopState()
    report = None
    try:
        with stop_signals() as stop:
            league = _open(folder)
            legacy = legacy_warning(Path(folder), league.settings)
            if legacy is not None:
                say(f"arena: warning: {legacy}", err=True)
            try:
                for line in league.change_clock(move_timeout, game_time):
                    say(f"arena: warning: {line}", err=True)
                league.change_schedule(schedule, interval_width)
                report = league.run(
                    workers=workers,
                    trusted=trusted,
                    backend=backend,
                    scheduler=scheduler,
                    progress=progress,
                    skip=skip,
                )
            except LeagueError as exc:
                fail(str(exc), 1)
            _say_report(report, as_json)
    except KeyboardInterrupt:  # in the block or as it ends: noted in `stop`
        stop.signum = stop.signum or signal.SIGINT
    if stop.stopped or (report is not None and report.interrupted):
        terminated = stop.terminated or (report is not None and report.terminated)
        again = f"arena league run {shlex.quote(folder)}"
        say(
            f"{'terminated' if terminated else 'interrupted'}: every game written so far is kept; "
            f"continue with `{again}`",
            err=True,
        )
        sys.exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)
    if report is not None and report.must_wait:
        sys.exit(EXIT_GAMES_WAIT)


def _say_report(report: RunReport, as_json: bool) -> None:
    """What ``league run`` did: the plans it left for later, and the games it played."""
    for line in report.skipped:
        say(f"arena: warning: {line}", err=True)
    if as_json:
        echo_json(
            {
                "played": report.played,
                "faults": report.faults,
                "interrupted": report.interrupted,
                "skipped": list(report.skipped),
                "games_waiting": report.games_waiting,
            }
        )
    else:
        waits = f"; {report.games_waiting:,} games wait" if report.games_waiting else ""
        say(f"played {report.played:,} games ({report.faults:,} faults){waits}")


def _cell(value: float, fmt: str) -> str:
    """``value`` in ``fmt``, or a dash as wide (right-aligned) where it is missing."""
    if isinstance(value, float) and math.isnan(value):
        width = "".join(c for c in fmt.split(".")[0] if c.isdigit())
        return "-".rjust(int(width or 1))
    return format(value, fmt)


@league_group.command("table")
@click.argument("folder")
@click.option("--json", "as_json", is_flag=True, help="The standings as one JSON object.")
def table_command(folder: str, as_json: bool) -> None:
    """The standings over every game between active entries, with a crosstable."""
    league = _open(folder, read_only=True)
    if as_json:
        echo_json(league.table_json())
        return
    from arena.tournaments.duel_report import duration_text

    table, cross, games = league.standings()
    retired = bool(table["retired"].any())
    say(f"{games:,} games between active " + ("and retired entries" if retired else "entries"))
    marked = zip(table["name"], table["retired"], strict=True)
    shown = [name + (" (retired)" if gone else "") for name, gone in marked]
    width = max([4, *(len(n) for n in shown)])
    say(
        f"{'#':>2}  {'name':<{width}}  {'v':>2}  {'rating':>7}  {'95% interval':>15}  "
        f"{'games':>6}  {'score':>6}  {'faults':>6}  {'time/decision':>13}"
    )
    for k, r in enumerate(table.itertuples(), 1):
        interval = (
            "-" if math.isnan(r.rating_low) else f"{r.rating_low:+.0f} to {r.rating_high:+.0f}"
        )
        per = "-" if math.isnan(r.seconds_per_decision) else duration_text(r.seconds_per_decision)
        say(
            f"{k:>2}  {shown[k - 1]:<{width}}  {r.version:>2}  {_cell(r.rating, '+7.0f')}  {interval:>15}  "
            f"{r.games:>6}  {_cell(r.score, '6.3f')}  {r.faults:>6}  {per:>13}"
        )
    if len(cross):
        say("")
        say("score of the row against the column")
        say(" " * (width + 2) + "  ".join(f"{k:>5}" for k in range(1, len(cross) + 1)))
        for k, (name, row) in enumerate(cross.iterrows(), 1):
            say(f"{k:>2} {name:<{width}}" + "  ".join(f"{_cell(v, '5.2f'):>5}" for v in row))


@league_group.command("games")
@click.argument("folder")
@click.option("--json", "as_json", is_flag=True, help="The rows as a JSON list of objects.")
def games_command(folder: str, as_json: bool) -> None:
    """Every stored game of active entries, in games.csv's format (with --json, typed values)."""
    from arena.leagues.game_objects import game_objects

    league = _open(folder, read_only=True)
    if as_json:
        echo_json(game_objects(league.games_csv()))
        return
    click.echo(league.games_csv(), nl=False)


@league_group.command("export")
@click.argument("folder")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="The files written, as one JSON object.")
def export_command(folder: str, out: str, as_json: bool) -> None:
    """Write the leaderboard's pages to OUT as a static site (OUT/index.html)."""
    from pathlib import Path

    from arena.leagues.web import export_site
    from arena.storage.league_db import LeagueDatabaseError

    _remember(folder)
    try:
        written = export_site(Path(folder), Path(out))
    except LeagueDatabaseError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        fail(f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc), 1)
    if as_json:
        echo_json({"files": [str(p) for p in written]})
    else:
        say(f"wrote {len(written)} pages to {out}; open {Path(out) / 'index.html'}")


def _tokens_issued(folder: str) -> int:
    """How many students hold a submission token in the league in ``folder``."""
    from pathlib import Path

    from arena.leagues.tokens import tokens_issued
    from arena.storage.league_db import open_league

    connection = open_league(Path(folder), read_only=True)
    try:
        return tokens_issued(connection)
    finally:
        connection.close()


@league_group.command("serve")
@click.argument("folder")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="The port.")
@click.option(
    "--submit",
    is_flag=True,
    help="Also take students' bots: an upload form at /submit, for the tokens of `league tokens`.",
)
@click.option("--json", "as_json", is_flag=True, help="Say the address as one JSON object.")
def serve_command(folder: str, host: str, port: int, submit: bool, as_json: bool) -> None:
    """Serve a read-only web leaderboard, live while `league run` plays."""
    from pathlib import Path

    from arena.leagues.web import make_server
    from arena.storage.league_db import LeagueDatabaseError

    _remember(folder)
    try:
        server = make_server(Path(folder), host, port, submit=submit)
    except LeagueDatabaseError as exc:
        fail(str(exc), 1)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            fail(f"port {port} on {host} is in use: choose another with --port (0 picks a free one)", 1)
        fail(f"cannot listen on {host} port {port}: {exc.strerror or exc}", 1)
    bound_host, bound_port = server.server_address[:2]
    assert isinstance(bound_host, str)  # an AF_INET server's: typeshed allows bytes, for other families
    address = f"http://{bound_host}:{bound_port}/"
    if submit and not _tokens_issued(folder):
        say(
            "arena: warning: no token is issued yet, so no student can submit: issue them with "
            f"arena league tokens {shlex.quote(folder)} NAME...",
            err=True,
        )
    if as_json:
        echo_json({"url": address})
    else:
        say(f"serving {folder} at {address} (Ctrl-C stops)")
        if submit:
            say(f"students submit at {address}submit")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


from arena.cli.league_tokens_command import tokens_command  # noqa: E402

league_group.add_command(tokens_command)
