"""Run a tuning race: rounds of games through the tournament machinery, a run folder, resume.

Every candidate plays every opponent on every ruleset, each deal in both seat orders, as a
gauntlet (:class:`arena.tournaments.TournamentSpec`), so workers, the compiled kernel, fault
handling and reproducibility are the tournament's.  In each gauntlet the candidate is named
:data:`TUNED`, whatever its setting: game seeds derive from the tournament seed and the names
at the table (:mod:`arena.tournaments.schedule`), so every candidate gets the *same* deals and
their per-deal scores are paired.  Round ``r`` plays with the seed ``derive_seed(seed, r)`` and
``first_deals * 2**(r-1)`` new deals (fewer when the budget would be passed): the deals played
so far double each round.  After each round :func:`arena.tuning.race.judge_round` drops the
candidates significantly below the leader.

The run folder (which must not exist; nothing is overwritten):

- ``run.json``: the settings, for ``--resume``;
- ``games.csv``: every game, one row per seat as in a tournament's games.csv, after three
  columns: ``round``, ``candidate`` (its label) and ``side`` (``candidate`` or ``opponent``).
  The candidate's ``player`` is its label.  Rows come in blocks, one per (round, candidate), in
  the order the race plays them;
- ``candidates.csv``: each setting with its deals, games, score, interval, Elo and the round it
  was dropped in;
- ``tune.json``: the best setting, its interval, the runner-up and the gap to it.

A resumed run keeps every whole block of games.csv, drops a block cut short, and plays on: the
race is a function of the games alone, so it ends with the same bytes as an uninterrupted run.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from arena.engine import Ruleset, derive_seed
from arena.players import PlayerSpec
from arena.players.loading import StrategyError
from arena.safe_files import FileRefused, open_file, open_read, read_text, write_text
from arena.sandbox import SeatPlace
from arena.tournaments.folder_lock import FolderRefused, claim
from arena.tournaments.results import BatchResult
from arena.tournaments.rows import COLUMNS, csv_field
from arena.tournaments.runner import BatchFailed
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, TournamentSpec, entry_files
from arena.tuning.race import (
    CONFIDENCE,
    MIN_DEALS,
    differences,
    elo,
    elo_gap,
    interval,
    judge_round,
    within_tolerance,
)
from arena.tuning.race_pool import RacePool
from arena.tuning.space import Grid, ParamRange, SpaceError, make_grid

#: The name every candidate plays under, so that all get the same deals.
TUNED = "tuned"
RUN = "run.json"
#: The key of run.json that holds the fingerprints of the strategy and opponents.
ENTRIES = "entries"
GAMES = "games.csv"
CANDIDATES = "candidates.csv"
SUMMARY = "tune.json"
GAME_COLUMNS = ("round", "candidate", "side", *COLUMNS)
DEFAULT_BUDGET = 200_000
DEFAULT_TOLERANCE = 5.0
DEFAULT_ALPHA = 0.05
DEFAULT_FIRST_DEALS = 32
#: Games per chunk of a candidate's gauntlet (a fresh process each; part of the games' identity).
CHUNK_GAMES = 200
FORMAT_VERSION = 1


class TuneError(ValueError):
    """Settings or a run folder that can't be tuned with; the message is one line."""


