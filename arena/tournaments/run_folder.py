"""A run's folder: created atomically, never overwritten, checked and repaired on resume.

- ``spec.json``: the settings; ``--resume`` checks every field.
- ``.arena.lock``: held by the one process that writes the folder
  (:mod:`arena.tournaments.folder_lock`); every file is opened without following a link and
  only if it is a regular file (:mod:`arena.safe_files`), and a folder that is or holds a link,
  FIFO, device or socket is refused.
- ``games.csv``: one row per player per game, in game order, appended and fsynced batch by batch.
- ``games.idx``: the journal, one JSON line per written batch, appended right after the batch:
  its games (``start``, ``stop``), where it ends in games.csv (``end``, in bytes), a BLAKE2b
  checksum of its bytes (``hash``), its faults (``faults``: game, seat, key) and the full
  traceback of each fault not seen before in the run (``new``; see
  :mod:`arena.tournaments.fault_log`), at most a few per player
  (:mod:`arena.tournaments.fault_budget`).

The folder is built under a hidden temporary name and renamed into place, so a kill at any
moment leaves either no folder or a complete, resumable one.  On resume games.csv is checked
against the journal and cut back to its verified games (:mod:`arena.tournaments.games_check`),
so finishing the run gives the same bytes as a run that was never interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.safe_files import FileRefused, open_file, read_text, refuse_unsafe, write_bytes
from arena.tournaments.fault_budget import FaultBudget
from arena.tournaments.folder_lock import LOCK, FolderRefused, claim, hold, release
from arena.tournaments.games_check import GAMES, INDEX, GamesCheckError, check_and_cut
from arena.tournaments.interrupts import signals_held
from arena.tournaments.results import rows_digest
from arena.tournaments.rows import HEADER
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import SpecFieldError, TournamentSpec, spec_from_identity

if TYPE_CHECKING:
    from arena.tournaments.batch import FaultDetail

SPEC = "spec.json"
_PARTIAL = re.compile(r"^\.(?P<name>.*)\.partial-(?P<pid>\d+)-[0-9a-f]{6}$")


class RunFolderError(Exception):
    """The folder can't be used for this run; the message is one line."""


class RunFolderWriteError(RunFolderError):
    """Writing to the run folder failed (a full disk, a file-size limit); the message is one line
    and every game written before is kept."""


