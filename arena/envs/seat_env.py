"""A Gymnasium environment: one seat of a game of 10,000, the other seats played by arena strategies.

::

    from arena.envs import SeatEnv

    env = SeatEnv("classic", opponents=["optimal"])
    obs, info = env.reset(seed=7)          # the game `arena play --seed 7` plays
    action = int(np.flatnonzero(info["action_mask"])[0])
    obs, reward, terminated, truncated, info = env.step(action)

The spaces and the mask are those of :mod:`arena.envs.spaces`; ``info["action_mask"]`` holds
the mask, and :meth:`SeatEnv.action_masks` returns it for sb3-contrib's MaskablePPO.  The
agent sits in ``seat`` (0 plays first); ``opponents`` are player specs, one per other seat, in
seat order, played in this process (Python strategies: a ``cmd:`` program or ``--isolate`` is
for tournaments).  The game is the engine's own (:mod:`arena.envs.table`): ``reset(seed=s)`` plays
the game of seed ``s`` exactly (without a seed, one is drawn from the environment's
``np_random``).

Rewards: ``"win"`` (the default) gives nothing until the game ends, then ``2 * share - 1``:
+1 for a sole win, -1 for a loss, 0 for a win shared by two.  ``"points"`` gives after each
step the change of the agent's banked score since its previous decision (a bank's points, a
penalty or a strike-out as a loss).  An action the mask forbids is a fault, as in a tournament
(docs/faults.md): the episode ends there as a loss (-1, or 0 under ``"points"``), with the
reason in ``info["illegal"]``.  Episodes always end by the rules (the engine's round limit
included), so ``truncated`` is always False.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena.engine import DEFAULT_MAX_ROUNDS, Ruleset, load_ruleset
from arena.engine import events as ev
from arena.envs import missing_extra, spaces
from arena.envs.rewards import REWARDS, final_reward
from arena.envs.table import BotTable
from arena.players.loading import PlayerSpec, load_player_spec

try:
    import gymnasium as gym
except ModuleNotFoundError as exc:  # the rl extra is not installed: say so in one line
    raise missing_extra(exc) from None

#: Seeds drawn when ``reset`` is given none: the range ``arena play`` draws its own from.
_SEED_RANGE = 2**63


class SeatEnv(gym.Env[np.ndarray, np.int64]):
    """One seat of a game of 10,000 against arena strategies (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012  (declared so by gymnasium.Env)

    def __init__(
        self,
        rules: str | Ruleset = "standard",
        opponents: Sequence[str] = ("optimal",),
        *,
        seat: int = 0,
        reward: str = "win",
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        on_event: Callable[[ev.Event], None] | None = None,
    ) -> None:
        self.rules = load_ruleset(rules)
        if isinstance(opponents, str):  # one spec, not its letters
            opponents = [opponents]
        for text in opponents:
            if text.strip().startswith("cmd:"):
                raise ValueError(
                    f"{text}: a cmd: program plays in arena tournament, duel and league; "
                    "SeatEnv's opponents are Python strategies (a built-in, a file or a module)"
                )
        n = len(opponents) + 1
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat}: with {n} seats, choose 0 to {n - 1}")
        if reward not in REWARDS:
            raise ValueError(f"reward {reward!r}: choose one of {', '.join(REWARDS)}")
        self.specs: list[PlayerSpec] = [load_player_spec(text) for text in opponents]
        self.n_players = n
        self.seat = seat
        self.reward_kind = reward
        self.max_rounds = max_rounds
        self.on_event = on_event
        self.n_actions = spaces.action_count(self.rules)
        self.observation_space = gym.spaces.Box(
            0.0, spaces.OBSERVATION_HIGH, shape=(spaces.observation_size(n),), dtype=np.float32
        )
        self.action_space = gym.spaces.Discrete(self.n_actions)
        others = iter(self.specs)
        self.names = tuple("agent" if s == seat else next(others).label for s in range(n))
        self.table: BotTable | None = None
        self._score = 0

    # ---------------------------------------------------------------- the Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(_SEED_RANGE))
        others = iter(self.specs)
        bots = {s: next(others).create() for s in range(self.n_players) if s != self.seat}
        self.table = BotTable(
            self.rules,
            self.n_players,
            game_seed,
            bots,
            self.names,
            max_rounds=self.max_rounds,
            on_event=self.on_event,
        )
        self.game_seed = game_seed
        self._score = 0
        return self._observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        table = self.table
        if table is None or table.view is None:
            raise RuntimeError("the episode is over: call reset() first")
        decided = spaces.decode(table.view, int(action))
        if decided is None:
            self.table = None
            obs = np.zeros(spaces.observation_size(self.n_players), dtype=np.float32)
            reason = f"action {int(action)} is not legal here (see info['action_mask'])"
            info = {"illegal": reason, "action_mask": self.action_masks()}  # all 0: the game is over
            return obs, (-1.0 if self.reward_kind == "win" else 0.0), True, False, info
        table.act(decided)
        result = table.result
        if self.reward_kind == "points":
            score = table.game.scores[self.seat]
            reward, self._score = float(score - self._score), score
        else:
            reward = final_reward(result, self.seat) if result is not None else 0.0
        return self._observation(), reward, result is not None, False, self._info()

    # ---------------------------------------------------------------- for masked learners
    def action_masks(self) -> np.ndarray:
        """The mask of the pending decision (all zeros once the game is over): MaskablePPO's hook."""
        view = None if self.table is None else self.table.view
        if view is None:
            return np.zeros(self.n_actions, dtype=np.int8)
        return spaces.action_mask(view, self.n_actions)

    @property
    def view(self) -> Any:
        """The engine's :class:`~arena.engine.TurnView` of the pending decision, or None."""
        return None if self.table is None else self.table.view

    def _observation(self) -> np.ndarray:
        view = self.view
        if view is None:  # the game is over: the final scores, from the agent's side
            assert self.table is not None
            obs = np.zeros(spaces.observation_size(self.n_players), dtype=np.float32)
            scores = self.table.game.scores
            start = 12
            obs[start : start + self.n_players] = [
                scores[(self.seat + i) % self.n_players] for i in range(self.n_players)
            ]
            return obs
        return spaces.observe(view)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.action_masks()}
        assert self.table is not None
        result = self.table.result
        if result is not None:
            info["result"] = result
        return info


#: The Gymnasium id of :class:`SeatEnv`: ``gymnasium.make("arena.envs.seat_env:arena/Seat-v0",
#: rules="classic", opponents=["optimal"])`` (Gymnasium imports the module before the colon,
#: which registers it; after ``import arena.envs.seat_env``, the id alone does).
ENV_ID = "arena/Seat-v0"

if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="arena.envs.seat_env:SeatEnv")
