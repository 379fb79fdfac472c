"""Checking games.csv on resume, against its journal or row by row, and cutting it back to
the games that are verified.

Every journaled batch (see :mod:`arena.tournaments.run_folder`) whose bytes match its checksum
is kept; anything after the last matching batch is cut and played again: a torn line, a batch
written but not yet journaled, and damage of any kind (a deleted or edited row, NUL bytes,
rows past the end of the run).  Replaying gives the same bytes as a run that was never
interrupted.  A folder written before the journal existed is checked row by row instead
(game and seat in order, each with its ruleset, deal, seed and player from the schedule,
thirteen fields, a known status) and gets a
journal.  Both stream the file, so memory stays flat whatever its size; both files are opened
as :mod:`arena.safe_files` opens them (no link, nothing but a regular file).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.safe_files import open_file, open_read, write_bytes
from arena.tournaments.rows import COLUMNS, ENDS, HEADER, OLDER_HEADER, csv_field
from arena.tournaments.schedule import Schedule

GAMES = "games.csv"
INDEX = "games.idx"
BLOCK = 1 << 20  # bytes hashed at a time
LINE_BLOCK = 1 << 18  # bytes split into lines at a time
STATUSES = frozenset({"ok", "error", "illegal", "timeout"})


class GamesCheckError(Exception):
    """games.csv is not a games.csv arena wrote; the message is one line."""


def check_and_cut(path: Path, schedule: Schedule, rows_per_game: int) -> Verified:
    """Check the run folder ``path``'s games.csv, cut it (and its journal) back to the verified
    games, and say what was kept."""
    return _Verifier(path, schedule, rows_per_game).run()


def read_journal(path: Path) -> Iterator[dict[str, Any]]:
    """The batch entries of a run folder's games.idx, in order, up to the first unreadable line."""
    try:
        index = open_read(path / INDEX)  # a FIFO or device is refused: it could block
    except FileNotFoundError:
        return
    with index:
        for raw in index:
            entry = journal_entry(raw)
            if entry is None:
                return
            yield entry


def journal_entry(raw: bytes) -> dict[str, Any] | None:
    """A journal line parsed and checked for shape; None if it is not one."""
    if not raw.endswith(b"\n"):
        return None
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    if not all(_is_int(entry.get(k)) for k in ("start", "stop", "end")) or not isinstance(
        entry.get("hash"), str
    ):
        return None
    faults = entry.get("faults", [])
    if not isinstance(faults, list) or not all(
        isinstance(f, list) and len(f) == 3 and _is_int(f[0]) and _is_int(f[1]) and isinstance(f[2], str)
        for f in faults
    ):
        return None
    new = entry.get("new", {})
    if not isinstance(new, dict) or not all(isinstance(v, dict) for v in new.values()):
        return None
    return entry


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class Verified:
    """What :func:`check_and_cut` kept."""

    games: int  # complete, verified games kept
    end: int  # bytes of games.csv kept
    known: dict[str, str] = field(default_factory=dict)  # key -> player of each fault the journal holds
    note: str | None = None  # what was found damaged and cut, for the user; None if nothing


