"""Issue 40: the Gymnasium and PettingZoo environments drive the engine's own game.

Both pass their library's checker on every ruleset arena ships; an episode is, event for event,
the game ``arena play --json`` plays with the same seed and decisions; the mask holds exactly
the actions the engine accepts; ``reset(seed=...)`` plays the same game again.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from arena.cli.event_json import EventLines
from arena.cli.main import cli
from arena.engine import PRESETS, Action, Game, IllegalAction, load_ruleset
from arena.engine.loading import variant_names
from arena.envs import SeatEnv, TableEnv, spaces
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.optimal import OptimalPlayer

RULESETS = [*PRESETS, *variant_names()]


@pytest.mark.parametrize("rules", RULESETS)
def test_the_seat_env_passes_gymnasiums_checker(rules: str) -> None:
    check_env(SeatEnv(rules, opponents=["greedy"]), skip_render_check=True)


@pytest.mark.parametrize("rules", RULESETS)
def test_the_table_env_passes_pettingzoos_api_test(rules: str) -> None:
    api_test(TableEnv(rules, n_players=3), num_cycles=300)


def _played_by_cli(rules: str, players: list[str], seed: int) -> list[dict]:
    args = ["play", "--rules", rules, "--seed", str(seed), "--json"]
    for player in players:
        args += ["-p", player]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()[1:]]  # after the "game" line


def _recorder(rules: str, names: list[str]) -> tuple[EventLines, list[dict]]:
    lines: list[dict] = []
    return EventLines(load_ruleset(rules), names, lambda line: lines.append(json.loads(line))), lines


@pytest.mark.parametrize(
    ("rules", "seat", "seed"), [("classic", 0, 11), ("classic", 1, 12), ("standard", 1, 5), ("short", 0, 3)]
)
def test_a_seat_env_episode_is_the_game_arena_play_plays(rules: str, seat: int, seed: int) -> None:
    """The agent plays greedy's decisions, as action numbers; the other seat is optimal."""
    names = ["greedy", "optimal"] if seat == 0 else ["optimal", "greedy"]
    events, lines = _recorder(rules, names)
    env = SeatEnv(rules, opponents=["optimal"], seat=seat, on_event=events)
    env.reset(seed=seed)
    greedy = GreedyPlayer()
    terminated = False
    while not terminated:
        _, reward, terminated, _, info = env.step(spaces.encode(env.view, greedy.decide(env.view)))
    assert lines == _played_by_cli(rules, names, seed)
    assert len(lines) > 50
    assert reward == 2 * info["result"].win_shares[seat] - 1


LISTENER = """
from arena.engine import Action


class Listener:
    \"\"\"Banks from 300 points, or 600 once the table has seen five farkles (told by end_turn).\"\"\"

    name = "listener"

    def start_game(self, info):
        self.farkles = 0

    def end_turn(self, turn):
        self.farkles += turn.how == "farkled"

    def decide(self, view):
        keep = view.legal_keeps[0]
        goal = 600 if self.farkles >= 5 else 300
        return Action(keep.dice, view.may_bank(keep) and view.turn_points + keep.points >= goal)
"""


def test_opponents_get_their_hooks_as_arena_play_gives_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``random`` draws from its GameInfo's seed (start_game); the listener counts what end_turn
    tells it: both must be told exactly what ``arena play`` tells them for the games to agree."""
    monkeypatch.chdir(tmp_path)
    Path("listener.py").write_text(LISTENER)
    rules, seed = "standard", 31
    names = ["random", "greedy", "listener"]
    events, lines = _recorder(rules, names)
    env = SeatEnv(rules, opponents=["random", "listener.py"], seat=1, on_event=events)
    env.reset(seed=seed)
    greedy = GreedyPlayer()
    terminated = False
    while not terminated:
        _, _, terminated, _, _ = env.step(spaces.encode(env.view, greedy.decide(env.view)))
    assert lines == _played_by_cli(rules, ["random", "greedy", "listener.py"], seed)
    assert any(line["type"] == "farkled" for line in lines)


def test_a_table_env_episode_is_the_game_arena_play_plays() -> None:
    rules, seed = "standard", 21
    names = ["greedy", "optimal", "greedy#2"]  # arena play's names for two greedy seats
    events, lines = _recorder(rules, names)
    env = TableEnv(rules, n_players=3, on_event=events)
    env.reset(seed=seed)
    players = [GreedyPlayer(), OptimalPlayer(), GreedyPlayer()]
    for _agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        view = env.table.view
        action = spaces.encode(view, players[view.seat].decide(view))
        assert obs["action_mask"][action] == 1
        env.step(action)
    assert lines == _played_by_cli(rules, ["greedy", "optimal", "greedy"], seed)


def _episode(env: SeatEnv, seed: int, choose: random.Random) -> list[tuple[bytes, float]]:
    obs, info = env.reset(seed=seed)
    steps = [(obs.tobytes(), 0.0)]
    terminated = False
    while not terminated:
        action = choose.choice(np.flatnonzero(info["action_mask"]).tolist())
        obs, reward, terminated, _, info = env.step(action)
        steps.append((obs.tobytes(), reward))
    return steps


def test_reset_with_a_seed_plays_the_same_game_again() -> None:
    env = SeatEnv("classic", opponents=["optimal", "greedy"], seat=1)
    first = _episode(env, 99, random.Random(1))
    _episode(env, 5, random.Random(2))
    assert _episode(env, 99, random.Random(1)) == first
    again = SeatEnv("classic", opponents=["optimal", "greedy"], seat=1)
    assert _episode(again, 99, random.Random(1)) == first
    assert _episode(env, 98, random.Random(1)) != first


@pytest.mark.parametrize("rules", RULESETS)
def test_the_mask_is_exactly_what_the_engine_accepts(rules: str) -> None:
    """At every decision of random games: each action the mask forbids is refused by the
    engine's own game (which changes nothing on a refusal), and a random allowed one is played."""
    ruleset = load_ruleset(rules)
    size = spaces.action_count(ruleset)
    choose = random.Random(rules)
    for seed in range(6):
        game = Game(ruleset, 2, seed)
        while not game.over:
            view = game.view()
            mask = spaces.action_mask(view, size)
            assert len(view.legal_keeps) <= size // 2
            for number in np.flatnonzero(mask == 0):
                k, bank = divmod(int(number), 2)
                assert spaces.decode(view, int(number)) is None
                if k < len(view.legal_keeps):
                    with pytest.raises(IllegalAction):
                        game.step(Action(view.legal_keeps[k].dice, bool(bank)))
            allowed = np.flatnonzero(mask).tolist()
            decided = spaces.decode(view, choose.choice(allowed))
            assert decided is not None
            game.step(decided)


