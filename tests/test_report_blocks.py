"""The vectorized reports against a plain per-game count on tricky games.csv files: shared ranks
and shared wins, faults (with commas in their reason), tables of two to four seats in one file,
a player seated twice, an interrupted file, and every block size."""

from __future__ import annotations

import csv
import io
import random
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
import pytest

from arena.analysis.games_csv import Names, game_blocks
from arena.analysis.gauntlet import GauntletPairs
from arena.analysis.ratings import finishing_order, plackett_luce_elo
from arena.analysis.reports import build_reports
from arena.analysis.tally import group_sums

HEADER = "ruleset,game,deal,seed,seat,player,score,rank,win,turns,farkles,status,reason,end\n"
PLAYERS = ["ann", "bob", "cy", "dee", "eve"]


def tricky_games(path: Path, games: int, seed: int, sizes: tuple[int, ...] = (2, 2, 3, 4)) -> None:
    """Random games of 2 to 4 seats on two rulesets: ranks drawn with ties (a shared first
    place splits the win), about one seat in ten a fault, now and then one player in two seats,
    about one game in eight ended at the round limit."""
    rng = random.Random(seed)
    rows = [HEADER]
    for game in range(games):
        ruleset = rng.choice(["alpha", "beta,2"])  # a name CSV must quote
        k = rng.choice(sizes)
        players = rng.sample(PLAYERS, k)
        if k > 2 and rng.random() < 0.1:
            players[-1] = players[0]
        ranks = [rng.randint(1, k) for _ in range(k)]
        ranks = [sorted(set(ranks)).index(r) + 1 for r in ranks]  # 1, 2, ... with ties
        winners = ranks.count(1)
        share = round(1 / winners, 6)
        end = "round_limit" if rng.random() < 0.125 else "target"
        for seat, (player, rank) in enumerate(zip(players, ranks, strict=True)):
            fault = rng.random() < 0.1
            status, reason = ("error", '"boom, at 350"') if fault else ("ok", "")
            win = share if rank == 1 else 0
            score, turns, farkles = rng.randint(0, 99) * 50, rng.randint(1, 40), rng.randint(0, 9)
            rows.append(
                f'"{ruleset}",{game},{game // 2},{rng.getrandbits(64)},{seat},{player},{score},'
                f"{rank},{win:g},{turns},{farkles},{status},{reason},{end}\n"
            )
    path.write_text("".join(rows))


def expected(path: Path) -> dict[str, object]:
    """The statistics counted one game at a time with the csv module."""
    games: dict[str, list[dict[str, str]]] = defaultdict(list)
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            games[row["game"]].append(row)
    players: dict[tuple[str, str], Counter] = defaultdict(Counter)
    pairs: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    seats: dict[tuple[str, int, int], Counter] = defaultdict(Counter)
    lengths: Counter = Counter()
    orders: dict[str, Counter] = defaultdict(Counter)
    faults = []
    for rows in games.values():
        ruleset = rows[0]["ruleset"]
        stalled = rows[0]["end"] == "round_limit"
        if not stalled:  # a game cut by the round limit has no length of its own
            lengths[(ruleset, max(int(r["turns"]) for r in rows))] += 1
        orders[ruleset][finishing_order([r["player"] for r in rows], [int(r["rank"]) for r in rows])] += 1
        for row in rows:
            mine = players[(ruleset, row["player"])]
            mine["games"] += 1
            mine["wins"] += round(float(row["win"]) * 1_000_000)
            mine["score"] += int(row["score"])
            mine["errors"] += row["status"] != "ok"
            mine["round_limit"] += stalled
            seat = seats[(ruleset, len(rows), int(row["seat"]))]
            seat["games"] += 1
            seat["wins"] += round(float(row["win"]) * 1_000_000)
            if row["status"] != "ok":
                faults.append([ruleset, row["game"], row["player"], row["status"], row["reason"]])
            for other in rows:
                if other is not row and other["player"] != row["player"]:
                    pair = pairs[(ruleset, row["player"], other["player"])]
                    pair["games"] += 1
                    pair["halves"] += 2 * (row["rank"] < other["rank"]) + (row["rank"] == other["rank"])
    return {
        "players": players,
        "pairs": pairs,
        "seats": seats,
        "lengths": lengths,
        "orders": orders,
        "faults": faults,
    }