@dataclass(frozen=True)
class TuneSettings:
    """Everything that decides a tuning run's games and choice (saved in run.json)."""

    spec: str
    params: tuple[ParamRange, ...]
    against: tuple[str, ...]
    rules: tuple[Ruleset, ...]
    seed: int = 0
    budget: int = DEFAULT_BUDGET
    tolerance: float = DEFAULT_TOLERANCE
    alpha: float = DEFAULT_ALPHA
    first_deals: int = DEFAULT_FIRST_DEALS
    move_timeout: float | None = DEFAULT_MOVE_TIMEOUT

    def __post_init__(self) -> None:
        if not self.against:
            raise TuneError("give at least one opponent (--against)")
        if not self.rules:
            raise TuneError("give at least one ruleset (--rules)")
        names = [r.name for r in self.rules]
        if len(set(names)) != len(names):
            raise TuneError("two rulesets have the same name: give each its own")
        if type(self.seed) is not int or self.seed < 0:
            raise TuneError(f"--seed must be a whole number of at least 0, got {self.seed}")
        if type(self.budget) is not int or self.budget < 1:
            raise TuneError(f"--budget must be a whole number of games of at least 1, got {self.budget}")
        if not 0 < self.tolerance < 1000:
            raise TuneError(f"--tolerance must be more than 0 and below 1000 Elo, got {self.tolerance}")
        if not 0 < self.alpha < 1:
            raise TuneError(f"--alpha must be between 0 and 1, got {self.alpha}")
        if type(self.first_deals) is not int or self.first_deals < MIN_DEALS:
            raise TuneError(
                f"--first-deals must be a whole number of at least {MIN_DEALS}, got {self.first_deals}"
            )

    @property
    def grid(self) -> Grid:
        return make_grid(self.spec, self.params)

    @property
    def games_per_deal(self) -> int:
        """Games one candidate plays on one deal: each opponent, ruleset and seat order."""
        return 2 * len(self.against) * len(self.rules)

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "spec": self.spec,
            "params": [{"name": p.name, "values": list(p.values)} for p in self.params],
            "against": list(self.against),
            "rules": [r.as_dict() for r in self.rules],
            "seed": self.seed,
            "budget": self.budget,
            "tolerance": self.tolerance,
            "alpha": self.alpha,
            "first_deals": self.first_deals,
            "move_timeout": self.move_timeout,
        }

    @classmethod
    def from_dict(cls, data: Any) -> TuneSettings:
        """The settings saved in run.json; a damaged file is one line (:class:`TuneError`)."""
        try:
            if data.get("format") != FORMAT_VERSION:
                if "spec" not in data and "players" in data:  # a tournament's or a duel's run.json
                    raise TuneError("this folder holds a tournament or a duel, not a tuning run")
                raise TuneError(f"run.json is of format {data.get('format')!r}, not {FORMAT_VERSION}")
            return cls(
                spec=str(data["spec"]),
                params=tuple(
                    ParamRange(str(p["name"]), tuple(map(str, p["values"]))) for p in data["params"]
                ),
                against=tuple(map(str, data["against"])),
                rules=tuple(Ruleset(**r) for r in data["rules"]),
                seed=data["seed"],
                budget=data["budget"],
                tolerance=float(data["tolerance"]),
                alpha=float(data["alpha"]),
                first_deals=data["first_deals"],
                move_timeout=data["move_timeout"],
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, TuneError):
                raise
            raise TuneError(f"run.json is damaged ({' '.join(str(exc).split())})") from None


@dataclass(frozen=True)
class Candidate:
    index: int
    values: tuple[str, ...]  # one per tuned parameter, as spec text
    player: PlayerSpec

    @property
    def label(self) -> str:
        return self.player.label


@dataclass
class Race:
    """The state of a race: per-deal scores of every candidate, who is out and when."""

    candidates: list[Candidate]
    scores: dict[int, list[float]] = field(default_factory=dict)
    eliminated: dict[int, int] = field(default_factory=dict)  # candidate -> round dropped in
    faults: dict[int, list[str]] = field(default_factory=dict)  # candidate -> its faults' reasons
    rounds: int = 0
    games: int = 0
    stop: str = ""

    @property
    def alive(self) -> list[int]:
        return [c.index for c in self.candidates if c.index not in self.eliminated]


@dataclass(frozen=True)
class TuneResult:
    folder: Path
    rows: list[dict[str, Any]]  # candidates.csv, as records
    summary: dict[str, Any]  # tune.json
    games_played: int  # by this call (the rest were in the folder already)
    interrupted: bool = False
    error: str | None = None

    @property
    def complete(self) -> bool:
        return not self.interrupted


