"""The Python API: arena.tournament, arena.duel, arena.play, arena.load_run."""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import arena
from arena.cli.main import cli
from arena.engine import CLASSIC
from arena.engine import play as engine_play
from arena.engine.events import GameOver, Rolled
from arena.players import Action, PlayerFault
from arena.tuning import TuneError

# The same strategy as a file for the command line; the tests define it again inside themselves.
BOT_FILE = '''
from arena.players import Action


class SteadyBot:
    """Banks once the turn is worth bank_at."""

    name = "steady"

    def __init__(self, bank_at: int = 350) -> None:
        self.bank_at = bank_at

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= self.bank_at)
'''


def cli_run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def greedy_decide(view):  # a plain decider, the form arena.engine.play takes
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep) and not view.overshoots(keep))


def test_a_class_defined_here_gives_the_cli_bytes_of_the_same_class_in_a_file(tmp_path: Path) -> None:
    class SteadyBot:
        """Banks once the turn is worth bank_at."""

        name = "steady"

        def __init__(self, bank_at: int = 350) -> None:
            self.bank_at = bank_at

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(
                keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= self.bank_at
            )

    run = arena.tournament(
        rules=["classic", "standard"],
        players=[SteadyBot, (SteadyBot, {"bank_at": 500}), "greedy"],
        games=20,
        seed=7,
        workers=2,
        out=tmp_path / "api",
    )
    bot = tmp_path / "steady.py"
    bot.write_text(BOT_FILE)
    cli_run(
        "tournament", "--rules", "classic", "--rules", "standard", "-p", str(bot),
        "-p", f"{bot}:bank_at=500", "-p", "greedy", "--games", "20", "--seed", "7",
        "--workers", "1", "--out", str(tmp_path / "cli"),
    )  # fmt: skip
    for name in ("games.csv", "summary.csv", "pairwise.csv", "errors.csv"):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert {"errors.log", "run.json", "spec.json", "games.idx"} <= {p.name for p in run.folder.iterdir()}
    assert set(run.summary["player"]) == {"steady", "steady:bank_at=500", "greedy"}


def test_the_result_holds_the_files_as_dataframes(tmp_path: Path) -> None:
    run = arena.tournament(
        rules="classic", players=["greedy", ("threshold", {"bank_at": 400})], games=10, out=tmp_path / "r"
    )
    assert run.folder == tmp_path / "r" and run.complete and run.games_played == 10
    for name, frame in (("summary", run.summary), ("pairwise", run.pairwise), ("games", run.games)):
        on_disk = pd.read_csv(run.folder / f"{name}.csv")
        assert list(frame.columns) == list(on_disk.columns), name
        assert len(frame) == len(on_disk), name
    on_disk = pd.read_csv(run.folder / "summary.csv")
    assert list(run.summary["player"]) == list(on_disk["player"])
    assert run.summary["win_rate"].to_numpy() == pytest.approx(on_disk["win_rate"].to_numpy(), abs=1e-6)
    assert run.games["win"].sum() == 10  # one win per game
    assert "threshold:bank_at=400" in str(run) and "win rate" in str(run)
    assert run.errors.empty


def test_gauntlet_and_free_for_all_options_pass_through(tmp_path: Path) -> None:
    run = arena.tournament(
        "classic", ["greedy", "random", "threshold"], format="gauntlet", games=4, out=tmp_path / "g"
    )
    assert (tmp_path / "g" / "gauntlet.csv").is_file() and set(run.gauntlet["opponent"]) == {
        "random",
        "threshold:bank_at=300,min_dice=3",
    }
    ffa = arena.tournament(
        "classic", ["greedy", "random", "threshold"], format="free-for-all", games=6, out=tmp_path / "f"
    )
    assert (ffa.games.groupby("game").size() == 3).all()


def test_a_faulty_class_loses_its_games_and_the_run_goes_on(tmp_path: Path) -> None:
    class Broken:
        name = "broken"

        def decide(self, view):
            raise RuntimeError("boom")

    run = arena.tournament("classic", [Broken, "greedy"], games=4, out=tmp_path / "b")
    assert run.complete
    assert set(run.errors["player"]) == {"broken"} and len(run.errors) == 4
    assert run.errors["reason"].str.contains("boom").all()
    assert "RuntimeError: boom" in (tmp_path / "b" / "errors.log").read_text()


