"""``--compiled auto|on|off`` end to end: the same run folder bytes on both paths, for any
workers and batch size, in mixed fields too; clear refusals; no numba, no harm.

(The kernel itself is checked game by game against the Python engine in test_compiled.py.)
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.compiled import read_policy
from arena.engine import PRESETS, Action, TurnView
from arena.players import load_player_spec
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.random_player import RandomPlayer
from arena.players.builtin.threshold import ThresholdPlayer
from arena.players.policy import Policy, PolicyPlayer, policy_of
from arena.tournaments.batch import BatchPlayer
from arena.tournaments.spec import TournamentSpec, player_from_class

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parent.parent
DECLARATIVE = str(ROOT / "strategies" / "declarative.py")
NO_POLICY = str(ROOT / "strategies" / "catch_up.py")  # a strategy without a declarative policy
REPORTS = ("games.csv", "summary.csv", "pairwise.csv", "errors.csv")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def tournament(out: Path, *args: str) -> tuple[int, str, str]:
    return run("tournament", "--out", str(out), "--no-progress", *args)


def same_files(a: Path, b: Path) -> None:
    for name in REPORTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


FIELD = (
    "-p", "threshold:bank_at=450,min_dice=2", "-p", "greedy", "-p", "random", "-p", "optimal",
    "-p", DECLARATIVE,
    "--rules", "standard", "--rules", "short-evening",
    "--games", "12", "--seed", "11",  # 240 games: 35 batches of 7
)  # fmt: skip


def test_compiled_and_python_runs_write_the_same_bytes_for_any_workers_and_batches(tmp_path: Path) -> None:
    code, _, err = tournament(tmp_path / "off", *FIELD, "--compiled", "off", "--workers", "1")
    assert code == 0, err
    for name, extra in {
        "on": ("--compiled", "on", "--workers", "2"),
        "on-batches": ("--compiled", "on", "--workers", "2", "--batch-size", "7"),
        "auto": ("--workers", "1"),
    }.items():
        code, _, err = tournament(tmp_path / name, *FIELD, *extra)
        assert code == 0, err
        same_files(tmp_path / "off", tmp_path / name)


def test_a_mixed_field_plays_the_rest_in_python_in_game_order(tmp_path: Path) -> None:
    mixed = ("-p", NO_POLICY, "-p", "greedy", "-p", "random", "--rules", "classic", "--games", "24")
    code, _, err = tournament(tmp_path / "off", *mixed, "--compiled", "off", "--workers", "1")
    assert code == 0, err
    code, _, err = tournament(
        tmp_path / "auto", *mixed, "--compiled", "auto", "--workers", "2", "--batch-size", "5"
    )
    assert code == 0, err
    same_files(tmp_path / "off", tmp_path / "auto")


def test_compiled_on_refuses_a_player_without_a_policy_before_making_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, _, err = tournament(out, "-p", NO_POLICY, "-p", "greedy", "--games", "4", "--compiled", "on")
    assert code == 2
    assert err.strip().splitlines() == [
        "arena: error: --compiled on: player 'catch-up:base=300,share_of_gap=0.5' has no declarative policy "
        "(see docs/declarative.md); it plays in Python"
    ]
    assert not out.exists()
    code, _, err = run("duel", NO_POLICY, "greedy", "--compiled", "on", "--out", str(out))
    assert code == 2 and "--compiled on: player 'catch-up:" in err
    assert not out.exists()


def test_compiled_on_refuses_isolated_players(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, _, err = tournament(
        out, "-p", "greedy", "-p", "threshold", "--isolate", "--games", "2", "--compiled", "on"
    )
    assert code == 2 and "is isolated" in err
    assert not out.exists()


def test_duel_compiled_and_python_agree(tmp_path: Path) -> None:
    args = ("threshold", "optimal", "--rules", "classic", "--sprt", "elo0=0,elo1=40", "--max-games", "600")
    for mode in ("on", "off"):
        code, _, err = run("duel", *args, "--compiled", mode, "--out", str(tmp_path / mode), "--no-progress")
        assert code == 0, err
    assert (tmp_path / "on" / "games.csv").read_bytes() == (tmp_path / "off" / "games.csv").read_bytes()


def test_without_numba_auto_plays_in_python_and_on_says_how_to_install(tmp_path: Path) -> None:
    script = "import sys; sys.modules['numba'] = None\nfrom arena.cli.main import cli\ncli(sys.argv[1:])\n"

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120
        )

    on = arena(
        "tournament", "-p", "greedy", "-p", "threshold", "--games", "4", "--compiled", "on", "--out", "x"
    )
    assert on.returncode == 2
    assert on.stderr.strip() == (
        "arena: error: --compiled on: numba is not installed: "
        "pip install numba (in a checkout of arena: pip install -e '.[fast]')"
    )
    auto = arena(
        "tournament", "-p", "greedy", "-p", "threshold", "--games", "6", "--out", "auto", "--no-progress"
    )
    assert auto.returncode == 0, auto.stderr
    code, _, err = tournament(
        tmp_path / "off", "-p", "greedy", "-p", "threshold", "--games", "6", "--compiled", "off"
    )
    assert code == 0, err
    same_files(tmp_path / "auto", tmp_path / "off")


class OwnDecide(GreedyPlayer):
    """Inherits greedy's policy but decides otherwise: must never be played by the kernel."""

    name = "own-decide"

    def decide(self, view: TurnView) -> Action:
        keep = view.legal_keeps[-1]
        return Action(keep.dice, view.bank_allowed(keep) and not view.overshoots(keep))


