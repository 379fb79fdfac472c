"""Tuning against brute force on a real grid: does `arena tune` find a setting as good as the
brute-force best, with at most a quarter of the games?

    python benchmarks/tune_vs_brute.py [--games 20000] [--workers N] [--seed 1]

The grid is `threshold` with `bank_at=200..1000/50` x `min_dice=1..4` (68 settings) against
`optimal` on `classic`.  Brute force plays every setting for ``--games`` games (half as many
deals, each in both seat orders), every setting on the same deals (seed 0), and gives each its
score with a 95% interval from per-deal scores.  Tune then races the grid on other deals
(``--seed``) with a budget of a quarter of brute force's games.  The bar: tune's choice scores,
by brute force, within the brute-force interval of the brute-force best.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bare_loop import machine

import arena
from arena.engine import load_ruleset
from arena.sandbox import load_player
from arena.tournaments.runner import batch_results
from arena.tournaments.schedule import Schedule
from arena.tuning import TuneSettings, parse_param
from arena.tuning.race import interval
from arena.tuning.runner import gauntlet, load_candidates, per_deal

SPEC = "threshold"
PARAMS = ("bank_at=200..1000/50", "min_dice=1..4")
AGAINST = ("optimal",)
RULES = ("classic",)


def load(text: str):
    return load_player(text, isolate=False, limits=None, move_timeout=None)


def brute_force(games: int, workers: int) -> list[tuple[str, float, float, float]]:
    """Every setting for ``games`` games on the same deals: (label, score, low, high)."""
    settings = TuneSettings(
        SPEC, tuple(parse_param(p) for p in PARAMS), AGAINST, tuple(load_ruleset(r) for r in RULES)
    )
    candidates, opponents = load_candidates(settings, load)
    rows = []
    for candidate in candidates:
        spec = gauntlet(settings, candidate, opponents, 1, games // 2, True)
        schedule = Schedule(spec)
        shares = []
        with batch_results(spec, 0, len(schedule), workers) as results:
            for result in results:
                for game in range(result.start, result.stop):
                    slot = schedule.slot(game)
                    shares.append((slot.deal, result.shares[game - result.start][slot.seats.index(0)]))
        mean, low, high = interval(per_deal(shares, settings.games_per_deal))
        rows.append((candidate.label, mean, low, high))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="brute force: games per setting")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1, help="tune's seed (brute force plays seed 0)")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"grid: {SPEC} {' x '.join(PARAMS)} against {', '.join(AGAINST)} on {', '.join(RULES)}")
    began = time.perf_counter()
    brute = brute_force(args.games, args.workers)
    brute_seconds = time.perf_counter() - began
    brute_games = args.games * len(brute)
    by_label = {label: (score, low, high) for label, score, low, high in brute}
    ranked = sorted(brute, key=lambda r: -r[1])
    best_label, best, best_low, best_high = ranked[0]
    print(
        f"\nbrute force: {len(brute)} settings x {args.games:,} games = {brute_games:,} games "
        f"({brute_seconds:.0f} s); the top 8:"
    )
    for label, score, low, high in ranked[:8]:
        print(f"  {label:<34} {100 * score:5.2f}%  [{100 * low:5.2f}, {100 * high:5.2f}]")
    budget = brute_games // 4
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        frame = arena.tune(
            SPEC,
            list(PARAMS),
            against=AGAINST,
            rules=RULES,
            budget=budget,
            seed=args.seed,
            workers=args.workers,
            out=Path(tmp) / "tune",
        )
    tune_seconds = time.perf_counter() - began
    summary = frame.attrs["tune"]
    choice = summary["best"]["candidate"]
    score, low, high = by_label[choice]
    within = score >= best_low
    print(
        f"\ntune: budget {budget:,} games (a quarter), used {summary['games']:,} "
        f"({100 * summary['games'] / brute_games:.1f}% of brute force) in {summary['rounds']} rounds, "
        f"stopped: {summary['stop']}, {summary['remaining']} left ({tune_seconds:.0f} s)"
    )
    lo, hi = summary["best"]["interval"]
    print(
        f"  its choice: {choice}  {100 * summary['best']['score']:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}] "
        f"on its own {summary['best']['games']:,} games"
    )
    print(
        f"  by brute force: {100 * score:.2f}% [{100 * low:.2f}, {100 * high:.2f}], rank "
        f"{[r[0] for r in ranked].index(choice) + 1} of {len(ranked)}"
    )
    print(f"  brute-force best: {best_label} {100 * best:.2f}% [{100 * best_low:.2f}, {100 * best_high:.2f}]")
    print(
        f"  within the brute-force interval of the best: {'yes' if within else 'NO'}; "
        f"games: {summary['games']:,} <= {budget:,}: {'yes' if summary['games'] <= budget else 'NO'}"
    )


if __name__ == "__main__":
    main()