class _Verifier:
    """Checks games.csv against its journal (or row by row, for a folder without one), then cuts
    both files back to what was verified."""

    def __init__(self, path: Path, schedule: Schedule, rows_per_game: int) -> None:
        self.games_path = path / GAMES
        self.index_path = path / INDEX
        self.schedule = schedule
        self.rows_per_game = rows_per_game
        self.total = len(schedule)

    def run(self) -> Verified:
        header = HEADER.encode()
        with open_file(self.games_path, "r+b") as games:
            head = games.read(len(header))
            if head != header:
                if header.startswith(head) and not games.read(1):  # a header torn by a power cut
                    _cut(games, 0, header)
                    self._rewrite_index(0, [])
                    return Verified(0, len(header))
                if head.startswith(OLDER_HEADER.encode()):
                    raise GamesCheckError(
                        f"{self.games_path} was written by an older arena (no column end, how each "
                        "game ended): it can't be resumed by this one; play the run again in a new folder"
                    )
                raise GamesCheckError(f"{self.games_path} does not start with the games.csv header")
            size = games.seek(0, os.SEEK_END)
            if self.index_path.exists():
                found, index_keep = self._by_journal(games, size)
                if found.end != size:
                    _cut(games, found.end)
                self._cut_index(index_keep)
            else:
                found, digest = self._by_rows(games, size)
                if found.end != size:
                    _cut(games, found.end)
                entries = [] if not found.games else [(0, found.games, found.end, digest)]
                self._rewrite_index(found.games, entries)
        return found

    def _note(self, problem: str | None, kept: int) -> str | None:
        if problem is None:
            return None
        if kept < self.total:
            return f"{problem}; games from {kept:,} on are played again"
        return f"{problem}; cut (every game of the run is in the rows before)"

    # --- a folder with a journal ---------------------------------------------------------------
    def _by_journal(self, games: Any, size: int) -> tuple[Verified, int]:
        """Keep every journaled batch whose bytes match its checksum, up to the first that
        doesn't; return what was kept and how many bytes of games.idx go with it."""
        found = Verified(0, len(HEADER.encode()))
        index_keep = 0
        line_number = 1  # the header is line 1
        games.seek(found.end)
        note = None
        with open_read(self.index_path) as index:
            for number, raw in enumerate(index, 1):
                entry = journal_entry(raw)
                if (
                    entry is None
                    or entry["start"] != found.games
                    or not found.games < entry["stop"] <= self.total
                    or entry["end"] <= found.end
                ):
                    # What follows is unconfirmed.  A torn last line is what a kill leaves; a
                    # whole line that makes no sense was damaged.
                    if raw.endswith(b"\n"):
                        note = f"games.idx line {number:,} is not a journal line arena wrote"
                    break
                if entry["end"] > size:
                    break  # the batch was cut short
                hasher = hashlib.blake2b(digest_size=16)
                lines = 0
                remaining = entry["end"] - found.end
                while remaining:
                    block = games.read(min(BLOCK, remaining))
                    hasher.update(block)
                    lines += block.count(b"\n")
                    remaining -= len(block)
                if hasher.hexdigest() != entry["hash"] or lines != (
                    (entry["stop"] - entry["start"]) * self.rows_per_game
                ):
                    note = self._locate(games, found, line_number, entry["end"]) or (
                        f"games.csv lines {line_number + 1:,} to {line_number + lines:,} (games "
                        f"{entry['start']:,} to {entry['stop'] - 1:,}) differ from what was written "
                        "(their checksum in games.idx doesn't match)"
                    )
                    break
                # The checksum says the bytes are as written, not that they are this spec's
                # games: a spec.json edited by hand (another seed or format, its fingerprint
                # recomputed) must not keep rows dealt under the old one.
                problem = self._locate(games, found, line_number, entry["end"])
                if problem is not None:
                    note = problem
                    break
                found.games, found.end = entry["stop"], entry["end"]
                line_number += lines
                index_keep += len(raw)
                for key, detail in entry.get("new", {}).items():
                    found.known.setdefault(key, str(detail.get("player", "")))
        if note is None and size > found.end:
            note = self._locate(games, found, line_number, size, quiet_tail=True)
        found.note = self._note(note, found.games)
        return found, index_keep

    def _locate(
        self, games: Any, found: Verified, line_number: int, stop: int, quiet_tail: bool = False
    ) -> str | None:
        """The first row from ``found.end`` to ``stop`` that is not the scheduled one, as a note.

        ``quiet_tail``: the bytes after the last journaled batch.  A kill between writing a batch
        and journaling it leaves whole rows there, and a kill mid-write a torn last line: these
        are normal and get no note (they are played again all the same)."""
        games.seek(found.end)
        checker = _RowChecker(self.schedule, self.rows_per_game, found.games)
        for number, line in enumerate(_lines(games, stop - found.end), line_number + 1):
            if not line.endswith(b"\n"):
                return None if quiet_tail else f"games.csv line {number:,}: a row cut short"
            problem = checker.check(line)
            if problem is not None:
                return f"games.csv line {number:,}: {problem}"
        return None

    def _cut_index(self, keep: int) -> None:
        with open_file(self.index_path, "r+b") as index:
            if index.seek(0, os.SEEK_END) != keep:
                index.truncate(keep)
                index.flush()
                os.fsync(index.fileno())

    def _rewrite_index(self, games: int, entries: list[tuple[int, int, int, str]]) -> None:
        text = "".join(
            json.dumps({"start": a, "stop": b, "end": e, "hash": h}, separators=(",", ":")) + "\n"
            for a, b, e, h in entries
        )
        _write_bytes(self.index_path, text.encode())

    # --- a folder written before the journal existed -------------------------------------------
    def _by_rows(self, games: Any, size: int) -> tuple[Verified, str]:
        """Keep the complete games from the start up to the first row that is not the scheduled
        one; return them and the checksum of their bytes (for a new journal)."""
        start = len(HEADER.encode())
        games.seek(start)
        checker = _RowChecker(self.schedule, self.rows_per_game, 0)
        found = Verified(0, start)
        note = None
        game_bytes = 0  # of the game being read
        for number, line in enumerate(_lines(games, size - start), 2):
            if not line.endswith(b"\n"):
                break  # a torn last line
            problem = checker.check(line)
            if problem is not None:
                note = f"games.csv line {number:,}: {problem}"
                break
            game_bytes += len(line)
            if checker.seat == 0:  # the game is complete
                found.games += 1
                found.end += game_bytes
                game_bytes = 0
        found.note = self._note(note, found.games)
        hasher = hashlib.blake2b(digest_size=16)
        games.seek(start)
        remaining = found.end - start
        while remaining:
            block = games.read(min(BLOCK, remaining))
            hasher.update(block)
            remaining -= len(block)
        return found, hasher.hexdigest()


