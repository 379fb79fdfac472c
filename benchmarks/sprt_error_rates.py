"""Error rates of `arena duel --sprt elo0=0,elo1=20` (alpha = beta = 0.05), simulated and real.

    python benchmarks/sprt_error_rates.py [--duels 4000] [--real-duels 500] [--workers 2]
        [--normalized-duels N] [--earliest]

4 to 8 minutes on two cores (the normalized model adds 4 to 6 minutes for 1,000 duels, the
earliest decision about one; --duels 0 or --real-duels 0 skip those parts).  It prints, for each
case, how often the test accepts H1 when the truth is 0 Elo (false positive) and H0 when the
truth is +20 Elo (false negative), with 95% Wilson intervals; both should be at most 5% plus
simulation error.

1. Calibration.  A bot with a known edge: "mixture" plays a strong bot S (threshold) in a game
   with probability q, drawn from its seeded ``info.rng``, and a weak bot W (greedy) otherwise.
   Against W it scores q s_SW + (1 - q) / 2, where s_SW is S's score against W.  Every deal of
   the calibration is played four ways (S-W, W-S, W-W, S-S) with the same dice; s_SW comes from
   the first two, and q = (L(20) - 1/2) / (s_SW - 1/2) puts the mixture at +20 logistic Elo.
2. Simulated duels (--duels per case and truth): pair outcomes are drawn with numpy and fed to
   the same PairTally and Sprt that `arena duel` uses, one pair at a time, up to 10,000 pairs
   (the default --max-games 20,000).  Cases: pentanomial shapes with mostly split pairs (the
   first from the issue, the next two as benchmarks/duplicate_gain.py measures them on standard,
   one with rare decisive pairs), each tilted exponentially to a mean of exactly 1/2 and exactly
   L(20); two copies of a deterministic bot (every pair splits); and the mixture, drawn from the
   calibration's deals: against W it is +20 Elo exactly (on those deals), against a second copy
   of itself (which draws its choice from another number of the same stream) 0 Elo exactly.
3. Real duels (--real-duels per truth): `run_duel`, as `arena duel` runs it, of the mixture
   against greedy (+20 Elo) and against its second copy (0 Elo), seeds 1 to N.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import math
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from arena.analysis.pairs import PairTally
from arena.analysis.sprt import NELO_PER_NT, OUTCOMES, Sprt
from arena.analysis.stats import elo_from_score, score_from_elo, wilson_interval
from arena.engine import derive_seed, load_ruleset
from arena.players import load_player_spec, play_match
from arena.tournaments.duel import run_duel

SPRT = Sprt(0, 20)
EDGE = score_from_elo(20)
NORMALIZED = Sprt(0, 10, model="normalized")
MAX_PAIRS = 10_000
CHUNK = 250  # duels per simulation task
STRONG, WEAK = "threshold", "greedy"

SHAPES = {
    "mostly split (76%)": [0.02, 0.10, 0.76, 0.10, 0.02],
    "optimal vs tactician (71% split)": [0.027, 0.132, 0.709, 0.102, 0.031],
    "threshold 300 vs 350 (90% split)": [0.003, 0.051, 0.898, 0.042, 0.007],
    "rare decisive pairs (96% split)": [0.001, 0.02, 0.958, 0.02, 0.001],
}

MIXTURE = '''
from __future__ import annotations

from arena.players import load_player_spec

STRONG, WEAK = load_player_spec({strong!r}), load_player_spec({weak!r})


class Mixture:
    """Plays {strong} with probability q in each game, {weak} otherwise."""

    def __init__(self, q: float = 0.1, salt: int = 0) -> None:
        self.q, self.salt = q, salt
        self.name = f"mixture:q={{q:.6f}},salt={{salt}}"
        self.inner = WEAK.create()

    def start_game(self, info) -> None:
        rng = info.rng
        for _ in range(self.salt):  # a second copy uses another number of the stream
            rng.random()
        self.inner = (STRONG if rng.random() < self.q else WEAK).create()
        start = getattr(self.inner, "start_game", None)
        if start is not None:
            start(info)

    def decide(self, view):
        return self.inner.decide(view)
'''


# --- 1. calibration ---------------------------------------------------------------------------------
def play_deals(task: tuple[str, int, int, int]) -> np.ndarray:
    """Per deal: S's score seated first against W, seated second, seat 0's score in W vs W and in
    S vs S, all on the deal's dice."""
    rules_name, seed, first, last = task
    rules = load_ruleset(rules_name)
    s, w = load_player_spec(STRONG), load_player_spec(WEAK)
    rows = []
    for deal in range(first, last):
        game_seed = derive_seed(seed, deal)
        sw = play_match(rules, [s.create(), w.create()], game_seed).win_shares[0]
        ws = play_match(rules, [w.create(), s.create()], game_seed).win_shares[1]
        ww = play_match(rules, [w.create(), w.create()], game_seed).win_shares[0]
        ss = play_match(rules, [s.create(), s.create()], game_seed).win_shares[0]
        rows.append((sw, ws, ww, ss))
    return np.array(rows)


