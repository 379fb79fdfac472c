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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.engine import Ruleset
from arena.leagues.entries import (
    Entry,
    active_entries,
    all_entries,
    changed_since_added,
    entry_of,
    where_it_plays,
)
from arena.leagues.ladder import ladder_plans, league_schedule
from arena.leagues.missing import (
    Waiting,
    missing_ranges,
    next_after,
    pair_missing,
    stored_games,
    waiting_games,
)
from arena.leagues.progress_bar import games_bar
from arena.leagues.run_record import RunRecorder
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
    #: One line per entry whose games wait for a later run: an entry that did not load, whose
    #: program or module changed since it was added, or that ``skip`` named; with how many of
    #: its games wait.  The other games are played.
    skipped: tuple[str, ...] = ()
    #: The entries whose games wait, and the games that wait in all (each counted once).
    waiting: tuple[Waiting, ...] = ()
    games_waiting: int = 0

    @property
    def must_wait(self) -> bool:
        """Whether games wait that the organiser did not leave out (``skip``): a run with
        such games is not a finished one (``league run`` exits 3)."""
        return any(not w.skipped for w in self.waiting)


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
    planned in a later run, once they play again.  An unfinished plan that seats an entry not
    playable now is closed where it stopped, and its pairs are planned afresh (the league
    holds some of their games: a plan plays only the others, :mod:`arena.leagues.missing`).
    A pair that holds some of its games already gets a plan of its own, whose missing games
    are one range, not one between each stored deal of a plan's other pairs."""
    active = {e.id for e in active_entries(connection)}
    with connection:  # plans a kill left before they were sized: nothing was played in them
        connection.execute("DELETE FROM plans WHERE total = 0 AND id NOT IN (SELECT plan FROM games)")
    plans: list[tuple[int, list[int]]] = []
    for row in connection.execute(
        "SELECT id, players FROM plans WHERE next_game < total ORDER BY id"
    ).fetchall():
        players = json.loads(row["players"])
        if not set(players) <= active:
            continue  # dropped: one of its entries was replaced or retired
        if playable is not None and not set(players) <= playable:
            with connection:  # closed: its playable pairs are planned below, the others wait
                connection.execute("UPDATE plans SET total = next_game WHERE id = ?", (row["id"],))
            continue
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
        fresh = [o for o in opponents if counts.get((o, head), 0) == 0]
        begun = [[o] for o in opponents if counts.get((o, head), 0) > 0]
        for group in ([fresh] if fresh else []) + begun:
            with connection:
                cursor = connection.execute(
                    "INSERT INTO plans (players, total) VALUES (?, 0)", (json.dumps([head, *group]),)
                )
            plans.append((int(cursor.lastrowid or 0), [head, *group]))
            covered |= {frozenset((head, o)) for o in group}
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
    skip: Sequence[str] = (),
) -> RunReport:
    """Play every missing game of the league in ``folder``, but those of the active entries
    named in ``skip``, which wait.  Raises LeagueBusy if another run holds it; a StrategyError
    if ``skip`` names no active entrant."""
    folder = Path(folder)
    lock = _hold_lock(folder)
    try:
        return _play(
            folder,
            connection,
            settings,
            workers,
            trusted,
            backend,
            scheduler,
            progress,
            on_batch,
            frozenset(skip),
        )
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
    skip: frozenset[str] = frozenset(),
) -> RunReport:
    per_pair = -(-settings["games"] // 2) * 2 * len(settings["rulesets"])
    move_timeout = league_clock(settings)[0]
    # Each active entry is loaded once.  One that can't load now, or whose program or module
    # changed since it was added, holds up only its own pairs: the others are played.
    # Each entry plays from its files where they are now (arena.leagues.entry_paths).
    as_stored = {e.id: e for e in active_entries(connection)}
    active = [where_it_plays(e, folder) for e in as_stored.values()]
    unknown = sorted(skip - {e.name for e in active})
    if unknown:
        raise StrategyError(f"--skip {unknown[0]!r}: no active entrant has that name")
    # The live page says a run is in progress from here on: loading the entries takes a few
    # seconds each (isolated), before any game is planned.
    recorder = RunRecorder(connection, 0)
    loaded: dict[int, PlayerSpec] = {}
    why: dict[int, str] = {}
    for entry in active:
        if entry.name in skip:
            why[entry.id] = f"{entry.name} version {entry.version}: left out with --skip"
            continue
        changed = changed_since_added(as_stored[entry.id], folder)
        if changed is not None:
            why[entry.id] = changed
            continue
        try:
            loaded[entry.id] = _load_entry(entry, trusted, move_timeout)
        except StrategyError as exc:
            why[entry.id] = " ".join(str(exc).split())
    missing = pair_missing(connection, [e.id for e in active], per_pair)
    waits, games_waiting = waiting_games(missing, set(why))
    waiting = tuple(
        Waiting(e.name, e.version, waits[e.id], why[e.id], e.name in skip) for e in active if e.id in why
    )
    skipped = [_waiting_line(w) for w in waiting]
    ladder = league_schedule(settings)[0] == "ladder"  # planned round by round, as it plays
    plans = [] if ladder else plan_work(connection, per_pair, set(loaded))
    # Every entry, not only the active ones: an upload (league serve --submit) or an add that
    # lands after planning may retire an entry a plan seats; the run plays it as loaded.
    by_id = {e.id: where_it_plays(e, folder) for e in all_entries(connection)}
    specs = _sized_plans(connection, settings, plans, loaded, by_id)
    remaining = sum(stop - begin for *_, ranges, _ in specs for begin, stop in ranges)
    place = seat_place(folder, connection)
    bar = games_bar(remaining, progress)
    recorder.planned(remaining)  # for the live page (docs/league.md)
    played = faults = 0
    interrupted = False
    finished = False
    with stop_signals() as stopped:
        try:
            rounds: Iterable[SizedPlan] = specs
            if ladder:

                def plan_more(games: int) -> None:
                    bar.total = (bar.total or 0) + games
                    bar.refresh()
                    recorder.plan_more(games)

                rounds = _ladder_specs(connection, settings, per_pair, loaded, by_id, plan_more)
            for plan_id, entries, spec, schedule, ranges, total in rounds:
                for begin, stop in ranges:
                    with batch_results(
                        spec,
                        begin,
                        stop,
                        workers,
                        batch_size=BATCH_GAMES,
                        backend=backend,
                        scheduler=scheduler,
                        place=place,
                    ) as results:
                        for result in results:
                            following = next_after(ranges, result.stop, total)
                            games, game_faults = _store(
                                connection, plan_id, entries, spec, schedule, result, following
                            )
                            played += games  # what was stored: never a game the league held
                            faults += game_faults
                            bar.update(result.stop - result.start)
                            recorder.stored(games)
                            if on_batch is not None:
                                on_batch(result)
            finished = True
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
            with contextlib.suppress(sqlite3.Error):  # an error storing games says more
                recorder.end(finished)
    interrupted = interrupted or stopped.stopped  # a stop noted as the block ended (interrupts.py)
    return RunReport(
        played, faults, interrupted, stopped.terminated, tuple(dict.fromkeys(skipped)), waiting, games_waiting
    )


#: A sized plan: (plan id, entries, spec, schedule, the ranges of games to play, total).
SizedPlan = tuple[int, list[Entry], TournamentSpec, Schedule, list[tuple[int, int]], int]


def _sized_plans(
    connection: sqlite3.Connection,
    settings: dict,
    plans: list[tuple[int, list[int]]],
    loaded: dict[int, PlayerSpec],
    by_id: dict[int, Entry],
) -> list[SizedPlan]:
    """Each plan as a spec and the ranges of its games the league lacks, its total and next game
    stored."""
    specs = []
    for plan_id, players in plans:
        entries = [by_id[i] for i in players]
        spec = _plan_spec([loaded[i] for i in players], entries, settings)
        schedule = Schedule(spec)
        total = len(schedule)
        start = connection.execute("SELECT next_game FROM plans WHERE id = ?", (plan_id,)).fetchone()[0]
        # Only the deals the league lacks: a dropped plan may have stored some (issue 39, point 9).
        stored = stored_games(connection, {(min(players[0], o), max(players[0], o)) for o in players[1:]})
        ranges = missing_ranges(schedule, players, start, stored)
        with connection:
            connection.execute(
                "UPDATE plans SET total = ?, next_game = ? WHERE id = ?",
                (total, next_after(ranges, start, total) if start < total else start, plan_id),
            )
        specs.append((plan_id, entries, spec, schedule, ranges, total))
    return specs


def _ladder_specs(
    connection: sqlite3.Connection,
    settings: dict,
    per_pair: int,
    loaded: dict[int, PlayerSpec],
    by_id: dict[int, Entry],
    plan_more: Callable[[int], None],
) -> Iterator[SizedPlan]:
    """A ladder's plans (:mod:`arena.leagues.ladder`), sized as a round robin's, planned one
    round at a time: the next round is planned only once the caller has played and stored the
    one before (a generator is asked for its next item only then), so each round's choice sees
    the ratings of every game before it.  ``plan_more`` is told each round's games.  Ends when
    a round has nothing to play."""
    while True:
        specs = _sized_plans(
            connection, settings, ladder_plans(connection, settings, per_pair, set(loaded)), loaded, by_id
        )
        remaining = sum(stop - begin for *_, ranges, _ in specs for begin, stop in ranges)
        if remaining == 0:
            return
        plan_more(remaining)
        yield from specs


def _waiting_line(waiting: Waiting) -> str:
    """One line for an entry whose games wait: why, how many, and the way forward."""
    line = f"{waiting.why}; {waiting.games:,} of its games wait for a later run"
    if waiting.skipped:
        return line
    return f"{line} (arena league run --skip {shlex.quote(waiting.name)} plays the others knowingly)"


def seat_place(folder: Path, connection: sqlite3.Connection) -> SeatPlace:
    """Seats log to ``data/seat-logs`` and can't see the database, nor any entry's stored code
    but their own."""
    stored = [
        Path(entry.play_spec.split(".py", 1)[0] + ".py").resolve().parent
        for entry in (
            where_it_plays(entry_of(row), folder)
            for row in connection.execute("SELECT * FROM entries WHERE kind = 'file'")
        )
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
    next_game: int,
) -> tuple[int, int]:
    """One batch in one transaction, with the plan's next game; (games, faults) it stored (a
    game the league already held is not stored again, nor counted)."""
    index_of = {e.name: k for k, e in enumerate(entries)}
    rows = list(csv.DictReader(io.StringIO(HEADER + result.rows)))
    by_game: dict[int, list[dict[str, str]]] = {}
    for row in rows:
        by_game.setdefault(int(row["game"]), []).append(row)
    details = {(d.game, d.seat): d for d in result.fault_details}
    times = dict(zip(range(result.start, result.stop), result.game_times, strict=False))
    records = {r.game: r.events for r in result.records}
    games = faults = 0
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
            games += 1
            faults += sum(row["status"] != "ok" for row in seats)
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
        connection.execute("UPDATE plans SET next_game = ? WHERE id = ?", (next_game, plan_id))
    return games, faults