class _RowChecker:
    """Checks rows one by one against the schedule: each must be the next row of the next game,
    with that game's ruleset, deal, seed, seat and player, thirteen fields and a known status.
    A row with no quoted field is checked as bytes (about 1 us); anything else is parsed as CSV
    to check its numbers too, and to say what is wrong."""

    def __init__(self, schedule: Schedule, rows_per_game: int, first_game: int) -> None:
        self.schedule = schedule
        spec = schedule.spec
        self._rulesets = [r.name for r in spec.rulesets]
        self._labels = list(spec.labels)
        self._ruleset_fields = [csv_field(name).encode() for name in self._rulesets]
        self._player_fields = [csv_field(label).encode() for label in self._labels]
        self.rows_per_game = rows_per_game
        self.total = len(schedule)
        self.seat = 0
        self._start_game(first_game)

    def _start_game(self, game: int) -> None:
        self.game = game
        self._slot = self.schedule.slot(game) if game < self.total else None
        # Each seat's row starts with these bytes: ruleset, game, deal, seed, seat, player.
        self._prefixes: list[bytes] = []
        if self._slot is not None:
            s = self._slot
            head = b"%s,%d,%d,%d," % (self._ruleset_fields[s.ruleset], game, s.deal, s.seed)
            self._prefixes = [
                b"%s%d,%s," % (head, seat, self._player_fields[player]) for seat, player in enumerate(s.seats)
            ]

    def check(self, line: bytes) -> str | None:
        """What is wrong with ``line`` (ending in a newline) as the next row, or None."""
        if not self._plain_row_fits(line):
            problem = self._problem(line)
            if problem is not None:
                return problem
        self.seat += 1
        if self.seat == self.rows_per_game:
            self.seat = 0
            self._start_game(self.game + 1)
        return None

    def _plain_row_fits(self, line: bytes) -> bool:
        """The fast check of a row with no quoted field; False means "look closer"."""
        if not self._prefixes or b'"' in line or b"\x00" in line or line.count(b",") != len(COLUMNS) - 1:
            return False
        _, status, _, end = line.rsplit(b",", 3)
        return line.startswith(self._prefixes[self.seat]) and status in _STATUS_BYTES and end in _END_LINES

    def _problem(self, line: bytes) -> str | None:
        """What is wrong with ``line`` as the next row, in words; None if nothing is."""
        if b"\x00" in line:
            return "NUL bytes where a row should be"
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return "bytes that are not UTF-8 text"
        fields = next(csv.reader([text])) if '"' in text else text.rstrip("\n").split(",")
        if len(fields) != len(COLUMNS):
            return f"{len(fields)} fields where a row has {len(COLUMNS)}"
        row = dict(zip(COLUMNS, fields, strict=True))
        if not row["game"].isdigit() or not row["seat"].isdigit():
            return f"game {row['game']!r}, seat {row['seat']!r} are not numbers"
        game, seat = int(row["game"]), int(row["seat"])
        if game >= self.total or self._slot is None:
            return f"game {game:,} is past the end of the run ({self.total:,} games)"
        if (game, seat) != (self.game, self.seat):
            return f"game {game:,}, seat {seat} where game {self.game:,}, seat {self.seat} belongs"
        s = self._slot
        expected = {
            "ruleset": self._rulesets[s.ruleset],
            "deal": str(s.deal),
            "seed": str(s.seed),
            "player": self._labels[s.seats[seat]],
        }
        for column, value in expected.items():
            if row[column] != value:
                return f"{column} {row[column]!r} where game {game:,}, seat {seat} has {value!r}"
        numbers = (row["score"], row["rank"], row["turns"], row["farkles"])
        if not all(n.lstrip("-").isdigit() for n in numbers) or not _is_share(row["win"]):
            return "a number column that is not a number"
        if row["status"] not in STATUSES:
            return f"status {row['status']!r} (expected one of {', '.join(sorted(STATUSES))})"
        if row["end"] not in ENDS:
            return f"end {row['end']!r} (expected one of {', '.join(ENDS)})"
        return None


_STATUS_BYTES = frozenset(status.encode() for status in STATUSES)
_END_LINES = frozenset(f"{end}\n".encode() for end in ENDS)


def _is_share(text: str) -> bool:
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


def _lines(file: Any, limit: int) -> Iterator[bytes]:
    """The next ``limit`` bytes of ``file`` as lines (the last may lack its newline), read in
    blocks so memory stays flat."""
    carry = b""
    while limit > 0:
        block = file.read(min(LINE_BLOCK, limit))
        if not block:
            break
        limit -= len(block)
        lines = (carry + block).split(b"\n")
        carry = lines.pop()
        for line in lines:
            yield line + b"\n"
    if carry:
        yield carry


def _cut(file: Any, length: int, write: bytes = b"") -> None:
    file.truncate(length)
    if write:
        file.seek(length)
        file.write(write)
    file.flush()
    os.fsync(file.fileno())


def _write_bytes(path: Path, data: bytes) -> None:
    write_bytes(path, data, sync=True)
