"""Playing what a league is missing, as gauntlet plans written batch by batch.

Each new entry is the head of a *plan*: a gauntlet of it against every older active entry it
has not yet met in full.  Newest entries go first.  A plan is a gauntlet
(:class:`~arena.tournaments.spec.TournamentSpec`) with keyed seeds (:mod:`arena.leagues.seeds`):
a game's dice derive from the league's secret, the ruleset, the pair's two versions and the deal,
and duplicate dice hold: both seat orders of every deal.  Batches and chunks hold whole deals
(both numbers are even), so a game's seed reaches the database, and the pages, only with its
deal's other seat order.  Each batch of results is written in one transaction with the plan's
next game, so the database is the journal (:mod:`arena.storage.league_db`).
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import errno
import fcntl
import io
import json
import math
import os
import shlex
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from arena.engine import Ruleset
from arena.leagues.entries import Entry, active_entries, all_entries, changed_since_added
from arena.leagues.seeds import plan_seed_key
from arena.players.loading import PlayerSpec, StrategyError
from arena.safe_files import FileRefused, make_folder, open_fd
from arena.sandbox import SeatPlace, load_player
from arena.storage.league_db import PRIVATE_FOLDER, read_only_message
from arena.tournaments.interrupts import stop_signals
from arena.tournaments.results import BatchResult
from arena.tournaments.rows import HEADER
from arena.tournaments.runner import batch_results
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, TournamentSpec

LOCK_NAME = "data/run.lock"
#: The seats' logs, in the league's private folder.
SEAT_LOGS = "seat-logs"
#: Deals of each pair and ruleset kept whole for the game viewer (both seat orders of each);
#: every game with a fault is kept too.
RECORD_DEALS = 1
#: Games per chunk (a fresh process each, with fresh seat processes: smaller chunks let more
#: workers share a plan but start seats more often) and per write (a kill loses at most the
#: games of one write per worker).
CHUNK_GAMES = 250
BATCH_GAMES = 10


class LeagueBusy(Exception):
    """Another ``league run`` holds this league."""


class LeagueFolderRefused(Exception):
    """A league folder with a planted link or special file where a run writes."""


@dataclass(frozen=True)
class RunReport:
    played: int
    faults: int
    interrupted: bool
    terminated: bool = False  # stopped by SIGTERM (exit 143), not Ctrl-C (130)
    #: One line per plan left for a later run: an entry that did not load, or whose program
    #: or module changed since it was added.  The other plans are played.
    skipped: tuple[str, ...] = ()


_HELD_LOCKS: set[int] = set()


def _drop_locks_in_child() -> None:
    """A forked worker must not keep the run lock: its copy of the descriptor would hold the
    flock after the run ended until the worker is reaped, so a run started right after a stopped
    one (same process) was refused as busy. Closing a copy leaves the parent's lock in place."""
    for fd in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


os.register_at_fork(after_in_child=_drop_locks_in_child)