def test_load_run_reads_a_partial_run(tmp_path: Path) -> None:
    arena.tournament("classic", ["greedy", "random"], games=40, out=tmp_path / "whole")
    part = tmp_path / "part"
    part.mkdir()
    shutil.copy(tmp_path / "whole" / "spec.json", part)
    lines = (tmp_path / "whole" / "games.csv").read_bytes().splitlines(keepends=True)
    (part / "games.csv").write_bytes(b"".join(lines[: 1 + 2 * 15]) + lines[31][:10])  # 15 games, a torn line
    run = arena.load_run(part)
    assert run.games_played == 15 and run.games_total == 40 and not run.complete
    assert run.info == {} and run.summary["games"].sum() == 30 and len(run.games) == 30
    whole = arena.load_run(tmp_path / "whole")
    assert whole.complete and whole.games_played == 40
    assert list(whole.summary.columns) == list(run.summary.columns)


def test_a_run_of_classes_resumes_with_the_same_classes(tmp_path: Path) -> None:
    class Banker:
        name = "banker"

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 400)

    whole = arena.tournament("classic", [Banker, "greedy"], games=20, batch_size=4, out=tmp_path / "r")
    expected = (whole.folder / "games.csv").read_bytes()
    (whole.folder / "games.csv").write_bytes(expected[: len(expected) // 2])  # as a kill leaves it
    for name in ("summary.csv", "pairwise.csv", "run.json"):
        (whole.folder / name).unlink()
    assert not arena.load_run(whole.folder).complete
    with pytest.raises(arena.ArenaError, match=r"came from a Python class.*players=\[\.\.\.\]"):
        arena.tournament(resume=whole.folder)
    with pytest.raises(arena.ArenaError, match="different tournament"):
        arena.tournament(resume=whole.folder, players=["random", "greedy"])
    resumed = arena.tournament(resume=whole.folder, players=[Banker, "greedy"])
    assert resumed.complete and (whole.folder / "games.csv").read_bytes() == expected
    assert resumed.info["resumed_at_game"] > 0


def test_duel_returns_the_verdict_and_saves_the_cli_files(tmp_path: Path) -> None:
    class Banker:
        name = "banker"

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 350)

    result = arena.duel(Banker, "greedy", rules="classic", games=40, out=tmp_path / "d")
    assert (result.a, result.b) == ("banker", "greedy") and result.verdict is None and result.complete
    assert 0 <= result.score_interval[0] <= result.score <= result.score_interval[1] <= 1
    assert sum(result.pentanomial) == 20 and len(result.games) == 80
    saved = json.loads((tmp_path / "d" / "duel.json").read_text())
    assert saved == result.data and saved["games"] == 40
    assert "banker vs greedy on classic: 40 games" in str(result)
    assert arena.load_run(tmp_path / "d").complete


def test_duel_with_an_sprt_stops_when_it_decides(tmp_path: Path) -> None:
    result = arena.duel("optimal", "random", rules="classic", sprt="elo0=0,elo1=100", out=tmp_path / "s")
    assert result.verdict == "H1" and result.complete
    assert result.outcome.tally.games < 20_000 and result.data["sprt"]["accepted"] == "H1"


def test_duel_matches_the_cli_duel(tmp_path: Path) -> None:
    result = arena.duel(
        "greedy", ("threshold", {"bank_at": 400}), rules="classic", games=30, seed=3, out=tmp_path / "a"
    )
    cli_run("duel", "greedy", "threshold:bank_at=400", "--rules", "classic", "--games", "30", "--seed", "3",
            "--out", str(tmp_path / "c"))  # fmt: skip
    assert (tmp_path / "a" / "games.csv").read_bytes() == (tmp_path / "c" / "games.csv").read_bytes()
    cli_json = json.loads((tmp_path / "c" / "duel.json").read_text())
    assert {k: v for k, v in cli_json.items() if k != "folder"} == {
        k: v for k, v in result.data.items() if k != "folder"
    }


def test_play_returns_the_events_of_one_game() -> None:
    class Banker:
        name = "banker"

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 300)

    record = arena.play([greedy_decide, Banker], rules="classic", seed=42)
    assert record.names == ("greedy_decide", "banker") and record.seed == 42
    assert isinstance(record.events[-1], GameOver) and any(isinstance(e, Rolled) for e in record.events)
    same = engine_play(CLASSIC, [greedy_decide, Banker().decide], seed=42)
    assert (record.scores, record.winners, record.turns) == (same.scores, same.winners, same.turns)
    again = arena.play(["greedy", "greedy"], rules="classic", seed=42)
    assert again.names == ("greedy", "greedy#2")


