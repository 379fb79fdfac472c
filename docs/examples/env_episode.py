"""One episode of arena's Gymnasium environment, with random legal actions (docs/guides/train-a-bot.md)."""

import numpy as np

from arena.envs import SeatEnv

env = SeatEnv("classic", opponents=["optimal"])
obs, info = env.reset(seed=7)
print("observation", obs.shape, "actions", env.action_space.n)
print("roll", env.view.roll, "-> allowed actions", np.flatnonzero(info["action_mask"]).tolist())
rng = np.random.default_rng(0)
steps, terminated = 0, False
while not terminated:
    action = rng.choice(np.flatnonzero(info["action_mask"]))
    obs, reward, terminated, truncated, info = env.step(action)
    steps += 1
print(steps, "steps; reward", reward, "; final scores", info["result"].scores)
