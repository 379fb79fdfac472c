"""`arena duel` (SPRT on game pairs), `arena report` (with plots), `arena compare`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, STANDARD
from arena.players import load_player_spec
from arena.tournaments.duel import Sprt, SprtError, run_duel


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_sprt_accepts_h1_for_a_clearly_stronger_strategy() -> None:
    outcome = run_duel(
        STANDARD,
        load_player_spec("optimal"),
        load_player_spec("greedy"),
        games=2000,
        sprt=Sprt(0, 20),
        seed=1,
    )
    assert outcome.verdict == "H1" and outcome.llr >= outcome.sprt.bounds[1]
    assert outcome.tally.games < 2000 and outcome.tally.mean > 0.6


def test_sprt_accepts_h0_for_two_copies_of_one_strategy() -> None:
    outcome = run_duel(
        CLASSIC,
        load_player_spec("tactician"),
        load_player_spec("tactician"),
        games=2000,
        sprt=Sprt(0, 20),
        seed=2,
    )
    assert outcome.verdict == "H0" and outcome.labels == ("tactician", "tactician#2")
    assert outcome.tally.mean == 0.5  # duplicate play: each copy wins one game of every pair


def test_sprt_stops_at_the_same_pair_whatever_the_workers() -> None:
    a, b = load_player_spec("optimal"), load_player_spec("tactician")
    one = run_duel(CLASSIC, a, b, games=600, sprt=Sprt(-10, 10), seed=4, workers=1)
    two = run_duel(CLASSIC, a, b, games=600, sprt=Sprt(-10, 10), seed=4, workers=2)
    assert (one.tally.pairs, one.llr, one.wins) == (two.tally.pairs, two.llr, two.wins)


def test_duel_without_sprt_plays_the_games(tmp_path: Path) -> None:
    code, out, _ = run(
        "duel",
        "optimal",
        "greedy",
        "--rules",
        "classic",
        "--games",
        "200",
        "--json",
        "--out",
        str(tmp_path / "d"),
    )
    data = json.loads(out)
    assert code == 0 and data["games"] == 200 and data["pairs"] == 100 and "sprt" not in data
    assert sum(data["wins"]) == pytest.approx(200)
    low, high = data["score_interval"]
    assert low < data["score"] < high and data["elo"] > 0


def test_duel_text_reports_everything(tmp_path: Path) -> None:
    code, out, _ = run(
        "duel",
        "optimal",
        "greedy",
        "--rules",
        "standard",
        "--sprt",
        "elo0=0,elo1=20",
        "--max-games",
        "4000",
        "--out",
        str(tmp_path / "d"),
    )
    assert code == 0
    for piece in (
        "games (",
        "wins ",
        "score of optimal",
        "95% interval",
        "from game pairs",
        "counting games one by one",
        "Elo difference",
        "pentanomial",
        "LOS ",
        "LLR",
        "model=logistic",
        "bounds [-2.94, 2.94]",
        "H1 accepted: optimal is stronger than greedy",
    ):
        assert piece in out, piece


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("elo0=0,elo2=5", "'elo2=5' is not one of"),
        ("elo0=x", "elo0 must be a number"),
        ("elo0=10,elo1=5", "elo1 must be above elo0"),
        ("alpha=0.7", "alpha must be between 0 and 0.5"),
        ("model=elo", "model must be logistic or normalized, got 'elo'"),
    ],
)
def test_bad_sprt_settings(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(SprtError, match=message):
        Sprt.parse(text)
    code, out, err = run("duel", "greedy", "random", "--sprt", text, "--out", str(tmp_path / "d"))
    assert code == 2 and out == "" and message.replace("\\", "") in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_duel_bad_player_is_one_line() -> None:
    code, _, err = run("duel", "greedy", "nope")
    assert code == 2 and err.startswith("arena: error: unknown strategy 'nope'")


# --- report and compare -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "done"
    code, _, _ = run(
        "tournament",
        "--rules",
        "classic",
        "--rules",
        "short",
        "-p",
        "optimal",
        "-p",
        "greedy",
        "-p",
        "random",
        "--games",
        "60",
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 0
    return out


def test_report_of_a_finished_run(finished_run: Path) -> None:
    code, out, _ = run("report", str(finished_run))
    assert code == 0
    assert f"{finished_run} (complete: 360 games)" in out
    assert "rank  player" in out and "Elo [95% interval]" in out
    assert "pairwise win rate (%) of each player (row) against each opponent (column): classic" in out
    assert "first-seat advantage" in out and "classic, 2 seats (fair share 50.0 %): seat 0" in out
    data = json.loads(run("report", str(finished_run), "--json")[1])
    assert {row["player"] for row in data["summary"]} == {"optimal", "greedy", "random"}
    assert len(data["seats"]) == 4 and data["complete"] is True


def test_summary_has_elo(finished_run: Path) -> None:
    import pandas as pd

    summary = pd.read_csv(finished_run / "summary.csv")
    assert {"elo", "elo_low", "elo_high"} <= set(summary.columns)
    assert not {"rating", "rating_sd"} & set(summary.columns)  # the order-dependent openskill rating
    classic = summary[summary["ruleset"] == "classic"].set_index("player")
    assert classic.loc["optimal", "elo"] > classic.loc["greedy", "elo"] > classic.loc["random", "elo"]
    assert (summary["elo_low"] < summary["elo"]).all() and (summary["elo"] < summary["elo_high"]).all()


def test_report_of_an_interrupted_run(finished_run: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(finished_run, broken)
    (broken / "run.json").unlink()  # it never finished
    lines = (broken / "games.csv").read_bytes().splitlines(keepends=True)
    (broken / "games.csv").write_bytes(
        b"".join(lines[:101]) + b"classic,50,25,1234"
    )  # 50 games + a torn line
    before = (broken / "games.csv").read_bytes()
    code, out, _ = run("report", str(broken))
    # 50 games = 4 rounds of 12 (2 rulesets x 3 pairings x 2 seat orders) + one deal of the first pairing.
    assert code == 0 and (
        f"{broken} (partial: 50 of 360 games played (13.9 %); every pairing on every ruleset in "
        "proportion (8 to 10 games each))" in out
    )
    assert (broken / "games.csv").read_bytes() == before  # reading changes nothing


def test_report_plots(finished_run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plotted"
    shutil.copytree(finished_run, folder)
    code, out, _ = run("report", str(folder), "--plot")
    assert code == 0
    names = sorted(p.name for p in folder.glob("*.png"))
    kinds = ("winrate", "pairwise", "lengths", "games")
    assert names == sorted(f"{kind}-{r}.png" for kind in kinds for r in ("classic", "short"))
    for path in folder.glob("*.png"):
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    # Byte-stable: plotting again gives the same files.
    first = {p.name: p.read_bytes() for p in folder.glob("*.png")}
    run("report", str(folder), "--plot")
    assert first == {p.name: p.read_bytes() for p in folder.glob("*.png")}
    assert "wrote " in out


def test_plot_without_matplotlib_says_how_to_install(
    finished_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it now fails
    code, _, err = run("report", str(finished_run), "--plot")
    assert code == 2 and "pip install 'zehntausend-arena[plot]'" in err and "pip install -e '.[plot]'" in err


def test_compare_two_runs(finished_run: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    code, _, _ = run(
        "tournament",
        "--rules",
        "classic",
        "-p",
        "optimal",
        "-p",
        "tactician",
        "--games",
        "60",
        "--out",
        str(other),
        "--no-progress",
    )
    assert code == 0
    # The runs' players met different opponents: refused, in one line, unless forced.
    code, out, err = run("compare", str(finished_run), str(other))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "only in A: greedy, random; only in B: tactician" in err and "--force" in err
    code, out, _ = run("compare", str(finished_run), str(other), "--force")
    assert code == 0 and "classic: not paired: the players or rules differ" in out and "significant" in out
    data = json.loads(run("compare", str(finished_run), str(other), "--force", "--json")[1])
    rows = {(r["ruleset"], r["player"]): r for r in data["rows"]}
    assert set(rows) == {("classic", "optimal")}
    # Against tactician alone optimal wins far less than against greedy and random.
    assert rows[("classic", "optimal")]["difference"] < -0.2
    assert rows[("classic", "optimal")]["significant"] is True
    assert "in one run only (not compared): " in out and "tactician (classic, B)" in out


@pytest.mark.parametrize("case", ["missing", "empty", "no-games", "garbage"])
def test_bad_folders_are_one_line(tmp_path: Path, case: str) -> None:
    folder = tmp_path / case
    if case != "missing":
        folder.mkdir()
    if case == "no-games":
        (folder / "spec.json").write_text("{}")
    if case == "garbage":
        (folder / "games.csv").write_text("this is not\na games file\n")
    for args in (["report", str(folder)], ["compare", str(folder), str(folder)]):
        code, out, err = run(*args)
        assert code == 2 and out == "" and err.startswith("arena: error: ")
        assert len(err.strip().splitlines()) == 1


# --- reports of odd folders ---------------------------------------------------------------------
def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def one_line_error(result) -> bool:
    """Failed the way arena promises: `arena: error: ...` on one line, no traceback."""
    err = result.stderr.strip().splitlines()
    return (
        result.exit_code != 0
        and (result.exception is None or isinstance(result.exception, SystemExit))
        and bool(err)
        and err[-1].startswith("arena: error: ")
        and not any("Traceback" in line for line in err)
    )


# --- report and compare -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("review") / "run"
    result = invoke(
        "tournament",
        "--rules",
        "classic",
        "-p",
        "greedy",
        "-p",
        "threshold",
        "--games",
        "10",
        "--out",
        str(out),
        "--no-progress",
        "--workers",
        "1",
    )
    assert result.exit_code == 0
    return out


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("spec.json", "[1]"),  # valid JSON, not an object
        ("run.json", "null"),
        ("spec.json", '{"rulesets": ["classic"]}'),  # rulesets by name, not objects
        ("games.csv", "ruleset,game,player\nclassic,0,a\nclassic,0,b\n"),  # columns missing
    ],
)
def test_report_of_a_folder_with_odd_contents_is_one_line(
    small_run: Path, tmp_path: Path, name: str, content: str
) -> None:
    folder = tmp_path / "odd"
    shutil.copytree(small_run, folder)
    (folder / name).write_text(content)
    result = invoke("report", str(folder))
    assert one_line_error(result), (result.exception, result.stderr[-300:])


def test_an_sprt_duel_prints_interim_lines_on_stderr(tmp_path: Path) -> None:
    args = ["duel", "greedy", "threshold", "--rules", "classic", "--sprt", "elo0=0,elo1=5", "--workers", "1"]
    fast = ["--interim-seconds", "0", "--batch-size", "20", "--compiled", "off"]
    code, out, err = run(*args, *fast, "--out", str(tmp_path / "d"))
    assert code == 0
    interim = [line for line in err.splitlines() if line.startswith("after ")]
    assert interim and interim[0].startswith("after 20 games: greedy scores ")
    assert ", pairs " in interim[0] and " of [-2.94, 2.94]" in interim[0] and "wins " in interim[0]
    assert "after " not in out  # the report itself stays on stdout, unchanged
    code, out, err = run(*args, *fast, "--json", "--out", str(tmp_path / "j"))
    assert code == 0 and "after 20 games" not in err  # --json: nothing but the JSON


def test_the_interim_line_says_when_every_pair_splits() -> None:
    from arena.tournaments.duel import DuelTally
    from arena.tournaments.duel_report import IDENTICAL_PAIRS, interim_line

    tally = DuelTally(Sprt.parse("elo0=0,elo1=5"))
    for _ in range(IDENTICAL_PAIRS):
        tally.add_pair((1.0, 0.0), (1.0, 0.0))  # each seat order won by the first seat: 1-1
    expected = "every pair so far split 1-1: a and b may play alike, so the test can't decide"
    assert interim_line(tally, ("a", "b")).endswith(expected)
    tally.add_pair((1.0, 0.0), (0.0, 1.0))
    assert "play alike" not in interim_line(tally, ("a", "b"))