def _hold_lock(folder: Path) -> int:
    """The run lock, held; opened as every file arena writes in a received folder is
    (:mod:`arena.safe_files`: never through a link, never a FIFO or another file's second name),
    and the seats' log folder made the same way now, so a planted link there is refused in one
    line before a game starts (else it would be each seat's fault at its first stderr line)."""
    try:
        make_folder(Path(folder) / PRIVATE_FOLDER / SEAT_LOGS)
        fd = open_fd(Path(folder) / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except FileRefused as exc:
        raise LeagueFolderRefused(
            f"{exc.filename}: {exc.strerror}; a league folder received from someone else may hold "
            "planted links: remove it"
        ) from None
    except OSError as exc:
        if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise
        why = (exc.strerror or "").lower()
        raise LeagueFolderRefused(read_only_message(Path(folder) / PRIVATE_FOLDER, why)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LeagueBusy(f"another `arena league run` is playing {folder}; wait for it to end") from None
    _HELD_LOCKS.add(fd)
    return fd


def _pair_counts(connection: sqlite3.Connection) -> dict[tuple[int, int], int]:
    rows = connection.execute("SELECT low, high, COUNT(*) FROM games GROUP BY low, high").fetchall()
    return {(r[0], r[1]): r[2] for r in rows}


def plan_work(
    connection: sqlite3.Connection, games_per_pair: int, playable: set[int] | None = None
) -> list[tuple[int, list[int]]]:
    """The plans to play: (plan id, [head, opponents...]), unfinished ones first, then a new one
    per entry that has not met every older active entry in full, newest entry first.  New plans
    seat only ``playable`` entries (default: every active one); the pairs of the others are
    planned in a later run, once they play again."""
    active = {e.id for e in active_entries(connection)}
    with connection:  # plans a kill left before they were sized: nothing was played in them
        connection.execute("DELETE FROM plans WHERE total = 0 AND id NOT IN (SELECT plan FROM games)")
    plans: list[tuple[int, list[int]]] = []
    for row in connection.execute("SELECT id, players FROM plans WHERE next_game < total ORDER BY id"):
        players = json.loads(row["players"])
        if set(players) <= active:
            plans.append((row["id"], players))
    covered = {frozenset((p[0], o)) for _, p in plans for o in p[1:]}
    counts = _pair_counts(connection)
    ids = sorted(active if playable is None else active & playable)
    for head in reversed(ids):
        opponents = [
            o
            for o in ids
            if o < head and frozenset((head, o)) not in covered and counts.get((o, head), 0) < games_per_pair
        ]
        if opponents:
            with connection:
                cursor = connection.execute(
                    "INSERT INTO plans (players, total) VALUES (?, 0)", (json.dumps([head, *opponents]),)
                )
            plans.append((int(cursor.lastrowid or 0), [head, *opponents]))
            covered |= {frozenset((head, o)) for o in opponents}
    return plans


def play_league(
    folder: Path,
    connection: sqlite3.Connection,
    settings: dict,
    *,
    workers: int = 1,
    trusted: bool = False,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = None,
    on_batch: Callable[[BatchResult], None] | None = None,
) -> RunReport:
    """Play every missing game of the league in ``folder``.  Raises LeagueBusy if another run
    holds it; a StrategyError if an entry no longer loads."""
    folder = Path(folder)
    lock = _hold_lock(folder)
    try:
        return _play(folder, connection, settings, workers, trusted, backend, scheduler, progress, on_batch)
    finally:
        _HELD_LOCKS.discard(lock)
        os.close(lock)


class ClockSettingError(ValueError):
    """A league's stored clock setting that is not a positive number of seconds."""


def league_clock(settings: dict) -> tuple[float, float | None]:
    """The league's (move timeout, game time) in seconds, as stored at ``init`` or changed by
    ``run``: every game of the league is played under them.  A league made before they were
    settings has none stored: 10 s a move, no game clock.  Raises :class:`ClockSettingError`
    for a stored value that is not a positive number (a hand-edited or hostile database)."""
    move = settings.get("move_timeout", DEFAULT_MOVE_TIMEOUT)
    game = settings.get("game_time")
    for key, value in (("move_timeout", move), ("game_time", game)):
        if value is None and key == "game_time":
            continue
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < math.inf:
            shown = json.dumps(value)[:40]
            raise ClockSettingError(f"the league's {key} setting is {shown}, not a positive number")
    return float(move), None if game is None else float(game)


def _load_entry(entry: Entry, trusted: bool, move_timeout: float) -> PlayerSpec:
    """The entry as a player, under its league name; raises StrategyError."""
    player = load_player(entry.play_spec, isolate=not trusted, limits=None, move_timeout=move_timeout)
    return dataclasses.replace(player, label=entry.name)


def _plan_spec(players: Sequence[PlayerSpec], entries: Sequence[Entry], settings: dict) -> TournamentSpec:
    """The plan as a gauntlet of ``entries``: keyed by its pairs' keys, never by the league's
    secret itself (a league of the old scheme: by its seed, as it always was)."""
    key = plan_seed_key(settings, entries)
    move_timeout, game_time = league_clock(settings)
    return TournamentSpec(
        rulesets=tuple(Ruleset(**r) for r in settings["rulesets"]),
        players=tuple(players),
        format="gauntlet",
        games=settings["games"],
        seed=settings["seed"] if key is None else key.spec_seed(),
        move_timeout=move_timeout,
        game_time=game_time,
        record_deals=RECORD_DEALS,
        chunk_games=CHUNK_GAMES,
        seed_key=key,
        time_decisions=True,  # each entry's time per decision, in the table and the pages
    )


def _play(
    folder: Path,
    connection: sqlite3.Connection,
    settings: dict,
    workers: int,
    trusted: bool,
    backend: str,
    scheduler: str | None,
    progress: bool | None,
    on_batch: Callable[[BatchResult], None] | None,
) -> RunReport:
    per_pair = -(-settings["games"] // 2) * 2 * len(settings["rulesets"])
    move_timeout = league_clock(settings)[0]
    # Each active entry is loaded once.  One that can't load now, or whose program or module
    # changed since it was added, holds up only its own pairs: the others are played.
    loaded: dict[int, PlayerSpec] = {}
    skipped: list[str] = []
    for entry in active_entries(connection):
        changed = changed_since_added(entry)
        if changed is not None:
            skipped.append(changed)
            continue
        try:
            loaded[entry.id] = _load_entry(entry, trusted, move_timeout)
        except StrategyError as exc:
            skipped.append(f"{' '.join(str(exc).split())} (its games wait for a later run)")
    plans = plan_work(connection, per_pair, set(loaded))
    # Every entry, not only the active ones: an upload (league serve --submit) or an add that
    # lands after planning may retire an entry a plan seats; the run plays it as loaded.
    by_id = {e.id: e for e in all_entries(connection)}
    specs = []
    for plan_id, players in plans:
        if not all(i in loaded for i in players):
            continue
        entries = [by_id[i] for i in players]
        spec = _plan_spec([loaded[i] for i in players], entries, settings)
        schedule = Schedule(spec)
        total = len(schedule)
        with connection:
            connection.execute("UPDATE plans SET total = ? WHERE id = ?", (total, plan_id))
        start = connection.execute("SELECT next_game FROM plans WHERE id = ?", (plan_id,)).fetchone()[0]
        specs.append((plan_id, entries, spec, schedule, start, total))
    remaining = sum(total - start for *_, start, total in specs)
    bar = tqdm(
        total=remaining,
        unit="game",
        file=sys.stderr,
        dynamic_ncols=True,
        disable=(not sys.stderr.isatty()) if progress is None else not progress,
    )
    played = faults = 0
    interrupted = False
    place = seat_place(folder, connection)
    with stop_signals() as stopped:
        try:
            for plan_id, entries, spec, schedule, start, total in specs:
                if start >= total:
                    continue
                with batch_results(
                    spec,
                    start,
                    total,
                    workers,
                    batch_size=BATCH_GAMES,
                    backend=backend,
                    scheduler=scheduler,
                    place=place,
                ) as results:
                    for result in results:
                        _store(connection, plan_id, entries, spec, schedule, result)
                        played += result.stop - result.start
                        faults += result.faults
                        bar.update(result.stop - result.start)
                        if on_batch is not None:
                            on_batch(result)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
    return RunReport(played, faults, interrupted, stopped.terminated, tuple(dict.fromkeys(skipped)))


def seat_place(folder: Path, connection: sqlite3.Connection) -> SeatPlace:
    """Seats log to ``data/seat-logs`` and can't see the database, nor any entry's stored code
    but their own."""
    stored = [
        Path(row["play_spec"].split(".py", 1)[0] + ".py").resolve().parent
        for row in connection.execute("SELECT play_spec FROM entries WHERE kind = 'file'")
    ]
    private = folder / PRIVATE_FOLDER
    return SeatPlace(private / SEAT_LOGS, (private.resolve(),), apart=tuple(dict.fromkeys(stored)))


def replay_command(
    spec: TournamentSpec, entries: Sequence[Entry], ruleset: str, seats: Sequence[int], seed: int
) -> str:
    isolate = " --isolate" if spec.isolated else ""
    players = " ".join(f"-p {shlex.quote(entries[i].play_spec)}" for i in seats)
    return f"arena play --rules {shlex.quote(ruleset)}{isolate} {players} --seed {seed}"


def _store(
    connection: sqlite3.Connection,
    plan_id: int,
    entries: Sequence[Entry],
    spec: TournamentSpec,
    schedule: Schedule,
    result: BatchResult,
) -> None:
    """One batch in one transaction, with the plan's next game."""
    index_of = {e.name: k for k, e in enumerate(entries)}
    rows = list(csv.DictReader(io.StringIO(HEADER + result.rows)))
    by_game: dict[int, list[dict[str, str]]] = {}
    for row in rows:
        by_game.setdefault(int(row["game"]), []).append(row)
    details = {(d.game, d.seat): d for d in result.fault_details}
    times = dict(zip(range(result.start, result.stop), result.game_times, strict=False))
    records = {r.game: r.events for r in result.records}
    with connection:
        for game, seats in by_game.items():
            slot = schedule.slot(game)
            ids = [entries[i].id for i in slot.seats]
            low, high = sorted(ids)
            cursor = connection.execute(
                "INSERT OR IGNORE INTO games (plan, plan_game, ruleset, deal, seat_order, seed, low, high, "
                "ending) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    plan_id,
                    game,
                    seats[0]["ruleset"],
                    slot.deal,
                    0 if ids[0] == low else 1,
                    str(slot.seed),
                    low,
                    high,
                    seats[0]["end"],
                ),
            )
            if cursor.rowcount == 0:
                continue  # this pair's deal was stored by an earlier plan
            game_id = cursor.lastrowid
            if game in records:
                connection.execute("INSERT INTO records VALUES (?, ?)", (game_id, records[game]))
            for row in seats:
                seat = int(row["seat"])
                entry = entries[index_of[row["player"]]]
                timed = times.get(game, ())
                seconds, decisions = timed[seat] if seat < len(timed) else (None, None)
                connection.execute(
                    "INSERT INTO seats (game, seat, entry, score, rank, win, turns, farkles, status, "
                    "reason, seconds, decisions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game_id,
                        seat,
                        entry.id,
                        int(row["score"]),
                        int(row["rank"]),
                        float(row["win"]),
                        int(row["turns"]),
                        int(row["farkles"]),
                        row["status"],
                        row["reason"],
                        seconds,
                        decisions,
                    ),
                )
                detail = details.get((game, seat))
                if detail is not None:
                    connection.execute(
                        "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            game_id,
                            seat,
                            entry.id,
                            detail.status,
                            detail.reason,
                            detail.traceback,
                            replay_command(spec, entries, row["ruleset"], slot.seats, slot.seed),
                        ),
                    )
        connection.execute("UPDATE plans SET next_game = ? WHERE id = ?", (result.stop, plan_id))
