"""The interleaved schedule (any prefix of a run holds every pairing in proportion, with the
same dice as before for each game) and runs that stop early, marked as partial."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, SHORT, STANDARD, derive_seed
from arena.players import load_player_spec
from arena.tournaments import Schedule, TournamentSpec
from arena.tournaments.run_info import partial_text, proportion_text
from arena.tournaments.schedule import ScheduleShape, draw_table

ARENA = [sys.executable, "-m", "arena.cli"]


def spec_of(players: list[str], **settings: object) -> TournamentSpec:
    rulesets = settings.pop("rulesets", (CLASSIC, STANDARD, SHORT))
    return TournamentSpec(tuple(rulesets), tuple(load_player_spec(p) for p in players), **settings)  # type: ignore[arg-type]


SPECS = {
    "round-robin": spec_of(["greedy", "random", "threshold", "tactician"], games=7, seed=4),
    "gauntlet": spec_of(["greedy", "random", "threshold"], format="gauntlet", games=6),
    "free-for-all": spec_of(["greedy", "random", "threshold"], format="free-for-all", games=9),
    "free-for-all --seats": spec_of(
        ["greedy", "random", "threshold", "tactician"], format="free-for-all", seats=2, games=8
    ),
}


def key(slot_seats: tuple[int, ...], spec: TournamentSpec) -> object:
    """What the schedule deals in proportion: the table (its players), or for drawn free-for-all
    tables the ruleset alone."""
    if spec.format == "free-for-all" and spec.seats is not None:
        return None
    return frozenset(slot_seats)


@pytest.mark.parametrize("name", SPECS)
def test_every_prefix_of_whole_rounds_holds_every_pairing_equally(name: str) -> None:
    spec = SPECS[name]
    schedule = Schedule(spec)
    shape = schedule.shape
    units = shape.rulesets * shape.tables
    per_round = units * schedule.orders
    assert per_round == shape.games_per_round and len(schedule) == shape.deals * per_round
    counts: Counter = Counter()
    for game in range(len(schedule)):
        slot = schedule.slot(game)
        counts[slot.ruleset, key(slot.seats, spec)] += 1
        if (game + 1) % per_round == 0:
            k = (game + 1) // per_round
            # After k rounds: every (ruleset, table) has exactly k deals, each in every seat order.
            assert len(counts) == units and set(counts.values()) == {k * schedule.orders}, (name, k)


@pytest.mark.parametrize("name", SPECS)
def test_the_seat_orders_of_a_deal_are_consecutive_games(name: str) -> None:
    spec = SPECS[name]
    schedule = Schedule(spec)
    orders = schedule.orders
    seen: set[tuple[int, int, int]] = set()
    for first in range(0, len(schedule), orders):
        group = [schedule.slot(g) for g in range(first, first + orders)]
        assert len({(s.ruleset, s.deal, s.seed) for s in group}) == 1  # one deal, same dice
        table = group[0].seats
        # Every rotation of the table, in order: seat order k starts with the table's k-th player.
        assert [s.seats for s in group] == [table[k:] + table[:k] for k in range(orders)]
        # Each names its seat order: isolated players get a seat process per order (SeatPool).
        assert [s.order for s in group] == list(range(orders))
        seen.add((group[0].ruleset, group[0].deal, group[0].seed))
    assert len(seen) == len(schedule) // orders  # no deal repeats


def blake(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def old_order(spec: TournamentSpec) -> list[tuple[int, tuple[int, ...], int, int]]:
    """(ruleset, seats, deal, seed) of every game in the order before interleaving (ruleset,
    table, deal, seat order), with each seed derived here from its coordinates."""
    n = len(spec.players)
    tables = (
        list(combinations(range(n), 2)) if spec.format == "round-robin" else [(0, j) for j in range(1, n)]
    )
    deals = -(-spec.games // 2)
    games = []
    for r, ruleset in enumerate(spec.rulesets):
        ruleset_key = blake(json.dumps(ruleset.as_dict(), sort_keys=True))
        for table in tables:
            table_key = blake("\x1f".join(sorted(spec.labels[i] for i in table)))
            for deal in range(deals):
                seed = derive_seed(spec.seed, ruleset_key, table_key, deal)
                games += [(r, table, deal, seed), (r, table[1:] + table[:1], deal, seed)]
    return games


@pytest.mark.parametrize("name", ["round-robin", "gauntlet"])
def test_each_ruleset_table_and_deal_keeps_its_seed(name: str) -> None:
    # The new order is a permutation of the old one: the same (ruleset, table, deal) plays the same
    # dice as before; only its game number changed, to ((deal * R + ruleset) * T + table) * 2 + order.
    spec = SPECS[name]
    schedule = Schedule(spec)
    old = old_order(spec)
    new = [schedule.slot(g) for g in range(len(schedule))]
    assert sorted((s.ruleset, s.seats, s.deal, s.seed) for s in new) == sorted(old)
    tables = schedule.shape.tables
    for index, (ruleset, seats, deal, seed) in enumerate(old):
        table, order = divmod(index % (tables * schedule.games_per_table), schedule.games_per_table)
        order %= 2
        game = ((deal * len(spec.rulesets) + ruleset) * tables + table) * 2 + order
        slot = schedule.slot(game)
        assert (slot.ruleset, slot.seats, slot.deal, slot.seed) == (ruleset, seats, deal, seed)


def test_drawn_free_for_all_tables_still_come_from_the_seed() -> None:
    spec = SPECS["free-for-all --seats"]
    schedule = Schedule(spec)
    tables = set()
    for game in range(0, len(schedule), schedule.orders):
        slot = schedule.slot(game)
        ruleset_key = blake(json.dumps(spec.rulesets[slot.ruleset].as_dict(), sort_keys=True))
        assert slot.seed == derive_seed(spec.seed, ruleset_key, 0, slot.deal)
        assert slot.seats == draw_table(slot.seed, 4, 2)
        tables.add(slot.seats)
    assert len(tables) > 2


def test_games_round_up_to_whole_deals_and_the_length_is_unchanged() -> None:
    spec = spec_of(["greedy", "random", "threshold"], games=5)  # 3 deals of 2 on 3 pairings, 3 rulesets
    schedule = Schedule(spec)
    assert len(schedule) == 3 * 3 * 6 and schedule.games_per_table == 6
    assert [schedule.slot(g).game for g in range(len(schedule))] == list(range(len(schedule)))
    with pytest.raises(IndexError):
        schedule.slot(len(schedule))


def test_the_schedule_stays_lazy_for_a_huge_run() -> None:
    spec = spec_of(["greedy", "random", "threshold"], games=10**12)
    began = time.perf_counter()
    schedule = Schedule(spec)
    last = schedule.slot(len(schedule) - 1)
    assert time.perf_counter() - began < 0.5  # nothing proportional to the games is built
    assert len(schedule) == 3 * 3 * 10**12 and last.deal == 10**12 // 2 - 1
    assert last.ruleset == 2 and last.seats == (2, 1)  # the last pairing of the last ruleset


@pytest.mark.parametrize("name", SPECS)
def test_prefix_spread_counts_what_the_schedule_holds(name: str) -> None:
    spec = SPECS[name]
    schedule = Schedule(spec)
    units = [(r, t) for r in range(schedule.shape.rulesets) for t in range(schedule.shape.tables)]
    counts = dict.fromkeys(units, 0)
    for game in range(len(schedule) + 1):
        assert schedule.shape.prefix_spread(game) == (min(counts.values()), max(counts.values()))
        if game < len(schedule):
            counts[units[(game // schedule.orders) % len(units)]] += 1


@pytest.mark.parametrize(
    ("played", "total", "text"),
    [
        (7_500, 30_000, "partial: 7,500 of 30,000 games played (25.0 %)"),
        (2_000, 30_000, "partial: 2,000 of 30,000 games played (6.7 %)"),
        (29_999, 30_000, "partial: 29,999 of 30,000 games played (99.9 %)"),  # never shown as 100 %
        (0, 120, "partial: 0 of 120 games played (0.0 %)"),
    ],
)
def test_partial_text_gives_the_share(played: int, total: int, text: str) -> None:
    assert partial_text(played, total, None) == text
    assert partial_text(played, total, "x") == f"{text}; x"


def test_proportion_text_names_the_spread() -> None:
    shape = ScheduleShape(rulesets=2, tables=3, orders=2, deals=10)  # rounds of 12 games
    assert proportion_text(shape, 0, "pairing") is None
    assert proportion_text(shape, 4, "pairing") == "not every pairing has a game yet (0 to 2 games each)"
    assert proportion_text(shape, 24, "pairing") == "every pairing in proportion (4 games each)"
    assert proportion_text(shape, 25, "pairing") == "every pairing in proportion (4 to 5 games each)"


def test_shape_from_settings_matches_the_schedule() -> None:
    for spec in SPECS.values():
        shape = ScheduleShape.of(spec.format, len(spec.players), spec.seats, spec.games, len(spec.rulesets))
        assert shape == Schedule(spec).shape


# --- runs that stop early ----------------------------------------------------------------------
PACED = """
import os
import time
from arena.players import Action


