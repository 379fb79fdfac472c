"""How often the duel's 95% score interval covers the true score, by simulation.

    python benchmarks/interval_coverage.py [--draws 20000]

For pentanomial shapes like those of duplicate duels (most pairs split, some skewed, some rare
decisive pairs, a strong bot against a weak one) and 30 to 1,000 pairs, draws the five counts
and checks whether ``PairTally.interval()`` holds the shape's true mean.  For comparison, the
plain normal interval on the pair scores (mean ± 1.96 sd / sqrt(pairs), with fishtest's 1e-3
pseudo-counts), which the duel showed from 30 pairs on unless every pair was alike (then the
Wilson interval of the games).  About a minute.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from arena.analysis.pairs import PairTally
from arena.analysis.sprt import OUTCOMES, mean_and_variance, regularized
from arena.analysis.stats import Z95

SHAPES = {
    "mostly split 76%": [0.02, 0.10, 0.76, 0.10, 0.02],
    "mostly split 90%": [0.005, 0.045, 0.90, 0.045, 0.005],
    "mostly split, +20 Elo": [0.01, 0.07, 0.76, 0.12, 0.04],
    "wide": [0.1, 0.2, 0.4, 0.2, 0.1],
    "skewed": [0.0, 0.05, 0.80, 0.10, 0.05],
    "skewed, no losses": [0.0, 0.0, 0.85, 0.10, 0.05],
    "strong": [0.001, 0.01, 0.2, 0.3, 0.489],
    "lopsided": [0.0, 0.0, 0.05, 0.15, 0.80],
    "near certain": [0.0, 0.0, 0.0, 0.02, 0.98],
    "rare decisive": [0.0, 0.02, 0.96, 0.0, 0.02],
    "rare wins only": [0.0, 0.0, 0.97, 0.0, 0.03],
    "no decisive pairs": [0.0, 0.1, 0.8, 0.1, 0.0],
}
SIZES = (30, 50, 100, 300, 1000)


def plain_interval(counts: list[int]) -> tuple[float, float]:
    _, p = regularized(counts)
    mean, variance = mean_and_variance(OUTCOMES, p)
    half = Z95 * math.sqrt(variance / sum(counts))
    return mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"coverage of the 95% score interval, {args.draws:,} draws per shape and number of pairs")
    print(
        f"  {'shape':<24} {'true':>6}  " + "  ".join(f"{n:>5} pairs" for n in SIZES) + "   (plain interval)"
    )
    worst = dict.fromkeys(SIZES, 1.0)
    worst_plain = dict.fromkeys(SIZES, 1.0)
    for name, shape in SHAPES.items():
        p = np.array(shape) / sum(shape)
        truth = float(p @ np.array(OUTCOMES))
        cells, plain_cells = [], []
        for n in SIZES:
            hits = plain = 0
            for counts in rng.multinomial(n, p, size=args.draws).tolist():
                low, high = PairTally(counts).interval()
                hits += low <= truth <= high
                low, high = plain_interval(counts)
                plain += low <= truth <= high
            worst[n] = min(worst[n], hits / args.draws)
            worst_plain[n] = min(worst_plain[n], plain / args.draws)
            cells.append(f"{hits / args.draws:10.1%}")
            plain_cells.append(f"{plain / args.draws:.0%}")
        print(
            f"  {name:<24} {truth:6.3f}  " + "  ".join(cells) + f"   ({', '.join(plain_cells)})", flush=True
        )
    print(f"  {'worst':<24} {'':>6}  " + "  ".join(f"{worst[n]:10.1%}" for n in SIZES), end="")
    print(f"   ({', '.join(f'{worst_plain[n]:.0%}' for n in SIZES)})")


if __name__ == "__main__":
    main()
