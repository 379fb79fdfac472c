"""`arena duel` saves a run folder (games.csv, duel.json, run.json) and `--resume` continues it."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.analysis.pairs import PairTally
from arena.analysis.sprt import Sprt
from arena.cli.main import cli

ARENA = [sys.executable, "-m", "arena.cli"]
# Two bots about 37 Elo apart on classic: the SPRT stops after a few hundred games.
DUEL = ("threshold:bank_at=350", "threshold:bank_at=200", "--rules", "classic", "--no-progress")
SPRT = ("--sprt", "elo0=0,elo1=20")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def games_of(folder: Path) -> list[dict[str, str]]:
    with open(folder / "games.csv", encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file))


def replayed(folder: Path, sprt: Sprt) -> tuple[PairTally, int | None]:
    """The pairs of games.csv and the first pair at which ``sprt`` decides (1-based)."""
    rows = games_of(folder)
    tally, decided = PairTally(), None
    for i in range(0, len(rows), 4):
        pair = rows[i : i + 4]
        a = pair[0]["player"]
        tally.add(sum(float(r["win"]) for r in pair if r["player"] == a) / 2)
        if decided is None and tally.decision(sprt)[1] is not None:
            decided = tally.pairs
    return tally, decided


@pytest.fixture(scope="module")
def decided(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("duels") / "whole"
    code, out, err = run(
        "duel", *DUEL, *SPRT, "--workers", "2", "--batch-size", "64", "--out", str(folder), "--json"
    )
    assert code == 0, err
    return folder, json.loads(out)


def test_a_duel_writes_a_run_folder(decided: tuple[Path, dict]) -> None:
    folder, data = decided
    assert {p.name for p in folder.iterdir()} == {
        ".arena.lock",  # the folder lock (arena.tournaments.folder_lock), empty
        "games.csv",
        "games.idx",
        "duel.json",
        "run.json",
        "spec.json",
    }
    assert json.loads((folder / "duel.json").read_text()) == data  # what --json printed
    assert data["sprt"]["accepted"] == "H1" and data["complete"] is True and data["folder"] == str(folder)
    info = json.loads((folder / "run.json").read_text())
    assert info["kind"] == "duel" and info["complete"] is True and info["games_written"] == data["games"]
    assert info["sprt"] == data["sprt"] and info["games_limit"] == 20_000
    spec = json.loads((folder / "spec.json").read_text())
    assert spec["kind"] == "duel" and spec["format"] == "gauntlet"
    assert spec["sprt"] == {"elo0": 0, "elo1": 20, "alpha": 0.05, "beta": 0.05, "model": "logistic"}


def test_games_csv_stops_at_the_deciding_pair(decided: tuple[Path, dict]) -> None:
    # Batches hold 64 games; the duel decides inside one, and only its games up to the deciding
    # pair are written.
    folder, data = decided
    rows = games_of(folder)
    assert len(rows) == 2 * data["games"] and data["games"] % 64 != 0
    assert [int(r["game"]) for r in rows[::2]] == list(range(data["games"]))
    tally, first = replayed(folder, Sprt(0, 20))
    assert first == tally.pairs == data["pairs"] and list(tally.pentanomial) == data["pentanomial"]


def test_the_games_are_the_same_whatever_the_workers_and_batches(
    decided: tuple[Path, dict], tmp_path: Path
) -> None:
    folder, data = decided
    other = tmp_path / "serial"
    code, out, _ = run(
        "duel", *DUEL, *SPRT, "--workers", "1", "--batch-size", "26", "--out", str(other), "--json"
    )
    assert code == 0
    assert (other / "games.csv").read_bytes() == (folder / "games.csv").read_bytes()
    assert {k: v for k, v in json.loads(out).items() if k != "folder"} == {
        k: v for k, v in data.items() if k != "folder"
    }


def killed_copy(folder: Path, dest: Path, batches: int, torn: bytes = b"classic,9999,12,34") -> None:
    """``folder`` as a kill would have left it after its first ``batches`` batches had been
    written (games.csv and their journal lines in games.idx), plus the start of the next batch's
    bytes; no duel.json or run.json yet."""
    shutil.copytree(folder, dest)
    journal = (dest / "games.idx").read_bytes().splitlines(keepends=True)[:batches]
    end = (
        json.loads(journal[-1])["end"]
        if journal
        else len((folder / "games.csv").read_bytes().split(b"\n")[0]) + 1
    )
    (dest / "games.idx").write_bytes(b"".join(journal))
    (dest / "games.csv").write_bytes((folder / "games.csv").read_bytes()[:end] + torn)
    for name in ("duel.json", "run.json"):
        (dest / name).unlink()


@pytest.mark.parametrize("batches", [0, 1, 2])
def test_resume_after_a_kill_equals_the_uninterrupted_duel(
    decided: tuple[Path, dict], tmp_path: Path, batches: int
) -> None:
    folder, data = decided
    broken = tmp_path / "broken"
    killed_copy(folder, broken, batches)
    code, out, err = run("duel", "--resume", str(broken), "--json", "--workers", "2")
    assert code == 0, err
    assert (broken / "games.csv").read_bytes() == (folder / "games.csv").read_bytes()
    assert {k: v for k, v in json.loads(out).items() if k != "folder"} == {
        k: v for k, v in data.items() if k != "folder"
    }
    # A decided duel resumed again plays nothing and says the same.
    code, again, err = run("duel", "--resume", str(broken), "--json")
    assert code == 0 and json.loads(again) == json.loads(out)
    assert f"resuming after game {data['games']:,}" in err
    assert json.loads((broken / "run.json").read_text())["games_written"] == data["games"]


def test_a_duel_without_sprt_resumes_to_its_games(tmp_path: Path) -> None:
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    args = ("duel", "greedy", "threshold", "--rules", "classic", "--games", "120", "--workers", "1")
    assert run(*args, "--batch-size", "16", "--out", str(whole))[0] == 0
    killed_copy(whole, broken, 3, torn=b"")  # three batches of 16 games
    code, out, err = run("duel", "--resume", str(broken))
    assert code == 0 and "resuming after game 48" in err
    assert (broken / "games.csv").read_bytes() == (whole / "games.csv").read_bytes()
    assert "120 games (60 deals" in out


def test_report_reads_a_duel_folder(decided: tuple[Path, dict]) -> None:
    folder, data = decided
    code, out, _ = run("report", str(folder))
    assert code == 0 and f"(complete: {data['games']:,} games)" in out
    assert "threshold:bank_at=350" in out and "pairwise win rate" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "3"], "holds a different duel (differs in: seed)"),
        (["--sprt", "elo0=0,elo1=5"], "holds a different duel (differs in: sprt)"),
        (["--max-games", "400"], "holds a different duel (differs in: games)"),
        (["greedy", "random"], "holds a different duel (differs in: players)"),
        (["--rules", "standard"], "holds a different duel (differs in: rules)"),
        (["--out", "elsewhere"], "--resume continues a duel in its own folder; leave out --out"),
    ],
)
def test_resume_refuses_other_settings(decided: tuple[Path, dict], args: list[str], message: str) -> None:
    folder, _ = decided
    before = (folder / "games.csv").read_bytes()
    code, out, err = run("duel", "--resume", str(folder), *args)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert (folder / "games.csv").read_bytes() == before


def test_a_damaged_games_csv_is_cut_back_and_played_again(decided: tuple[Path, dict], tmp_path: Path) -> None:
    # The journal's checksums catch an edited row: that batch and the rest are played again.
    folder, data = decided
    broken = tmp_path / "damaged"
    shutil.copytree(folder, broken)
    text = (broken / "games.csv").read_text()
    (broken / "games.csv").write_text(text.replace('"threshold:bank_at=200,min_dice=3"', "someone", 1))
    code, out, err = run("duel", "--resume", str(broken), "--json")
    assert code == 0, err
    assert (broken / "games.csv").read_bytes() == (folder / "games.csv").read_bytes()
    assert json.loads(out)["pentanomial"] == data["pentanomial"]


def test_half_a_pair_without_a_journal_is_one_line(decided: tuple[Path, dict], tmp_path: Path) -> None:
    # Without games.idx the rows are checked one by one, and whole games, not pairs, are kept.
    folder, _ = decided
    broken = tmp_path / "half"
    shutil.copytree(folder, broken)
    (broken / "games.idx").unlink()
    rows = (broken / "games.csv").read_bytes().splitlines(keepends=True)
    (broken / "games.csv").write_bytes(b"".join(rows[:3]))  # game 0 and half of game 1
    code, out, err = run("duel", "--resume", str(broken))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "ends in half a game pair" in err


def test_duels_and_tournaments_do_not_resume_each_other(decided: tuple[Path, dict], tmp_path: Path) -> None:
    folder, _ = decided
    code, _, err = run("tournament", "--resume", str(folder), "--no-progress")
    assert (
        code == 2
        and f"holds a duel, not a tournament; continue it with `arena duel --resume {folder}`" in err
    )
    tournament = tmp_path / "t"
    assert run("tournament", "--rules", "classic", "-p", "greedy", "-p", "random", "--games", "10",
               "--out", str(tournament), "--no-progress")[0] == 0  # fmt: skip
    code, _, err = run("duel", "--resume", str(tournament))
    assert code == 2 and "holds a tournament, not a duel" in err


def test_default_folder_and_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run("duel", "greedy", "random", "--games", "4", "--workers", "1")
    assert code == 0
    (folder,) = (tmp_path / "results").iterdir()
    assert folder.name.endswith("-duel") and f"saved in      results/{folder.name}/" in out
    code, _, err = run("duel", "greedy", "random", "--games", "4", "--out", f"results/{folder.name}")
    assert code == 2 and "already exists" in err
    code, _, err = run("duel", "greedy")
    assert code == 2 and "give two players, A and B" in err
    code, _, err = run("duel", "--resume", "nowhere")
    assert code == 2 and err.strip() == "arena: error: nowhere: no such run folder"


SLOW_BOT = """
import time

