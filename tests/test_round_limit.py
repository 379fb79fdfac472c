"""Games that end at the round limit (max_rounds, docs/rules.md reading 13): marked in games.csv's
``end`` column, counted per player in summary.csv, in ``--json`` and in the ranking's warning,
left out of the game lengths, and checked when a run is resumed."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.analysis.plots import _pyplot, lengths_figure
from arena.analysis.reports import build_reports
from arena.cli.main import cli
from arena.engine import PRESETS
from arena.players import load_player_spec
from arena.tournaments.batch import BatchPlayer
from arena.tournaments.spec import TournamentSpec

REPO = Path(__file__).resolve().parent.parent
#: Keeps the most points, as the README's strategy does: under an exact target it keeps more
#: than the last points need, turn after turn, so two of it often meet the round limit.
STALLER = '''
from arena.players import Action


class BankAt300:
    name = "bank-at-300"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
'''


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def stalled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    base = tmp_path_factory.mktemp("stall")
    (base / "stall.py").write_text(STALLER)
    out = base / "run"
    code, _, err = run(
        "tournament", "--rules", "standard", "-p", str(base / "stall.py"),
        "-p", str(REPO / "strategies" / "bank_at_500.py"), "--games", "24", "--seed", "3",
        "--workers", "1", "--no-progress", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    return out, err


def _games(folder: Path) -> dict[str, list[dict[str, str]]]:
    games: dict[str, list[dict[str, str]]] = {}
    with (folder / "games.csv").open(newline="") as file:
        for row in csv.DictReader(file):
            games.setdefault(row["game"], []).append(row)
    return games


def test_games_csv_marks_how_each_game_ended(stalled: tuple[Path, str]) -> None:
    folder, _ = stalled
    games = _games(folder)
    ends = Counter()
    for rows in games.values():
        (end,) = {r["end"] for r in rows}  # one value for the whole game
        ends[end] += 1
        scores = [int(r["score"]) for r in rows]
        if end == "round_limit":  # nobody at the target after every seat's 1,000th turn
            assert max(scores) < 10_000 and [int(r["turns"]) for r in rows] == [1000, 1000]
        else:
            assert end == "target" and max(scores) == 10_000
    assert ends["round_limit"] > 0 and ends["target"] > 0


def test_summary_json_and_the_warning_count_them_per_player(stalled: tuple[Path, str]) -> None:
    folder, err = stalled
    counted: Counter[str] = Counter()
    for rows in _games(folder).values():
        for r in rows:
            counted[r["player"]] += r["end"] == "round_limit"
    with (folder / "summary.csv").open(newline="") as file:
        summary = {r["player"]: int(r["round_limit"]) for r in csv.DictReader(file)}
    assert summary == dict(counted)
    code, out, _ = run("report", str(folder), "--json")
    assert code == 0
    assert {r["player"]: r["round_limit"] for r in json.loads(out)["summary"]} == dict(counted)
    assert "warning: games ended at the round limit (1,000 rounds) with nobody at the target" in err
    lines = [line.split() for line in err.splitlines() if line.startswith("  standard  ")]
    assert {w[1]: (int(w[2]), w[3:6], w[6]) for w in lines} == {
        player: (n, ["of", "24", "games"], f"({n / 24 * 100:.1f}") for player, n in counted.items()
    }
    code, out, _ = run("report", str(folder))
    assert code == 0 and "warning: games ended at the round limit" in out


def test_a_run_without_such_games_has_no_warning(tmp_path: Path) -> None:
    code, out, err = run(
        "tournament", "--rules", "classic", "-p", "greedy", "-p", "threshold", "--games", "4",
        "--workers", "1", "--no-progress", "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert code == 0 and "round limit" not in out + err
    assert {r["end"] for rows in _games(tmp_path / "r").values() for r in rows} == {"target"}


def test_the_lengths_leave_them_out_and_the_plot_says_so(stalled: tuple[Path, str]) -> None:
    folder, _ = stalled
    stats = build_reports(folder / "games.csv")
    stalled_games = int(stats.summary["round_limit"].sum()) // 2
    assert stats.lengths["games"].sum() + stalled_games == 24
    assert stats.lengths["rounds"].max() < 1000
    plt = _pyplot()
    players = list(stats.summary["player"])
    limits = dict(zip(players, stats.summary["round_limit"].astype(int), strict=True))
    figure = lengths_figure(plt, "standard", players, stats.player_lengths, limits)
    titles = [ax.get_title(loc="left") for ax in figure.axes]
    right = max(ax.get_xlim()[1] for ax in figure.axes)
    plt.close(figure)
    for player, title in zip(players, titles, strict=True):
        assert title.startswith(player)
        assert title.endswith(f"; {limits[player]} at the round limit, not shown")
    assert right < 100  # the axis is not stretched to the limit


def test_python_and_compiled_games_end_alike_at_a_small_limit() -> None:
    # Every game stopped at round 3 of a 10,000 target: round_limit in both kernels' rows.
    players = (load_player_spec("greedy"), load_player_spec("threshold"))
    spec = TournamentSpec((PRESETS["standard"],), players, games=8, max_rounds=3)
    played = BatchPlayer(spec).play(0, 8).rows
    rows = list(csv.reader(played.splitlines()))
    assert {r[-1] for r in rows} == {"round_limit"} and {r[9] for r in rows} == {"3"}
    pytest.importorskip("numba")
    from arena.tournaments.compiled_games import CompiledGames

    assert CompiledGames(spec).play(0, 8).rows == played


def test_resume_replays_a_game_whose_end_was_damaged(stalled: tuple[Path, str], tmp_path: Path) -> None:
    folder, _ = stalled
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    (copy / "games.idx").unlink()  # checked row by row
    lines = (copy / "games.csv").read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].rsplit(b",", 1)[0] + b",bogus\n"
    (copy / "games.csv").write_bytes(b"".join(lines))
    code, _, err = run("tournament", "--resume", str(copy), "--no-progress", "--workers", "1")
    assert code == 0, err
    assert (copy / "games.csv").read_bytes() == (folder / "games.csv").read_bytes()


def test_a_games_csv_of_an_older_arena_is_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir()
    (folder / "games.csv").write_text(
        "ruleset,game,deal,seed,seat,player,score,rank,win,turns,farkles,status,reason\n"
        "classic,0,0,1,0,a,10000,1,1,20,2,ok,\nclassic,0,0,1,1,b,500,2,0,20,5,ok,\n"
    )
    from arena.analysis.games_csv import ReportError

    with pytest.raises(ReportError, match=r"written by an older arena \(no column end"):
        build_reports(folder / "games.csv")


def test_a_duel_counts_them_in_its_result(tmp_path: Path) -> None:
    (tmp_path / "stall.py").write_text(STALLER)
    out = tmp_path / "duel"
    code, text, err = run(
        "duel", str(tmp_path / "stall.py"), str(REPO / "strategies" / "bank_at_500.py"),
        "--rules", "standard", "--games", "12", "--seed", "3", "--workers", "1", "--no-progress",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    stalled = sum(rows[0]["end"] == "round_limit" for rows in _games(out).values())
    assert stalled > 0
    assert f"  round limit   {stalled:,} of 12 games ended at the round limit (1,000 rounds)" in text
    assert json.loads((out / "duel.json").read_text())["round_limit"] == stalled


def test_the_sample_game_plot_leaves_them_out(stalled: tuple[Path, str]) -> None:
    from arena.analysis.sample_games import sample_games

    folder, _ = stalled
    shown = sample_games(folder)["standard"]
    ends = {int(game): rows[0]["end"] for game, rows in _games(folder).items()}
    assert shown and all(ends[g.game] == "target" for g in shown)
    assert "round_limit" in ends.values()


def test_an_older_arenas_run_is_refused_by_resume_in_one_line(
    stalled: tuple[Path, str], tmp_path: Path
) -> None:
    folder, _ = stalled
    old = tmp_path / "old"
    shutil.copytree(folder, old)
    lines = (old / "games.csv").read_text().splitlines(keepends=True)
    (old / "games.csv").write_text("".join(line.rsplit(",", 1)[0] + "\n" for line in lines))  # as it was
    (old / "games.idx").unlink()
    code, _, err = run("tournament", "--resume", str(old), "--no-progress")
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "was written by an older arena (no column end, how each game ended)" in err
