"""What a leaderboard says about its league above the table: its name, its rules, how far its
games have got and when it last changed (the standings page and the projector view).

The rules are summed up from each :class:`~arena.engine.rules.Ruleset`'s fields, never from its
name, so a league's own TOML ruleset reads as the presets do.  The progress comes from the
database alone: the games missing between active entries (every pair of active entries owes
``games`` per ruleset, docs/league.md) and the latest run's record
(:mod:`arena.leagues.run_record`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import Ruleset
from arena.leagues.ladder import SCHEDULE_KEY, games_left_in_rounds
from arena.leagues.public_paths import league_folder
from arena.leagues.run_record import RunRecord, read_run, run_state
from arena.storage import league_db

#: The longest league name ``league init --name`` takes.
MAX_NAME = 80


def name_problem(name: str) -> str | None:
    """Why ``name`` can't name a league (empty, too long, a control character), or None."""
    if not name.strip():
        return "--name must not be empty"
    if len(name) > MAX_NAME:
        return f"--name must be at most {MAX_NAME} characters, got {len(name)}"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "--name must be one line of text, without control characters"
    return None


def default_name(folder: str | Path) -> str:
    """A league's name when ``init`` is given none: its folder's name."""
    return Path(folder).resolve().name or str(folder)


def league_name(connection: sqlite3.Connection, settings: dict[str, Any]) -> str:
    """The name stored at ``init``; a league made before names were stored: its folder's."""
    name = settings.get("name")
    if isinstance(name, str) and name_problem(name) is None:
        return name
    folder = league_folder(connection)
    return default_name(folder) if folder is not None else "league"


def ruleset_summary(rules: Ruleset) -> str:
    """The key numbers of ``rules`` in one line, read from its fields (docs/rules.md explains
    each): dice, target, entry, the scoring combinations it has, penalties and the end."""
    parts = [f"{rules.dice} dice", f"to {rules.target:,}" + (" exactly" if rules.exact_target else "")]
    if rules.entry_threshold:
        parts.append(f"{rules.entry_threshold:,} to get on the board")
    if rules.straights:
        if rules.dice == 6:
            parts.append(f"straight 1-6: {rules.straight_1_to_6:,}")
        else:
            parts.append(f"straights 1-5: {rules.straight_1_to_5:,}, 2-6: {rules.straight_2_to_6:,}")
    if rules.three_pairs and rules.dice == 6:
        parts.append(f"three pairs: {rules.three_pairs_value:,}")
    if rules.two_triplets_bonus and rules.dice == 6:
        parts.append(f"two triplets: +{rules.two_triplets_bonus:,}")
    if rules.kind_scoring == "fixed_values":
        parts.append(
            f"4/5/6 of a kind: {rules.four_of_a_kind:,}/{rules.five_of_a_kind:,}/{rules.six_of_a_kind:,}"
        )
    elif rules.kind_scoring == "fixed_bonus":
        parts.append(f"each die beyond three of a kind: +{rules.kind_bonus:,}")
    if rules.must_roll_after_hot_dice:
        parts.append("must roll again after hot dice")
    if rules.farkle_penalty_to_zero:
        parts.append(f"{rules.farkle_penalty_streak} farkles in a row: back to 0")
    elif rules.farkle_penalty:
        parts.append(f"{rules.farkle_penalty_streak} farkles in a row: -{rules.farkle_penalty:,}")
    if rules.rising_bar:
        parts.append(
            f"rising bar from {rules.bar_start:,} (+{rules.bar_step:,}), "
            f"{rules.strikes_to_zero} strikes: back to 0"
        )
    if rules.final_round == "everyone_else":
        parts.append("after the target everyone else has one more turn")
    else:
        parts.append("after the target the round is played out")
    if rules.ties == "playoff":
        parts.append("ties: a playoff")
    return "; ".join(parts)


@dataclass(frozen=True)
class Progress:
    """How far a league's games have got."""

    stored: int  # games stored between active entries
    missing: int  # games active entries still owe each other
    state: str  # run_state of the latest run, or "never" (no run yet)
    run: RunRecord | None
    last_changed: str | None  # ISO time in UTC: the latest stored game or added entry


def missing_games(connection: sqlite3.Connection, settings: dict[str, Any]) -> int:
    """Games that pairs of active entries still owe: each pair owes ``games`` (in whole deals)
    per ruleset, however many it has played beyond that (docs/league.md).  A ladder owes only
    the games left in its rounds begun: it chooses each later round as it plays, and never owes
    the pairs it leaves out (:func:`arena.leagues.ladder.games_left_in_rounds`)."""
    per_pair = -(-int(settings["games"]) // 2) * 2 * len(settings["rulesets"])
    if settings.get(SCHEDULE_KEY) == "ladder":
        return games_left_in_rounds(connection, per_pair)
    # A retired entrant owes nothing: a run leaves it out (arena.leagues.retirement).
    active = [
        r[0]
        for r in connection.execute(
            "SELECT id FROM entries WHERE active = 1 AND name NOT IN (SELECT name FROM retirements)"
        )
    ]
    counts = {
        (r[0], r[1]): r[2]
        for r in connection.execute("SELECT low, high, COUNT(*) FROM games GROUP BY low, high")
    }
    ids = sorted(active)
    return sum(
        max(0, per_pair - counts.get((low, high), 0)) for k, low in enumerate(ids) for high in ids[k + 1 :]
    )


def league_progress(connection: sqlite3.Connection, stored: int) -> Progress:
    """The progress of the league ``connection`` reads; ``stored``: the games the standings
    count (so the page and its table agree)."""
    settings = league_db.settings(connection)
    run = read_run(connection)
    added = connection.execute("SELECT MAX(added) FROM entries").fetchone()[0]
    times = [t for t in (added, run.updated if run is not None else None) if isinstance(t, str)]
    return Progress(
        stored=stored,
        missing=missing_games(connection, settings),
        state="never" if run is None else run_state(run),
        run=run,
        last_changed=max(times) if times else None,
    )


def shown_time(iso: str | None) -> str:
    """An ISO time as a page shows it: ``2026-12-06 02:31:05 UTC``."""
    if iso is None:
        return "never"
    return iso.replace("T", " ").replace("+00:00", " UTC")


def progress_line(progress: Progress) -> str:
    """One sentence: whether a run is playing, the games stored and missing, and when the
    league last changed."""
    run = progress.run
    counts = f"{progress.stored:,} games stored, {progress.missing:,} missing"
    if progress.state == "running" and run is not None and not run.planned and not run.stored:
        head = f"A run is in progress (started {shown_time(run.started)}, loading its entries)"
    elif progress.state == "running" and run is not None:
        head = (
            f"A run is in progress (started {shown_time(run.started)}, "
            f"{run.stored:,} of {run.planned:,} played)"
        )
    elif progress.state == "elsewhere" and run is not None:
        head = f"A run started {shown_time(run.started)} on {run.host}, which this machine can't check"
    elif progress.state == "killed" and run is not None:
        head = f"The run started {shown_time(run.started)} ended without finishing"
    elif progress.state == "stopped":
        head = "The last run was stopped before it finished"
    elif progress.state == "finished":
        head = "No run is in progress"
    else:
        head = "No run yet"
    return f"{head}: {counts}; last changed {shown_time(progress.last_changed)}."
