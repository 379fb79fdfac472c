"""A run's folder: created atomically, never overwritten, checked and repaired on resume.

- ``spec.json``: the settings; ``--resume`` checks every field.
- ``games.csv``: one row per player per game, in game order, appended and fsynced batch by batch.
- ``games.idx``: the journal, one JSON line per written batch, appended right after the
  batch: its games (``start``, ``stop``), where it ends in games.csv (``end``, in bytes), a
  BLAKE2b checksum of its bytes (``hash``), its faults (``faults``: game, seat, key) and the full
  traceback of each fault not seen before in the run (``new``; see
  :mod:`arena.tournament.fault_log`).

The folder is built under a hidden temporary name and renamed into place, so a kill at any
moment leaves either no folder or a complete, resumable one.  On resume games.csv is checked
against the journal: the games of every batch whose bytes match are kept; anything after the
last matching batch (a torn line, a batch written but not yet journaled, damage of any kind:
a deleted or edited row, NUL bytes, rows past the end of the run) is cut and played again,
which gives the same bytes as a run that was never interrupted.  A folder written before the
journal existed is checked row by row instead (ruleset, game number, deal and seat in order,
thirteen fields, a known status).  Both checks stream the file: memory stays flat.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.tournament.fault_log import clip_traceback, fault_key
from arena.tournament.rows import COLUMNS, HEADER, csv_field
from arena.tournament.schedule import Schedule
from arena.tournament.spec import SpecFieldError, TournamentSpec, spec_from_identity

if TYPE_CHECKING:
    from arena.tournament.batch import FaultDetail

GAMES = "games.csv"
SPEC = "spec.json"
INDEX = "games.idx"
BLOCK = 1 << 20  # bytes hashed at a time
LINE_BLOCK = 1 << 18  # bytes split into lines at a time
STATUSES = frozenset({"ok", "error", "illegal", "timeout"})
_PARTIAL = re.compile(r"^\.(?P<name>.*)\.partial-(?P<pid>\d+)-[0-9a-f]{6}$")


class RunFolderError(Exception):
    """The folder can't be used for this run; the message is one line."""


