"""Standing contests: entries stored by content, games played only where missing, standings
over every game between active entries (``arena league``, ``docs/league.md``).

``league(folder)`` opens a league from Python."""

from arena.leagues.league import League, LeagueError, league

__all__ = ["League", "LeagueError", "league"]
