"""``random``: the baseline every strategy should beat."""

from __future__ import annotations

from arena.engine import Action, TurnView
from arena.players.policy import Policy, RandomStream
from arena.players.protocol import GameInfo


class RandomPlayer:
    """Keeps a uniformly random legal selection; banks with probability 1/2 when allowed.

    The control strategy of every tournament (as in Axelrod's ``Random``): a strategy that does
    not beat it clearly has a bug.  Its choices come from a counter-based stream keyed on
    ``GameInfo.strategy_seed`` (:class:`~arena.players.policy.RandomStream`: draw i is
    splitmix64 of ``seed + (i + 1) * 0x9E3779B97F4A7C15``), so it is reproducible and the compiled
    kernel draws the same numbers.  Each decision draws once for the keep (the draw modulo the
    number of legal keeps) and, only when banking is allowed, once for the coin (bank when the
    draw is below 2**63).
    """

    name = "random"
    #: This strategy as a declarative policy (what the compiled kernel plays).
    policy = Policy(keep="random", bank="random")

    def __init__(self) -> None:
        self._stream = RandomStream(0)

    def start_game(self, info: GameInfo) -> None:
        self._stream = RandomStream(info.strategy_seed)

    def decide(self, view: TurnView) -> Action:
        keeps = view.legal_keeps
        keep = keeps[self._stream.below(len(keeps))]
        bank = view.bank_allowed(keep) and self._stream.coin()
        return Action(keep.dice, bank)
