"""Head-to-head duels: paired games until a sequential test decides, as chess engines are tested.

Each deal is played in both seat orders with the same dice per seat (a game pair).  Pairs are
scored in deal order, and the sequential probability ratio test (SPRT) is checked after every
pair, so where a duel stops depends only on its seed, never on workers or batch size.

A duel is a gauntlet of two players on one ruleset, so its run folder is a tournament's:
games.csv holds exactly the games up to the deciding pair (a batch may have played more; those
are not written), which makes a resumed duel byte-identical to an uninterrupted one.
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from arena.analysis.pairs import PairTally
from arena.analysis.sprt import Sprt, SprtError
from arena.engine import Ruleset
from arena.players import PlayerSpec
from arena.safe_files import open_read
from arena.sandbox import SeatLimits
from arena.tournaments.batch import BatchResult
from arena.tournaments.interrupts import signals_held
from arena.tournaments.run_folder import GAMES, RunFolder, RunFolderError
from arena.tournaments.runner import BatchFailed, batch_results, seat_place
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, TournamentSpec

__all__ = [
    "DuelOutcome",
    "DuelTally",
    "Sprt",
    "SprtError",
    "duel_limit",
    "duel_spec",
    "run_duel",
    "run_spec_duel",
]

PAIRS_PER_TASK = 100
#: games.csv rows of one game pair (two games of two seats): the unit a resumed duel keeps.
ROWS_PER_PAIR = 4


def duel_limit(games: int, sprt: Sprt | None) -> int:
    """The games a duel plays at most: ``--games`` rounds up to whole pairs; with an SPRT,
    ``--max-games`` is a limit, so it rounds down."""
    return (games // 2) * 2 if sprt is not None else -(-games // 2) * 2


def duel_spec(
    rules: Ruleset,
    a: PlayerSpec,
    b: PlayerSpec,
    *,
    games: int,
    seed: int = 0,
    move_timeout: float | None = DEFAULT_MOVE_TIMEOUT,
    command: str = "",
    seat_limits: SeatLimits | None = None,
    compiled: bool = False,
    game_time: float | None = None,
) -> TournamentSpec:
    """The tournament a duel plays: A against B, ``games`` games (whole pairs).  ``seat_limits``
    for isolated players (set to the defaults if one is isolated and they are not given).
    ``game_time``: each side's chess clock, seconds for all its decisions of one game
    (docs/faults.md); None: none."""
    return TournamentSpec(
        (rules,),
        (a, b),
        format="gauntlet",
        games=games,
        seed=seed,
        move_timeout=move_timeout,
        game_time=game_time,
        chunk_games=2 * PAIRS_PER_TASK,
        seat_limits=seat_limits if a.isolated or b.isolated else None,
        command=command,
        compiled=compiled,
        time_decisions=True,  # each side's time per decision, said at the end
    )


@dataclass
class DuelTally:
    """Everything a duel has learnt so far, pair by pair."""

    sprt: Sprt | None = None
    tally: PairTally = field(default_factory=PairTally)
    wins: list[float] = field(default_factory=lambda: [0.0, 0.0])
    faults: int = 0
    llr: float | None = None
    verdict: str | None = None
    #: A's and B's [seconds deciding, decisions] in the games played in Python so far.
    times: list[list[float]] = field(default_factory=lambda: [[0.0, 0], [0.0, 0]])
    round_limit: int = 0  # games that ended at the round limit, nobody at the target

    def add_times(self, result: BatchResult) -> None:
        """Add a batch's decision times (all its games, those past a deciding pair too)."""
        for side, (seconds, decisions) in enumerate(result.decision_times):
            self.times[side][0] += seconds
            self.times[side][1] += decisions

    def add_pair(self, a_first: tuple[float, ...], b_first: tuple[float, ...]) -> None:
        """Add one deal's two games: each seat's win share with A first, then with B first.
        Checks the SPRT when one is set."""
        a_score = a_first[0] + b_first[1]
        self.wins[0] += a_score
        self.wins[1] += a_first[1] + b_first[0]
        self.tally.add(a_score / 2)
        if self.sprt is not None:
            self.llr, self.verdict = self.tally.decision(self.sprt)

    def copy(self) -> DuelTally:
        return DuelTally(
            self.sprt,
            PairTally(list(self.tally.counts)),
            list(self.wins),
            self.faults,
            self.llr,
            self.verdict,
            [list(t) for t in self.times],
            self.round_limit,
        )


