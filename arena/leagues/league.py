"""A league from Python: ``arena.league(FOLDER)`` and the operations of ``arena league``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from arena.engine import load_ruleset
from arena.leagues.entries import Entry, EntryRefused, active_entries, add_entry
from arena.leagues.play import LeagueBusy, LeagueFolderRefused, RunReport, play_league
from arena.leagues.standings import games_csv, standings, standings_object
from arena.storage import league_db
from arena.tournaments.spec import DEFAULT_GAMES


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

    @classmethod
    def create(
        cls,
        folder: str | Path,
        rules: list[str] | tuple[str, ...] = ("standard",),
        games: int = DEFAULT_GAMES,
        seed: int = 0,
    ) -> League:
        """A new league: ``games`` per pair of active entries and ruleset, in whole deals."""
        if games < 1:
            raise LeagueError(f"--games must be at least 1, got {games}")
        if seed < 0:
            raise LeagueError(f"--seed must be zero or more, got {seed}")
        try:
            rulesets = [load_ruleset(r) for r in rules]
        except (ValueError, OSError) as exc:
            raise LeagueError(" ".join(str(exc).split())) from None
        names = [r.name for r in rulesets]
        if len(set(names)) < len(names):
            raise LeagueError("the same ruleset is named twice")
        settings = {"rulesets": [r.as_dict() for r in rulesets], "games": -(-games // 2) * 2, "seed": seed}
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
        return active_entries(self.connection)

    def run(
        self,
        *,
        workers: int = 1,
        trusted: bool = False,
        backend: str = "local",
        scheduler: str | None = None,
        progress: bool | None = None,
    ) -> RunReport:
        """Play what is missing until every pair of active entries has its games."""
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
            )
        except (LeagueBusy, LeagueFolderRefused, StrategyError, DaskBackendError, BatchFailed) as exc:
            raise LeagueError(' '.join(str(exc).split())) from None

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


def league(folder: str | Path) -> League:
    """The league in ``folder`` (made by ``arena league init``)."""
    return League(folder)


__all__ = ["League", "LeagueError", "league"]
