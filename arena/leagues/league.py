"""A league from Python: ``arena.league(FOLDER)`` and the operations of ``arena league``."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from arena.engine import load_ruleset
from arena.leagues.board import default_name, name_problem
from arena.leagues.entries import Entry, EntryRefused, active_entries, add_entry
from arena.leagues.ladder import (
    DEFAULT_INTERVAL_WIDTH,
    SCHEDULE_KEY,
    SCHEDULES,
    WIDTH_KEY,
    ScheduleSettingError,
    league_schedule,
    width_problem,
)
from arena.leagues.play import (
    ClockSettingError,
    LeagueBusy,
    LeagueFolderRefused,
    RunReport,
    league_clock,
    play_league,
)
from arena.leagues.retirement import Retirement, RetirementRefused, reinstate, retire
from arena.leagues.seeds import SCHEME_KEY, draw_secret, settings_problem
from arena.leagues.standings import games_csv, standings, standings_object
from arena.storage import league_db
from arena.tournaments.keyed_seeds import SCHEME
from arena.tournaments.spec import DEFAULT_GAMES, DEFAULT_MOVE_TIMEOUT


class LeagueError(Exception):
    """Bad input to a league; the message is one line."""


class League:
    """The league in ``folder``: its entries, its games and its standings."""

    def __init__(self, folder: str | Path, *, read_only: bool = False) -> None:
        """``read_only``: never write (the table and the games of a league on a read-only
        file, folder or mount); adding or running then fails with a one-line error."""
        self.folder = Path(folder)
        try:
            self.connection = league_db.open_league(self.folder, read_only=read_only)
            self.settings = league_db.settings(self.connection)
        except league_db.LeagueDatabaseError as exc:
            text = str(exc)
            raise LeagueError(text if str(self.folder) in text else f"{self.folder}: {text}") from None
        problem = settings_problem(self.settings)
        if problem is not None:
            self.connection.close()
            raise LeagueError(f"{self.folder}: the league's settings can't be played: {problem}")

    @classmethod
    def create(
        cls,
        folder: str | Path,
        rules: list[str] | tuple[str, ...] = ("standard",),
        games: int = DEFAULT_GAMES,
        seed: int | None = None,
        move_timeout: float = DEFAULT_MOVE_TIMEOUT,
        game_time: float | None = None,
        *,
        name: str | None = None,
        schedule: str = "round-robin",
        interval_width: float = DEFAULT_INTERVAL_WIDTH,
    ) -> League:
        """A new league: ``games`` per pair of active entries and ruleset, in whole deals.
        ``seed`` None (the default) draws a secret seed, kept in the league's database and on
        no page; a given seed makes a reproducible league, whose dice anyone who knows the
        seed can foresee (docs/league.md, "Seeds").  ``move_timeout`` (seconds a call may take)
        and ``game_time`` (a chess clock: seconds a seat may take in all its calls of one game;
        None: none) are stored, so that every game of the league is played under the same clock
        (docs/league.md).  ``name``: the league's name on its pages (default: the folder's).
        ``schedule`` is ``"round-robin"`` (every pair plays) or ``"ladder"`` (each entry plays
        opponents near its rating until its 95% interval is narrower than ``interval_width``
        Elo: :mod:`arena.leagues.ladder`)."""
        _check_schedule(schedule, interval_width)
        _check_seconds("--move-timeout", move_timeout)
        if game_time is not None:
            _check_seconds("--game-time", game_time)
        if games < 1:
            raise LeagueError(f"--games must be at least 1, got {games}")
        if name is not None and (problem := name_problem(name)) is not None:
            raise LeagueError(problem)
        if seed is None:
            seed = draw_secret()
        elif not isinstance(seed, int) or isinstance(seed, bool):
            raise LeagueError(f"--seed must be a whole number, got {seed!r}")
        elif seed < 0:
            raise LeagueError(f"--seed must be zero or more, got {seed}")
        try:
            rulesets = [load_ruleset(r) for r in rules]
        except (ValueError, OSError) as exc:
            raise LeagueError(' '.join(str(exc).split())) from None
        names = [r.name for r in rulesets]
        if len(set(names)) < len(names):
            raise LeagueError("the same ruleset is named twice")
        settings = {
            "rulesets": [r.as_dict() for r in rulesets],
            "games": -(-games // 2) * 2,
            "seed": seed,
            SCHEME_KEY: SCHEME,
            "move_timeout": float(move_timeout),
            "game_time": None if game_time is None else float(game_time),
            SCHEDULE_KEY: schedule,
            WIDTH_KEY: float(interval_width),
            "name": default_name(folder) if name is None else name,
        }
        try:
            league_db.create(Path(folder), settings).close()
        except league_db.LeagueDatabaseError as exc:
            raise LeagueError(str(exc)) from None
        return cls(folder)

    def add(self, spec: str, name: str | None = None) -> tuple[Entry, bool]:
        """Register an entry; (the entry, False if that name already plays this content).  An
        earlier version given again plays again.  An entry whose own name is another entrant's
        is refused unless ``name`` says it is that entrant's new version."""
        entry, status = self.add_entry(spec, name)
        return entry, status != "same"

    def add_entry(self, spec: str, name: str | None = None) -> tuple[Entry, str]:
        """:meth:`add`, saying what it did: ``"added"``, ``"again"`` or ``"same"``."""
        try:
            return add_entry(self.folder, self.connection, spec, name)
        except EntryRefused as exc:
            raise LeagueError(str(exc)) from None

    def entries(self) -> list[Entry]:
        """The entries that play: each entrant's current version, retired ones left out."""
        return active_entries(self.connection)

    def retire(self, name: str) -> Retirement:
        """Retire the entrant ``name``: it plays no new game, its games stay in the standings
        (marked retired) and its name stays reserved (docs/league.md, "Retired entrants")."""
        try:
            return retire(self.connection, name, str(self.folder))
        except RetirementRefused as exc:
            raise LeagueError(str(exc)) from None

    def reinstate(self, name: str) -> Retirement:
        """Bring the retired entrant ``name`` back: the next run plays the games it missed."""
        try:
            return reinstate(self.connection, name, str(self.folder))
        except RetirementRefused as exc:
            raise LeagueError(str(exc)) from None

    def clock(self) -> tuple[float, float | None]:
        """(move timeout, game time or None) in seconds: the clock the league's games are
        played under."""
        try:
            return league_clock(self.settings)
        except ClockSettingError as exc:
            raise LeagueError(f"{self.folder}: the league database is damaged: {exc}") from None

    def change_clock(self, move_timeout: float | None = None, game_time: float | None = None) -> list[str]:
        """Set the clock for this run and every later one (None: keep it; ``game_time`` 0: no
        game clock) and store it; one warning line per setting that changed, since the games
        already stored were played under the old one (docs/league.md)."""
        old_move, old_game = self.clock()
        if move_timeout is not None:
            _check_seconds("--move-timeout", move_timeout)
        if game_time is not None and game_time != 0:
            _check_seconds("--game-time", game_time)
        new_move = old_move if move_timeout is None else float(move_timeout)
        new_game = old_game if game_time is None else (float(game_time) or None)
        if (new_move, new_game) == (old_move, old_game):
            return []
        stored = self.connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        warnings = []
        for what, old, new in (("move timeout", old_move, new_move), ("game time", old_game, new_game)):
            if old != new:
                warnings.append(
                    f"the league's {what} changes from {_seconds_text(old)} to {_seconds_text(new)} for "
                    f"this run and later ones; the {stored:,} games stored so far keep their results, "
                    "played under the earlier clock"
                )
        self.settings = {**self.settings, "move_timeout": new_move, "game_time": new_game}
        league_db.store_settings(self.connection, self.settings)
        return warnings

    def schedule(self) -> tuple[str, float]:
        """(schedule, interval width in Elo): how the league plays what is missing."""
        try:
            return league_schedule(self.settings)
        except ScheduleSettingError as exc:
            raise LeagueError(f"{self.folder}: the league database is damaged: {exc}") from None

    def change_schedule(self, schedule: str | None = None, interval_width: float | None = None) -> None:
        """Set the schedule and the ladder's interval width for this run and every later one
        (None: keep it) and store them.  No stored game changes: a ladder after a round robin
        plays only what its rule asks for, and a round robin after a ladder fills in every
        pair the ladder left unplayed."""
        old_schedule, old_width = self.schedule()
        new_schedule = old_schedule if schedule is None else schedule
        new_width = old_width if interval_width is None else interval_width
        _check_schedule(new_schedule, new_width)
        if (new_schedule, float(new_width)) == (old_schedule, old_width):
            return
        self.settings = {**self.settings, SCHEDULE_KEY: new_schedule, WIDTH_KEY: float(new_width)}
        league_db.store_settings(self.connection, self.settings)

    def run(
        self,
        *,
        workers: int = 1,
        trusted: bool = False,
        backend: str = "local",
        scheduler: str | None = None,
        progress: bool | None = None,
        skip: tuple[str, ...] | list[str] = (),
    ) -> RunReport:
        """Play what is missing (every pair of active entries in a round robin; in a ladder,
        until every entry is placed or has met everyone), but the games of the entrants named
        in ``skip``: those wait, as do those of an entry that
        can't play now (the report names each, with how many of its games wait)."""
        from arena.players.loading import StrategyError
        from arena.tournaments.dask_backend import DaskBackendError
        from arena.tournaments.supervisor import BatchFailed

        try:
            return play_league(
                self.folder,
                self.connection,
                self.settings,
                workers=workers,
                trusted=trusted,
                backend=backend,
                scheduler=scheduler,
                progress=progress,
                skip=tuple(skip),
            )
        except (LeagueBusy, LeagueFolderRefused, StrategyError, DaskBackendError, BatchFailed) as exc:
            raise LeagueError(' '.join(str(exc).split())) from None
        except (ClockSettingError, ScheduleSettingError) as exc:
            raise LeagueError(f"{self.folder}: the league database is damaged: {exc}") from None

    def standings(self) -> tuple[pd.DataFrame, pd.DataFrame, int]:
        """(the table, best first; the crosstable; the games they count), from one fit."""
        return standings(self.connection)

    def table(self) -> pd.DataFrame:
        return self.standings()[0]

    def crosstable(self) -> pd.DataFrame:
        return self.standings()[1]

    def table_json(self) -> dict[str, Any]:
        table, _, games = self.standings()
        return standings_object(table, games)

    def games_csv(self) -> str:
        return games_csv(self.connection)

    def close(self) -> None:
        self.connection.close()


def _check_seconds(option: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise LeagueError(f"{option} must be a positive number of seconds, got {value}")


def _check_schedule(schedule: str, interval_width: float) -> None:
    if schedule not in SCHEDULES:
        raise LeagueError(f"--schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    problem = width_problem(interval_width)
    if problem is not None:
        raise LeagueError(f"--interval-width {problem}")


def _seconds_text(value: float | None) -> str:
    return "no game clock" if value is None else f"{value:g} s"


def league(folder: str | Path) -> League:
    """The league in ``folder`` (made by ``arena league init``)."""
    return League(folder)


__all__ = ["League", "LeagueError", "league"]