def test_play_records_the_fault_of_a_strategy_and_plays_on() -> None:
    class Cheat:
        name = "cheat"

        def decide(self, view):
            return Action((9,), True)

    record = arena.play([Cheat, "greedy"], rules="classic", seed=1)
    (fault,) = record.faults
    assert isinstance(fault, PlayerFault) and (fault.seat, fault.status) == (0, "illegal")
    assert record.winners == (1,) and record.result.ranks == (2, 1) and record.result.retired == (0,)
    # Three seats: the other two finish the game.
    record = arena.play([Cheat, "greedy", "threshold"], rules="classic", seed=1)
    assert [f.seat for f in record.faults] == [0] and record.result.reason == "target"
    assert record.result.ranks[0] == 3 and record.result.win_shares[0] == 0
    assert max(record.scores[1:]) >= 10_000


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda out: arena.tournament("nope", ["greedy", "random"], out=out), "unknown ruleset"),
        (lambda out: arena.tournament("classic", ["greedy", 42], out=out), "a player is a spec string"),
        (lambda out: arena.tournament("classic", ["greedy"], out=out), "at least two players"),
        (lambda out: arena.tournament("classic", [("threshold", {"nope": 1}), "greedy"], out=out), "nope"),
        (lambda out: arena.tournament("classic", [object, "greedy"], out=out), "not a Player class"),
        (lambda out: arena.tournament("classic", ["greedy", "random"], games=0, out=out), "games must be"),
        (lambda out: arena.duel("greedy", "random", sprt="elo0=x", out=out), "sprt: elo0 must be a number"),
        (lambda out: arena.duel("greedy", "random", rules=["classic", "short"], out=out), "one ruleset"),
        (lambda out: arena.play(["greedy", "perfect"], rules="short"), "perfect"),
    ],
)
def test_bad_input_is_one_arena_error(tmp_path: Path, call, message: str) -> None:
    with pytest.raises(arena.ArenaError) as caught:
        call(tmp_path / "out")
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_a_class_with_unknown_parameters_is_refused_naming_the_known_ones() -> None:
    class Bot:
        name = "bot"

        def __init__(self, bank_at: int = 300) -> None:
            self.bank_at = bank_at

        def decide(self, view):
            keep = view.legal_keeps[0]
            return Action(keep.dice, view.bank_allowed(keep))

    with pytest.raises(arena.ArenaError, match="unknown parameter 'bank' \\(parameters: bank_at\\)"):
        arena.play([(Bot, {"bank": 1}), "greedy"])


def test_an_existing_folder_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    with pytest.raises(arena.ArenaError, match="exists"):
        arena.tournament("classic", ["greedy", "random"], games=2, out=tmp_path / "taken")


def test_load_run_refuses_what_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(arena.ArenaError, match="no such run folder"):
        arena.load_run(tmp_path / "missing")
    with pytest.raises(arena.ArenaError, match=r"no games\.csv"):
        arena.load_run(tmp_path)