from arena.engine import Action


class Slow:
    \"\"\"Greedy, but thinks for 5 ms a decision.\"\"\"

    name = "slow"

    def decide(self, view):
        time.sleep(0.005)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))
"""


@pytest.mark.slow
@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_keep_the_pairs_and_say_how_to_resume(
    tmp_path: Path, stop: signal.Signals, status: int
) -> None:
    bot = tmp_path / "slow.py"
    bot.write_text(SLOW_BOT)
    out = tmp_path / "stopped"
    args = ["duel", str(bot), "greedy", "--rules", "classic", "--games", "400", "--workers", "1"]
    proc = subprocess.Popen(
        [*ARENA, *args, "--batch-size", "4", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (out / "games.csv").exists() and (out / "games.csv").read_bytes().count(b"\n") > 8:
            break
        time.sleep(0.05)
    proc.send_signal(stop)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == status, stderr[-400:]
    assert f"continue with `arena duel --resume {out}`" in stderr and "Traceback" not in stderr
    rows = games_of(out)
    assert len(rows) >= 8 and len(rows) % 4 == 0  # whole pairs only
    assert json.loads((out / "run.json").read_text())["complete"] is False
    assert json.loads((out / "duel.json").read_text())["games"] == len(rows) // 2
    assert f"{len(rows) // 2} games (" in stdout


# --- duel game counts and faults ----------------------------------------------------------------
def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


# --- arena duel -------------------------------------------------------------------------------
def test_duel_json_is_valid_json_when_one_side_wins_everything(tmp_path: Path) -> None:
    result = invoke(
        "duel",
        "optimal",
        "random",
        "--rules",
        "standard",
        "--games",
        "20",
        "--json",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "d"),
    )
    assert result.exit_code == 0

    def reject(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    json.loads(result.stdout, parse_constant=reject)  # "elo": Infinity breaks jq, JSON.parse, ...


def test_duel_max_games_is_an_upper_bound(tmp_path: Path) -> None:
    # Help: "Most games to play with --sprt".  3 is rounded up to a second pair: 4 games.
    result = invoke(
        "duel",
        "greedy",
        "greedy",
        "--sprt",
        "elo0=0,elo1=20,alpha=0.001,beta=0.001",
        "--max-games",
        "3",
        "--json",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "d"),
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["games"] <= 3


def test_duel_odd_games_are_rounded_up_to_whole_pairs(tmp_path: Path) -> None:
    # Checked, and fine for --games (the duel plays pairs), though only the tournament's help
    # says "rounded up to whole deals".
    data = json.loads(
        invoke(
            "duel",
            "greedy",
            "threshold",
            "--games",
            "5",
            "--json",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "d"),
        ).stdout
    )
    assert data["games"] == 6 and data["pairs"] == 3 and sum(data["wins"]) == pytest.approx(6)


EXITER = """
import os

