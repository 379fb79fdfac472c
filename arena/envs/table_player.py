"""``arena.envs.table_player:QTablePlayer:table=PATH.npz``: a trained Q-table as an entry.

A small player (NumPy only, no Gymnasium) that plays the table :mod:`arena.envs.train_q`
saved, so a learned policy enters ``arena play``, ``tournament``, ``duel`` and ``league add``
like any strategy.  With ``--isolate`` its seat sees the table file, as it sees the files a
``cmd:`` program's arguments name (:func:`arena.sandbox.exposure.parameter_paths`).
"""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.envs.q_table import QTable
from arena.players.protocol import GameInfo


class QTablePlayer:
    """Plays a Q-table trained by ``python -m arena.envs.train_q`` (the decision of highest value).

    ``table``: the ``.npz`` file the trainer wrote.  It plays the rules it is seated under; a
    table for another number of dice is refused when the game starts.
    """

    name = "q-table"

    def __init__(self, table: str = "") -> None:
        if not table:
            raise ValueError("name the table: arena.envs.table_player:QTablePlayer:table=PATH.npz")
        self.table = QTable.load(table)

    def start_game(self, info: GameInfo) -> None:
        dice = self.table.q.shape[1] - 1
        if dice != info.rules.dice:
            raise ValueError(
                f"this table was trained for {dice} dice ({self.table.rules}); "
                f"{info.rules.name} plays {info.rules.dice}"
            )

    def decide(self, view: TurnView) -> Action:
        return self.table.action(view)