def load_candidates(
    settings: TuneSettings, load: Callable[[str], PlayerSpec]
) -> tuple[list[Candidate], list[PlayerSpec]]:
    """Every candidate of the grid and every opponent, loaded with ``load`` (which raises
    :class:`StrategyError` with one line); candidates' labels made unique."""
    grid = settings.grid
    candidates = []
    for index, values in enumerate(grid.settings()):
        player = load(grid.spec_text(values))
        if player.isolated or player.cls is None:
            raise TuneError(f"{settings.spec}: tune plays strategies in arena's processes, not isolated ones")
        candidates.append(Candidate(index, values, player))
    labels = [c.label for c in candidates]
    if len(set(labels)) != len(labels):  # a strategy whose name ignores its parameters
        candidates = [replace(c, player=replace(c.player, label=c.player.text)) for c in candidates]
    opponents = [load(text) for text in settings.against]
    return candidates, opponents


def gauntlet(
    settings: TuneSettings,
    candidate: Candidate,
    opponents: list[PlayerSpec],
    round_number: int,
    deals: int,
    compiled: bool,
) -> TournamentSpec:
    """The games of one candidate in one round: a gauntlet against every opponent."""
    tuned = replace(candidate.player, label=TUNED)
    return TournamentSpec(
        settings.rules,
        (tuned, *opponents),
        format="gauntlet",
        games=2 * deals,
        seed=derive_seed(settings.seed, round_number),
        move_timeout=settings.move_timeout,
        chunk_games=CHUNK_GAMES,
        compiled=compiled,
    )


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _line(fields: list[str]) -> str:
    return ",".join(csv_field(f) for f in fields) + "\n"


@dataclass
class Block:
    """The games of one candidate in one round, as games.csv lines, and its per-deal scores."""

    round_number: int
    label: str
    lines: list[str]
    shares: list[tuple[int, float]]  # per game: deal, the candidate's win share
    faults: list[str] = field(default_factory=list)  # per game the candidate faulted: status: reason


def per_deal(shares: list[tuple[int, float]], games_per_deal: int) -> list[float]:
    """The candidate's mean win share per deal, in deal order."""
    sums: dict[int, float] = {}
    for deal, share in shares:
        sums[deal] = sums.get(deal, 0.0) + share
    return [sums[d] / games_per_deal for d in sorted(sums)]


class GamesFile:
    """games.csv of a run: whole blocks kept from before (resume), new blocks appended."""

    def __init__(self, path: Path, resume: bool) -> None:
        self.path = path
        self.stored: list[Block] = _read_blocks(path) if resume else []
        self.used = 0
        self._file: io.TextIOWrapper | None = None
        if not resume:
            with open_file(path, "x", encoding="utf-8", newline="") as file:
                file.write(",".join(GAME_COLUMNS) + "\n")

    def take(self, round_number: int, label: str, games: int) -> Block | None:
        """The stored block for (round, candidate) if the folder holds it whole, else None."""
        if self._file is None and self.used < len(self.stored):
            block = self.stored[self.used]
            if block.round_number == round_number and block.label == label and len(block.shares) == games:
                self.used += 1
                return block
        return None

    def append(self, block: Block) -> None:
        if self._file is None:
            self._cut()
            self._file = open_file(self.path, "a", encoding="utf-8", newline="")
        self._file.write("".join(block.lines))
        self._file.flush()

    def _cut(self) -> None:
        """Keep only the blocks taken so far (drop a block cut short, or one never asked for)."""
        if not self.stored:
            return
        kept = [line for b in self.stored[: self.used] for line in b.lines]
        tmp = self.path.with_suffix(".tmp")
        with open_file(tmp, "w", encoding="utf-8", newline="") as file:
            file.write(",".join(GAME_COLUMNS) + "\n")
            file.writelines(kept)
        os.replace(tmp, self.path)
        self.stored = self.stored[: self.used]

    def close(self, finished: bool = False) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        elif finished:
            self._cut()