def test_the_observation_is_the_views_from_the_deciding_seats_side() -> None:
    env = SeatEnv("short", opponents=["greedy", "greedy"], seat=2)
    obs, info = env.reset(seed=4)
    view = env.view
    n = 3
    assert obs.shape == (spaces.observation_size(n),) and obs.dtype == np.float32
    assert obs[:6].sum() == len(view.roll) == obs[6]
    assert [obs[face - 1] for face in view.roll] == [view.roll.count(face) for face in view.roll]
    assert obs[7] == view.turn_points and obs[8] == view.bank_minimum
    assert list(obs[12:15]) == [view.scores[2], view.scores[0], view.scores[1]]
    assert list(obs[15:18]) == [view.strikes[2], view.strikes[0], view.strikes[1]]
    assert view.scores[0] > 0 or view.scores[1] > 0  # the opponents have played their turns first
    assert np.array_equal(info["action_mask"], env.action_masks())


def test_an_action_the_mask_forbids_ends_the_episode_as_a_loss() -> None:
    env = SeatEnv("classic", opponents=["greedy"])
    _, info = env.reset(seed=1)
    forbidden = int(np.flatnonzero(info["action_mask"] == 0)[-1])
    _, reward, terminated, truncated, info = env.step(forbidden)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "is not legal here" in info["illegal"]
    assert not info["action_mask"].any()  # the info of every step has the mask; none is legal now
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_an_action_the_mask_forbids_retires_that_agent_of_the_table_env() -> None:
    env = TableEnv("classic", n_players=3)
    env.reset(seed=2)
    first = env.agent_selection
    mask = env.observe(first)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[-1]))
    assert env.agent_selection != first
    results, rewards = [], {}
    for agent in env.agent_iter():
        obs, reward, terminated, _, info = env.last()
        if terminated:
            results.append(info["result"])
            rewards[agent] = reward
        env.step(None if terminated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(results) == 3 and results[0].retired == (int(first[-1]),)
    assert rewards[first] == -1.0 and sum(rewards.values()) == -1.0  # one winner, two losers


def test_points_rewards_add_up_to_the_final_score() -> None:
    env = SeatEnv("standard", opponents=["optimal"], seat=1, reward="points")
    env.reset(seed=8)
    greedy = GreedyPlayer()
    total, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, _, info = env.step(spaces.encode(env.view, greedy.decide(env.view)))
        total += reward
    assert total == info["result"].scores[1] > 0


def test_gymnasium_make_builds_the_seat_env_under_its_id() -> None:
    import gymnasium

    env = gymnasium.make("arena.envs.seat_env:arena/Seat-v0", rules="classic", opponents=["optimal"])
    assert isinstance(env.unwrapped, SeatEnv) and env.spec is not None
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=7)
    same, _ = SeatEnv("classic", opponents=["optimal"]).reset(seed=7)
    assert (obs == same).all() and (info["action_mask"] == env.unwrapped.action_masks()).all()


def test_bad_arguments_are_one_line_errors() -> None:
    with pytest.raises(ValueError, match="reward 'elo': choose one of win, points"):
        SeatEnv("classic", reward="elo")
    with pytest.raises(ValueError, match="seat 2: with 2 seats, choose 0 to 1"):
        SeatEnv("classic", opponents=["greedy"], seat=2)
    with pytest.raises(ValueError, match="unknown strategy 'gredy'"):
        SeatEnv("classic", opponents=["gredy"])
    with pytest.raises(ValueError, match="a cmd: program plays in arena tournament"):
        SeatEnv("classic", opponents=["cmd:python3 bot.py"])  # it said "no such file"
    assert SeatEnv("classic", opponents="greedy").names == ("agent", "greedy")  # not 'g', 'r', ...
