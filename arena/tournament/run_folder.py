"""A run's folder: created once, never overwritten; resumable after any interruption.

games.csv is written in game order and flushed to disk batch by batch.  A run killed at any
moment (Ctrl-C, kill, power cut) leaves a prefix of the final file, possibly ending in a torn
line; :meth:`RunFolder.resume` cuts it back to the last complete game, so finishing the run
gives the same bytes as a run that was never interrupted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from arena.tournament.rows import HEADER
from arena.tournament.spec import TournamentSpec, spec_from_identity

GAMES = "games.csv"
SPEC = "spec.json"


class RunFolderError(Exception):
    """The folder can't be used for this run; the message is one line."""


class RunFolder:
    """The files of one run."""

    def __init__(self, path: Path, completed_games: int) -> None:
        self.path = path
        self.completed_games = completed_games
        self._games = open(path / GAMES, "a", encoding="utf-8", newline="")  # noqa: SIM115 - kept open

    @classmethod
    def create(cls, path: Path, spec: TournamentSpec) -> RunFolder:
        """A new folder for ``spec``; refuses one that exists, so no earlier run is overwritten."""
        if path.exists():
            raise RunFolderError(
                f"{path} already exists; choose another --out (earlier runs are never overwritten)"
                " or continue it with --resume"
            )
        try:
            path.mkdir(parents=True)
            _write_json(
                path / SPEC, {"fingerprint": spec.fingerprint(), "command": spec.command, **spec.identity()}
            )
            with open(path / GAMES, "w", encoding="utf-8", newline="") as games:
                games.write(HEADER)
                games.flush()
                os.fsync(games.fileno())
            _fsync_folder(path)  # the new files' names are durable too
        except OSError as exc:
            raise RunFolderError(f"cannot write {path}: {exc.strerror or exc}") from None
        return cls(path, 0)

    @classmethod
    def resume(cls, path: Path, spec: TournamentSpec, rows_per_game: int) -> RunFolder:
        """Reopen an interrupted run of ``spec``: check it is the same tournament, then cut
        games.csv back to its last complete game."""
        saved = load_saved_spec(path)
        if saved.get("fingerprint") != spec.fingerprint():
            differs = sorted(k for k, v in spec.identity().items() if saved.get(k) != _jsonish(v))
            raise RunFolderError(
                f"{path} holds a different tournament (differs in: {', '.join(differs) or 'players'}); "
                "resume it with its own settings, or start a new run"
            )
        games_path = path / GAMES
        try:
            completed = _repair(games_path, rows_per_game)
        except OSError as exc:
            raise RunFolderError(f"cannot repair {games_path}: {exc.strerror or exc}") from None
        return cls(path, completed)

    def append(self, rows: str) -> None:
        """Add finished games and make them durable before anything else happens."""
        self._games.write(rows)
        self._games.flush()
        os.fsync(self._games.fileno())

    def close(self) -> None:
        self._games.close()

    def write_json(self, name: str, data: dict[str, Any]) -> None:
        _write_json(self.path / name, data)


def load_saved_spec(path: Path) -> dict[str, Any]:
    """The settings a run folder was started with; one-line errors for anything else."""
    if not path.is_dir():
        raise RunFolderError(f"{path}: no such run folder")
    try:
        data = json.loads((path / SPEC).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunFolderError(f"{path} is not a tournament folder (no {SPEC})") from None
    except (OSError, ValueError) as exc:
        raise RunFolderError(f"{path / SPEC} can't be read: {exc}") from None
    if not (path / GAMES).is_file():
        raise RunFolderError(f"{path} is not a tournament folder (no {GAMES})")
    if not isinstance(data, dict) or "fingerprint" not in data:
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
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = " ".join(str(exc).split())
        raise RunFolderError(
            f"{path / SPEC} is damaged ({type(exc).__name__}: {detail}); the run can't be resumed from it"
        ) from None


BLOCK = 1 << 20


def _repair(games_path: Path, rows_per_game: int) -> int:
    """Cut games.csv back to its header and complete games; return how many games it holds.

    Streams the file in blocks (memory doesn't grow with it).  A header torn by a power cut
    right after the run started is written again.
    """
    header = HEADER.encode()
    with open(games_path, "rb+") as games:
        head = games.read(len(header))
        if head != header:
            rest = games.read(1)
            if header.startswith(head) and not rest:  # nothing but part of the header
                games.seek(0)
                games.truncate()
                games.write(header)
                games.flush()
                os.fsync(games.fileno())
                return 0
            raise RunFolderError(f"{games_path} does not start with the games.csv header")
        lines = 0
        while block := games.read(BLOCK):
            lines += block.count(b"\n")
        complete_games = lines // rows_per_game
        keep = complete_games * rows_per_game
        games.seek(len(header))
        cut = len(header)
        while keep:
            block = games.read(BLOCK)
            count = block.count(b"\n")
            if count < keep:
                keep -= count
                cut += len(block)
                continue
            position = -1
            for _ in range(keep):
                position = block.index(b"\n", position + 1)
            cut += position + 1
            keep = 0
        games.seek(0, os.SEEK_END)
        if cut != games.tell():
            games.truncate(cut)
            games.flush()
            os.fsync(games.fileno())
    return complete_games


def _fsync_folder(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as file:
        file.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        file.flush()
        os.fsync(file.fileno())


def _jsonish(value: Any) -> Any:
    return json.loads(json.dumps(value))