class LoudRandom(RandomPlayer):
    def end_game(self, result: object) -> None:  # a hook the kernel would not call
        pass


class Interpreted(PolicyPlayer):
    name = "interpreted"
    policy = Policy(keep="most_dice", bank_at=600)


def test_a_policy_counts_only_when_the_class_plays_it() -> None:
    assert policy_of(GreedyPlayer()) == Policy(keep="most_dice", bank="threshold", bank_at=0)
    assert policy_of(ThresholdPlayer(450, 2)) is not None
    assert policy_of(Interpreted()) == Policy(keep="most_dice", bank_at=600)
    assert policy_of(OwnDecide()) is None
    assert policy_of(LoudRandom()) is None


def test_a_subclass_with_its_own_decide_plays_its_own_games(tmp_path: Path) -> None:
    own = tmp_path / "own.py"
    own.write_text(
        "from arena.engine import Action\n"
        "from arena.players.builtin.greedy import GreedyPlayer\n"
        "class OwnDecide(GreedyPlayer):\n"
        "    name = 'own-decide'\n"
        "    def decide(self, view):\n"
        "        keep = view.legal_keeps[-1]\n"
        "        return Action(keep.dice, view.bank_allowed(keep) and not view.overshoots(keep))\n"
    )
    args = ("-p", f"{own}:OwnDecide", "-p", "greedy", "--rules", "classic", "--games", "20")
    code, _, err = tournament(tmp_path / "auto", *args)
    assert code == 0, err
    code, _, err = tournament(tmp_path / "off", *args, "--compiled", "off")
    assert code == 0, err
    same_files(tmp_path / "auto", tmp_path / "off")
    code, _, err = tournament(tmp_path / "on", *args, "--compiled", "on")
    assert code == 2 and "own-decide" in err and "no declarative policy" in err


# --- strategy code read in the main process, runs that switch paths -----------------------------
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


def _spec(games: int = 40) -> TournamentSpec:
    players = (load_player_spec("threshold"), load_player_spec("greedy"))
    return TournamentSpec(
        (PRESETS["standard"],), players, games=games, seed=3, compiled=True, chunk_games=20
    )


def test_the_workers_load_the_kernel_and_the_main_process_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: the main process goes on with its own work while each worker loads the kernel."""
    import os

    from arena.tournaments.compiled_games import CompiledGames
    from arena.tournaments.runner import batch_results

    loaded_in = tmp_path / "loaded-in"
    real_load = CompiledGames.load

    def load(self: CompiledGames) -> None:
        with open(loaded_in, "a") as file:
            file.write(f"{os.getpid()}\n")
        real_load(self)

    monkeypatch.setattr(CompiledGames, "load", load)
    spec = _spec(40 * 2)
    waited: list[int] = []
    with batch_results(spec, 0, spec.games, 2, while_waiting=lambda: waited.append(os.getpid())) as results:
        rows = "".join(r.rows for r in results)
    assert rows == BatchPlayer(spec, kernel=None).play(0, spec.games).rows
    pids = loaded_in.read_text().split()
    assert len(pids) == 2 and str(os.getpid()) not in pids  # one load per worker, none here
    assert waited == [os.getpid()]  # the caller's own work ran once, here


def test_a_kernel_that_cannot_load_stops_the_run_with_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournaments.compiled_games import CompiledGames
    from arena.tournaments.runner import BatchFailed, batch_results

    def load(self: CompiledGames) -> None:
        raise RuntimeError("LLVM ran out of\nmemory")

    monkeypatch.setattr(CompiledGames, "load", load)
    spec = _spec()
    with pytest.raises(BatchFailed) as caught, batch_results(spec, 0, spec.games, 1) as results:
        list(results)
    assert str(caught.value) == "the compiled kernel could not be loaded (LLVM ran out of memory)"