@pytest.fixture(scope="module")
def tricky(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tricky") / "games.csv"
    tricky_games(path, 300, seed=7)
    return path


def test_reports_equal_a_plain_count_game_by_game(tricky: Path, tmp_path: Path) -> None:
    want = expected(tricky)
    errors = tmp_path / "errors.csv"
    stats = build_reports(tricky, errors_path=errors)
    summary = stats.summary.set_index(["ruleset", "player"])
    assert len(summary) == len(want["players"])
    for key, c in want["players"].items():
        row = summary.loc[key]
        want_counts = (c["games"], c["errors"], c["round_limit"])
        assert (row["games"], row["errors"], row["round_limit"]) == want_counts
        assert row["wins"] == c["wins"] / 1_000_000 and row["mean_score"] == c["score"] / c["games"]
    pairwise = stats.pairwise.set_index(["ruleset", "player", "opponent"])
    assert len(pairwise) == len(want["pairs"])
    for key, c in want["pairs"].items():
        assert (pairwise.loc[key, "games"], pairwise.loc[key, "wins"]) == (c["games"], c["halves"] / 2)
    seats = stats.seats.set_index(["ruleset", "seats", "seat"])
    assert {k: (v["games"], v["wins"] / 1_000_000) for k, v in want["seats"].items()} == {
        k: (row.games, row.wins) for k, row in zip(seats.index, seats.itertuples(), strict=True)
    }
    assert Counter({(r, n): g for r, n, g in stats.lengths.itertuples(index=False)}) == want["lengths"]
    assert summary["round_limit"].sum() > 0
    # The ratings are those of the finishing orders counted game by game, to the last bit.
    for ruleset, counts in want["orders"].items():
        for player, (elo, low, high) in plackett_luce_elo(counts).items():
            row = summary.loc[(ruleset, player)]
            assert (row["elo"], row["elo_low"], row["elo_high"]) == (elo, low, high)
    written = list(csv.reader(io.StringIO(errors.read_text())))
    assert written[0] == ["ruleset", "game", "player", "status", "reason"]
    assert written[1:] == want["faults"] and stats.error_count == len(want["faults"]) > 0


@pytest.mark.parametrize("rows", [3, 8, 64, 10_000])
def test_any_block_size_gives_the_same_reports(tricky: Path, rows: int) -> None:
    whole = build_reports(tricky)
    part = build_reports(tricky, chunk_rows=rows)
    for name in ("summary", "pairwise", "seats", "lengths"):
        pd.testing.assert_frame_equal(getattr(whole, name), getattr(part, name), check_exact=True)


def test_blocks_never_split_a_game_and_drop_an_unfinished_one(tmp_path: Path) -> None:
    # An interrupted run of three-seat games: its last game has two of its rows and a torn third.
    whole = tmp_path / "whole.csv"
    tricky_games(whole, 40, seed=8, sizes=(3,))
    lines = whole.read_text().splitlines(keepends=True)
    partial = tmp_path / "games.csv"
    partial.write_text("".join(lines[: 1 + 3 * 30 + 2]) + lines[1 + 3 * 30 + 2][:9])
    for rows in (1, 4, 10_000):
        seen: list[int] = []
        for block in game_blocks(partial, Names(), rows):
            assert (pd.Series(block.game).value_counts() == 3).all()  # whole games only
            seen += block.game.tolist()
        assert seen == [g for g in range(30) for _ in range(3)]
    stats = build_reports(partial, chunk_rows=4)
    stalled = stats.summary["round_limit"].sum() // 3  # games with no length of their own
    assert stats.lengths["games"].sum() + stalled == 30 and stats.summary["games"].sum() == 90


def test_group_sums_dense_sparse_and_unpackable_keys_agree() -> None:
    rng = random.Random(3)
    a = pd.Series([rng.randint(0, 5) for _ in range(500)]).to_numpy()
    b = pd.Series([rng.randint(-3, 3) for _ in range(500)]).to_numpy()
    huge = b * 2**40  # three columns whose packed range passes 2^62: grouped row by row
    v = pd.Series([rng.randint(0, 1000) for _ in range(500)]).to_numpy()
    want: dict[tuple[int, int], list[int]] = {}
    for x, y, z in zip(a.tolist(), b.tolist(), v.tolist(), strict=True):
        row = want.setdefault((x, y), [0, 0])
        row[0] += 1
        row[1] += z
    assert dict(group_sums([a, b], [v])) == want
    sparse = dict(group_sums([a * 10**9, b], [v]))  # a wide range: unique, not bincount
    assert sparse == {(x * 10**9, y): s for (x, y), s in want.items()}
    unpackable = dict(group_sums([a, huge, huge], [v]))
    assert unpackable == {(x, y * 2**40, y * 2**40): s for (x, y), s in want.items()}


def test_gauntlet_pairs_in_file_order_across_blocks(tmp_path: Path) -> None:
    # One deal played four times (two pairs) and pairs split at every block boundary.
    path = tmp_path / "games.csv"
    results = [1, 0, 0.5, 1, 0, 0, 1, 1]  # t's share, game by game
    rows = [HEADER]
    for game, win in enumerate(results):
        deal = 0 if game < 4 else game // 2
        seats = [("t", win), ("o", 1 - win)] if game % 2 == 0 else [("o", 1 - win), ("t", win)]
        for seat, (player, share) in enumerate(seats):
            rank = 1 if share >= 0.5 else 2
            rows.append(f"r,{game},{deal},1,{seat},{player},0,{rank},{share:g},3,0,ok,,target\n")
    path.write_text("".join(rows))
    for block_rows in (1, 3, 100):
        names = Names()
        pairs = GauntletPairs("t", names)
        for block in game_blocks(path, names, block_rows):
            pairs.add(block)
        (total,) = pairs.totals.values()
        # pairs: (1, 0) -> 1/2, (0.5, 1) -> 3/4, (0, 0) -> 0, (1, 1) -> 1
        assert total == [8, 9, 1, 0, 1, 1, 1] and not pairs.pending
