"""Faulty strategies made easy to debug: errors.log, the warning block, and short tracebacks.

games.csv and errors.csv keep one line per fault.  To debug a strategy you need its traceback,
so each written batch's faults go into the run folder's journal (games.idx, see
:mod:`arena.tournaments.run_folder`) with the full traceback of every *distinct* fault: the same
player, status and traceback shape (the frames and exception types, not the message, which
often names the game's dice).  errors.log lists the distinct faults, each with how many games it
broke, the first one, and its full traceback; the warning block the commands print at the end
shows each faulty player's first traceback cut down to the strategy's own frames.
"""

from __future__ import annotations

import csv
import hashlib
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import arena
from arena.players.text import for_terminal, visible
from arena.safe_files import open_read, write_text

if TYPE_CHECKING:
    from arena.tournaments.schedule import Schedule
    from arena.tournaments.spec import TournamentSpec

#: A traceback kept for errors.log is cut to this many characters, and each of its lines to
#: LINE_LIMIT: a strategy's 2 MB exception message must not become a 2 MB log.
TRACEBACK_LIMIT = 20_000
LINE_LIMIT = 1_000

#: Distinct faults of one player whose traceback a run keeps (games.idx, errors.log); the
#: later ones of that player are counted under one entry (see arena.tournaments.fault_budget).
TRACEBACKS_PER_PLAYER = 10
#: A traceback in a warning block on the terminal shows at most this many lines, each cut to
#: TERMINAL_LINE characters: the rest is in errors.log.
TERMINAL_TRACEBACK_LINES = 40
TERMINAL_LINE = 300

_ARENA_DIR = str(Path(arena.__file__).resolve().parent)
_FRAME = re.compile(r'^  File "(?P<file>.*)", line \d+, in ')
_HEADER = "Traceback (most recent call last):"
_EXCEPTION_TYPE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::|$)")


@dataclass
class _Section:
    """One exception of a (possibly chained) traceback: header, frames, and the lines after."""

    head: list[str] = field(default_factory=list)
    frames: list[list[str]] = field(default_factory=list)  # each: the File line and its source lines
    tail: list[str] = field(default_factory=list)  # the exception line(s), then a chain separator


def _sections(text: str) -> list[_Section]:
    """Split a formatted traceback (``traceback.format_exception``) into its exceptions."""
    sections = [_Section()]
    for line in text.splitlines():
        current = sections[-1]
        if line == _HEADER:
            if current.frames or current.tail:
                current = _Section()
                sections.append(current)
            current.head.append(line)
        elif _FRAME.match(line) and not current.tail:
            current.frames.append([line])
        elif line.startswith("  ") and current.frames and not current.tail:
            current.frames[-1].append(line)  # a source line, a ^^^ marker, "[Previous line repeated]"
        else:
            current.tail.append(line)
    return sections


def _shape(traceback_text: str) -> list[str]:
    """What stays the same each time the same bug strikes: the frames and the exception types."""
    shape = []
    for section in _sections(traceback_text):
        shape += [frame[0].strip() for frame in section.frames]
        first = next((line for line in section.tail if line.strip()), "")
        found = _EXCEPTION_TYPE.match(first)
        shape.append(found["type"] if found else "")
    return shape


def fault_key(player: str, status: str, reason: str, traceback_text: str) -> str:
    """A short id of a distinct fault: the player, the status and the traceback's shape (frames
    and exception types); without a Python traceback (an illegal action, a timeout, a program's
    last words on stderr), the reason with its numbers left out, since they name dice and points
    (a program's reason quotes the line of its stderr that names its error)."""
    shape = _shape(traceback_text) if traceback_text else []
    if not any(section.frames for section in _sections(traceback_text)):
        shape.append(re.sub(r"\d+", "#", reason))
    text = "\x1f".join([player, status, *shape])
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()


def overflow_key(player: str) -> str:
    """The key every distinct fault of ``player`` past :data:`TRACEBACKS_PER_PLAYER` is
    counted under."""
    text = f"{player}\x1fmore distinct faults"
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()


def overflow_reason(player: str) -> str:
    """The reason stored once for a player's faults past the cap."""
    return (
        f"{player} had more than {TRACEBACKS_PER_PLAYER} distinct faults; arena keeps the "
        f"tracebacks of the first {TRACEBACKS_PER_PLAYER} and counts the rest here "
        "(each game's reason is in errors.csv)"
    )


def clip_traceback(text: str) -> str:
    """``text`` as arena stores it: hidden characters but line breaks made visible
    (:func:`arena.players.text.visible`), overlong lines and an overlong whole cut, saying so."""
    lines = []
    for raw in text.splitlines():
        line = visible(raw[: 4 * LINE_LIMIT])
        lines.append(line if len(line) <= LINE_LIMIT else f"{line[:LINE_LIMIT]}... ({len(raw):,} characters)")
    clipped = "\n".join(lines)
    if len(clipped) > TRACEBACK_LIMIT:
        clipped = f"{clipped[:TRACEBACK_LIMIT]}\n... (cut: {len(clipped):,} characters in all)"
    return clipped


