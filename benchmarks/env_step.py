"""What a step of :class:`arena.envs.SeatEnv` costs, per decision, as a multiple of the Python path.

    python benchmarks/env_step.py [--games 400] [--rounds 5] [--rules classic]

The same games (greedy against greedy, the same seeds) are played three ways, taking turns
``--rounds`` times, each keeping its best (the machine's load shifts within a minute):

- **engine**: the engine's :class:`~arena.engine.Game` fed by ``decide``, nothing else (the floor);
- **python path**: :func:`arena.players.match.play_match`, what ``arena play`` and a
  tournament's chunk run per game (hooks looked up, every call guarded);
- **env step**: :class:`~arena.envs.SeatEnv` with the agent in seat 0 playing greedy's decision
  as an action number (``spaces.encode``; a learner would pick from the mask instead), the
  observation and mask built after every step, the opponent's decisions made inside the step.

Figures are seconds per decision (every decision of both seats: the games are the same, so
the count is too), with the ratio of each to the python path.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from bare_loop import machine

from arena.engine import Game, TurnView, derive_seed, load_ruleset
from arena.envs import SeatEnv, spaces
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.match import play_match


def decisions_in(rules_name: str, seeds: list[int]) -> int:
    rules = load_ruleset(rules_name)
    decide = GreedyPlayer().decide
    count = 0
    for seed in seeds:
        game = Game(rules, 2, seed)
        view = game.view()
        while view is not None:
            view = game.step(decide(view))
            count += 1
    return count


def engine(rules_name: str, seeds: list[int]) -> None:
    rules = load_ruleset(rules_name)
    decide = GreedyPlayer().decide
    for seed in seeds:
        game = Game(rules, 2, seed)
        view: object = game.view()
        send = game.sender()  # the guard's hot loop, without the guard
        while view is not None:
            view = send(decide(view))  # type: ignore[arg-type]
            if type(view) is not TurnView:
                view = game.answer(view)  # type: ignore[arg-type]


def python_path(rules_name: str, seeds: list[int]) -> None:
    rules = load_ruleset(rules_name)
    for seed in seeds:
        play_match(rules, [GreedyPlayer(), GreedyPlayer()], seed)


def env_steps(rules_name: str, seeds: list[int]) -> None:
    env = SeatEnv(rules_name, opponents=["greedy"])
    decide = GreedyPlayer().decide
    encode = spaces.encode
    for seed in seeds:
        env.reset(seed=seed)
        terminated = False
        while not terminated:
            _, _, terminated, _, _ = env.step(encode(env.view, decide(env.view)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    seeds = [derive_seed(1, g) for g in range(args.games)]
    decisions = decisions_in(args.rules, seeds)
    paths: dict[str, Callable[[str, list[int]], None]] = {
        "engine": engine,
        "python path": python_path,
        "env step": env_steps,
    }
    best = dict.fromkeys(paths, float("inf"))
    for _ in range(args.rounds):
        for name, run in paths.items():
            began = time.perf_counter()
            run(args.rules, seeds)
            best[name] = min(best[name], time.perf_counter() - began)
    print(f"{machine()}; {args.rules}, greedy vs greedy, {args.games} games, {decisions} decisions")
    base = best["python path"] / decisions
    for name in paths:
        per = best[name] / decisions
        print(f"  {name:12} {per * 1e6:7.2f} µs per decision   {per / base:5.2f} x the python path")


if __name__ == "__main__":
    main()