class RunFolderWriteError(RunFolderError):
    """Writing to the run folder failed (a full disk, a file-size limit); the message is one line
    and every game written before is kept."""


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class RunFolder:
    """The files of one run, open for appending batches."""

    def __init__(
        self,
        path: Path,
        completed_games: int,
        rows_per_game: int,
        end: int,
        known_faults: set[str] | None = None,
        note: str | None = None,
    ) -> None:
        self.path = path
        self.completed_games = completed_games
        #: What resume found damaged and cut, as one line for the user; None if nothing was.
        self.note = note
        self._rows_per_game = rows_per_game
        self._end = end  # bytes in games.csv
        self._known = known_faults or set()
        self._games = open(path / GAMES, "ab", buffering=0)  # noqa: SIM115 - kept open
        self._index = open(path / INDEX, "ab", buffering=0)  # noqa: SIM115 - kept open

    @classmethod
    def create(cls, path: Path, spec: TournamentSpec) -> RunFolder:
        """A new folder for ``spec``; refuses one that exists, so no earlier run is overwritten.

        The folder is built under a hidden temporary name next to ``path`` and renamed into
        place: it appears with its spec.json, games.csv header and journal, or not at all."""
        _check_new(path)
        parent = path.parent
        temp: Path | None = None
        try:
            parent.mkdir(parents=True, exist_ok=True)
            _remove_stale_partials(parent)
            temp = parent / f".{path.name[:64]}.partial-{os.getpid()}-{secrets.token_hex(3)}"
            temp.mkdir()
            _write_json(
                temp / SPEC, {"fingerprint": spec.fingerprint(), "command": spec.command, **spec.identity()}
            )
            _write_bytes(temp / GAMES, HEADER.encode())
            _write_bytes(temp / INDEX, b"")
            _fsync_folder(temp)
            try:
                os.rename(temp, path)  # atomic: a kill before this leaves only the hidden temporary
            except OSError as exc:
                if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):  # made by someone else meanwhile
                    raise RunFolderError(_exists_message(path)) from None
                raise
            temp = None
            _fsync_folder(parent)  # the new name is durable too
        except OSError as exc:
            raise RunFolderError(f"cannot write {path}: {exc.strerror or exc}") from None
        finally:
            if temp is not None:
                shutil.rmtree(temp, ignore_errors=True)
        return cls(path, 0, Schedule(spec).table_size, len(HEADER.encode()))

    @classmethod
    def resume(cls, path: Path, spec: TournamentSpec, rows_per_game: int) -> RunFolder:
        """Reopen an interrupted run of ``spec``: check it is the same tournament, then keep the
        games whose bytes are verified and cut the rest (see the module's description)."""
        saved = load_saved_spec(path)
        if saved.get("fingerprint") != spec.fingerprint():
            differs = sorted(k for k, v in spec.identity().items() if saved.get(k) != _jsonish(v))
            raise RunFolderError(
                f"{path} holds a different tournament (differs in: {', '.join(differs) or 'players'}); "
                "resume it with its own settings, or start a new run"
            )
        try:
            found = _Verifier(path, Schedule(spec), rows_per_game).run()
        except OSError as exc:
            raise RunFolderError(f"cannot repair {path / GAMES}: {exc.strerror or exc}") from None
        return cls(path, found.games, rows_per_game, found.end, found.known, found.note)

    def append(self, rows: str, faults: Sequence[FaultDetail] = ()) -> None:
        """Add the next batch of finished games (and their faults) and make it durable: games.csv
        first (fsynced), then its journal line.  A batch cut short (a kill, a full disk) has no
        journal line, so a resume plays it again.  Ctrl-C and SIGTERM wait until both are
        written."""
        data = rows.encode()
        stop = self.completed_games + data.count(b"\n") // self._rows_per_game
        entry: dict[str, Any] = {
            "start": self.completed_games,
            "stop": stop,
            "end": self._end + len(data),
            "hash": _digest(data),
        }
        new: dict[str, dict[str, str]] = {}
        if faults:
            keys = []
            for f in faults:
                key = fault_key(f.player, f.status, f.reason, f.traceback)
                keys.append([f.game, f.seat, key])
                if key not in self._known and key not in new:
                    new[key] = {
                        "player": f.player,
                        "status": f.status,
                        "reason": clip_traceback(f.reason),
                        "traceback": clip_traceback(f.traceback),
                    }
            entry["faults"] = keys
            if new:
                entry["new"] = new
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with _signals_held():
            try:
                _write_all(self._games, data)
                os.fsync(self._games.fileno())
            except OSError as exc:
                raise RunFolderWriteError(
                    f"cannot write {self.path / GAMES}: {exc.strerror or exc}"
                ) from None
            try:
                # Not fsynced: a journal line lost in a power cut only makes its batch be played
                # again, and one that outlived its batch's bytes fails its checksum.
                _write_all(self._index, line)
            except OSError as exc:
                raise RunFolderWriteError(
                    f"cannot write {self.path / INDEX}: {exc.strerror or exc}"
                ) from None
        self._end = entry["end"]
        self.completed_games = stop
        self._known.update(new)

    def close(self) -> None:
        self._games.close()
        self._index.close()

    def write_json(self, name: str, data: dict[str, Any]) -> None:
        _write_json(self.path / name, data)


