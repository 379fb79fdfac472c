"""Reading results and the plots: the fair share in free-for-all rankings, significant pairwise
cells, game lengths per strategy, sample games replayed turn by turn, and the figures' layout."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.analysis.plots import (
    _pyplot,
    fair_shares,
    length_range,
    pairwise_figure,
    win_rate_figure,
    write_plots,
)
from arena.analysis.ranking import fair_share_note, ranking_text
from arena.analysis.reports import build_reports
from arena.analysis.sample_games import choose, sample_games
from arena.cli.main import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def duel_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small round-robin: random is clearly beaten, optimal and tactician are close."""
    out = tmp_path_factory.mktemp("plots") / "rr"
    code, _, err = run(
        "tournament", "--rules", "classic", "-p", "optimal", "-p", "tactician", "-p", "random",
        "--games", "40", "--workers", "1", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def ffa_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("plots") / "ffa"
    code, _, err = run(
        "tournament", "--rules", "short", "--format", "free-for-all", "--seats", "3", "-p", "optimal",
        "-p", "greedy", "-p", "random", "-p", "threshold", "--games", "60", "--workers", "1",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    return out


def test_free_for_all_ranking_names_the_fair_share(ffa_run: Path, duel_run: Path) -> None:
    code, out, _ = run("report", str(ffa_run))
    assert code == 0 and "short (3 seats a game: fair share 33.3 %)\n" in out
    # Games of two: 50 % goes without saying, and the heading stays the ruleset's name.
    code, out, _ = run("report", str(duel_run))
    assert code == 0 and "\nclassic\n" in out and "seats a game" not in out


def test_fair_share_note_per_table_size() -> None:
    seats = pd.DataFrame({"ruleset": ["a", "a", "b", "b", "b"], "seats": [2, 2, 4, 4, 4]})
    assert fair_share_note(seats, "a") == ""
    assert fair_share_note(seats, "b") == " (4 seats a game: fair share 25.0 %)"
    assert fair_share_note(None, "b") == ""
    summary = pd.DataFrame(
        {
            "ruleset": ["b"], "player": ["x"], "win_rate": [0.3], "ci_low": [0.2], "ci_high": [0.4],
            "elo": [0.0], "elo_low": [-5.0], "elo_high": [5.0], "games": [10], "points_per_turn": [300.0],
            "farkle_rate": [0.2], "errors": [0],
        }
    )  # fmt: skip
    assert ranking_text(summary, seats).startswith("b (4 seats a game: fair share 25.0 %)\n")
    assert ranking_text(summary).startswith("b\n")
    assert fair_shares(seats, "b") == [0.25]


def test_pairwise_significance_follows_the_interval(duel_run: Path) -> None:
    pairwise = pd.read_csv(duel_run / "pairwise.csv")
    assert list(pairwise.columns)[-1] == "significant"
    expected = (pairwise["ci_low"] > 0.5) | (pairwise["ci_high"] < 0.5)
    assert pairwise["significant"].tolist() == expected.tolist()
    # Against random both are significant; optimal against tactician in 40 games is not.
    marked = {(r.player, r.opponent) for r in pairwise.itertuples() if r.significant}
    assert {("optimal", "random"), ("random", "tactician")} <= marked
    assert ("optimal", "tactician") not in marked


def test_pairwise_text_marks_significant_cells(duel_run: Path) -> None:
    code, out, _ = run("report", str(duel_run))
    assert code == 0
    pairwise = pd.read_csv(duel_run / "pairwise.csv")
    grid = out[out.index("pairwise win rate") :].splitlines()
    rows = {line.split()[1]: line for line in grid[2:5]}
    for r in pairwise.itertuples():
        cell = f"{r.win_rate * 100:5.1f}" + ("*" if r.significant else "")
        assert cell in rows[r.player]
    assert sum(line.count("*") for line in grid[2:5]) == int(pairwise["significant"].sum())
    assert "* the 95% interval (counted game by game) excludes 50 %" in out


def test_player_lengths_add_up(duel_run: Path) -> None:
    stats = build_reports(duel_run / "games.csv")
    per_player = stats.player_lengths.groupby("player")["games"].sum()
    games = stats.summary.set_index("player")["games"]
    assert per_player.sort_index().tolist() == games.sort_index().tolist()
    # Every game has two players: each length counted once per seat.
    both = stats.player_lengths.groupby("rounds")["games"].sum()
    assert both.to_dict() == {k: 2 * v for k, v in stats.lengths.set_index("rounds")["games"].items()}
    assert list(stats.player_lengths["player"].drop_duplicates()) == list(stats.summary["player"])


def test_length_axis_leaves_out_a_rare_long_game() -> None:
    lengths = pd.DataFrame({"rounds": [*range(10, 31), 1000], "games": [100] * 21 + [1]})
    assert length_range(lengths) == (10, 30)
    lengths = pd.DataFrame({"rounds": [5, 6, 7], "games": [1, 1, 1]})
    assert length_range(lengths) == (5, 7)


def test_choose_shows_every_strategy_and_spreads_them() -> None:
    tables = [["r", "g"], ["g", "r"], ["r", "o"], ["r", "t"], ["o", "t"], ["g", "o"], ["g", "t"]]
    picked = choose(tables, 3)
    assert picked == sorted(picked) and len(picked) == 3
    assert set().union(*(tables[k] for k in picked)) == {"r", "g", "o", "t"}
    assert choose(tables, 2) == [0, 4]  # two games can show all four
    assert choose([["a", "b"]], 4) == [0]
    # Once everyone is shown, a new line-up beats a repeat, and fewer repeats beat more.
    assert choose([["a", "b"], ["a", "b"], ["a", "c"], ["b", "c"]], 3) == [0, 2, 3]


def test_sample_games_replay_the_games_written(ffa_run: Path) -> None:
    samples = sample_games(ffa_run)["short"]
    assert 1 <= len(samples) <= 4
    assert set().union(*(g.players for g in samples)) == set(pd.read_csv(ffa_run / "summary.csv")["player"])
    with (ffa_run / "games.csv").open(newline="") as file:
        rows = list(csv.DictReader(file))
    for game in samples:
        written = sorted((r for r in rows if int(r["game"]) == game.game), key=lambda r: int(r["seat"]))
        assert tuple(r["player"] for r in written) == game.players
        assert [s[-1] for s in game.scores] == [int(r["score"]) for r in written]
        assert [len(s) - 1 for s in game.scores] == [int(r["turns"]) for r in written]
        assert all(s[0] == 0 for s in game.scores) and game.target == 5000
        assert {i for i, r in enumerate(written) if r["rank"] == "1"} == set(game.winners)


def test_sample_games_skip_what_cannot_be_replayed(ffa_run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(ffa_run, folder)
    spec = json.loads((folder / "spec.json").read_text())
    for entry in spec["players"]:
        if entry["label"] == "random":
            entry["source"] = "class"  # a class passed from Python: no spec to rebuild it from
    (folder / "spec.json").write_text(json.dumps(spec))
    samples = sample_games(folder)["short"]
    assert samples and all("random" not in g.players for g in samples)
    (folder / "spec.json").unlink()
    assert sample_games(folder) == {}


def test_win_rate_bars_keep_their_width_whatever_the_names(ffa_run: Path) -> None:
    plt = _pyplot()
    stats = build_reports(ffa_run / "games.csv")
    widths = []
    for suffix in ("", "-with-a-very-long-name:bank_at=300,min_dice=3,other=1"):
        table = stats.summary.assign(player=stats.summary["player"] + suffix)
        fig = win_rate_figure(plt, "short", table, fair_shares(stats.seats, "short"))
        ax = fig.axes[0]
        widths.append(ax.get_position().width * fig.get_figwidth())
        fair = [line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert fair == [pytest.approx(100 / 3)]
        plt.close(fig)
    assert widths[0] == pytest.approx(widths[1]) and widths[0] >= 5.5


def test_heat_map_marks_significant_cells_and_keeps_names_out_of_its_height(duel_run: Path) -> None:
    plt = _pyplot()
    stats = build_reports(duel_run / "games.csv")
    players = list(stats.summary["player"])
    heights = []
    for suffix in ("", "-with-a-very-long-name:bank_at=300,min_dice=3,other=1"):
        pairs = stats.pairwise.assign(
            player=stats.pairwise["player"] + suffix, opponent=stats.pairwise["opponent"] + suffix
        )
        fig = pairwise_figure(plt, "classic", [p + suffix for p in players], pairs)
        ax = fig.axes[0]
        starred = [t.get_text() for t in ax.texts if t.get_text().endswith("*")]
        assert len(starred) == int(stats.pairwise["significant"].sum())
        assert [t.get_text() for t in ax.get_xticklabels()] == ["#1", "#2", "#3"]
        heights.append(ax.get_position().height * fig.get_figheight())
        # The names take none of the height: the grid is most of the figure.
        assert heights[-1] / fig.get_figheight() > 0.5
        plt.close(fig)
    assert heights[0] == pytest.approx(heights[1])


def test_report_writes_four_plots_per_ruleset(ffa_run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plotted"
    shutil.copytree(ffa_run, folder)
    written = write_plots(build_reports(folder / "games.csv"), folder)
    assert [p.name for p in written] == [
        f"{k}-short.png" for k in ("winrate", "pairwise", "lengths", "games")
    ]
    first = {p.name: p.read_bytes() for p in written}
    assert all(data.startswith(b"\x89PNG") for data in first.values())
    write_plots(build_reports(folder / "games.csv"), folder)
    assert first == {p.name: p.read_bytes() for p in written}  # byte-stable, the replays included
