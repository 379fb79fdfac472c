"""How many games a ladder needs to rate a newcomer, against the full round robin, by simulation.

    python benchmarks/ladder.py [--field 200] [--newcomers 12] [--games 100] [--widths 100,70,50]

A **synthetic Elo model**, not real games: 200 entries of 10,000 at 100 games per pair is
2 million games for one round robin, hours on a 2-core machine.  Each entry has a true Elo, drawn
from a normal distribution (sd 200 Elo: about the spread of the built-in strategies, from
``random`` at -450 to ``optimal`` at +300 in a league); a pair's games are binomial with the
Elo model's ``p = 1 / (1 + 10^(-d/400))``, drawn from a generator keyed by the pair alone (as a
league keys a pair's dice), so the ladder plays some of the round robin's very games.

The field of ``--field`` entries is rated by a round robin.  Each newcomer (a fresh true Elo from
the same distribution) then joins that field twice: once by the round robin (every pair) and
once by the ladder of :mod:`arena.leagues.ladder`: its very rule (:func:`next_round`) and the
standings' fit (:func:`plackett_luce_elo`) after every round.  The ladder's choices do not depend
on the width, only its stopping does, so one ladder per newcomer, played to the narrowest width,
gives every wider width's result at the first round that made the interval narrower than it.

Printed per width: the newcomer's games (the ladder's against the round robin's), how far its
rating lands from the round robin's, Spearman's rank correlation of the newcomers' ladder and
round robin ratings, the newcomers' rank in the field by each, and the coverage of the truth
(its true Elo less the mean true Elo of the field with it: the fit's gauge) by the ladder's and
the round robin's 95% intervals.  One fit per round, 2 to 5 s each on a shared 2-core machine:
4 to 9 minutes for the default 12 newcomers, 6 to 14 for the docs' ``--newcomers 30``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from arena.analysis.ratings import Order, plackett_luce_elo
from arena.leagues.ladder import next_round, placed

NEW = 0  # the newcomer's id: it is the oldest in no sense, but ids only break ties


def pair_wins(seed: int, a: int, b: int, strength: dict[int, float], games: int) -> int:
    """Games ``a`` wins of ``games`` against ``b``: keyed by the pair, the same whoever asks."""
    low, high = min(a, b), max(a, b)
    p_low = 1 / (1 + 10 ** ((strength[high] - strength[low]) / 400))
    wins_low = int(np.random.default_rng([seed, low, high]).binomial(games, p_low))
    return wins_low if a == low else games - wins_low


def add_pair(orders: dict[Order, float], a: int, b: int, wins: int, games: int) -> None:
    for first, second, count in ((a, b, wins), (b, a, games - wins)):
        if count:
            key: Order = ((f"e{first:04d}",), (f"e{second:04d}",))
            orders[key] = orders.get(key, 0) + count


def fit(orders: dict[Order, float]) -> dict[int, tuple[float, float, float]]:
    return {int(name[1:]): value for name, value in plackett_luce_elo(orders).items()}


def spearman(x: list[float], y: list[float]) -> float:
    rx = np.argsort(np.argsort(x))
    ry = np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


def rank_of(ratings: dict[int, tuple[float, float, float]], who: int) -> int:
    return 1 + sum(r[0] > ratings[who][0] for i, r in ratings.items() if i != who)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--field", type=int, default=200)
    parser.add_argument("--newcomers", type=int, default=12)
    parser.add_argument("--games", type=int, default=100, help="games per pair")
    parser.add_argument("--widths", default="100,70,50", help="interval widths in Elo")
    parser.add_argument("--seed", type=int, default=39)
    args = parser.parse_args()
    widths = sorted((float(w) for w in args.widths.split(",")), reverse=True)
    rng = np.random.default_rng(args.seed)
    field = list(range(1, args.field + 1))
    strength = {i: float(s) for i, s in zip(field, rng.normal(0, 200, args.field), strict=True)}
    newcomer_strengths = [float(s) for s in rng.normal(0, 200, args.newcomers)]

    started = time.perf_counter()
    field_orders: dict[Order, float] = {}
    for k, a in enumerate(field):
        for b in field[k + 1 :]:
            add_pair(field_orders, a, b, pair_wins(args.seed, a, b, strength, args.games), args.games)

    field_ratings = fit(field_orders)  # the field before any newcomer: the same for each
    rows: dict[float, list[dict[str, float]]] = {w: [] for w in widths}
    robin: list[dict[str, float]] = []
    fits = 1
    for n, true_elo in enumerate(newcomer_strengths, 1):
        seed = args.seed * 1000 + n  # each newcomer meets fresh dice, as a new entry does
        strength[NEW] = true_elo
        truth = true_elo - statistics.fmean(strength.values())  # the fit's gauge: the field's mean
        # The round robin: every pair.
        orders = dict(field_orders)
        for o in field:
            add_pair(orders, NEW, o, pair_wins(seed, NEW, o, strength, args.games), args.games)
        full = fit(orders)
        fits += 1
        rating, low, high = full[NEW]
        robin.append(
            {
                "games": args.games * len(field),
                "rating": rating,
                "covered": low <= truth <= high,
                "rank": rank_of(full, NEW),
                "width": high - low,
            }
        )
        # The ladder: the field's round robin, then the newcomer's rounds.
        orders = dict(field_orders)
        met = {frozenset((a, b)) for k, a in enumerate(field) for b in field[k + 1 :]}
        everyone = [NEW, *field]
        ratings = dict(field_ratings)
        played = 0
        pending = list(widths)
        while pending:
            chosen = next_round(everyone, ratings, met, widths[-1])
            if chosen is None:
                break
            for o in chosen.opponents:  # a round of the newcomer's, or of one that has not met it
                add_pair(
                    orders, chosen.head, o, pair_wins(seed, chosen.head, o, strength, args.games), args.games
                )
                met.add(frozenset((chosen.head, o)))
                played += args.games
            ratings = fit(orders)
            fits += 1
            while pending and placed(ratings[NEW], pending[0]):
                rating, low, high = ratings[NEW]
                rows[pending.pop(0)].append(
                    {
                        "games": played,
                        "rating": rating,
                        "covered": low <= truth <= high,
                        "rank": rank_of(ratings, NEW),
                        "width": high - low,
                    }
                )
        print(f"newcomer {n}/{args.newcomers}: {played} games", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(
        f"synthetic Elo model: a field of {args.field} entries (true Elo ~ N(0, 200)) rated by a round "
        f"robin of {args.games} games per pair; {args.newcomers} newcomers; seed {args.seed}"
    )
    mean = statistics.fmean(strength[i] for i in field)
    truths = [strength[i] - mean for i in field]
    slope = float(np.polyfit(truths, [field_ratings[i][0] for i in field], 1)[0])
    held = sum(field_ratings[i][1] <= t <= field_ratings[i][2] for i, t in zip(field, truths, strict=True))
    print(
        f"the field's round robin: fitted Elo = {slope:.4f} x true Elo (the prior's pull towards even); "
        f"its 95% intervals hold the truth for {held}/{len(field)}"
    )
    per_robin = args.games * len(field)
    print(
        f"round robin: {per_robin:,} games per newcomer; its 95% interval "
        f"{statistics.fmean(r['width'] for r in robin):.0f} Elo wide on average, "
        f"covers the truth for {sum(r['covered'] for r in robin)}/{len(robin)}"
    )
    print(
        f"{'width':>6}  {'games (mean, min-max)':>22}  {'share of RR':>11}  {'|ladder-RR| mean, max':>22}  "
        f"{'Spearman':>8}  {'|rank diff| mean':>16}  {'coverage':>9}"
    )
    for width in widths:
        done = rows[width]
        if len(done) < len(robin):
            print(
                f"{width:>6.0f}  {len(robin) - len(done)} newcomers met everyone before their "
                "interval was this narrow"
            )
            continue
        games = [r["games"] for r in done]
        gaps = [abs(r["rating"] - q["rating"]) for r, q in zip(done, robin, strict=True)]
        ranks = [abs(r["rank"] - q["rank"]) for r, q in zip(done, robin, strict=True)]
        rho = spearman([r["rating"] for r in done], [q["rating"] for q in robin])
        covered = sum(r["covered"] for r in done)
        print(
            f"{width:>6.0f}  {statistics.fmean(games):>9,.0f} ({min(games):,}-{max(games):,})".ljust(32)
            + f"  {statistics.fmean(games) / per_robin:>10.1%}"
            + f"  {statistics.fmean(gaps):>12.1f}, {max(gaps):>6.1f}"
            + f"  {rho:>10.3f}  {statistics.fmean(ranks):>16.1f}  {covered:>4}/{len(done)}"
        )
    print(f"{fits} fits in {seconds:.0f} s ({seconds / fits:.1f} s a fit of {args.field + 1} entries)")


if __name__ == "__main__":
    main()