def calibrate(rules_name: str, deals: int, workers: int, seed: int) -> np.ndarray:
    step = 1000
    tasks = [(rules_name, seed, d, min(deals, d + step)) for d in range(0, deals, step)]
    with ProcessPoolExecutor(workers) as pool:
        return np.concatenate(list(pool.map(play_deals, tasks)))


# --- 2. simulated duels ---------------------------------------------------------------------------
def shape_sampler(p: np.ndarray) -> callable:
    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.choice(5, size=n, p=p)

    return draw


def mixture_sampler(deals: np.ndarray, q: float, twin: bool) -> callable:
    """Pair outcomes (0..4) of the mixture against W, or against its second copy (``twin``)."""
    sw, ws, ww, ss = deals.T

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        d = rng.integers(0, len(deals), size=n)
        a1, a2 = rng.random(n) < q, rng.random(n) < q  # the mixture's choice in games 1, 2
        if not twin:
            g1 = np.where(a1, sw[d], ww[d])  # game 1: mixture in seat 0, W in seat 1
            g2 = np.where(a2, ws[d], 1 - ww[d])  # game 2: W in seat 0, mixture in seat 1
        else:
            b1, b2 = rng.random(n) < q, rng.random(n) < q  # the second copy's choices
            # Game 1: A in seat 0 against B; game 2: B in seat 0 against A.  A's score:
            g1 = np.select([a1 & b1, a1 & ~b1, ~a1 & b1], [ss[d], sw[d], 1 - ws[d]], ww[d])
            g2 = np.select([a2 & b2, a2 & ~b2, ~a2 & b2], [1 - ss[d], ws[d], 1 - sw[d]], 1 - ww[d])
        return np.rint((g1 + g2) * 2).astype(int)

    return draw


def tilted(shape: list[float], target: float) -> np.ndarray:
    """``shape`` exponentially tilted (q_i ~ p_i e^(theta x_i)) to mean ``target``."""
    p, x = np.array(shape, float), np.array(OUTCOMES)
    p /= p.sum()
    if (p * x).sum() == target:
        return p
    low, high = -200.0, 200.0
    for _ in range(200):
        theta = (low + high) / 2
        q = p * np.exp(theta * x)
        q /= q.sum()
        low, high = (theta, high) if q @ x < target else (low, theta)
    return q


def tilted_to_t(shape: list[float], nelo: float) -> np.ndarray:
    """``shape`` exponentially tilted to a normalized Elo of ``nelo``: a pair-score t-value
    (mu - 1/2) / sigma of nelo / (800 / ln 10) * sqrt 2."""
    p, x = np.array(shape, float), np.array(OUTCOMES)
    p /= p.sum()
    target = nelo / NELO_PER_NT * math.sqrt(2)
    low, high = -200.0, 200.0
    for _ in range(200):
        theta = (low + high) / 2
        q = p * np.exp(theta * x)
        q /= q.sum()
        mean = q @ x
        low, high = (theta, high) if (mean - 0.5) / math.sqrt(q @ (x - mean) ** 2) < target else (low, theta)
    return q


SAMPLERS: dict[str, callable] = {}  # filled before the worker processes fork
TESTS: dict[str, Sprt] = {}  # the test a sampler's duels run, where it is not SPRT


def simulate(task: tuple[str, int, int]) -> tuple[collections.Counter, int]:
    """``CHUNK`` duels of one sampler: their verdicts and how many pairs they took in all."""
    name, chunk, seed = task
    rng = np.random.default_rng([seed, chunk, *name.encode()])
    draw, sprt = SAMPLERS[name], TESTS.get(name, SPRT)
    verdicts: collections.Counter = collections.Counter()
    pairs = 0
    for _ in range(CHUNK):
        tally, verdict = PairTally(), None
        while verdict is None and tally.pairs < MAX_PAIRS:
            for outcome in draw(rng, 64):
                tally.add(OUTCOMES[outcome])
                _, verdict = tally.decision(sprt)
                if verdict is not None or tally.pairs == MAX_PAIRS:
                    break
        verdicts[verdict] += 1
        pairs += tally.pairs
    return verdicts, pairs


