"""Adversarial checks of the compiled path: strategy code read in the main process, runs that
switch paths, and the edges where the kernel and the Python engine could part."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.compiled import read_policy
from arena.engine import PRESETS
from arena.players import load_player_spec
from arena.players.policy import Policy, PolicyPlayer, policy_of
from arena.tournament.batch import BatchPlayer
from arena.tournament.spec import TournamentSpec, player_from_class
from tests.test_compiled_runs import same_files, tournament

pytest.importorskip("numba")


def policy_file(tmp_path: Path, name: str, body: str) -> Path:
    """A strategy file whose ``policy`` property runs ``body`` (its constructor is harmless)."""
    path = tmp_path / f"{name}.py"
    path.write_text(
        "import os, sys, time\n"
        "from arena.players.policy import Policy, PolicyPlayer\n"
        "class Odd(PolicyPlayer):\n"
        f"    name = {name!r}\n"
        "    def __init__(self):\n"
        "        pass\n"
        "    @property\n"
        "    def policy(self):\n"
        f"        {body}\n"
    )
    return path


@pytest.mark.parametrize("body", ["sys.exit(0)", "os._exit(0)"])
def test_a_policy_that_ends_its_process_does_not_end_arena(tmp_path: Path, body: str) -> None:
    """Reading a policy runs strategy code in the main process; a property that exits must
    fault the player's games in Python (as with --compiled off), not end the run empty."""
    strategy = policy_file(tmp_path, "quitter", body)
    args = ("-p", str(strategy), "-p", "greedy", "--rules", "classic", "--games", "4", "--workers", "1")
    code, _, err = tournament(tmp_path / "auto", *args)
    assert code == 0, err
    code, _, err = tournament(tmp_path / "off", *args, "--compiled", "off")
    assert code == 0, err
    same_files(tmp_path / "auto", tmp_path / "off")
    assert len((tmp_path / "auto" / "errors.csv").read_text().splitlines()) == 1 + 4
    code, _, err = tournament(tmp_path / "on", *args, "--compiled", "on")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("arena: error: --compiled on: player 'quitter' ")
    assert not (tmp_path / "on").exists()


def test_a_policy_that_never_returns_is_given_up_on(tmp_path: Path) -> None:
    player = load_player_spec(str(policy_file(tmp_path, "sleeper", "time.sleep(30)")))
    began = time.monotonic()
    policy, why = read_policy(player, timeout=0.5)
    assert policy is None and why == "took longer than 0.5 s to be made and read its policy"
    assert time.monotonic() - began < 5


def test_a_policy_drawn_at_random_plays_in_python(tmp_path: Path) -> None:
    """Python makes a new player per game, so a policy drawn in the constructor differs from game
    to game; the kernel would play one draw for all.  Such a player must play in Python."""
    strategy = tmp_path / "moody.py"
    strategy.write_text(
        "import itertools\n"
        "from arena.players.policy import Policy, PolicyPlayer\n"
        "DRAWS = itertools.cycle([200, 400, 800, 1600])\n"
        "class Moody(PolicyPlayer):\n"
        "    name = 'moody'\n"
        "    def __init__(self):\n"
        "        self.policy = Policy(bank_at=next(DRAWS))\n"
        "        super().__init__()\n"
    )
    player = load_player_spec(str(strategy))
    policy, why = read_policy(player)
    assert policy is None and "changes from player to player" in why
    args = ("-p", str(strategy), "-p", "greedy", "--rules", "classic", "--games", "12", "--workers", "1")
    code, _, err = tournament(tmp_path / "auto", *args)
    assert code == 0, err
    code, _, err = tournament(tmp_path / "off", *args, "--compiled", "off")
    assert code == 0, err
    same_files(tmp_path / "auto", tmp_path / "off")


@dataclass(frozen=True)
class Doubled(Policy):
    """A Policy subclass that reads its threshold otherwise: the kernel can't know."""

    def limit_for(self, dice_left: int, gap: int, target: int) -> int:
        return 2 * super().limit_for(dice_left, gap, target)


class DoubledPlayer(PolicyPlayer):
    name = "doubled"
    policy = Doubled(bank_at=300)


def test_a_subclass_of_policy_is_not_compiled() -> None:
    assert policy_of(DoubledPlayer()) is None
    spec = TournamentSpec(
        (PRESETS["classic"],), (player_from_class(DoubledPlayer), load_player_spec("greedy")), games=6
    )
    fast = BatchPlayer(dataclasses.replace(spec, compiled=True)).play(0, 6)
    assert fast.rows == BatchPlayer(spec).play(0, 6).rows


def test_a_run_reads_each_policy_once(tmp_path: Path) -> None:
    """Reading a policy makes the player (twice, to check it is fixed): a slow constructor is
    paid for once per run in the main process, not once per look at the players."""
    count = tmp_path / "made"
    strategy = tmp_path / "counted.py"
    strategy.write_text(
        "from arena.players.policy import Policy, PolicyPlayer\n"
        "class Counted(PolicyPlayer):\n"
        "    name = 'counted'\n"
        "    policy = Policy(bank_at=350)\n"
        "    def __init__(self):\n"
        f"        with open({str(count)!r}, 'a') as f:\n"
        "            f.write('x')\n"
        "        super().__init__()\n"
    )
    args = ("-p", str(strategy), "-p", "greedy", "--rules", "classic", "--games", "4", "--workers", "1")
    code, _, err = tournament(tmp_path / "run", *args, "--compiled", "on")
    assert code == 0, err
    # One at load (check_player), two by --compiled on's check, two to build the kernel.
    assert count.read_text() == "x" * 5
