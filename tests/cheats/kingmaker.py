"""Cheat: kingmaking by faulting.  A partner of ``greedy`` in a free-for-all: it plays like
``greedy`` until late in the game, and when its ally trails the leader there, it raises on
purpose.  Under the old rule a fault ended the game and split the win among all other seats,
which handed its trailing ally half a win; now the faulted seat is simply out and the others
play on (docs/faults.md), so the fault can't lift the ally.

``Resigns`` is the same partner resigning legally at that moment instead: the honest baseline
the cheat is measured against, on the same dice."""

from arena.engine import Action
from arena.players.builtin.greedy import GreedyPlayer

#: The ally this partner helps, found by name among the seats.
ALLY = "greedy"
#: "Late": the leader has at least this many points.
LATE = 7000


class Kingmaker(GreedyPlayer):
    name = "kingmaker"
    faults = True  # False: play on like greedy

    def start_game(self, info):
        self.ally = next((s for s, name in enumerate(info.names) if name == ALLY and s != info.seat), None)

    def decide(self, view):
        if self.faults and self.ally is not None:
            leader = max(view.scores)
            if leader >= LATE and view.scores[self.ally] < leader:
                raise RuntimeError("kingmaking: my ally trails, so I leave the game")
        return super().decide(view)


class Resigns(Kingmaker):
    """The baseline: at the moment the cheat would fault, it resigns legally instead, for the
    rest of the game: it keeps one die and rolls on until it farkles, every turn."""

    name = "kingmaker"
    faults = False

    def start_game(self, info):
        super().start_game(info)
        self.resigned = False

    def decide(self, view):
        if self.ally is not None and not self.resigned:
            leader = max(view.scores)
            self.resigned = leader >= LATE and view.scores[self.ally] < leader
        if self.resigned:
            return Action(view.legal_keeps[0].dice, False)
        return super().decide(view)
