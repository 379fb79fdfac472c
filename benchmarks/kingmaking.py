"""Kingmaking by faulting, measured on every ruleset: does a fault lift a team-mate?

    python benchmarks/kingmaking.py [--deals 200] [--rules short,standard] [--workers 2]

Three seats: the team-mate (``greedy``), its helper, and ``optimal``; every deal is played in
all six seat orders, on the same dice (duplicate deals), twice: once with the helper a
**kingmaker** (it plays like ``greedy`` until late in the game, and when its team-mate trails
the leader there it raises on purpose: a fault), once with its **honest twin** (at that same
moment it resigns legally: for the rest of the game it keeps one scoring die and rolls on,
never banking, so every turn ends in a farkle, or under an exact target possibly in a forfeit).
Both go through arena's own fault path (:func:`arena.players.play_match` with ``on_fault``).

docs/faults.md promises that a fault is worth exactly what resigning is: the team-mate's win
rate must be the same with the kingmaker as with the twin.  The script prints, per ruleset, the
games, how many the kingmaker faulted in, the team-mate's win rate with each, the difference
and its paired z, and how many games the other two seats (team-mate and ``optimal``) did not
end exactly alike in (scores, turns, farkles, win shares, their order, and the helper's score,
which their views show).  Under the rule that a
retired seat passes its turns (``Game.retire``), that last count is 0 by construction on every
ruleset.  Before it (60d1a33: a retired seat's turns simply did not happen, so under the rising
bar of 000 its turn never reset the bar), ``short`` showed a clear lift.

Measured (2-core Intel Xeon dev machine, loaded by other work; ``--deals 200``, 1,200 games a
ruleset, 112 s on one worker): after the change every ruleset shows diff +0.0 % and 0 games that
differ.  On 60d1a33, ``short``: kingmaker 32.5 %, twin 28.4 %, +4.1 points, z 6.6, 419 games
differ; ``house`` and ``three-farkles-to-zero`` 558 and 552 differ (the helper's score, which a
pass now lowers by the farkle penalty as the twin's farkles do), the same win rates.

"Late" is 30 % of the ruleset's target (the leader has at least that many points), and the
helper leaves only from the seat right after its team-mate's: under the rising bar that is where
leaving pays (the team-mate's bar then passes to the seat after the helper).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from arena.engine import Action, Ruleset, TurnView, derive_seed, load_ruleset
from arena.engine.loading import variant_names
from arena.players import GameInfo, PlayerFault, play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.optimal import OptimalPlayer

PRESETS = ("standard", "short", "classic")
ALLY = "greedy"
#: "Late": the leader has at least this share of the target.
LATE = 0.3


class Kingmaker(GreedyPlayer):
    """Plays like greedy until its ally trails the leader late in the game; then faults."""

    name = "kingmaker"
    faults = True

    def start_game(self, info: GameInfo) -> None:
        self.ally = next(s for s, name in enumerate(info.names) if name == ALLY and s != info.seat)
        self.late = LATE * info.rules.target
        # Where a seat's turn acts on the next seat's (the rising bar of 000), leaving pays only
        # for a seat right after its ally: its ally's bar then reaches the seat after it.
        self.placed = (info.seat - 1) % info.n_players == self.ally
        self.resigned = False

    def decide(self, view: TurnView) -> Action:
        if not self.resigned:
            leader = max(view.scores)
            self.resigned = self.placed and leader >= self.late and view.scores[self.ally] < leader
        if self.resigned:
            if self.faults:
                raise RuntimeError("kingmaking: my ally trails, so I leave the game")
            # Resigning legally: one scoring die kept, never a bank (so the turn ends in a farkle).
            return Action(view.legal_keeps[-1].dice, False)
        return super().decide(view)


class HonestTwin(Kingmaker):
    """The same helper, resigning legally at the moment the kingmaker would fault."""

    faults = False


@dataclass(frozen=True)
class Outcome:
    """One game, as the three seats ended it (seat order: the order the players sat in)."""

    ally_share: float
    faulted: bool
    #: The helper's score (shown in every view), the team-mate's and optimal's scores, turns,
    #: farkles and win shares, and their order.
    others: tuple


def play_deal(rules: Ruleset, deal_seed: int, helper_class: type[Kingmaker]) -> list[Outcome]:
    """One deal in all six seat orders."""
    outcomes = []
    for order, names in enumerate(itertools.permutations(("ally", "helper", "optimal"))):
        make = {"ally": GreedyPlayer, "helper": helper_class, "optimal": OptimalPlayer}
        players = [make[name]() for name in names]
        faults: list[PlayerFault] = []
        result = play_match(rules, players, derive_seed(deal_seed, order), on_fault=faults.append)
        ally, helper, opponent = (names.index(name) for name in ("ally", "helper", "optimal"))
        # What the others played on: the helper's score is in every view they get.
        mine = [
            (result.scores[s], result.turns[s], result.farkles[s], result.win_shares[s])
            for s in (ally, opponent)
        ]
        order_of = (result.ranks[ally] < result.ranks[opponent], result.ranks[ally] == result.ranks[opponent])
        others = (result.scores[helper], *mine, order_of)
        outcomes.append(Outcome(result.win_shares[ally], bool(faults), others))
    return outcomes


def _task(args: tuple[str, int, bool]) -> tuple[list[Outcome], list[Outcome]]:
    name, deal, _ = args
    rules = load_ruleset(name)
    seed = derive_seed(38_004, deal)
    return play_deal(rules, seed, Kingmaker), play_deal(rules, seed, HonestTwin)


@dataclass(frozen=True)
class Figures:
    rules: str
    games: int
    faulted: int
    cheat_rate: float
    twin_rate: float
    z: float
    differ: int


def measure(name: str, deals: int, pool: ProcessPoolExecutor | None = None) -> Figures:
    """The kingmaker against its honest twin on ``deals`` deals (six games each) of ``name``."""
    tasks = [(name, deal, True) for deal in range(deals)]
    pairs = list(pool.map(_task, tasks, chunksize=8) if pool is not None else map(_task, tasks))
    cheat = [o for c, _ in pairs for o in c]
    twin = [o for _, t in pairs for o in t]
    diffs = [c.ally_share - t.ally_share for c, t in zip(cheat, twin, strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    z = mean / (sd / math.sqrt(n)) if sd else 0.0
    return Figures(
        name,
        n,
        sum(c.faulted for c in cheat),
        sum(c.ally_share for c in cheat) / n,
        sum(t.ally_share for t in twin) / n,
        z,
        sum(c.others != t.others for c, t in zip(cheat, twin, strict=True)),
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per ruleset (six games each)")
    parser.add_argument("--rules", default=",".join(PRESETS + variant_names()), help="comma-separated names")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, {args.workers} worker(s)")
    print(
        f"{'ruleset':<26}{'games':>7}{'faulted':>9}{'kingmaker':>11}{'twin':>8}{'diff':>8}{'z':>7}{'differ':>8}"
    )
    started = time.perf_counter()
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    try:
        for name in args.rules.split(","):
            f = measure(name, args.deals, pool)
            print(
                f"{f.rules:<26}{f.games:>7}{f.faulted:>9}{f.cheat_rate:>10.1%}{f.twin_rate:>8.1%}"
                f"{f.cheat_rate - f.twin_rate:>+8.1%}{f.z:>7.1f}{f.differ:>8}",
                flush=True,
            )
    finally:
        if pool is not None:
            pool.shutdown()
    print(f"# {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