def strategy_frames(traceback_text: str) -> str:
    """The traceback cut to the strategy's own frames: arena's frames (the game loop, the guard
    around each call) are left out.  A traceback with no frame outside arena is kept whole."""
    kept: list[str] = []
    for section in _sections(traceback_text):
        own = [f for f in section.frames if not _is_arena_frame(f[0])]
        kept += section.head
        for frame in own or section.frames:
            kept += frame
        kept += section.tail
    return "\n".join(kept)


def _is_arena_frame(line: str) -> bool:
    found = _FRAME.match(line)
    return found is not None and found["file"].startswith(_ARENA_DIR)


@dataclass
class FaultGroup:
    """One distinct fault of a run: how often it happened, where first, and its traceback."""

    key: str
    player: str
    status: str
    reason: str
    traceback: str
    count: int = 0
    first_game: int = -1
    first_seat: int = -1


def fault_groups(entries: Iterable[dict[str, Any]]) -> list[FaultGroup]:
    """The distinct faults of a run from its journal entries (in game order), first seen first.

    Memory grows with the number of distinct faults, not with the games or the faults."""
    groups: dict[str, FaultGroup] = {}
    for entry in entries:
        for key, detail in entry.get("new", {}).items():
            groups.setdefault(
                key,
                FaultGroup(
                    key,
                    str(detail.get("player", "")),
                    str(detail.get("status", "")),
                    str(detail.get("reason", "")),
                    str(detail.get("traceback", "")),
                ),
            )
        for game, seat, key in entry.get("faults", []):
            group = groups.get(key)
            if group is None:  # its traceback entry was lost (a damaged journal): count it anyway
                group = groups[key] = FaultGroup(key, "?", "?", "", "")
            if group.count == 0:
                group.first_game, group.first_seat = game, seat
            group.count += 1
    return sorted((g for g in groups.values() if g.count), key=lambda g: (g.first_game, g.first_seat))


def errors_log_text(groups: list[FaultGroup], describe_game: Callable[[int, int], str] | None = None) -> str:
    """errors.log: one entry per distinct fault with its count, first game and full traceback.

    ``describe_game(game, seat)`` adds where that game was (ruleset, deal, seed, a replay)."""
    total = sum(g.count for g in groups)
    if not groups:
        return "no faults: every game ended normally\n"
    parts = [
        f"{len(groups)} distinct fault{'s' if len(groups) != 1 else ''} in {total:,} "
        f"game{'s' if total != 1 else ''} (each game's fault is in errors.csv)\n"
    ]
    for number, g in enumerate(groups, 1):
        where = describe_game(g.first_game, g.first_seat) if describe_game else ""
        parts.append(
            f"\n=== fault {number} of {len(groups)}: {g.player}, {g.status}, in {g.count:,} "
            f"game{'s' if g.count != 1 else ''}; first in game {g.first_game:,}, seat {g.first_seat}\n"
        )
        parts.append(f"reason: {g.reason}\n")
        if where:
            parts.append(where + "\n")
        parts.append(
            (g.traceback.rstrip("\n") + "\n") if g.traceback else "(no traceback: not an exception)\n"
        )
    return "".join(parts)


def write_errors_log(
    path: Path, groups: list[FaultGroup], describe_game: Callable[[int, int], str] | None = None
) -> None:
    write_text(path, errors_log_text(groups, describe_game))


def fault_counts(errors_csv: Path) -> dict[str, Counter[str]]:
    """Faults per player and status, streamed from errors.csv (every fault of the run)."""
    counts: dict[str, Counter[str]] = {}
    with open_read(errors_csv, "r", encoding="utf-8", newline="") as file:
        reader = csv.reader(file)
        header = next(reader, [])
        try:
            player_at, status_at = header.index("player"), header.index("status")
        except ValueError:
            return counts
        for row in reader:
            if len(row) > max(player_at, status_at):
                counts.setdefault(row[player_at], Counter())[row[status_at]] += 1
    return counts


def warning_block(
    player: str,
    by_status: Counter[str],
    games: int,
    first: FaultGroup | None,
    where_first: str = "",
    files: str = "",
) -> str:
    """The warning for one player that faulted: how many of its games, the first fault with its
    traceback cut to the strategy's own frames (and to :data:`TERMINAL_TRACEBACK_LINES` lines:
    its text is the strategy's), where that game was, and where the rest is."""
    faults = sum(by_status.values())
    statuses = ", ".join(f"{status} {n:,}" for status, n in sorted(by_status.items()))
    lines = [f"warning: {player} faulted in {faults:,} of {games:,} games ({statuses})"]
    if first is not None:
        lines.append(
            f"  first in game {first.first_game:,}, seat {first.first_seat}: {first.status}: {first.reason}"
        )
        if first.traceback:
            shown = for_terminal(
                strategy_frames(first.traceback), max_lines=TERMINAL_TRACEBACK_LINES, width=TERMINAL_LINE
            )
            lines += ["    " + line for line in shown.splitlines()]
        lines += ["  " + line for line in where_first.splitlines()]
    if files:
        lines.append(f"  {files}")
    return "\n".join(lines)


