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
#: "Late": the leader has at least this share of the target (7000 of standard's 10,000).
LATE = 0.7


class Kingmaker(GreedyPlayer):
    name = "kingmaker"
    faults = True  # False: play on like greedy

    late = LATE

    def start_game(self, info):
        self.ally = next((s for s, name in enumerate(info.names) if name == ALLY and s != info.seat), None)
        if self.ally is not None and not self.placed(info.seat, info.n_players):
            self.ally = None  # it helps from no other seat: plays on like greedy
        self.late_points = self.late * info.rules.target

    def placed(self, seat, n_players):
        return True

    def leaves(self, view):
        leader = max(view.scores)
        return leader >= self.late_points and view.scores[self.ally] < leader

    def decide(self, view):
        if self.faults and self.ally is not None and self.leaves(view):
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
            self.resigned = self.leaves(view)
        if self.resigned:
            return Action(view.legal_keeps[0].dice, False)
        return super().decide(view)


class _AfterTheAlly:
    """Under the rising bar (000, ``short``) a seat's turn sets the next seat's bar.  Sat right
    after its ally, the cheat leaves early (its ally's bar then reaches the seat after it, while
    its own turn would have reset it); from any other seat it plays on.  Issue 38 measured such a
    fault lifting a team-mate from 30.3 % to 36.3 %."""

    late = 0.3

    def placed(self, seat, n_players):
        return (seat - 1) % n_players == self.ally


class BarKingmaker(_AfterTheAlly, Kingmaker):
    pass


class BarResigns(_AfterTheAlly, Resigns):
    pass