def read_journal(path: Path) -> Iterator[dict[str, Any]]:
    """The batch entries of a run folder's games.idx, in order, up to the first unreadable line."""
    try:
        index = open(path / INDEX, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return
    with index:
        for raw in index:
            entry = _entry(raw)
            if entry is None:
                return
            yield entry


def _entry(raw: bytes) -> dict[str, Any] | None:
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
class _Found:
    games: int  # complete, verified games kept
    end: int  # bytes of games.csv kept
    known: set[str] = field(default_factory=set)  # fault keys whose traceback the journal holds
    note: str | None = None


class _Verifier:
    """Checks games.csv against its journal (or row by row, for a folder without one), then cuts
    both files back to what was verified."""

    def __init__(self, path: Path, schedule: Schedule, rows_per_game: int) -> None:
        self.games_path = path / GAMES
        self.index_path = path / INDEX
        self.schedule = schedule
        self.rows_per_game = rows_per_game
        self.total = len(schedule)
        self._rulesets = [r.name for r in schedule.spec.rulesets]

    def run(self) -> _Found:
        header = HEADER.encode()
        with open(self.games_path, "rb+") as games:
            head = games.read(len(header))
            if head != header:
                if header.startswith(head) and not games.read(1):  # a header torn by a power cut
                    _cut(games, 0, header)
                    self._rewrite_index(0, [])
                    return _Found(0, len(header))
                raise RunFolderError(f"{self.games_path} does not start with the games.csv header")
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
    def _by_journal(self, games: Any, size: int) -> tuple[_Found, int]:
        """Keep every journaled batch whose bytes match its checksum, up to the first that
        doesn't; return what was kept and how many bytes of games.idx go with it."""
        found = _Found(0, len(HEADER.encode()))
        index_keep = 0
        line_number = 1  # the header is line 1
        games.seek(found.end)
        note = None
        with open(self.index_path, "rb") as index:
            for raw in index:
                entry = _entry(raw)
                if (
                    entry is None
                    or entry["start"] != found.games
                    or not found.games < entry["stop"] <= self.total
                    or entry["end"] <= found.end
                ):
                    break  # a torn or damaged journal line: what follows is unconfirmed
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
                found.games, found.end = entry["stop"], entry["end"]
                line_number += lines
                index_keep += len(raw)
                found.known.update(entry.get("new", {}))
        if note is None and size > found.end:
            note = self._locate(games, found, line_number, size, quiet_tail=True)
        found.note = self._note(note, found.games)
        return found, index_keep

    def _locate(
        self, games: Any, found: _Found, line_number: int, stop: int, quiet_tail: bool = False
    ) -> str | None:
        """The first row from ``found.end`` to ``stop`` that is not the scheduled one, as a note.

        ``quiet_tail``: the bytes after the last journaled batch.  A kill between writing a batch
        and journaling it leaves whole rows there, and a kill mid-write a torn last line: these
        are normal and get no note (they are played again all the same)."""
        games.seek(found.end)
        checker = _RowChecker(self.schedule, self._rulesets, self.rows_per_game, found.games)
        for number, line in enumerate(_lines(games, stop - found.end), line_number + 1):
            if not line.endswith(b"\n"):
                return None if quiet_tail else f"games.csv line {number:,}: a row cut short"
            problem = checker.check(line)
            if problem is not None:
                return f"games.csv line {number:,}: {problem}"
        return None

    def _cut_index(self, keep: int) -> None:
        with open(self.index_path, "rb+") as index:
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
    def _by_rows(self, games: Any, size: int) -> tuple[_Found, str]:
        """Keep the complete games from the start up to the first row that is not the scheduled
        one; return them and the checksum of their bytes (for a new journal)."""
        start = len(HEADER.encode())
        games.seek(start)
        checker = _RowChecker(self.schedule, self._rulesets, self.rows_per_game, 0)
        found = _Found(0, start)
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
    in its ruleset and deal, with thirteen fields and a known status.  A plain row is checked
    as bytes (about 1 us); anything else is parsed as CSV to check its numbers too, and to say
    what is wrong."""

    def __init__(self, schedule: Schedule, rulesets: list[str], rows_per_game: int, first_game: int) -> None:
        self.schedule = schedule
        self.rulesets = rulesets
        self._ruleset_fields = [csv_field(name).encode() for name in rulesets]
        self.rows_per_game = rows_per_game
        self.total = len(schedule)
        self._seats = [str(seat).encode() for seat in range(rows_per_game)]
        self.seat = 0
        self._start_game(first_game)

    def _start_game(self, game: int) -> None:
        self.game = game
        self._expected: bytes | None = None  # the row's start: ruleset, game, deal
        if game < self.total:
            ruleset, deal = self._where(game)
            self._expected = b"%s,%d,%d," % (self._ruleset_fields[ruleset], game, deal)

    def _where(self, game: int) -> tuple[int, int]:
        s = self.schedule
        ruleset, rest = divmod(game, s.games_per_ruleset)
        return ruleset, (rest % s.games_per_table) // s.orders

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
        """The fast check of a row with no quoted field: its ruleset, game, deal and seat, its
        field count and its status.  False means "look closer"."""
        prefix = self._expected
        if prefix is None or b'"' in line or b"\x00" in line or line.count(b",") != 12:
            return False
        if not line.startswith(prefix):
            return False
        seat = line[len(prefix) :].split(b",", 2)[1]
        return seat == self._seats[self.seat] and line.rsplit(b",", 2)[1] in _STATUS_BYTES

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
        if game >= self.total or self.game >= self.total:
            return f"game {game:,} is past the end of the run ({self.total:,} games)"
        if (game, seat) != (self.game, self.seat):
            return f"game {game:,}, seat {seat} where game {self.game:,}, seat {self.seat} belongs"
        ruleset, deal = self._where(game)
        if row["ruleset"] != self.rulesets[ruleset] or row["deal"] != str(deal):
            return (
                f"ruleset {row['ruleset']!r}, deal {row['deal']} where game {game:,} is "
                f"ruleset {self.rulesets[ruleset]!r}, deal {deal}"
            )
        numbers = (row["seed"], row["score"], row["rank"], row["turns"], row["farkles"])
        if not all(n.lstrip("-").isdigit() for n in numbers) or not _is_share(row["win"]):
            return "a number column that is not a number"
        if row["status"] not in STATUSES:
            return f"status {row['status']!r} (expected one of {', '.join(sorted(STATUSES))})"
        return None


_STATUS_BYTES = frozenset(status.encode() for status in STATUSES)


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


def load_saved_spec(path: Path) -> dict[str, Any]:
    """The settings a run folder was started with; one-line errors for anything else."""
    try:
        is_dir = path.is_dir()
    except OSError as exc:  # a name too long for the file system
        raise RunFolderError(f"{path}: {exc.strerror or exc}") from None
    if not is_dir:
        if _partials_of(path):
            raise RunFolderError(
                f"{path}: no such run folder (a run was stopped while its folder was being created, "
                "before any game: start it again)"
            )
        raise RunFolderError(f"{path}: no such run folder")
    try:
        data = json.loads((path / SPEC).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunFolderError(f"{path} is not a tournament folder (no {SPEC})") from None
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{path / SPEC} can't be read: {' '.join(str(exc).split())}") from None
    if not (path / GAMES).is_file():
        raise RunFolderError(f"{path} is not a tournament folder (no {GAMES})")
    if not isinstance(data, dict) or not isinstance(data.get("fingerprint"), str):
        raise RunFolderError(
            f"{path / SPEC} is damaged (not the settings arena saved); the run can't be resumed"
        )
    return data


def load_saved_run(path: Path, command: str = "") -> TournamentSpec:
    """The spec a run folder was started with, rebuilt; a damaged spec.json is one line."""
    from arena.players.loading import StrategyError

    saved = load_saved_spec(path)
    try:
        return spec_from_identity(saved, command)
    except StrategyError:
        raise
    except SpecFieldError as exc:
        raise RunFolderError(f"{path / SPEC}: {exc}; the run can't be resumed from it") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = " ".join(str(exc).split())
        raise RunFolderError(
            f"{path / SPEC} is damaged ({type(exc).__name__}: {detail}); the run can't be resumed from it"
        ) from None


# --- creating a folder ---------------------------------------------------------------------------
def _exists_message(path: Path) -> str:
    return (
        f"{path} already exists; choose another --out (earlier runs are never overwritten)"
        " or continue it with --resume"
    )


def _check_new(path: Path) -> None:
    """Refuse a path whose name the file system can't hold, or that exists, in one line."""
    name_max = 255
    with contextlib.suppress(OSError, ValueError):
        existing = next((p for p in (path.parent, *path.parent.parents) if p.exists()), Path("."))
        name_max = os.pathconf(existing, "PC_NAME_MAX")
    for part in path.parts:
        if len(os.fsencode(part)) > name_max:
            raise RunFolderError(
                f"cannot write {path}: the name {part[:40]}... is {len(os.fsencode(part))} bytes long; "
                f"the file system allows {name_max}"
            )
    try:
        exists = path.exists()
    except OSError as exc:
        raise RunFolderError(f"cannot write {path}: {exc.strerror or exc}") from None
    if exists:
        raise RunFolderError(_exists_message(path))


def _partials_of(path: Path) -> list[Path]:
    """Temporary folders left by a run killed while creating ``path``."""
    with contextlib.suppress(OSError):
        prefix = path.name[:64]
        return [
            p
            for p in path.parent.iterdir()
            if (found := _PARTIAL.match(p.name)) is not None and found["name"] == prefix
        ]
    return []


def _remove_stale_partials(parent: Path) -> None:
    """Remove temporary folders that runs killed during creation left behind: only ours (by
    name), only of processes no longer running, only holding what creation writes."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            found = _PARTIAL.match(entry.name)
            if found is None or not entry.is_dir() or _alive(int(found["pid"])):
                continue
            if {p.name for p in entry.iterdir()} <= {SPEC, GAMES, INDEX}:
                shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


# --- writing -------------------------------------------------------------------------------------
@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block is done, so a batch and its journal line are
    written together (a kill -9 can still cut them; resume handles that).

    A signal mask would not do: Python runs its handlers in the main thread whichever thread
    the signal reaches, and the worker pool has threads of its own.  So the handlers are swapped
    for one that only notes the signal, which is raised again once the block is done."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def note(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if pending:
            signal.raise_signal(pending[0])


def _write_all(file: Any, data: bytes) -> None:
    """Write all of ``data`` to an unbuffered file: a raw write may write only part (for
    example up to a file-size limit) before it fails."""
    view = memoryview(data)
    while view:
        written = file.write(view)
        if not written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def _write_bytes(path: Path, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


def _fsync_folder(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    _write_bytes(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def _jsonish(value: Any) -> Any:
    return json.loads(json.dumps(value))