class RunFolder:
    """The files of one run, open for appending batches."""

    def __init__(
        self,
        path: Path,
        completed_games: int,
        rows_per_game: int,
        end: int,
        known_faults: dict[str, str] | None = None,
        note: str | None = None,
    ) -> None:
        self.path = path
        self.completed_games = completed_games
        #: What resume found damaged and cut, as one line for the user; None if nothing was.
        self.note = note
        self._rows_per_game = rows_per_game
        self._end = end  # bytes in games.csv
        self._budget = FaultBudget(known_faults)  # the distinct faults the journal holds
        self._games = open_file(path / GAMES, "ab", buffering=0)
        self._index = open_file(path / INDEX, "ab", buffering=0)

    @classmethod
    def create(cls, path: Path, spec: TournamentSpec, extra: dict[str, Any] | None = None) -> RunFolder:
        """A new folder for ``spec``; refuses one that exists, so no earlier run is overwritten.
        ``extra`` goes into spec.json too (a duel's ``kind`` and test settings).

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
            hold(temp)  # the lock goes with the folder when it is renamed into place
            _write_json(
                temp / SPEC,
                {
                    "fingerprint": spec.fingerprint(),
                    "command": spec.command,
                    **spec.identity(),
                    **(extra or {}),
                },
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
                release(temp)
                shutil.rmtree(temp, ignore_errors=True)
        return cls(path, 0, Schedule(spec).table_size, len(HEADER.encode()))

    @classmethod
    def resume(
        cls, path: Path, spec: TournamentSpec, rows_per_game: int, kind: str = "tournament"
    ) -> RunFolder:
        """Reopen an interrupted run of ``spec``: check it is the same tournament, then keep the
        games whose bytes are verified and cut the rest (see the module's description).  A
        folder of another kind of run (``kind`` in spec.json: a duel) is refused."""
        saved = load_saved_spec(path)
        try:
            claim(path)  # before anything is written: the cut below, the games
        except FolderRefused as exc:
            raise RunFolderError(str(exc)) from None
        try:
            return cls._reopen(path, saved, spec, rows_per_game, kind)
        except BaseException:
            release(path)  # refused: a process that goes on (the Python API) must not keep it
            raise

    @classmethod
    def _reopen(
        cls, path: Path, saved: dict[str, Any], spec: TournamentSpec, rows_per_game: int, kind: str
    ) -> RunFolder:
        """:meth:`resume` once the folder is locked."""
        saved_kind = saved.get("kind", "tournament")
        if saved_kind != kind:
            raise RunFolderError(
                f"{path} holds a {saved_kind}, not a {kind}; continue it with "
                f"`arena {saved_kind} --resume {path}`"
            )
        if saved.get("fingerprint") != spec.fingerprint():
            differs = sorted(k for k, v in spec.identity().items() if saved.get(k) != _jsonish(v))
            raise RunFolderError(
                f"{path} holds a different {kind} (differs in: {', '.join(differs) or 'players'}); "
                "resume it with its own settings, or start a new run"
            )
        try:
            found = check_and_cut(path, Schedule(spec), rows_per_game)
        except GamesCheckError as exc:
            raise RunFolderError(str(exc)) from None
        except OSError as exc:
            where = exc.filename or path / GAMES
            raise RunFolderError(f"cannot repair {where}: {exc.strerror or exc}") from None
        return cls(path, found.games, rows_per_game, found.end, found.known, found.note)

    def append(
        self,
        rows: str,
        faults: Sequence[FaultDetail] = (),
        games: int | None = None,
        digest: str | None = None,
    ) -> None:
        """Add the next batch of finished games (and their faults) and make it durable: games.csv
        first (fsynced), then its journal line.  A batch cut short (a kill, a full disk) has no
        journal line, so a resume plays it again.  Ctrl-C and SIGTERM wait until both are
        written.  ``games``: how many games the rows hold, when the caller knows (else counted
        from the line breaks: a pass over the bytes, 0.2 s in a run of 2,000,000 games).
        ``digest``: the rows' checksum, made by the worker that played them (else made here:
        about half a second in a run of 2,000,000 games)."""
        data = rows.encode()
        if games is None:
            games = data.count(b"\n") // self._rows_per_game
        stop = self.completed_games + games
        entry: dict[str, Any] = {
            "start": self.completed_games,
            "stop": stop,
            "end": self._end + len(data),
            "hash": rows_digest(data) if digest is None else digest,
        }
        new: dict[str, dict[str, str]] = {}
        if faults:
            keys, new = self._budget.plan(faults)
            entry["faults"] = keys
            if new:
                entry["new"] = new
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with signals_held():
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
            # Counted while signals are still held: a Ctrl-C waiting for the write must find
            # the batch written and counted, or neither.
            self._end = entry["end"]
            self.completed_games = stop
            self._budget.learn(new)

    def close(self) -> None:
        self._games.close()
        self._index.close()

    def write_json(self, name: str, data: dict[str, Any]) -> None:
        _write_json(self.path / name, data)

    def release(self) -> None:
        """Drop the folder's lock (:mod:`arena.tournaments.folder_lock`) once everything is
        written; a process that just exits needs no call."""
        release(self.path)


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
        refuse_unsafe(path)
    except FileRefused as exc:
        raise RunFolderError(f"{exc.filename}: {exc.strerror}; the folder is refused") from None
    try:
        data = json.loads(read_text(path / SPEC))
    except FileRefused as exc:  # a FIFO put there since the check above, a spec.json too large
        raise RunFolderError(f"{exc.filename}: {exc.strerror}; the folder is refused") from None
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
        linked = path.is_symlink()  # a dangling one too: the folder must be its own path
    except OSError as exc:
        raise RunFolderError(f"cannot write {path}: {exc.strerror or exc}") from None
    if linked:
        raise RunFolderError(
            f"{path} is a symbolic link; choose another --out (arena never writes through one)"
        )
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
            if {p.name for p in entry.iterdir()} <= {SPEC, GAMES, INDEX, LOCK}:
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
    write_bytes(path, data, sync=True)


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