@dataclass(frozen=True)
class DuelOutcome:
    labels: tuple[str, str]
    tally: PairTally
    wins: tuple[float, float]  # each player's win shares over all games
    sprt: Sprt | None
    llr: float | None
    verdict: str | None  # "H1", "H0", or None if the test did not decide
    faults: int
    limit: int = 0  # the most games the duel would play
    resumed_at: int = 0  # games already in the folder when this call started
    seconds: float = 0.0
    interrupted: bool = False
    error: str | None = None  # why the duel stopped early, if not by Ctrl-C
    #: A's and B's (seconds deciding, decisions) in the games this call played in Python; (0, 0)
    #: for a side whose games the compiled kernel played.
    decision_times: tuple[tuple[float, int], tuple[float, int]] = ((0.0, 0), (0.0, 0))
    round_limit: int = 0  # games of the duel that ended at the round limit

    @property
    def complete(self) -> bool:
        """Decided, or every game up to the limit played."""
        return self.verdict is not None or (self.tally.games >= self.limit and not self.interrupted)

    @property
    def games_played(self) -> int:
        return self.tally.games - self.resumed_at


def replay_games(path: Path, labels: tuple[str, ...], state: DuelTally, pairs: int) -> None:
    """Feed the first ``pairs`` pairs of a duel's games.csv into ``state``, as if just played
    (``labels``: the duel's two, A's first).
    Raises :class:`RunFolderError` (one line) if the file is not such a duel's games."""
    shares: list[tuple[float, float]] = []
    faults = limited = 0
    try:
        file = open_read(path, "r", encoding="utf-8", newline="")
    except OSError as exc:
        raise RunFolderError(f"cannot read {path}: {exc.strerror or exc}") from None
    with file:
        rows = csv.DictReader(file)
        try:
            for game in range(2 * pairs):
                seats = [next(rows), next(rows)]
                order = [labels[game % 2], labels[1 - game % 2]]  # game 2d seats A first, 2d+1 B
                if (
                    [int(r["game"]) for r in seats] != [game, game]
                    or [r["seat"] for r in seats] != ["0", "1"]
                    or [r["player"] for r in seats] != order
                ):
                    raise ValueError(f"game {game} is not the duel's game {game}")
                shares.append((float(seats[0]["win"]), float(seats[1]["win"])))
                faults += sum(r["status"] != "ok" for r in seats)
                limited += seats[0]["end"] == "round_limit"
                if game % 2:
                    state.add_pair(shares[-2], shares[-1])
                    if state.verdict is not None:
                        break
        except (StopIteration, KeyError, TypeError, ValueError) as exc:
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise RunFolderError(f"{path} is damaged ({detail}); the duel can't be resumed from it") from None
    state.faults += faults
    state.round_limit += limited


#: How a game that ended at the round limit ends its rows (the end column, rows.py).
_LIMIT_ROW_END = ",round_limit\n"


def _cut(rows: str, lines: int) -> str:
    """The first ``lines`` lines of ``rows``."""
    end = -1
    for _ in range(lines):
        end = rows.index("\n", end + 1)
    return rows[: end + 1]


def run_spec_duel(rules: Ruleset, spec: TournamentSpec, **options: Any) -> DuelOutcome:
    """:func:`run_duel` on what a duel's spec.json keeps (its two players, games, seed, move
    timeout, seat limits and game clock); ``options`` are the rest of run_duel's keywords."""
    return run_duel(
        rules,
        spec.players[0],
        spec.players[1],
        games=spec.games,
        seed=spec.seed,
        move_timeout=spec.move_timeout,
        seat_limits=spec.seat_limits,
        game_time=spec.game_time,
        **options,
    )


