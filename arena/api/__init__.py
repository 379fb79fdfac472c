"""The Python API: the command line's jobs as functions that return DataFrames and objects.

- :func:`tournament` runs what ``arena tournament`` runs and returns a :class:`Run`;
- :func:`duel` plays A against B as ``arena duel`` and returns a :class:`DuelResult`;
- :func:`play` plays one game and returns a :class:`GameRecord` with its events;
- :func:`load_run` reads any tournament or duel folder, finished or partial;
- :func:`compare` puts two runs side by side, B minus A, as ``arena compare``.

Players are spec strings, Player classes (defined anywhere, a notebook too), ``(class,
{params})`` pairs or decide functions (:mod:`arena.api.players`).  Bad input raises
:class:`ArenaError` with the one line the command line prints."""

from arena.api.compare import compare
from arena.api.duels import DuelResult, duel
from arena.api.errors import ArenaError
from arena.api.games import GameRecord, play
from arena.api.players import resolve_player
from arena.api.runs import Run, load_run, tournament

__all__ = [
    "ArenaError",
    "DuelResult",
    "GameRecord",
    "Run",
    "compare",
    "duel",
    "load_run",
    "play",
    "resolve_player",
    "tournament",
]
