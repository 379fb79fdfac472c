"""Head-to-head duels: paired games until a sequential test decides, as chess engines are tested.

Each deal is played in both seat orders with the same dice per seat (a game pair).  Pairs are
scored in deal order, and the sequential probability ratio test (SPRT) is checked after every
pair, so where a duel stops depends only on its seed, never on workers or batch size.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from tqdm import tqdm

from arena.analysis.pairs import PairTally
from arena.analysis.stats import sprt_bounds
from arena.engine import Ruleset
from arena.players import PlayerSpec
from arena.tournament.batch import BatchResult
from arena.tournament.runner import batch_results
from arena.tournament.spec import DEFAULT_MOVE_TIMEOUT, TournamentSpec

PAIRS_PER_TASK = 100


class SprtError(ValueError):
    """A malformed --sprt setting; the message is one line."""


@dataclass(frozen=True)
class Sprt:
    """H0: A is elo0 Elo stronger than B; H1: elo1.  alpha and beta are the error rates."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> Sprt:
        """``elo0=0,elo1=20,alpha=0.05,beta=0.05``; keys left out keep their defaults."""
        values: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, eq, raw = item.partition("=")
            if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtError(f"--sprt: {item!r} is not one of elo0=, elo1=, alpha=, beta=")
            try:
                values[key] = float(raw)
            except ValueError:
                raise SprtError(f"--sprt: {key} must be a number, got {raw!r}") from None
        sprt = cls(**values)
        if not sprt.elo1 > sprt.elo0:
            raise SprtError(f"--sprt: elo1 must be above elo0, got elo0={sprt.elo0:g}, elo1={sprt.elo1:g}")
        for name in ("alpha", "beta"):
            if not 0 < getattr(sprt, name) < 0.5:
                raise SprtError(f"--sprt: {name} must be between 0 and 0.5, got {getattr(sprt, name):g}")
        return sprt

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def __str__(self) -> str:
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


@dataclass(frozen=True)
class DuelOutcome:
    labels: tuple[str, str]
    tally: PairTally
    wins: tuple[float, float]  # each player's win shares over all games
    sprt: Sprt | None
    llr: float | None
    verdict: str | None  # "H1", "H0", or None if the test did not decide
    faults: int


def run_duel(
    rules: Ruleset,
    a: PlayerSpec,
    b: PlayerSpec,
    *,
    games: int,
    seed: int = 0,
    sprt: Sprt | None = None,
    workers: int = 1,
    move_timeout: float | None = DEFAULT_MOVE_TIMEOUT,
    progress: bool | None = None,
    on_batch: Callable[[BatchResult], None] | None = None,
) -> DuelOutcome:
    """Play up to ``games`` games of A against B in pairs; stop early when ``sprt`` decides.
    ``on_batch`` sees each batch's result as it arrives (its faults, for example)."""
    spec = TournamentSpec(
        (rules,),
        (a, b),
        format="gauntlet",
        games=games,
        seed=seed,
        move_timeout=move_timeout,
        chunk_games=2 * PAIRS_PER_TASK,
    )
    # --games rounds up to whole pairs; --max-games (with an SPRT) is a limit, so it rounds down.
    total = (games // 2) * 2 if sprt is not None else -(-games // 2) * 2
    tally = PairTally()
    wins = [0.0, 0.0]
    faults = 0
    llr = verdict = None
    bar = tqdm(
        total=total,
        unit="game",
        file=sys.stderr,
        dynamic_ncols=True,
        disable=(not sys.stderr.isatty()) if progress is None else not progress,
    )
    try:
        with batch_results(spec, 0, total, workers) as results:
            for result in results:
                if on_batch is not None:
                    on_batch(result)
                faults += result.faults
                for first, second in zip(result.shares[::2], result.shares[1::2], strict=True):
                    # Game 2d seats A first, game 2d+1 seats B first.
                    a_score = first[0] + second[1]
                    wins[0] += a_score
                    wins[1] += first[1] + second[0]
                    tally.add(a_score / 2)
                    if sprt is not None:
                        llr = tally.llr(sprt.elo0, sprt.elo1)
                        verdict = tally.decision(sprt.elo0, sprt.elo1, sprt.bounds)
                        if verdict is not None:
                            break
                bar.update(result.stop - result.start)
                if verdict is not None:
                    break
    finally:
        bar.close()
    return DuelOutcome(
        (spec.labels[0], spec.labels[1]), tally, (wins[0], wins[1]), sprt, llr, verdict, faults
    )