def run_duel(
    rules: Ruleset,
    a: PlayerSpec,
    b: PlayerSpec,
    *,
    games: int,
    seed: int = 0,
    sprt: Sprt | None = None,
    workers: int = 1,
    move_timeout: float | None = DEFAULT_MOVE_TIMEOUT,
    progress: bool | None = None,
    folder: RunFolder | None = None,
    batch_size: int | None = None,
    on_batch: Callable[[BatchResult], None] | None = None,
    compiled: bool = False,
    seat_limits: SeatLimits | None = None,
    on_tally: Callable[[DuelTally], None] | None = None,
    game_time: float | None = None,
) -> DuelOutcome:
    """Play up to ``games`` games of A against B in pairs; stop early when ``sprt`` decides.

    With ``folder``, every pair played is written to its games.csv in game order, up to the
    deciding pair and no further; a folder that already holds games (``RunFolder.resume``) is
    continued after them.  Ctrl-C stops cleanly: the outcome says ``interrupted`` and the
    folder keeps every pair written.  ``folder`` is closed on return.  ``on_batch`` sees each
    batch's kept games as they are written (their faults, for example).  ``compiled``: play
    the games of players with a declarative policy in the compiled kernel (same games).
    ``seat_limits``: the limits of isolated players' seat processes (the defaults if None).
    ``on_tally`` sees the tally after each batch (the command line's interim lines).
    ``game_time``: each side's chess clock per game, as in :func:`duel_spec`.
    """
    limit = duel_limit(games, sprt)
    spec = duel_spec(
        rules,
        a,
        b,
        games=max(2, limit),
        seed=seed,
        move_timeout=move_timeout,
        seat_limits=seat_limits,
        compiled=compiled,
        game_time=game_time,
    )
    labels = (spec.labels[0], spec.labels[1])
    state = DuelTally(sprt)
    start = 0
    if folder is not None and folder.completed_games:
        start = folder.completed_games
        try:
            replay_games(folder.path / GAMES, labels, state, start // 2)
        except RunFolderError:
            folder.close()
            raise
    size = batch_size or 2 * PAIRS_PER_TASK
    size += size % 2  # whole pairs in every batch
    bar = tqdm(
        total=limit,
        initial=start,
        unit="game",
        file=sys.stderr,
        dynamic_ncols=True,
        disable=(not sys.stderr.isatty()) if progress is None else not progress,
    )
    interrupted = False
    error = None
    began = time.perf_counter()
    try:
        if state.verdict is None and start < limit:
            with batch_results(
                spec, start, limit, workers, batch_size=size, place=seat_place(folder)
            ) as results:
                for result in results:
                    # Work on a copy, kept together with writing its games: an interruption
                    # then leaves the outcome and games.csv in agreement.
                    batch = state.copy()
                    batch.add_times(result)
                    pairs = 0
                    for first, second in zip(result.shares[::2], result.shares[1::2], strict=True):
                        batch.add_pair(first, second)  # game 2d seats A first, 2d+1 B first
                        pairs += 1
                        if batch.verdict is not None:
                            break
                    kept = result
                    if 2 * pairs < result.stop - result.start:
                        stop = result.start + 2 * pairs
                        kept = replace(
                            result,
                            stop=stop,
                            rows=_cut(result.rows, ROWS_PER_PAIR * pairs),
                            shares=result.shares[: 2 * pairs],
                            fault_details=tuple(f for f in result.fault_details if f.game < stop),
                            columns=None,  # of the whole batch: no longer these rows'
                            digest=None,
                        )
                        kept = replace(kept, faults=len(kept.fault_details))  # one per fault
                    batch.faults += kept.faults
                    batch.round_limit += kept.rows.count(_LIMIT_ROW_END) // 2  # two rows a game
                    # Ctrl-C and SIGTERM held: a batch is written and counted whole or not at
                    # all, so the outcome (and duel.json) always matches games.csv.
                    with signals_held():
                        if folder is not None:
                            folder.append(kept.rows, kept.fault_details)
                        state = batch
                    if on_batch is not None:
                        on_batch(kept)
                    if on_tally is not None:
                        on_tally(state)
                    bar.update(2 * pairs)
                    if state.verdict is not None:
                        break
    except KeyboardInterrupt:
        interrupted = True
    except BatchFailed as exc:
        interrupted, error = True, str(exc)
    finally:
        bar.close()
        if folder is not None:
            folder.close()
    return DuelOutcome(
        labels,
        state.tally,
        (state.wins[0], state.wins[1]),
        sprt,
        state.llr,
        state.verdict,
        state.faults,
        limit=limit,
        resumed_at=start,
        seconds=time.perf_counter() - began,
        interrupted=interrupted,
        error=error,
        decision_times=(
            (state.times[0][0], int(state.times[0][1])),
            (state.times[1][0], int(state.times[1][1])),
        ),
        round_limit=state.round_limit,
    )