def _read_blocks(path: Path) -> list[Block]:
    """The blocks of a games.csv in file order (the last may be short)."""
    blocks: list[Block] = []
    index = {name: i for i, name in enumerate(GAME_COLUMNS)}
    try:
        with open_read(path, "r", encoding="utf-8", newline="") as file:
            text = file.read()
    except FileNotFoundError:
        raise TuneError(f"{path} is missing: nothing to resume") from None
    except OSError as exc:  # a FIFO, device or socket in its place
        raise TuneError(f"{path} can't be read ({exc.strerror or exc})") from None
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != ",".join(GAME_COLUMNS):
        if lines and lines[0].rstrip("\r\n") == ",".join(GAME_COLUMNS[:-1]):
            raise TuneError(
                f"{path} was written by an older arena (no column end, how each game ended): "
                "it can't be resumed by this one; tune again in a new folder"
            )
        raise TuneError(f"{path} is not the games of a tuning run")
    for line in lines[1:]:
        if not line.endswith("\n"):
            break  # a line cut short by a kill: its block is not whole
        fields = next(csv.reader([line]))
        if len(fields) != len(GAME_COLUMNS):
            break
        try:
            round_number = int(fields[index["round"]])
            label = fields[index["candidate"]]
            if not blocks or (blocks[-1].round_number, blocks[-1].label) != (round_number, label):
                blocks.append(Block(round_number, label, [], []))
            blocks[-1].lines.append(line)
            if fields[index["side"]] == "candidate":
                blocks[-1].shares.append((int(fields[index["deal"]]), float(fields[index["win"]])))
                if fields[index["status"]] != "ok":
                    blocks[-1].faults.append(f"{fields[index['status']]}: {fields[index['reason']]}")
        except ValueError:
            break
    return blocks


def play_block(
    spec: TournamentSpec,
    round_number: int,
    label: str,
    pool: RacePool,
    on_games: Callable[[int], None],
) -> Block:
    """Play one candidate's gauntlet and turn its rows into games.csv lines."""
    lines: list[str] = []
    shares: list[tuple[int, float]] = []
    faults: list[str] = []
    lead = f"{round_number},{csv_field(label)},"
    seats = Schedule(spec).table_size
    rulesets = tuple(csv_field(r.name) + "," for r in spec.rulesets)
    for result in pool.results(spec):
        _block_lines(result, lead, label, seats, rulesets, lines, shares, faults)
        on_games(result.stop - result.start)
    return Block(round_number, label, lines, shares, faults)


def _block_lines(
    result: BatchResult,
    lead: str,
    label: str,
    seats: int,
    rulesets: tuple[str, ...],
    lines: list[str],
    shares: list[tuple[int, float]],
    faults: list[str],
) -> None:
    """A result's rows as tuning lines (``lead``, the side, the row with the candidate's player
    named ``label``), each game's (deal, candidate's share) and the candidate's faults.

    Text, not parsed fields: a row is ``ruleset,game,deal,seed,seat,player,...`` with only the
    ruleset, the player and the reason ever quoted (:func:`~arena.tournaments.rows.csv_field`),
    and the rulesets' fields are known, so each row is cut at its commas where no quote can be.
    The bytes are those the fields would give written again one by one."""
    rows = result.rows.split("\n")
    rows.pop()  # after the last line break
    if len(rows) != seats * (result.stop - result.start):  # a line break inside a quoted field
        rows = [_line(fields).removesuffix("\n") for fields in _rows(result.rows)]
    tuned = csv_field(TUNED) + ","
    named = csv_field(label) + ","
    candidate, opponent = lead + "candidate,", lead + "opponent,"
    for game in range(result.stop - result.start):
        at = None
        for position in range(game * seats, game * seats + seats):
            row = rows[position]
            head = next(len(r) for r in rulesets if row.startswith(r))
            game_, deal, seed, seat, rest = row[head:].split(",", 4)
            if rest.startswith(tuned):
                at = int(seat)
                rest = rest[len(tuned) :]
                lines.append(f"{candidate}{row[:head]}{game_},{deal},{seed},{seat},{named}{rest}\n")
                status = rest.split(",", 6)[5]
                if status != "ok":
                    reason = next(csv.reader([rest]))[6]
                    faults.append(f"{status}: {reason}")
                shares.append((int(deal), result.shares[game][at]))
            else:
                lines.append(f"{opponent}{row}\n")
        if at is None:
            raise ValueError(f"game {result.start + game:,} of a gauntlet seats no {TUNED} (an arena bug)")


def _fmt(x: float) -> str:
    return f"{x:.6f}"


