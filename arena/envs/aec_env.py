"""A PettingZoo AEC environment: every seat of a game of 10,000 is an agent.

::

    from arena.envs import TableEnv

    env = TableEnv("standard", n_players=3)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        env.step(action)

Agents are ``seat_0`` ... ``seat_{n-1}`` in playing order.  An observation is a dict, as in
PettingZoo's classic games: ``"observation"`` (:func:`arena.envs.spaces.observe`, from that
seat's side) and ``"action_mask"``.  The agent to act is the seat the engine's game asks next
(a turn is several decisions of one seat in a row).  Rewards as :class:`~arena.envs.SeatEnv`'s:
``"win"`` gives each seat ``2 * share - 1`` when the game ends; ``"points"`` gives every seat
the change of its banked score at each step.  An action the mask forbids is a fault: that seat
is retired (out, ranked last, no win: docs/faults.md) and the others play on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from arena.engine import DEFAULT_MAX_ROUNDS, Ruleset, load_ruleset
from arena.engine import events as ev
from arena.envs import missing_extra, spaces
from arena.envs.rewards import REWARDS, final_reward
from arena.envs.table import BotTable

try:
    import gymnasium as gym
    from pettingzoo import AECEnv
except ModuleNotFoundError as exc:  # the rl extra is not installed: say so in one line
    raise missing_extra(exc) from None

_SEED_RANGE = 2**63


class TableEnv(AECEnv[str, dict[str, np.ndarray], int | None]):
    """Every seat an agent (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": [],
        "name": "arena_10000_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | Ruleset = "standard",
        n_players: int = 2,
        *,
        reward: str = "win",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        on_event: Callable[[ev.Event], None] | None = None,
    ) -> None:
        super().__init__()
        if n_players < 1:
            raise ValueError(f"a game needs at least one seat, got n_players={n_players}")
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}: choose one of {', '.join(REWARDS)}")
        self.rules = load_ruleset(rules)
        self.n_players = n_players
        self.reward_kind = reward
        self.max_rounds = max_rounds
        self.on_event = on_event
        self.n_actions = spaces.action_count(self.rules)
        self.possible_agents = [f"seat_{s}" for s in range(n_players)]
        size = spaces.observation_size(n_players)
        self.observation_spaces = {
            agent: gym.spaces.Dict(
                {
                    "observation": gym.spaces.Box(
                        0.0, spaces.OBSERVATION_HIGH, shape=(size,), dtype=np.float32
                    ),
                    "action_mask": gym.spaces.Box(0, 1, shape=(self.n_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: gym.spaces.Discrete(self.n_actions) for agent in self.possible_agents}
        self.table: BotTable | None = None
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gym.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gym.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = seed if seed is not None else int(self._rng.integers(_SEED_RANGE))
        self.game_seed = game_seed
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        names = tuple(self.possible_agents)
        self.table = BotTable(
            self.rules,
            self.n_players,
            game_seed,
            {},
            names,
            max_rounds=self.max_rounds,
            on_event=self.on_event,
        )
        self._after_move()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        view = None if self.table is None else self.table.view
        if view is not None and view.seat == seat:
            return {
                "observation": spaces.observe(view),
                "action_mask": spaces.action_mask(view, self.n_actions),
            }
        size = spaces.observation_size(self.n_players)
        obs = np.zeros(size, dtype=np.float32)
        if self.table is not None:  # not this seat's decision: the banked scores, from its side
            scores = self.table.game.scores
            obs[12 : 12 + self.n_players] = [
                scores[(seat + i) % self.n_players] for i in range(self.n_players)
            ]
        return {"observation": obs, "action_mask": np.zeros(self.n_actions, dtype=np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.table is not None and self.table.view is not None
        seat = self.possible_agents.index(agent)
        before = self.table.game.scores
        self._cumulative_rewards[agent] = 0.0
        decided = None if action is None else spaces.decode(self.table.view, int(action))
        if decided is None:
            self.infos[agent] = {"illegal": f"action {action} is not legal here (see the action mask)"}
            self.table.retire(seat)
        else:
            self.table.act(decided)
        after = self.table.game.scores
        for s, other in enumerate(self.possible_agents):
            self.rewards[other] = float(after[s] - before[s]) if self.reward_kind == "points" else 0.0
        self._after_move()
        self._accumulate_rewards()

    def _after_move(self) -> None:
        """Select the seat the game asks next; at the game's end, the final rewards and every
        agent terminated (each then steps ``None`` once, as PettingZoo's AEC games do)."""
        assert self.table is not None
        result = self.table.result
        if result is None:
            assert self.table.view is not None
            self.agent_selection = self.possible_agents[self.table.view.seat]
            return
        for s, agent in enumerate(self.possible_agents):
            if self.reward_kind == "win":
                self.rewards[agent] = final_reward(result, s)
            self.terminations[agent] = True
            self.infos[agent] = {**self.infos.get(agent, {}), "result": result}
        self.agent_selection = self.agents[0]