def game_describer(spec: TournamentSpec, schedule: Schedule) -> Callable[[int, int], str]:
    """``describe(game, seat)``: where a game of the run was, and the ``arena play`` command
    that replays it when its ruleset is a preset (the same seed gives the same dice)."""
    from arena.engine import DEFAULT_MAX_ROUNDS, PRESETS

    def describe(game: int, seat: int) -> str:
        try:
            slot = schedule.slot(game)
        except IndexError:  # a hand-edited journal
            return ""
        ruleset = spec.rulesets[slot.ruleset]
        seated = [spec.players[i] for i in slot.seats]
        text = (
            f"game {game:,}: ruleset {ruleset.name}, deal {slot.deal:,}, seed {slot.seed}; seats: "
            + ", ".join(f"{k} {p.label}" for k, p in enumerate(seated))
        )
        replayable = PRESETS.get(ruleset.name) == ruleset and spec.max_rounds == DEFAULT_MAX_ROUNDS
        if replayable and all(p.source != "class" for p in seated):
            players = " ".join(f"-p {shlex.quote(p.text)}" for p in seated)
            text += f"\nreplay: arena play --rules {ruleset.name} {players} --seed {slot.seed}"
        return text

    return describe


class FaultCollector:
    """Faults of a run kept in memory as they arrive (for a duel, which has no journal): counts
    per player and status, and each distinct fault once."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}
        self._groups: dict[str, FaultGroup] = {}
        self._distinct: Counter[str] = Counter()  # groups per player

    def add(self, details: Iterable[Any]) -> None:
        """Add :class:`~arena.tournaments.batch.FaultDetail` records, in game order.  As in a
        run's journal, a player's distinct faults past :data:`TRACEBACKS_PER_PLAYER` share one
        group, so memory stays bounded per player."""
        for d in details:
            self.counts.setdefault(d.player, Counter())[d.status] += 1
            key = fault_key(d.player, d.status, d.reason, d.traceback)
            group = self._groups.get(key)
            if group is None and self._distinct[d.player] >= TRACEBACKS_PER_PLAYER:
                key = overflow_key(d.player)
                group = self._groups.get(key)
                if group is None:
                    group = self._groups[key] = FaultGroup(
                        key, d.player, d.status, overflow_reason(d.player), "", 0, d.game, d.seat
                    )
            if group is None:
                group = self._groups[key] = FaultGroup(
                    key, d.player, d.status, d.reason, clip_traceback(d.traceback), 0, d.game, d.seat
                )
                self._distinct[d.player] += 1
            group.count += 1

    def first_of(self, player: str) -> FaultGroup | None:
        return first_fault_of(self.groups(), player)

    def groups(self) -> list[FaultGroup]:
        return sorted(self._groups.values(), key=lambda g: (g.first_game, g.first_seat))


def first_fault_of(groups: Iterable[FaultGroup], player: str) -> FaultGroup | None:
    """The player's earliest fault."""
    return next((g for g in groups if g.player == player), None)


#: ``--fail-fast`` prints at most this many lines of the fault's traceback.
FAIL_FAST_LINES = 200


def full_traceback(detail: Any) -> Iterator[str]:
    """The lines ``--fail-fast`` prints for a fault: its traceback (at most
    :data:`FAIL_FAST_LINES` lines, made safe for a terminal), or its reason."""
    if detail.traceback:
        yield from for_terminal(clip_traceback(detail.traceback), max_lines=FAIL_FAST_LINES).splitlines()
    else:
        yield f"{detail.player} ({detail.status}): {detail.reason}"


class FaultStop(Exception):
    """``--fail-fast``: a batch with a fault was written, so the run stops; ``detail`` is the
    first fault (a :class:`~arena.tournaments.batch.FaultDetail`)."""

    def __init__(self, detail: Any) -> None:
        super().__init__(f"{detail.player} faulted in game {detail.game}")
        self.detail = detail


class FaultWatch:
    """An ``on_batch`` hook for a run: collects the faults (when given a collector) and, with
    ``fail_fast``, stops the run at the first batch that has one."""

    def __init__(self, fail_fast: bool = False, collector: FaultCollector | None = None) -> None:
        self.fail_fast = fail_fast
        self.collector = collector
        self.faults = 0  # in the batches seen

    def __call__(self, result: Any) -> None:
        self.faults += len(result.fault_details)
        if self.collector is not None:
            self.collector.add(result.fault_details)
        if self.fail_fast and result.fault_details:
            raise FaultStop(result.fault_details[0])