def candidate_rows(settings: TuneSettings, race: Race) -> list[dict[str, Any]]:
    """candidates.csv as records, in grid order."""
    names = [p.name for p in settings.params]
    leader = _leader(race)
    rows = []
    for c in race.candidates:
        scores = race.scores.get(c.index, [])
        mean, low, high = interval(scores)
        row: dict[str, Any] = {"candidate": c.label}
        row.update(
            dict(
                zip(
                    names,
                    (c.player.params.get(n, v) for n, v in zip(names, c.values, strict=True)),
                    strict=True,
                )
            )
        )
        row.update(
            deals=len(scores),
            games=len(scores) * settings.games_per_deal,
            faults=len(race.faults.get(c.index, [])),
            score=round(mean, 6),
            low=round(low, 6),
            high=round(high, 6),
            elo=round(elo(mean), 1),
            eliminated=race.eliminated.get(c.index),
            best=c.index == leader,
        )
        rows.append(row)
    return rows


def write_candidates(path: Path, rows: list[dict[str, Any]]) -> None:
    """candidates.csv, byte-stable (fixed decimals, ``\\n`` line ends)."""
    columns = list(rows[0])
    lines = [",".join(columns) + "\n"]
    for row in rows:
        cells = []
        for key in columns:
            value = row[key]
            if value is None:
                cells.append("")
            elif isinstance(value, bool):
                cells.append("yes" if value else "")
            elif isinstance(value, float) and key in ("score", "low", "high"):
                cells.append(_fmt(value))
            else:
                cells.append(csv_field(str(value)))
        lines.append(",".join(cells) + "\n")
    write_text(path, "".join(lines))


def _leader(race: Race) -> int:
    """The chosen candidate: the best mean among those that played the most deals."""
    most = max(len(race.scores.get(c.index, [])) for c in race.candidates)
    pool = [c.index for c in race.candidates if len(race.scores.get(c.index, [])) == most]
    return max(pool, key=lambda i: (_mean(race.scores.get(i, [])), -i))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summary(settings: TuneSettings, race: Race) -> dict[str, Any]:
    """tune.json: the best setting, its interval, the runner-up and the gap."""
    best = _leader(race)
    by_index = {c.index: c for c in race.candidates}
    b = by_index[best]
    mean, low, high = interval(race.scores.get(best, []))
    deals = len(race.scores.get(best, []))
    # The runner-up: the best of the others on the most deals (the last ones in the race).
    others = [c.index for c in race.candidates if c.index != best]
    runner_up = None
    if others:
        most = max(len(race.scores.get(i, [])) for i in others)
        pool = [i for i in others if len(race.scores.get(i, [])) == most]
        r = max(pool, key=lambda i: (_mean(race.scores.get(i, [])), -i))
        diffs = differences(race.scores.get(best, []), race.scores.get(r, []))
        gap, gap_low, gap_high = interval(diffs)
        runner_up = {
            "candidate": by_index[r].label,
            "params": _params(settings, by_index[r]),
            "score": round(_mean(race.scores.get(r, [])), 6),
            "deals": len(diffs),
            "gap": round(gap, 6),
            "gap_interval": [round(gap_low, 6), round(gap_high, 6)],
            "elo_gap": round(elo_gap(mean, gap), 1) if diffs else None,
            "eliminated": race.eliminated.get(r),
        }
    return {
        "best": {
            "candidate": b.label,
            "spec": b.player.text,
            "params": _params(settings, b),
            "score": round(mean, 6),
            "interval": [round(low, 6), round(high, 6)],
            "elo": round(elo(mean), 1),
            "deals": deals,
            "games": deals * settings.games_per_deal,
        },
        "runner_up": runner_up,
        # Games a setting lost by raising, an illegal action or a timeout: a fault counts as a
        # loss, so a setting that faults is raced as a weaker one; the user needs to know.
        "faults": {
            by_index[i].label: {"games": len(reasons), "first": reasons[0]}
            for i, reasons in sorted(race.faults.items())
        },
        "confidence": CONFIDENCE,
        "stop": race.stop,
        "rounds": race.rounds,
        "candidates": len(race.candidates),
        "remaining": len(race.alive),
        "games": race.games,
        "budget": settings.budget,
        "tolerance": settings.tolerance,
        "alpha": settings.alpha,
        "seed": settings.seed,
        "spec": settings.spec,
        "against": list(settings.against),
        "rules": [r.name for r in settings.rules],
    }


