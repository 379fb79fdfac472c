"""arena: write bots for the dice game 10,000 and pit them against each other.

The Python API (:mod:`arena.api`, :mod:`arena.tuning`), the command line's jobs as functions:

- ``arena.tournament(rules=[...], players=[...], games=..., seed=..., workers=..., out=...)``
  runs what ``arena tournament`` runs and returns a :class:`~arena.api.Run` (``.summary``,
  ``.pairwise``, ``.games`` DataFrames and ``.folder``);
- ``arena.duel(a, b, ...)`` returns the verdict (:class:`~arena.api.DuelResult`);
- ``arena.play(players, ...)`` plays one game and returns its events
  (:class:`~arena.api.GameRecord`);
- ``arena.load_run(folder)`` reads any run folder, finished or partial;
- ``arena.compare(a, b)`` puts two runs side by side, B minus A, as a DataFrame;
- ``arena.tune(spec, params, ...)`` tunes a strategy's parameters.

And what a strategy needs: ``Action``, ``TurnView``, ``GameInfo``, ``Player``, ``Policy``,
``PolicyPlayer``, ``Ruleset`` and ``load_ruleset``.  Each name is imported on first use, so
``import arena`` stays light (no pandas, numpy or numba)."""

import importlib
from typing import Any as _Any

#: Every public name and the module it lives in.
_EXPORTS = {
    "tournament": "arena.api",
    "duel": "arena.api",
    "compare": "arena.api",
    "play": "arena.api",
    "load_run": "arena.api",
    "Run": "arena.api",
    "DuelResult": "arena.api",
    "GameRecord": "arena.api",
    "ArenaError": "arena.api",
    "tune": "arena.tuning",
    "league": "arena.leagues",
    "Action": "arena.engine",
    "TurnView": "arena.engine",
    "Ruleset": "arena.engine",
    "load_ruleset": "arena.engine",
    "GameInfo": "arena.players",
    "Player": "arena.players",
    "PlayerFault": "arena.players",
    "Policy": "arena.players",
    "PolicyPlayer": "arena.players",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> _Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    """The public names only (what ``from arena import *`` gives)."""
    return list(__all__)
