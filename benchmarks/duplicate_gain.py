"""How many games duplicate dice save: the effective-sample-size gain of game pairs.

    python benchmarks/duplicate_gain.py [--games 20000] [--workers 2] [--rules standard]

For each pairing, one duplicate duel (every deal in both seat orders with the same dice per
seat).  The same games also make an independent-dice sample: the game with A in the first seat
of deal d and the game with B in the first seat of deal d+1 share no dice, so together they are
a pair as independent dice would give it (both seat orders, different dice).  The gain is

    Var(pair score, independent dice) / Var(pair score, duplicate dice)

which is Var(game score) / (2 Var(duplicate pair score)) up to the first-seat advantage (that
ratio is printed too, as Vg/2Vp): how many times more games independent dice need for the same
precision.  Its 95% interval comes from a bootstrap over blocks of two deals (the unit both
samples are built from).  Also printed: each
pairing's pentanomial frequencies (pairs scoring 0, 1/4, 1/2, 3/4, 1), the shapes the SPRT
benchmark simulates.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arena.engine import load_ruleset
from arena.players import load_player_spec
from arena.tournaments.runner import batch_results
from arena.tournaments.spec import TournamentSpec

PAIRINGS = (
    ("optimal", "tactician"),
    ("threshold:bank_at=300", "threshold:bank_at=350"),
    ("optimal", "greedy"),
    ("threshold:bank_at=300,min_dice=3", "greedy"),
)
BOOTSTRAP = 2000


def a_scores(rules_name: str, a: str, b: str, games: int, workers: int, seed: int) -> np.ndarray:
    """A's win share in each game of a duplicate duel, in game order: game 2d seats A first on
    deal d, game 2d+1 seats B first on the same dice."""
    spec = TournamentSpec(
        (load_ruleset(rules_name),),
        (load_player_spec(a), load_player_spec(b)),
        format="gauntlet",
        games=games,
        seed=seed,
    )
    scores = []
    with batch_results(spec, 0, games, workers) as results:
        for result in results:
            for game, shares in enumerate(result.shares, result.start):
                scores.append(shares[0] if game % 2 == 0 else shares[1])
    return np.array(scores)


def gain(scores: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """The variance ratio and its bootstrap interval from A's per-game scores."""
    deals = len(scores) // 2 // 2 * 2  # whole blocks of two deals
    first = scores[0 : 2 * deals : 2].reshape(-1, 2)  # A seated first, by block: deals d, d+1
    second = scores[1 : 2 * deals : 2].reshape(-1, 2)  # B seated first
    duplicate = (first + second) / 2  # same deal: same dice
    independent = (first + second[:, ::-1]) / 2  # A first on deal d with B first on deal d+1

    def ratio(rows: np.ndarray) -> float:
        return float(independent[rows].var() / duplicate[rows].var())

    blocks = np.arange(len(first))
    draws = [ratio(rng.choice(blocks, len(blocks))) for _ in range(BOOTSTRAP)]
    counts = np.array([np.sum(duplicate == k / 4) for k in range(5)])
    return {
        "gain": ratio(blocks),
        "low": float(np.quantile(draws, 0.025)),
        "high": float(np.quantile(draws, 0.975)),
        "game_ratio": float(scores[: 4 * deals].var() / (2 * duplicate.var())),
        "score": float(scores.mean()),
        "split": float(counts[2] / counts.sum()),
        "pentanomial": counts / counts.sum(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per pairing")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"duplicate vs independent dice on {args.rules}, {args.games:,} games per pairing "
        f"(95% bootstrap intervals over {BOOTSTRAP:,} resamples of two-deal blocks)"
    )
    print(
        f"  {'A vs B':<52} {'score':>6} {'split':>6} {'gain':>6}  {'95% interval':<14} "
        f"{'Vg/2Vp':>6}  pentanomial"
    )
    for a, b in PAIRINGS:
        began = time.perf_counter()
        result = gain(a_scores(args.rules, a, b, args.games, args.workers, args.seed), rng)
        shape = " ".join(f"{p:.3f}" for p in result["pentanomial"])
        print(
            f"  {a + ' vs ' + b:<52} {result['score']:6.3f} {result['split']:6.1%} "
            f"{result['gain']:5.1f}x  [{result['low']:4.1f}, {result['high']:4.1f}]   "
            f"{result['game_ratio']:5.1f}x  {shape}"
            f"  ({time.perf_counter() - began:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
