"""A few games of a run replayed turn by turn: each seat's score after every turn.

games.csv keeps only how each game ended.  A game is fixed by its seed and its seating (the dice
streams and every strategy's ``info.rng`` derive from the seed), so replaying it with the same
strategies gives the same game; the replay is checked against the row arena wrote (every seat's
final score and turns) and a game that does not match is left out rather than shown wrong
(a strategy that draws on the ``random`` module's shared generator plays another game).
"""

from __future__ import annotations

import contextlib
import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import Ruleset
from arena.engine import events as ev
from arena.players.loading import PlayerSpec, StrategyError, load_player_spec
from arena.players.match import play_match
from arena.safe_files import open_read, read_text

#: Games shown per ruleset.
SAMPLE_GAMES = 4
#: Rows of games.csv read at most while looking for them (the first deals hold every pairing).
SCAN_ROWS = 100_000
#: Games per ruleset considered for the samples (the first of each deal and line-up).
CANDIDATES = 200


@dataclass(frozen=True)
class SampleGame:
    """One replayed game: ``scores[seat]`` is that seat's score after each of its turns, from 0
    before the first."""

    ruleset: str
    game: int
    deal: int
    players: tuple[str, ...]  # by seat
    scores: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]  # seats
    target: int


@dataclass(frozen=True)
class _Row:
    game: int
    deal: int
    seed: int
    seat: int
    player: str
    score: int
    turns: int
    status: str
    end: str  # how the game ended (games.csv's end column)


def sample_games(folder: Path, count: int = SAMPLE_GAMES) -> dict[str, list[SampleGame]]:
    """Up to ``count`` replayed games per ruleset of the run in ``folder``, chosen so that every
    strategy appears if it can (see :func:`choose`).  Games with a fault, games that ended at
    the round limit (a thousand rounds of stalling would squeeze the real play into a corner),
    and games with a strategy that can't be rebuilt here (a class passed from Python, an
    isolated or ``cmd:`` player, a file since removed), are skipped.  {} when the run has no
    spec.json."""
    try:
        spec = json.loads(read_text(folder / "spec.json"))
        rulesets = {r["name"]: Ruleset(**r) for r in spec["rulesets"]}
        entries = {p["label"]: p for p in spec["players"]}
        max_rounds = int(spec["max_rounds"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    players: dict[str, PlayerSpec | None] = {}
    candidates: dict[str, list[list[_Row]]] = {}
    deals: set[tuple[str, int, frozenset[str]]] = set()
    for ruleset, rows in _games(folder / "games.csv"):
        if ruleset not in rulesets or any(r.status != "ok" for r in rows) or rows[0].end == "round_limit":
            continue
        labels = frozenset(r.player for r in rows)
        # One seat order of a deal is enough: the others replay the same dice.
        if (ruleset, rows[0].deal, labels) in deals or len(candidates.get(ruleset, [])) >= CANDIDATES:
            continue
        if not all(_player(label, entries, players) for label in labels):
            continue
        deals.add((ruleset, rows[0].deal, labels))
        candidates.setdefault(ruleset, []).append(rows)
    result: dict[str, list[SampleGame]] = {}
    for ruleset, games in candidates.items():
        picked = choose([[r.player for r in rows] for rows in games], count)
        replayed = [_replay(rulesets[ruleset], games[k], players, max_rounds) for k in picked]
        result[ruleset] = [game for game in replayed if game is not None]
    return result


def choose(tables: list[list[str]], count: int) -> list[int]:
    """Which of these games (each its players) to show, at most ``count``, in file order.  Again
    and again the game that brings in the most strategies not yet shown; among equals one of a
    line-up not yet shown, then the one whose strategies have been shown least, then the
    earliest: a few games show every strategy they can, and no strategy in all of them."""
    picked: list[int] = []
    appearances: dict[str, int] = {}
    lineups: set[frozenset[str]] = set()
    while len(picked) < count and len(picked) < len(tables):

        def merit(k: int) -> tuple[int, bool, int, int]:
            table = tables[k]
            new = len(set(table) - set(appearances))
            return new, frozenset(table) not in lineups, -sum(appearances.get(p, 0) for p in table), -k

        k = max((k for k in range(len(tables)) if k not in picked), key=merit)
        picked.append(k)
        lineups.add(frozenset(tables[k]))
        for player in tables[k]:
            appearances[player] = appearances.get(player, 0) + 1
    return sorted(picked)


def _player(label: str, entries: dict[str, Any], cache: dict[str, PlayerSpec | None]) -> PlayerSpec | None:
    """The player of this label, rebuilt from its spec; None if it can't be rebuilt here."""
    if label not in cache:
        entry = entries.get(label)
        cache[label] = None
        if isinstance(entry, dict) and entry.get("source") != "class" and not entry.get("isolated"):
            with contextlib.suppress(StrategyError, KeyError):
                cache[label] = load_player_spec(str(entry["spec"]))
    return cache[label]


def _games(path: Path) -> Iterator[tuple[str, list[_Row]]]:
    """The games at the start of games.csv, as (ruleset, rows by seat); a damaged or torn row
    ends the scan (the reports say what is wrong with the file)."""
    rows: list[_Row] = []
    ruleset = ""
    try:
        with open_read(path, "r", newline="", encoding="utf-8") as file:
            for n, record in enumerate(csv.DictReader(file)):
                if n >= SCAN_ROWS:
                    break
                row = _Row(
                    int(record["game"]),
                    int(record["deal"]),
                    int(record["seed"]),
                    int(record["seat"]),
                    record["player"],
                    int(record["score"]),
                    int(record["turns"]),
                    record["status"],
                    record.get("end") or "",
                )
                if rows and row.game != rows[0].game:
                    yield ruleset, sorted(rows, key=lambda r: r.seat)
                    rows = []
                ruleset = record["ruleset"]
                rows.append(row)
    except (OSError, ValueError, KeyError, TypeError):
        return
    # The last game read may be cut off by SCAN_ROWS or a torn end: left out.


def _replay(
    rules: Ruleset, rows: list[_Row], players: dict[str, PlayerSpec | None], max_rounds: int
) -> SampleGame | None:
    """The game of these rows played again, with the score of each seat after each turn; None if
    it does not end as the rows say."""
    starts: list[list[int]] = [[] for _ in rows]
    ended: list[ev.GameOver] = []

    def record(event: ev.Event) -> None:
        if isinstance(event, ev.TurnStarted):
            starts[event.seat].append(event.score)
        elif isinstance(event, ev.GameOver):
            ended.append(event)

    seated = [players[r.player] for r in rows]
    try:
        play_match(
            rules,
            [p.create() for p in seated if p is not None],
            rows[0].seed,
            on_event=record,
            max_rounds=max_rounds,
        )
    except Exception:  # a strategy that fails now: not shown, the run is unaffected
        return None
    if not ended:
        return None
    final = ended[0].scores
    if list(final) != [r.score for r in rows] or [len(s) for s in starts] != [r.turns for r in rows]:
        return None
    # A turn's score is the next turn's starting score (after any strike or penalty), the last
    # turn's the final score.
    scores = tuple((*s, final[seat]) for seat, s in enumerate(starts))
    return SampleGame(
        rules.name,
        rows[0].game,
        rows[0].deal,
        tuple(r.player for r in rows),
        scores,
        ended[0].winners,
        rules.target,
    )
