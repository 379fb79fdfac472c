"""How much stronger `perfect` is than the best other built-ins: duels decided by an SPRT.

    python benchmarks/perfect_strength.py [--elo1 10] [--max-games 200000] [--games 20000] [--workers N]
                                          [--rules R ...]

Runs `arena duel perfect optimal` and `arena duel perfect tactician` on `classic` and `standard`
(or the ``--rules`` given: presets or ruleset files),
each until the sequential probability ratio test (elo0=0, elo1=--elo1, alpha=beta=0.05) accepts
one hypothesis, and prints the verdict and the games it took.  Game pairs on duplicate dice make
the test short, so its Elo interval is wide: each duel is then played again for a fixed
``--games`` (another seed), for the score and the Elo difference with their 95% intervals
(from game pairs: each deal is played in both seat orders).  The issue's bar: `perfect` comes
out stronger on both rulesets, against both.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bare_loop import machine


def duel(rules: str, opponent: str, settings: list[str], workers: int | None) -> dict:
    folder = Path(tempfile.mkdtemp()) / "duel"
    command = [
        sys.executable, "-m", "arena.cli", "duel", "perfect", opponent, "--rules", rules,
        *settings, "--json", "--no-progress", "--out", str(folder),
    ]  # fmt: skip
    if workers is not None:
        command += ["--workers", str(workers)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[2:])} failed: {done.stderr.strip()}")
    data = json.loads(done.stdout)
    data["seconds"] = time.perf_counter() - started
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--max-games", type=int, default=200_000)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--rules", action="append", help="a preset or a ruleset file (repeatable)")
    args = parser.parse_args()
    rulesets = args.rules or ["classic", "standard"]
    width = max(9, *map(len, rulesets))
    print(f"machine: {machine()}")
    print(f"SPRT elo0=0 elo1={args.elo1:g} alpha=beta=0.05, logistic Elo, game pairs on duplicate dice")
    print(
        f"{'rules':<{width}} {'perfect vs':<10} {'SPRT':<9} {'games':>6} | {'games':>6} {'score %':>17} "
        f"{'Elo':>21} {'games/s':>8}"
    )
    sprt = ["--sprt", f"elo0=0,elo1={args.elo1:g}", "--max-games", str(args.max_games)]
    fixed = ["--games", str(args.games), "--seed", "1"]
    for rules in rulesets:
        for opponent in ("optimal", "tactician"):
            test = duel(rules, opponent, sprt, args.workers)
            accepted = (test.get("sprt") or {}).get("accepted")
            verdict = {"H1": "stronger", "H0": "not"}.get(accepted, "undecided")
            data = duel(rules, opponent, fixed, args.workers)
            low, high = data["score_interval"]
            elo_low, elo_high = data["elo_interval"]
            print(
                f"{rules:<{width}} {opponent:<10} {verdict:<9} {test['games']:>6,} | {data['games']:>6,} "
                f"{100 * data['score']:>5.1f} [{100 * low:.1f}, {100 * high:.1f}] "
                f"{data['elo']:>+6.1f} [{elo_low:+.1f}, {elo_high:+.1f}] "
                f"{data['games'] / data['seconds']:>8,.0f}"
            )


if __name__ == "__main__":
    main()
