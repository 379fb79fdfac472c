"""``arena.tournament(...)`` and ``arena.load_run(folder)``: the run folder as a Python object.

:func:`tournament` runs what ``arena tournament`` runs, through the same machinery, and leaves
the same run folder: games.csv, summary.csv, pairwise.csv (gauntlet.csv), errors.csv,
errors.log, run.json, spec.json and games.idx.  :func:`load_run` reads any tournament or duel
folder, finished or stopped part-way, with the statistics ``arena report`` prints.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.api.errors import ArenaError
from arena.api.players import PlayerLike, resolve_player
from arena.engine import DEFAULT_MAX_ROUNDS, PRESETS, Ruleset, load_ruleset
from arena.engine.rules import RulesetError
from arena.players import BUILTINS, StrategyError
from arena.safe_files import DamagedFile, open_read, read_json_object
from arena.tournaments import TournamentSpec, run_tournament
from arena.tournaments.fault_log import fault_groups, game_describer, write_errors_log
from arena.tournaments.games_check import read_journal
from arena.tournaments.run_folder import RunFolder, RunFolderError, load_saved_run, load_saved_spec
from arena.tournaments.run_info import now_text, run_info
from arena.tournaments.runner import RunOutcome
from arena.tournaments.schedule import Schedule, ScheduleShape
from arena.tournaments.spec import DEFAULT_CHUNK_GAMES, DEFAULT_GAMES, DEFAULT_MOVE_TIMEOUT, check_identity

if TYPE_CHECKING:
    import pandas as pd

    from arena.analysis.reports import RunStats

#: As on the command line: every built-in but ``perfect`` (two seats, no rising bar), every preset.
DEFAULT_PLAYERS = tuple(name for name in BUILTINS if name != "perfect")
DEFAULT_RULES = tuple(PRESETS)
COMPILED_MODES = ("auto", "on", "off")


def default_folder(suffix: str = "") -> Path:
    """results/<timestamp><suffix>, numbered if it exists (the command line's default)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S") + suffix
    path = Path("results") / stamp
    n = 2
    while path.exists():
        path = Path("results") / f"{stamp}-{n}"
        n += 1
    return path


def load_rulesets(rules: str | Path | Ruleset | Iterable[str | Path | Ruleset] | None) -> tuple[Ruleset, ...]:
    """Presets by name, TOML files or Ruleset objects; one name alone is one ruleset."""
    if rules is None:
        rules = DEFAULT_RULES
    if isinstance(rules, str | Path | Ruleset):
        rules = (rules,)
    try:
        return tuple(load_ruleset(r) for r in rules)
    except RulesetError as exc:
        raise ArenaError(" ".join(str(exc).split())) from None


def players_of(players: PlayerLike | Iterable[PlayerLike] | None, move_timeout: float | None) -> tuple:
    """Every player argument resolved (see :func:`arena.api.players.resolve_player`)."""
    if players is None:
        players = DEFAULT_PLAYERS
    if isinstance(players, str | tuple) or not isinstance(players, Iterable):
        raise ArenaError(f"players is a list of players, got {players!r}")
    return tuple(resolve_player(p, move_timeout=move_timeout) for p in players)


def compiled_flag(mode: str, spec: TournamentSpec) -> bool:
    """Whether to play the games of declarative strategies in the compiled kernel, as
    ``--compiled auto|on|off`` decides; ``on`` where some game can't be compiled is an error."""
    if mode not in COMPILED_MODES:
        raise ArenaError(f"compiled must be one of {', '.join(COMPILED_MODES)}, got {mode!r}")
    if mode == "off":
        return False
    from arena.compiled import numba_available, why_not_compiled

    if mode == "on":
        reason = why_not_compiled(spec)
        if reason is not None:
            raise ArenaError(f"compiled='on': {reason}")
        return True
    return numba_available()


def tournament(
    rules: str | Path | Ruleset | Iterable[str | Path | Ruleset] | None = None,
    players: Iterable[PlayerLike] | None = None,
    *,
    format: str = "round-robin",
    seats: int | None = None,
    games: int = DEFAULT_GAMES,
    seed: int | None = None,
    workers: int | None = None,
    out: str | Path | None = None,
    move_timeout: float = DEFAULT_MOVE_TIMEOUT,
    compiled: str = "auto",
    progress: bool | None = False,
    resume: str | Path | None = None,
    batch_size: int | None = None,
) -> Run:
    """Play a tournament as ``arena tournament`` does and return its :class:`Run`.

    ``rules``: presets, TOML files or Ruleset objects (default: all three presets).
    ``players``: spec strings, Player classes (a class in your own script or notebook too),
    ``(class, {params})`` or ``(spec, {params})`` pairs, or decide functions (default: every
    built-in but ``perfect``).  The other arguments are the command's options: ``format``
    (round-robin, free-for-all, gauntlet), ``seats`` (free-for-all), ``games`` (per pairing;
    per ruleset in a free-for-all), ``seed`` (default 0, or a secret one with ``cmd:`` players),
    ``workers`` (default: all cores), ``out`` (a folder that must not exist; by default a
    temporary folder, removed once the run is over, so the results live only in the returned
    :class:`Run`, whose ``folder`` is then None; a run stopped part-way keeps it, to resume),
    ``move_timeout``, ``compiled`` (auto, on, off), ``progress`` (a bar on
    stderr).  ``resume``: continue the run in that folder with its saved settings (the other
    game settings given here are not used); give ``players`` too for a run of classes, the same
    ones it was started with.  Bad input raises :class:`ArenaError`.

    Ctrl-C stops the run as on the command line: the games written so far are kept, the reports
    cover them and the returned run says ``complete`` is False; ``resume=`` continues it.
    """
    if workers is not None and workers < 1:
        raise ArenaError(f"workers must be at least 1, got {workers}")
    if batch_size is not None and batch_size < 1:
        raise ArenaError(f"batch_size must be at least 1, got {batch_size}")
    command = "arena.tournament(...)"
    temporary = None
    if out is None and resume is None:
        temporary = Path(tempfile.mkdtemp(prefix="arena-run-"))
        out = temporary / "run"
    try:
        if resume is not None:
            if out is not None:
                raise ArenaError("resume continues a run in its own folder; leave out out=")
            spec = load_saved_run(Path(resume), command) if players is None else resumed_spec(resume, players)
        else:
            loaded = players_of(players, move_timeout)
            if seed is None:  # an isolated bot must not be able to guess the seed (see Seating.seed_for)
                seed = secrets.randbits(64) if any(p.isolated for p in loaded) else 0
            spec = TournamentSpec(
                rulesets=load_rulesets(rules),
                players=loaded,
                format=format,
                games=games,
                seed=seed,
                seats=seats,
                move_timeout=move_timeout,
                max_rounds=DEFAULT_MAX_ROUNDS,
                command=command,
            )
        spec = dataclasses.replace(spec, compiled=compiled_flag(compiled, spec))
        schedule = Schedule(spec)
        if resume is not None:
            folder = RunFolder.resume(Path(resume), spec, schedule.table_size)
        else:
            folder = RunFolder.create(Path(out) if out is not None else default_folder(), spec)
    except (StrategyError, RunFolderError, ValueError) as exc:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        if isinstance(exc, ArenaError):
            raise
        raise ArenaError(" ".join(str(exc).split())) from None
    workers = workers or os.cpu_count() or 1
    started, resumed_from = now_text(), folder.completed_games
    try:
        outcome = run_tournament(spec, folder, workers=workers, batch_size=batch_size, progress=progress)
        stats = write_run_files(
            spec, schedule, folder, outcome, workers=workers, started=started, resumed_from=resumed_from
        )
    finally:
        folder.release()  # this process may go on (a notebook): let others at the folder
    if outcome.error is not None:
        raise ArenaError(f"{outcome.error}; continue with arena.tournament(resume={str(folder.path)!r})")
    run = Run(folder.path, stats)
    if temporary is not None and run.complete:
        run.detach()
        shutil.rmtree(temporary, ignore_errors=True)
    return run


def resumed_spec(folder: str | Path, players: Iterable[PlayerLike]) -> TournamentSpec:
    """The saved settings of the run in ``folder`` with ``players`` given anew: how a run of
    classes (which spec.json can name but not load) is resumed.  The players must be the saved
    ones (same classes, parameters and names), which RunFolder.resume checks."""
    saved = load_saved_spec(Path(folder))
    check_identity(saved)
    return TournamentSpec(
        rulesets=tuple(Ruleset(**r) for r in saved["rulesets"]),
        players=players_of(players, saved["move_timeout"]),
        format=saved["format"],
        games=saved["games"],
        seed=saved["seed"],
        seats=saved["seats"],
        move_timeout=saved["move_timeout"],
        max_rounds=saved["max_rounds"],
        chunk_games=saved.get("chunk_games", DEFAULT_CHUNK_GAMES),
        command="arena.tournament(...)",
    )


def write_run_files(
    spec: TournamentSpec,
    schedule: Schedule,
    folder: RunFolder,
    outcome: RunOutcome,
    *,
    workers: int | None,
    started: str,
    resumed_from: int,
    backend: str = "local",
    scheduler: str | None = None,
    reports: Callable[..., RunStats] | None = None,
) -> RunStats:
    """The files a run writes once its games are played: summary.csv, pairwise.csv, errors.csv
    (gauntlet.csv), errors.log and run.json; returns the statistics.  ``reports``: what writes
    the first four (default :func:`arena.analysis.reports.write_reports`; the command line
    passes its own hook)."""
    if reports is None:
        from arena.analysis.reports import write_reports

        reports = write_reports

    path = folder.path
    stats = reports(
        path,
        [r.name for r in spec.rulesets],
        tested=spec.labels[0] if spec.format == "gauntlet" else None,
    )
    write_errors_log(path / "errors.log", fault_groups(read_journal(path)), game_describer(spec, schedule))
    info = run_info(
        spec,
        outcome,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        started=started,
        resumed_from=resumed_from,
    )
    folder.write_json("run.json", info)
    return stats


def _read_object(path: Path) -> dict[str, Any]:
    """A JSON object of the run folder; {} if the file is missing (a run that never finished)."""
    try:
        return read_json_object(path)
    except DamagedFile as exc:
        raise ArenaError(str(exc)) from None


def load_run(folder: str | Path) -> Run:
    """Read a tournament or duel folder, finished or stopped part-way (Ctrl-C, a kill, a power
    cut): its statistics are computed from games.csv as ``arena report`` computes them, so a
    partial run gives the ranking of the games it holds.  Raises :class:`ArenaError`."""
    from arena.analysis.reports import ReportError, build_reports

    path = Path(folder)
    if not path.is_dir():
        raise ArenaError(f"{path}: no such run folder")
    if not (path / "games.csv").exists():
        raise ArenaError(f"{path} is not a run folder (no games.csv)")
    try:
        games = open_read(path / "games.csv")
    except OSError as exc:
        raise ArenaError(f"{path / 'games.csv'} can't be read: {exc.strerror or exc}") from None
    with games:
        if games.readline(64).startswith(b"round,candidate,"):
            raise ArenaError(f"{path} is a tuning run (arena tune): read its candidates.csv and tune.json")
    spec = _read_object(path / "spec.json")
    rulesets = spec.get("rulesets", [])
    if not isinstance(rulesets, list) or not all(
        isinstance(r, dict) and isinstance(r.get("name"), str) for r in rulesets
    ):
        raise ArenaError(f"{path / 'spec.json'} is damaged (its rulesets are not the ones arena saved)")
    tested = None
    players = spec.get("players")
    if spec.get("format") == "gauntlet" and isinstance(players, list) and players:
        tested = players[0].get("label") if isinstance(players[0], dict) else None
        if not isinstance(tested, str):
            raise ArenaError(f"{path / 'spec.json'} is damaged (its players are not the ones arena saved)")
    try:
        stats = build_reports(path / "games.csv", [r["name"] for r in rulesets] or None, tested=tested)
    except ReportError as exc:
        raise ArenaError(str(exc)) from None
    return Run(path, stats)


class Run:
    """A run folder and its statistics (what ``arena report`` prints).

    ``summary``, ``pairwise``, ``gauntlet`` (gauntlet runs; else empty) and ``games`` are pandas
    DataFrames with the columns of summary.csv, pairwise.csv, gauntlet.csv and games.csv;
    ``errors`` holds the fault rows (errors.csv's columns).  ``str(run)`` is the ranking as the
    command line prints it."""

    def __init__(self, folder: Path | None, stats: RunStats) -> None:
        self.folder = folder  # None once detached: the run's folder was temporary
        self._stats = stats
        self._samples: dict[str, Any] | None = None

    def detach(self) -> None:
        """Read everything the object shows from the folder now (games, spec, run.json, the
        sample games the plots replay) and forget the folder, which may then be removed."""
        from arena.analysis.sample_games import sample_games

        assert self.folder is not None
        _ = self.games, self.spec, self.info
        self._samples = sample_games(self.folder)
        self.folder = None

    def plot(self) -> list[Any]:
        """The plots ``arena tournament --plot`` writes, as matplotlib figures: per ruleset the
        win rates, the pairwise matrix, the game lengths and the sample games.  In Jupyter (or
        IPython) they are shown inline.  Needs matplotlib (the ``plot`` extra)."""
        from arena.analysis.plots import PlotError, run_figures
        from arena.analysis.sample_games import sample_games
        from arena.distribution import install_hint

        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ArenaError(f"plot needs matplotlib: {install_hint('plot')}") from None
        samples = self._samples if self.folder is None else sample_games(self.folder)
        try:
            figures = [figure for _, figure in run_figures(plt, self._stats, samples or {})]
        except PlotError as exc:
            raise ArenaError(str(exc)) from None
        shell = None
        try:
            from IPython import get_ipython

            shell = get_ipython()
        except ImportError:
            pass
        if shell is not None:
            from IPython.display import display

            for figure in figures:
                display(figure)
                plt.close(figure)  # shown once, not again at the end of the cell
        return figures

    @property
    def summary(self) -> pd.DataFrame:
        """Per ruleset and player, best Elo first (summary.csv)."""
        return self._stats.summary

    @property
    def pairwise(self) -> pd.DataFrame:
        """Each player's win rate against each other, with its interval (pairwise.csv)."""
        return self._stats.pairwise

    @property
    def gauntlet(self) -> pd.DataFrame:
        """A gauntlet's tested player against each opponent (gauntlet.csv); empty otherwise."""
        return self._stats.gauntlet

    @property
    def seats(self) -> pd.DataFrame:
        """Win rate by seat position, per ruleset: the first-seat advantage."""
        return self._stats.seats

    @cached_property
    def games(self) -> pd.DataFrame:
        """games.csv: one row per player per game (read on first use; it can be large)."""
        import pandas as pd

        from arena.analysis.games_csv import GAME_COLUMNS, game_chunks

        chunks = list(game_chunks(self._path / "games.csv"))
        if not chunks:
            return pd.DataFrame({name: pd.Series(dtype=kind) for name, kind in GAME_COLUMNS.items()})
        return pd.concat(chunks, ignore_index=True)

    @property
    def errors(self) -> pd.DataFrame:
        """The rows of games a strategy lost by a fault: ruleset, game, player, status, reason."""
        from arena.analysis.games_csv import ERROR_COLUMNS

        games = self.games
        return games.loc[games["status"] != "ok", ERROR_COLUMNS].reset_index(drop=True)

    @cached_property
    def spec(self) -> dict[str, Any]:
        """The run's settings (spec.json)."""
        return _read_object(self._path / "spec.json")

    @cached_property
    def info(self) -> dict[str, Any]:
        """run.json: command, seed, versions, timing; {} for a run that was killed before it."""
        return _read_object(self._path / "run.json")

    @property
    def _path(self) -> Path:
        if self.folder is None:
            raise ArenaError("this run kept no folder (out=None) and has nothing more to read")
        return self.folder

    @property
    def games_played(self) -> int:
        """Games in games.csv."""
        summary = self._stats.summary
        seats = self._stats.seats
        per_game = int(seats["seats"].iloc[0]) if len(seats) else 1
        return int(summary["games"].sum() // max(1, per_game)) if len(summary) else 0

    @property
    def games_total(self) -> int | None:
        """The games the run was to play (from run.json, or sized from spec.json)."""
        total = self.info.get("games_total")
        if isinstance(total, int) and total > 0:
            return total
        spec = self.spec
        try:
            shape = ScheduleShape.of(
                spec["format"], len(spec["players"]), spec["seats"], spec["games"], len(spec["rulesets"])
            )
        except (KeyError, TypeError, ValueError):
            return None
        return shape.total if shape.total > 0 else None

    @property
    def complete(self) -> bool:
        """Every game of the run played (a duel: decided, or played to its limit)."""
        if self.spec.get("kind") == "duel":
            return bool(self.info.get("complete"))
        total = self.games_total
        return total is not None and self.games_played >= total

    def ranking(self) -> str:
        """The ranking (or the gauntlet's table) per ruleset, as the command line prints it."""
        from arena.analysis.ranking import results_text

        return results_text(self._stats)

    def __str__(self) -> str:
        return self.ranking()

    def __repr__(self) -> str:
        state = "complete" if self.complete else "partial"
        where = "no folder" if self.folder is None else repr(str(self.folder))
        return f"<arena run {where}: {self.games_played:,} games, {state}>"
