"""Tabular Q-learning of a turn's play, through :class:`~arena.envs.SeatEnv`: the worked example.

::

    python -m arena.envs.train_q --rules classic --games 20000 --seed 1 --out q_classic.npz

The agent plays games alone (one seat, no opponents: its turns are what it learns), rewarded by
points (``reward="points"``: each bank's points).  Each turn is an episode of the learning: the
value of a decision (:mod:`arena.envs.q_table`) moves towards the points it banks, 0 for a
farkle, or the best value of the turn's next decision when it rolls on, by ``1 / n`` at its
``n``-th visit (the mean of what it saw) until that falls to ``alpha``.  It explores
with chance ``epsilon`` (falling linearly to 0 over the run), from its own seeded generator, so
the same arguments give the same table, byte for byte.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from arena.engine import RulesetError
from arena.envs import MissingExtraError
from arena.envs.q_table import QTable


def train(rules: str, games: int, seed: int, *, alpha: float = 0.01, epsilon: float = 0.2) -> QTable:
    """Learn a :class:`QTable` for ``rules`` from ``games`` solo games (see the module docstring)."""
    from arena.envs.seat_env import SeatEnv  # here: without the rl extra, main says so in one line

    env = SeatEnv(rules, opponents=(), reward="points")
    table = QTable.empty(env.rules)
    q = table.q
    visits = np.zeros(q.shape, dtype=np.int64)
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=int(rng.integers(2**63)))
        explore = epsilon * (1 - game / games)
        view = env.view
        while view is not None:
            options = table.options(view)
            if rng.random() < explore:
                action, index = options[int(rng.integers(len(options)))]
            else:
                action, index = max(options, key=lambda option: q[option[1]])
            _, reward, terminated, _, _ = env.step(action)
            after = env.view
            if after is not None and not terminated and after.turn == view.turn and not action % 2:
                target = max(q[i] for _, i in table.options(after))  # rolled on, and scored
            else:
                target = reward  # banked (its points), farkled or forfeited (0, or a penalty)
            visits[index] += 1
            q[index] += max(alpha, 1 / visits[index]) * (target - q[index])
            view = after
    return table


def main(argv: list[str] | None = None) -> int:
    about = (__doc__ or "").split("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m arena.envs.train_q", description=about)
    parser.add_argument("--rules", default="classic", help="ruleset: a preset, a variant or a .toml file")
    parser.add_argument("--games", type=int, default=20_000, help="solo games to learn from")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and the exploration")
    parser.add_argument("--alpha", type=float, default=0.01, help="the learning rate's floor")
    parser.add_argument("--epsilon", type=float, default=0.2, help="exploration at the start")
    parser.add_argument("--out", required=True, help="the .npz file to write")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    folder = os.path.dirname(args.out) or "."
    if not os.path.isdir(folder):  # before the training, not after it
        parser.error(f"--out {args.out}: no folder {folder}")
    started = time.perf_counter()
    try:
        table = train(args.rules, args.games, args.seed, alpha=args.alpha, epsilon=args.epsilon)
    except (RulesetError, MissingExtraError) as exc:
        parser.exit(2, f"error: {exc}\n")
    try:
        table.save(args.out)
    except OSError as exc:
        parser.exit(2, f"error: --out {args.out}: {exc.strerror}\n")
    seconds = time.perf_counter() - started
    print(f"trained on {args.games} games of {table.rules} in {seconds:.0f} s: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