from arena.engine import Action


class Exiter:
    \"\"\"Kills its process at its first decision.\"\"\"

    name = "exiter"

    def decide(self, view):
        os._exit(3)
"""


@pytest.mark.slow
def test_duel_with_a_strategy_that_kills_its_process_loses_those_games(tmp_path: Path) -> None:
    # A strategy that ends its own process (os._exit) inside a decision loses that game, as an
    # error; the duel goes on (issue 10: it used to stop, before that with a traceback).
    bot = tmp_path / "exiter.py"
    bot.write_text(EXITER)
    result = invoke(
        "duel", str(bot), "greedy", "--games", "8", "--workers", "2", "--json", "--out", str(tmp_path / "d")
    )  # 8 games: a new process for each, on both workers
    assert result.exit_code == 0, result.stderr[-300:]
    data = json.loads(result.stdout)
    assert data["faults"] == 8 and data["wins"] == [0, 8]


def test_duel_faults_count_as_losses_and_are_reported(tmp_path: Path) -> None:
    bot = tmp_path / "flaky.py"
    bot.write_text(
        textwrap.dedent(
            """
            from arena.engine import Action


            class Flaky:
                \"\"\"Raises in one decision of fifty.\"\"\"

                name = "flaky"

                def start_game(self, info):
                    self.rng = info.rng

                def decide(self, view):
                    if self.rng.random() < 0.02:
                        raise RuntimeError("boom")
                    keep = view.legal_keeps[0]
                    return Action(keep.dice, view.bank_allowed(keep))
            """
        )
    )
    result = invoke(
        "duel", str(bot), "greedy", "--games", "200", "--json", "--workers", "1", "--out", str(tmp_path / "d")
    )
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["faults"] > 0
    assert sum(data["wins"]) == pytest.approx(200)  # a faulty game's win goes to the other side


def test_a_stop_that_comes_while_a_batch_is_written_counts_that_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGTERM during the write of a batch is held until the batch is written *and counted*:
    duel.json then says as many games as games.csv holds.  (The write itself held SIGTERM and
    let it fire as soon as it ended, before the duel counted the batch: duel.json said 0 games
    of 8 written, seen under load.)"""
    from arena.tournaments.run_folder import RunFolder

    original = RunFolder.append
    sent: list[bool] = []

    def append_then_stop(self: RunFolder, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, *args, **kwargs)
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGTERM)  # arrives as the write ends

    monkeypatch.setattr(RunFolder, "append", append_then_stop)
    out = tmp_path / "stopped"
    result = invoke("duel", "greedy", "random", "--rules", "classic", "--games", "40", "--batch-size", "4",
                    "--workers", "1", "--no-progress", "--out", str(out))
    assert result.exit_code == 143, result.output
    rows = games_of(out)
    assert len(rows) == 8  # the one batch written: 4 games of 2 seats
    assert json.loads((out / "duel.json").read_text())["games"] == 4