def test_import_arena_is_light_and_arena_tournament_stays_callable() -> None:
    code = (
        "import sys, arena\n"
        "heavy = [m for m in ('pandas', 'numpy', 'numba', 'arena.tournaments') if m in sys.modules]\n"
        "import arena.tournaments.spec\n"
        "print(heavy, callable(arena.tournament), arena.tournaments.TournamentSpec.__name__,\n"
        "      sorted(set(arena.__all__) - set(dir(arena))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[0] == "[] True TournamentSpec []"
    # A plain function that help() and Jupyter can show, and nothing private in dir(arena).
    assert inspect.isfunction(arena.tournament)
    assert "players" in inspect.signature(arena.tournament).parameters
    assert dir(arena) == sorted(arena.__all__)
    for name in arena.__all__:
        assert getattr(arena, name) is not None


def test_class_parameters_are_typed_as_on_the_command_line(tmp_path: Path) -> None:
    # A string is converted as the CLI converts its text, so the games are the CLI's; a value of
    # the wrong type is one line, not a strategy that loses every game to a TypeError.
    from arena.players.builtin.threshold import ThresholdPlayer

    with pytest.raises(arena.ArenaError, match="bank_at must be int, got 'lots'"):
        arena.tournament(rules=["classic"], players=[(ThresholdPlayer, {"bank_at": "lots"}), "random"],
                         games=10, out=tmp_path / "bad")  # fmt: skip
    with pytest.raises(arena.ArenaError, match=r"bank_at must be int, got 2\.5"):
        arena.tournament(rules=["classic"], players=[(ThresholdPlayer, {"bank_at": 2.5}), "random"],
                         games=10, out=tmp_path / "bad2")  # fmt: skip
    assert not (tmp_path / "bad").exists() and not (tmp_path / "bad2").exists()
    texts = []
    for value in ("500", 500):
        out = tmp_path / f"run-{type(value).__name__}"
        arena.tournament(rules=["classic"], players=[(ThresholdPlayer, {"bank_at": value}), "random"],
                         games=20, seed=3, out=out)  # fmt: skip
        texts.append((out / "games.csv").read_text())
    assert texts[0] == texts[1]


def test_out_none_keeps_the_results_in_the_objects_and_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    run = arena.tournament(rules="classic", players=["greedy", "random"], games=20, workers=1)
    duel = arena.duel("greedy", "random", rules="classic", games=20, workers=1)
    assert list((tmp_path / "tmp").iterdir()) == []  # nothing left behind
    assert run.folder is None and duel.folder is None
    assert run.complete and len(run.games) == 40 and run.spec["games"] == 20 and run.info["seed"] == 0
    assert len(duel.games) == 40 and "folder" not in duel.data
    kept = arena.tournament(rules="classic", players=["greedy", "random"], games=20, out=tmp_path / "k")
    assert kept.games.equals(run.games)  # the same games as in a folder of its own
    assert "saved in" not in str(duel)


def test_compare_gives_the_paired_comparison_as_a_dataframe(tmp_path: Path) -> None:
    def run(name: str, games: int, players=("greedy", "random")):
        return arena.tournament(rules="classic", players=list(players), games=games, out=tmp_path / name)

    a, b = run("a", 20), run("b", 40)
    frame = arena.compare(a, b)
    assert list(frame["player"]) == ["greedy", "random"] and frame["paired"].all()
    assert frame.attrs["rulesets"][0]["deals"] == 10  # the 10 deals both runs played, same dice
    assert frame["difference"].abs().max() == 0.0  # the same deals give the same games
    same = arena.compare(tmp_path / "a", str(tmp_path / "b"))  # folders work as well as runs
    assert same.equals(frame)
    other = run("c", 20, ("greedy", "threshold"))
    with pytest.raises(arena.ArenaError, match="not runs of the same field"):
        arena.compare(a, other)
    forced = arena.compare(a, other, force=True)
    assert list(forced["player"]) == ["greedy"] and forced.attrs["forced"]


def test_run_plot_draws_the_command_lines_figures(tmp_path: Path) -> None:
    run = arena.tournament(rules="classic", players=["greedy", "random"], games=20, out=tmp_path / "p")
    figures = run.plot()
    titles = [f.axes[0].get_title() for f in figures]
    assert len(figures) == 4 and titles[0] == "Win rate per strategy: classic", titles
    # The sample games' x axis counts rounds, and says so (issue 25, point 7).
    assert figures[-1].axes[0].get_xlabel().startswith("round")
    detached = arena.tournament(rules="classic", players=["greedy", "random"], games=20)
    assert len(detached.plot()) == 4  # its sample games were read before the folder went


def test_tune_takes_a_class_and_a_pair_as_tournament_does(tmp_path: Path) -> None:
    class Bold:
        """Banks at bank_at or more."""

        name = "bold"

        def __init__(self, bank_at: int = 300) -> None:
            self.bank_at = bank_at

        def decide(self, view):
            keep = view.legal_keeps[0]
            bank = view.turn_points + keep.points >= self.bank_at and view.bank_allowed(keep)
            return Action(keep.dice, bank)

    frame = arena.tune(
        Bold,
        ["bank_at=300,900"],
        against=["greedy", (Bold, {"bank_at": 450})],
        rules=["classic"],
        budget=120,
        first_deals=10,
        workers=1,
        out=tmp_path / "t",
    )
    assert list(frame["candidate"]) == ["bold:bank_at=300", "bold:bank_at=900"]
    assert frame["deals"].min() >= 10
    with pytest.raises(TuneError, match="the strategy to tune"):
        arena.tune(42, ["bank_at=300,900"], out=tmp_path / "u")  # type: ignore[arg-type]
