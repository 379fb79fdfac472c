"""Perfect play: the chance of winning from every position of a two-player game, and play by it.

Layers, each importing only those above it: :mod:`~arena.perfect.turn` (one turn with win
chances at its ends; :mod:`~arena.perfect.kernel` is its numba form),
:mod:`~arena.perfect.positions` (the game's positions and what ends each turn),
:mod:`~arena.perfect.penalty` (positions and sweeps under a farkle penalty),
:mod:`~arena.perfect.solve` (value iteration), :mod:`~arena.perfect.table` and
:mod:`~arena.perfect.store` (the solved tables, shipped or cached), :mod:`~arena.perfect.play`
(the decisions of the ``perfect`` strategy).
"""

from arena.perfect.play import advice, choices, in_model, perfect_action, situation_values
from arena.perfect.positions import why_not_perfect
from arena.perfect.solve import NotSolvable, solve
from arena.perfect.store import cache_folder, stored_table, win_table
from arena.perfect.table import WinTable

__all__ = [
    "NotSolvable",
    "WinTable",
    "advice",
    "cache_folder",
    "choices",
    "in_model",
    "perfect_action",
    "situation_values",
    "solve",
    "stored_table",
    "why_not_perfect",
    "win_table",
]