class Paced:
    # Plays the same moves whatever ARENA_TEST_PACE says; it only waits that long per decision, so
    # a test can stop the run midway and compare it with a fast uninterrupted one.
    name = "paced"

    def decide(self, view):
        time.sleep(float(os.environ.get("ARENA_TEST_PACE", "0")))
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 350)
"""


def paced_args(tmp_path: Path) -> list[str]:
    bot = tmp_path / "paced.py"
    if not bot.exists():
        bot.write_text(textwrap.dedent(PACED))
    return [
        *("--rules", "classic", "--rules", "short"),
        *("-p", "greedy", "-p", f"{bot}:Paced", "-p", "threshold"),
        *("--games", "24", "--seed", "8", "--workers", "1", "--batch-size", "4", "--no-progress"),
    ]


TOTAL = 2 * 3 * 24  # rulesets x pairings x games
PARTIAL = re.compile(
    rf"partial: ([\d,]+) of {TOTAL} games played \((\d+\.\d) %\); every pairing on every ruleset in "
    r"proportion \((\d+)(?: to (\d+))? games each\)"
)


def stop_midway(tmp_path: Path, out: Path, signum: int) -> tuple[int, str, str]:
    proc = subprocess.Popen(
        [*ARENA, "tournament", "--out", str(out), *paced_args(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ARENA_TEST_PACE": "0.001"},
    )
    games = out / "games.csv"
    deadline = time.monotonic() + 60
    while not (games.exists() and games.read_bytes().count(b"\n") > 2 * 16):  # 16 games in
        assert time.monotonic() < deadline and proc.poll() is None, "the run did not get going"
        time.sleep(0.05)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    return proc.returncode, stdout, stderr


def check_partial(out: Path, stdout: str) -> int:
    """The first line of stdout marks the ranking as partial, with figures games.csv bears out."""
    match = PARTIAL.fullmatch(stdout.splitlines()[0])
    assert match, stdout[:300]
    played = int(match[1].replace(",", ""))
    games = pd.read_csv(out / "games.csv")
    assert games["game"].nunique() == played and games["game"].max() == played - 1
    assert 16 <= played < TOTAL and match[2] == f"{100 * played / TOTAL:.1f}"
    per_pairing = games.groupby(["ruleset", "game"])["player"].agg(frozenset).reset_index()
    counts = per_pairing.groupby(["ruleset", "player"]).size()
    assert len(counts) == 6  # every pairing on both rulesets has games
    fewest, most = int(match[3]), int(match[4] or match[3])
    assert (counts.min(), counts.max()) == (fewest, most) and most - fewest <= 2  # within one deal
    assert "rank  player" in stdout
    return played


@pytest.mark.slow
def test_ctrl_c_marks_the_ranking_partial_and_resume_equals_a_whole_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole"
    result = CliRunner().invoke(cli, ["tournament", "--out", str(whole), *paced_args(tmp_path)])
    assert result.exit_code == 0, result.stderr
    stopped = tmp_path / "stopped"
    code, stdout, stderr = stop_midway(tmp_path, stopped, signal.SIGINT)
    assert code == 130 and "Traceback" not in stderr, stderr[-400:]
    played = check_partial(stopped, stdout)
    assert f"interrupted: {played:,} of {TOTAL} games kept" in stderr
    info = json.loads((stopped / "run.json").read_text())
    assert info["complete"] is False and info["share_played"] == round(played / TOTAL, 6)
    assert info["stopped_by"] == "Ctrl-C (SIGINT)"
    report = CliRunner().invoke(cli, ["report", str(stopped)])
    assert report.exit_code == 0 and f"({stdout.splitlines()[0]})" in report.stdout.splitlines()[0]
    data = json.loads(CliRunner().invoke(cli, ["report", str(stopped), "--json"]).stdout)
    assert (data["complete"], data["games_played"], data["games_total"]) == (False, played, TOTAL)
    resumed = CliRunner().invoke(cli, ["tournament", "--resume", str(stopped), "--no-progress"])
    assert resumed.exit_code == 0 and not resumed.stdout.startswith("partial")
    for name in ("games.csv", "summary.csv", "pairwise.csv", "errors.csv"):
        assert (stopped / name).read_bytes() == (whole / name).read_bytes(), name
    assert json.loads((stopped / "run.json").read_text())["stopped_by"] is None


@pytest.mark.slow
def test_sigterm_stops_like_ctrl_c_and_marks_the_ranking_partial(tmp_path: Path) -> None:
    out = tmp_path / "terminated"
    code, stdout, stderr = stop_midway(tmp_path, out, signal.SIGTERM)
    assert code == 143 and "Traceback" not in stderr, stderr[-400:]
    played = check_partial(out, stdout)
    assert f"terminated: {played:,} of {TOTAL} games kept; continue with `arena tournament --resume" in stderr
    info = json.loads((out / "run.json").read_text())
    assert info["stopped_by"] == "SIGTERM" and info["games_written"] == played


def test_a_folder_numbered_in_the_old_order_is_not_resumed(tmp_path: Path) -> None:
    out = tmp_path / "old"
    args = ["--rules", "classic", "-p", "greedy", "-p", "random", "-p", "threshold", "--games", "20"]
    assert CliRunner().invoke(cli, ["tournament", "--out", str(out), "--no-progress", *args]).exit_code == 0
    # What an arena from before the interleaved schedule saved: no "schedule", its own fingerprint.
    saved = json.loads((out / "spec.json").read_text())
    del saved["schedule"]
    identity = {k: v for k, v in saved.items() if k not in ("fingerprint", "command")}
    saved["fingerprint"] = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    (out / "spec.json").write_text(json.dumps(saved))
    (out / "run.json").unlink()
    lines = (out / "games.csv").read_text().splitlines(keepends=True)
    (out / "games.csv").write_text("".join(lines[: 1 + 2 * 25]))  # 25 of 60 games
    result = CliRunner().invoke(cli, ["tournament", "--resume", str(out), "--no-progress"])
    assert result.exit_code == 2 and "holds a different tournament (differs in: schedule)" in result.stderr
    report = CliRunner().invoke(cli, ["report", str(out)])
    assert report.exit_code == 0
    assert "(partial: 25 of 60 games played (41.7 %); not in proportion (an older run" in report.stdout