def simulate_normalized(duels: int, workers: int, seed: int, began: float) -> None:
    """The normalized model on the first shape, at 0 and at elo1 normalized Elo."""
    label, shape = next(iter(SHAPES.items()))
    truths = {f"normalized@{nelo:g}": (nelo, tilted_to_t(shape, nelo)) for nelo in (0, NORMALIZED.elo1)}
    for name, (_, q) in truths.items():
        SAMPLERS[name], TESTS[name] = shape_sampler(q), NORMALIZED
    chunks = -(-duels // CHUNK)
    tasks = [(name, chunk, seed) for name in truths for chunk in range(chunks)]
    with ProcessPoolExecutor(workers) as pool:
        found = list(pool.map(simulate, tasks))
    n = chunks * CHUNK
    print(f"\nsimulated, --sprt {NORMALIZED}: {label}, {n:,} duels per truth")
    for name, (nelo, q) in truths.items():
        mine = [result for (task, _, _), result in zip(tasks, found, strict=True) if task == name]
        verdicts = sum((v for v, _ in mine), collections.Counter())
        pairs = sum(p for _, p in mine)
        wrong = "H1" if nelo == 0 else "H0"
        logistic = round(elo_from_score(float(q @ np.array(OUTCOMES))), 1) + 0.0  # no "-0.0"
        print(
            f"  at {nelo:g} normalized Elo ({logistic:+.1f} logistic): {wrong} accepted "
            f"{rate(verdicts[wrong], n)}, {verdicts[None]} undecided, {pairs / n:.0f} pairs a duel"
        )
    print(f"  ({time.perf_counter() - began:.0f} s)")


def earliest_decision(sprt: Sprt, most: int = 200) -> tuple[int, float, float]:
    """The fewest pairs after which some pentanomial reaches a bound of ``sprt``, with the lowest
    and highest LLR at that number: every count vector of n pairs, n = 1, 2, ... (C(n+4, 4) of
    them), so a minimum number of pairs below it could never change a verdict."""
    low, high = sprt.bounds
    for n in range(1, most + 1):
        llrs = [
            sprt.llr([c1, c2 - c1 - 1, c3 - c2 - 1, c4 - c3 - 1, n + 3 - c4])
            for c1, c2, c3, c4 in itertools.combinations(range(n + 4), 4)
        ]
        if min(llrs) <= low or max(llrs) >= high:
            return n, min(llrs), max(llrs)
    return most + 1, math.nan, math.nan


def rate(count: int, n: int) -> str:
    low, high = wilson_interval(count, n)
    return f"{count / n * 100:5.2f} % [{low * 100:4.2f}, {high * 100:4.2f}]"


# --- 3. real duels ----------------------------------------------------------------------------------
def real_duel(task: tuple[str, str, str, int]) -> tuple[str | None, int, tuple[int, ...]]:
    rules_name, a, b, seed = task
    outcome = run_duel(
        load_ruleset(rules_name),
        load_player_spec(a),
        load_player_spec(b),
        games=2 * MAX_PAIRS,
        seed=seed,
        sprt=SPRT,
        workers=1,
        progress=False,
        batch_size=64,
    )
    return outcome.verdict, outcome.tally.pairs, outcome.tally.pentanomial


def real_duels(rules: str, a: str, b: str, n: int, workers: int) -> Iterator[tuple[str | None, int, tuple]]:
    with ProcessPoolExecutor(workers) as pool:
        yield from pool.map(real_duel, [(rules, a, b, seed) for seed in range(1, n + 1)])


def machine() -> str:
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
            if line.startswith("Model name")
        )
    except (OSError, StopIteration):
        model = platform.processor() or "unknown CPU"
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duels", type=int, default=4000, help="simulated duels per case and truth")
    parser.add_argument("--real-duels", type=int, default=500, help="real duels per truth")
    parser.add_argument(
        "--normalized-duels",
        type=int,
        default=0,
        help=f"also simulate this many duels per truth of --sprt {NORMALIZED} (slow: thousands of pairs)",
    )
    parser.add_argument(
        "--earliest", action="store_true", help="also find the fewest pairs that can decide (about a minute)"
    )
    parser.add_argument("--calibration-deals", type=int, default=50_000, help="deals, each played 4 ways")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    began = time.perf_counter()
    print(f"SPRT {SPRT} on {args.rules}; {machine()}")

    if args.duels or args.real_duels:  # both need the calibrated mixture
        # 1. calibration
        deals = calibrate(args.rules, args.calibration_deals, args.workers, args.seed)
        pair = (deals[:, 0] + deals[:, 1]) / 2
        s_sw, se = float(pair.mean()), float(pair.std(ddof=1)) / math.sqrt(len(pair))
        q = (EDGE - 0.5) / (s_sw - 0.5)
        edges = [elo_from_score(q * s + (1 - q) * 0.5) for s in (s_sw - 1.96 * se, s_sw + 1.96 * se)]
        print(
            f"\ncalibration: {STRONG} scores {s_sw:.4f} ± {1.96 * se:.4f} against {WEAK} "
            f"({len(deals):,} deals in both seat orders); q = {q:.4f} puts the mixture at +20 Elo, "
            f"true edge +{edges[0]:.2f} to +{edges[1]:.2f} Elo (95%)  ({time.perf_counter() - began:.0f} s)"
        )

    if args.duels:
        # 2. simulated duels
        cases: list[tuple[str, str | None, str | None]] = []  # label, sampler at 0 Elo, at +20 Elo
        for label, shape in SHAPES.items():
            SAMPLERS[f"{label}@0"] = shape_sampler(tilted(shape, 0.5))
            SAMPLERS[f"{label}@20"] = shape_sampler(tilted(shape, EDGE))
            cases.append((label, f"{label}@0", f"{label}@20"))
        SAMPLERS["twins@0"] = shape_sampler(np.array([0, 0, 1.0, 0, 0]))
        cases.append(("two copies of a deterministic bot", "twins@0", None))
        SAMPLERS["mixture@0"] = mixture_sampler(deals, q, twin=True)
        SAMPLERS["mixture@20"] = mixture_sampler(deals, q, twin=False)
        cases.append(("mixture (known edge, calibration deals)", "mixture@0", "mixture@20"))
        chunks = -(-args.duels // CHUNK)
        names = [name for _, *both in cases for name in both if name is not None]
        with ProcessPoolExecutor(args.workers) as pool:
            tasks = [(name, chunk, args.seed) for name in names for chunk in range(chunks)]
            results: dict[str, tuple[collections.Counter, int]] = {}
            for (name, _, _), (verdicts, pairs) in zip(tasks, pool.map(simulate, tasks), strict=True):
                old = results.get(name, (collections.Counter(), 0))
                results[name] = (old[0] + verdicts, old[1] + pairs)
        n = chunks * CHUNK
        print(f"\nsimulated: {n:,} duels per case and truth, at most {MAX_PAIRS:,} pairs each")
        head = f"{'at 0 Elo: H1 accepted':<28} {'pairs':>6}   {'at +20 Elo: H0 accepted':<28} {'pairs':>6}"
        print(f"  {'case':<42} {head}")
        for label, at0, at20 in cases:
            cells = []
            for name, wrong in ((at0, "H1"), (at20, "H0")):
                if name is None:
                    cells.append(f"{'-':<28} {'':>6}")
                    continue
                verdicts, pairs = results[name]
                undecided = f" ({verdicts[None]} undecided)" if verdicts[None] else ""
                cells.append(f"{rate(verdicts[wrong], n):<28} {pairs / n:6.0f}{undecided}")
            print(f"  {label:<42} {cells[0]}   {cells[1]}")
        print(f"  ({time.perf_counter() - began:.0f} s)")
    if args.normalized_duels:
        simulate_normalized(args.normalized_duels, args.workers, args.seed, began)
    if args.earliest:
        n, low, high = earliest_decision(SPRT)
        print(
            f"\nno pentanomial of fewer than {n} pairs reaches a bound (every count vector checked; at {n} "
            f"pairs the LLR ranges over [{low:.3f}, {high:.3f}])  ({time.perf_counter() - began:.0f} s)"
        )

    if args.real_duels:
        # 3. real duels
        with tempfile.TemporaryDirectory() as folder:
            bot = Path(folder) / "mixture.py"
            bot.write_text(MIXTURE.format(strong=STRONG, weak=WEAK))
            mixture = f"{bot}:Mixture:q={q!r},salt=0"
            second = f"{bot}:Mixture:q={q!r},salt=1"
            print(f"\nreal duels: run_duel of the mixture (q = {q:.4f}), seeds 1 to {args.real_duels}")
            for label, b, wrong in (
                ("against greedy (+20 Elo)", WEAK, "H0"),
                ("against its copy (0 Elo)", second, "H1"),
            ):
                found = list(real_duels(args.rules, mixture, b, args.real_duels, args.workers))
                verdicts = collections.Counter(v for v, _, _ in found)
                counts = np.sum([c for _, _, c in found], axis=0)
                mean_pairs = sum(p for _, p, _ in found) / len(found)
                shape = " ".join(f"{c / counts.sum():.3f}" for c in counts)
                print(
                    f"  {label:<26} {wrong} accepted {rate(verdicts[wrong], len(found))}  "
                    f"({dict(verdicts)}, {mean_pairs:.0f} pairs a duel, pentanomial {shape})"
                    f"  ({time.perf_counter() - began:.0f} s)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