def _params(settings: TuneSettings, candidate: Candidate) -> dict[str, Any]:
    return {
        p.name: candidate.player.params.get(p.name, v)
        for p, v in zip(settings.params, candidate.values, strict=True)
    }


def new_folder(path: Path, settings: TuneSettings) -> None:
    """Create the run folder (it must not exist) and save the settings."""
    if path.exists():
        raise TuneError(f"{path} already exists: choose another --out, or --resume it")
    try:
        path.mkdir(parents=True)
    except OSError as exc:
        raise TuneError(f"can't create {path}: {exc.strerror}") from None
    lock_folder(path)
    data = {**settings.as_dict(), ENTRIES: entry_fingerprints(settings)}
    write_text(path / RUN, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def entry_fingerprints(settings: TuneSettings) -> dict[str, dict[str, Any]]:
    """The files the tuned strategy and each opponent play with, by spec text
    (:func:`~arena.tournaments.spec.entry_files`): saved in run.json, checked on resume."""
    try:
        return {text: entry_files(text) for text in (settings.spec, *settings.against)}
    except StrategyError as exc:
        raise TuneError(str(exc)) from None


def check_entries(path: Path, settings: TuneSettings) -> None:
    """Refuse to resume a run whose strategy or opponents changed since it started (a ``.py``
    file, a ``cmd:`` program or a file its arguments name): their games would not be the
    ones the run began with.  A run.json of an arena before fingerprints has none to check."""
    try:
        saved = json.loads(read_text(path / RUN)).get(ENTRIES)
    except (OSError, ValueError, AttributeError):
        saved = None
    if not isinstance(saved, dict):
        return
    now = entry_fingerprints(settings)
    changed = [text for text in now if saved.get(text) != now[text]]
    if changed:
        raise TuneError(
            f"{path} was started with another version of {', '.join(changed)} (its file or program "
            "changed); resume it with the files it began with, or start a new run"
        )


def lock_folder(path: Path) -> None:
    """Make this process the only writer of the tuning run in ``path``, and refuse a folder
    with a link in it (:mod:`arena.tournaments.folder_lock`, :mod:`arena.safe_files`)."""
    try:
        claim(path)
    except FolderRefused as exc:
        raise TuneError(str(exc)) from None


def read_settings(path: Path) -> TuneSettings:
    """The settings of the run in ``path`` (for ``--resume``)."""
    try:
        data = json.loads(read_text(path / RUN))
    except FileNotFoundError:
        raise TuneError(f"{path} is not a tuning run (no {RUN})") from None
    except FileRefused as exc:  # a FIFO, device or socket; a file far too large
        raise TuneError(f"{path / RUN} can't be read: {exc.strerror}") from None
    except (OSError, ValueError) as exc:
        raise TuneError(f"{path / RUN} can't be read ({' '.join(str(exc).split())})") from None
    return TuneSettings.from_dict(data)


def compiled_flag(mode: str, specs: Iterator[TournamentSpec]) -> bool:
    """Whether to play compiled: ``off`` never, ``auto`` when numba is installed, ``on``
    always (raises :class:`TuneError` when some game can't be)."""
    from arena.compiled import numba_available, why_not_compiled

    if mode == "off":
        return False
    if mode == "auto":
        return numba_available()
    if mode != "on":
        raise TuneError(f"compiled must be auto, on or off, got {mode!r}")
    for spec in specs:
        why = why_not_compiled(spec)
        if why is not None:
            raise TuneError(f"--compiled on: {why}")
    return True


def run_tune(
    settings: TuneSettings,
    folder: Path,
    *,
    load: Callable[[str], PlayerSpec],
    resume: bool = False,
    workers: int = 1,
    compiled: str = "auto",
    progress: bool | None = None,
    on_round: Callable[[Race], None] | None = None,
) -> TuneResult:
    """Race the grid of ``settings`` in ``folder`` (new, or one to resume) and write its files."""
    try:
        candidates, opponents = load_candidates(settings, load)
    except (StrategyError, SpaceError) as exc:
        raise TuneError(str(exc)) from None
    gpd = settings.games_per_deal
    smallest = len(candidates) * MIN_DEALS * gpd
    if settings.budget < smallest:
        raise TuneError(
            f"--budget {settings.budget:,} is too small for {len(candidates)} candidates: the first round "
            f"needs at least {smallest:,} games ({MIN_DEALS} deals each, {gpd} games a deal)"
        )
    specs = (gauntlet(settings, c, opponents, 1, 1, True) for c in candidates)
    fast = compiled_flag(compiled, specs)
    for c in candidates[:1]:
        try:
            gauntlet(settings, c, opponents, 1, 1, fast)  # refused players: one line before any game
        except ValueError as exc:
            raise TuneError(" ".join(str(exc).split())) from None
    if not resume:
        new_folder(folder, settings)
    else:
        lock_folder(folder)  # before the games are cut back or added to
        check_entries(folder, settings)
    games = GamesFile(folder / GAMES, resume)
    race = Race(candidates, {c.index: [] for c in candidates})
    place = SeatPlace(folder / "seat-logs", (folder.resolve(),))
    bar = tqdm(
        total=settings.budget,
        unit="game",
        file=sys.stderr,
        dynamic_ncols=True,
        disable=(not sys.stderr.isatty()) if progress is None else not progress,
    )
    played = 0
    interrupted = False
    error = None

    def count(n: int) -> None:
        bar.update(n)

    pool = RacePool(workers, place)
    try:
        while True:
            alive = race.alive
            if len(alive) == 1:
                race.stop = race.stop or "one candidate left"
                break
            deals = min(
                settings.first_deals * 2**race.rounds, (settings.budget - race.games) // (len(alive) * gpd)
            )
            if deals < 1:
                race.stop = "budget"
                break
            round_number = race.rounds + 1
            bar.set_description(f"round {round_number}, {len(alive)} left")
            for index in alive:
                candidate = candidates[index]
                block = games.take(round_number, candidate.label, deals * gpd)
                if block is None:
                    spec = gauntlet(settings, candidate, opponents, round_number, deals, fast)
                    block = play_block(spec, round_number, candidate.label, pool, count)
                    games.append(block)
                    played += deals * gpd
                else:
                    count(deals * gpd)
                race.scores[index].extend(per_deal(block.shares, gpd))
                if block.faults:
                    race.faults.setdefault(index, []).extend(block.faults)
                race.games += deals * gpd
            race.rounds = round_number
            verdict = judge_round({i: race.scores[i] for i in alive}, settings.alpha, round_number)
            for dropped in verdict.dropped:
                race.eliminated[dropped] = round_number
            if on_round is not None:
                on_round(race)
            left = race.alive
            if len(left) == 1:
                race.stop = "significantly best"
                break
            if within_tolerance(verdict, _mean(race.scores[verdict.leader]), settings.tolerance):
                race.stop = "within tolerance"
                break
    except KeyboardInterrupt:
        interrupted = True
    except BatchFailed as exc:
        interrupted, error = True, str(exc)
    finally:
        # Ctrl-C or SIGTERM may land here too, or while the files are written below: the run
        # then ends as an interrupted one (each file whole or absent, safe_files), and --resume
        # replays the stored games to write the rest (tests/test_stop_races.py).
        try:
            pool.close(graceful=not interrupted)
        except KeyboardInterrupt:
            interrupted = True
            pool.close(graceful=False)
        finally:
            bar.close()
            games.close(finished=not interrupted)
    rows: list[dict[str, Any]] = []
    result: dict[str, Any] = {}
    try:
        rows = candidate_rows(settings, race)
        result = summary(settings, race)
        if not interrupted:
            write_candidates(folder / CANDIDATES, rows)
            write_text(folder / SUMMARY, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    except KeyboardInterrupt:
        interrupted = True
    return TuneResult(folder, rows, result, played, interrupted, error)
