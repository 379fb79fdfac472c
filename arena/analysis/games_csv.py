"""Reading games.csv: whole games at a time, and an interrupted run as far as its last complete game.

Two readers over the same cut: :func:`game_chunks` gives pandas frames (the comparison of runs
uses them), :func:`game_blocks` gives plain integer arrays with every name replaced by a small
integer id (the reports sum them with numpy, a few array operations per block of games instead
of pandas group-bys per chunk).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.safe_files import open_read

#: Rows per chunk of games.csv for the comparison of runs (pandas frames).
CHUNK_ROWS = 10_000
#: Rows per block for the reports: the per-block cost is a few dozen numpy calls, so larger
#: blocks are faster; the peak memory grows with the block, never with the run.  On 200,000
#: two-player games, blocks of 25,000 / 50,000 / 100,000 rows cost 1.19 / 1.12 / 1.04 us per game
#: and 15 / 28 / 44 MiB more at the peak (10,000-row pandas chunks took 12 MiB, at 7 us a game);
#: benchmarks/memory.py's 100,000-game tournament peaks at 91 MiB with 25,000, 103 with 50,000.
BLOCK_ROWS = 25_000
GAME_COLUMNS = {
    "ruleset": "string",
    "game": "int64",
    "deal": "int64",
    "seed": "uint64",
    "seat": "int64",
    "player": "string",
    "score": "int64",
    "rank": "int64",
    "win": "float64",
    "turns": "int64",
    "farkles": "int64",
    "status": "string",
    "reason": "string",
    "end": "string",
}
#: The same columns as categories for :func:`game_blocks`: the parser hands over small integer
#: codes per distinct name, turned into ids without a pass over the strings.
BLOCK_COLUMNS = {
    **GAME_COLUMNS,
    "ruleset": "category",
    "player": "category",
    "status": "category",
    "reason": "category",
    "end": "category",
}
ERROR_COLUMNS = ["ruleset", "game", "player", "status", "reason"]


class ReportError(Exception):
    """games.csv can't be read as a run's results; the message is one line."""


class _Prefix(io.RawIOBase):
    """The first ``limit`` bytes of a file, read-only: an interrupted run is read as far as its
    last complete line without changing the file.  Only a regular file is opened
    (:func:`~arena.safe_files.open_read`): a FIFO or device in its place would never end."""

    def __init__(self, path: Path, limit: int) -> None:
        self._file = open_read(path)  # a FIFO or device is refused: it could block
        self._left = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buffer)[: self._left]
        n = self._file.readinto(view)
        self._left -= n
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def _complete_length(path: Path) -> int:
    """Bytes up to and including the last newline (a torn last line is left out)."""
    with open_read(path) as f:
        f.seek(0, io.SEEK_END)
        end = f.tell()
        step = 4096
        while end > 0:
            start = max(0, end - step)
            f.seek(start)
            block = f.read(end - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            end = start
    return 0


def _parsed(path: Path, chunk_rows: int, dtype: dict[str, str]) -> Iterator[pd.DataFrame]:
    """games.csv up to its last complete line, in chunks of ``chunk_rows`` rows that hold at
    least one row; a file arena did not write is one :class:`ReportError`."""
    try:
        source = io.BufferedReader(_Prefix(path, _complete_length(path)))
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        reader = pd.read_csv(
            source, dtype=dtype, chunksize=chunk_rows, keep_default_na=False, na_values={"reason": []}
        )
        order = _GameOrder(path)
        for chunk in reader:
            if "candidate" in chunk.columns and "round" in chunk.columns:
                raise ReportError(
                    f"{path.parent} is a tuning run (arena tune): read its candidates.csv and tune.json"
                )
            missing = [c for c in GAME_COLUMNS if c not in chunk.columns]
            if missing == ["end"]:
                raise ReportError(
                    f"{path} was written by an older arena (no column end, how each game ended): "
                    "play the run again with this one to report it"
                )
            if missing:
                raise ReportError(f"{path} is not a games.csv arena wrote (no column {', '.join(missing)})")
            if len(chunk):  # (a run stopped before its first batch: a header and nothing more)
                order.check(chunk)
                yield chunk
    except (ValueError, KeyError, TypeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ReportError(f"{path} is not a games.csv arena wrote: {' '.join(str(exc).split())}") from None
    finally:
        source.close()


class _GameOrder:
    """Checks, chunk by chunk, that the rows of each game are together (the readers cut games
    where the game number changes), whatever order the games come in: a bit per game number
    seen, so the memory is an eighth of a byte per game."""

    LIMIT = 1 << 31  # game numbers arena writes are far below this

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen = np.zeros(0, dtype=np.uint8)
        self.last: tuple[int, Any] | None = None  # the previous chunk's last (game, ruleset)

    def check(self, chunk: pd.DataFrame) -> None:
        games = chunk["game"].to_numpy()
        rulesets = chunk["ruleset"].to_numpy(dtype=object)
        if games.min() < 0 or games.max() >= self.LIMIT:
            raise ReportError(f"{self.path}: game numbers must be 0 to {self.LIMIT - 1:,}")
        changed = np.empty(len(games), dtype=bool)
        changed[1:] = games[1:] != games[:-1]
        changed[0] = self.last is None or games[0] != self.last[0]
        before = np.empty(len(games), dtype=object)
        before[1:] = rulesets[:-1]
        before[0] = rulesets[0] if self.last is None else self.last[1]
        mixed = np.flatnonzero(~changed & (rulesets != before))
        if len(mixed):
            self._refuse(int(games[mixed[0]]))
        starts = games[changed]
        self.last = int(games[-1]), rulesets[-1]
        if not len(starts):  # the chunk goes on with the game the last one ended in
            return
        size = (int(starts.max()) >> 3) + 1
        if size > len(self.seen):
            grown = np.zeros(max(size, 2 * len(self.seen)), np.uint8)
            grown[: len(self.seen)] = self.seen
            self.seen = grown
        bits = (self.seen[starts >> 3] >> (starts & 7)) & 1
        again = np.flatnonzero(bits)
        if len(again):
            self._refuse(int(starts[again[0]]))
        unique, counts = np.unique(starts, return_counts=True)
        if (counts > 1).any():
            self._refuse(int(unique[np.argmax(counts > 1)]))
        np.bitwise_or.at(self.seen, starts >> 3, (1 << (starts & 7)).astype(np.uint8))

    def _refuse(self, game: int) -> None:
        raise ReportError(
            f"{self.path}: the rows of game {game} are not together, as arena writes them: keep "
            "each game's rows one after another (in any order of games), and each run in a file "
            "of its own"
        )


def game_chunks(path: Path, chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    """games.csv in chunks that never split a game's rows.  A torn last line and a last game
    with fewer rows than the first game (an interrupted run) are left out; the first game is
    counted whole, even when it spans chunks of fewer rows than it has."""
    carry: pd.DataFrame | None = None
    rows_per_game: int | None = None
    for chunk in _parsed(path, chunk_rows, GAME_COLUMNS):
        if carry is not None:
            chunk = pd.concat([carry, chunk], ignore_index=True)
        last = chunk["game"].iloc[-1]
        carry = chunk[chunk["game"] == last]
        done = chunk[chunk["game"] != last]
        if len(done):
            if rows_per_game is None:  # the first game is complete once another has begun
                rows_per_game = int((done["game"] == done["game"].iloc[0]).sum())
            yield done
    if carry is not None and len(carry) and len(carry) >= (rows_per_game or 0):
        yield carry


class Names:
    """Small integer ids for the rulesets and players of a run, given in the order they first
    appear in games.csv; kept across blocks, so an id means the same name in every block."""

    def __init__(self) -> None:
        self.rulesets: list[str] = []
        self.players: list[str] = []
        self._ruleset_ids: dict[str, int] = {}
        self._player_ids: dict[str, int] = {}

    def player_id(self, name: str) -> int | None:
        return self._player_ids.get(name)

    @classmethod
    def _ids(cls, column: pd.Series, ids: dict[str, int], names: list[str]) -> np.ndarray:
        """The ids of a categorical column: one dict lookup per distinct name."""
        categories = [str(c) for c in column.cat.categories]
        return cls._ids_of(column.cat.codes.to_numpy(), categories, ids, names)

    def block(self, chunk: pd.DataFrame) -> GameBlock:
        """A chunk read with :data:`BLOCK_COLUMNS` as arrays."""
        fault = (chunk["status"] != "ok").to_numpy(dtype=bool)
        return GameBlock(
            ruleset=self._ids(chunk["ruleset"], self._ruleset_ids, self.rulesets),
            game=chunk["game"].to_numpy(),
            deal=chunk["deal"].to_numpy(),
            seat=chunk["seat"].to_numpy(),
            player=self._ids(chunk["player"], self._player_ids, self.players),
            score=chunk["score"].to_numpy(),
            rank=chunk["rank"].to_numpy(),
            win=chunk["win"].to_numpy(),
            turns=chunk["turns"].to_numpy(),
            farkles=chunk["farkles"].to_numpy(),
            fault=fault,
            round_limit=(chunk["end"] == "round_limit").to_numpy(dtype=bool),
            faults=chunk.loc[fault, ERROR_COLUMNS] if fault.any() else chunk.iloc[:0][ERROR_COLUMNS],
        )


    def numbers_block(
        self, columns: Any, first_game: int, ruleset_names: Sequence[str], player_names: Sequence[str]
    ) -> GameBlock:
        """The block of the games first_game.. that ``columns`` holds (the numbers a worker sends
        with its rows: :class:`arena.tournaments.results.GameColumns`), equal to the block
        :meth:`block` makes of their rows: the same ids (names numbered in the order they first
        appear), the win shares the rows' text gives, every status ok.  ``ruleset_names`` and
        ``player_names``: the names the columns' indices stand for."""
        winners = columns.winners.astype(np.int64)
        games = len(winners)
        seats = len(columns.player) // games if games else 0
        ruleset = self._ids_of(columns.ruleset, ruleset_names, self._ruleset_ids, self.rulesets)
        player = self._ids_of(columns.player, player_names, self._player_ids, self.players)
        # The rows' shares: 1, or 1/k written to six decimals, read back as games.csv is read.
        shares = np.array([0.0] + [float(f"{1.0 / k:.6f}") for k in range(1, seats + 1)])
        empty = pd.DataFrame({name: pd.Series(dtype=object) for name in ERROR_COLUMNS})
        return GameBlock(
            ruleset=np.repeat(ruleset, seats),
            game=np.repeat(np.arange(first_game, first_game + games, dtype=np.int64), seats),
            deal=np.repeat(columns.deal.astype(np.int64), seats),
            seat=np.tile(np.arange(seats, dtype=np.int64), games),
            player=player,
            score=columns.score.astype(np.int64),
            rank=columns.rank.astype(np.int64),
            win=np.where(columns.won, np.repeat(shares[winners], seats), 0.0),
            turns=columns.turns.astype(np.int64),
            farkles=columns.farkles.astype(np.int64),
            fault=np.zeros(games * seats, dtype=bool),
            round_limit=np.repeat(columns.end == 2, seats),
            faults=empty,
        )

    @staticmethod
    def _ids_of(
        codes: np.ndarray, names_of: Sequence[str], ids: dict[str, int], names: list[str]
    ) -> np.ndarray:
        """The ids of ``codes``, indices into ``names_of``: one dict lookup per distinct name, new
        names numbered in the order they first appear (the rulesets' order)."""
        codes = codes.astype(np.int64)
        present, first = np.unique(codes, return_index=True)
        lookup = np.zeros(max(len(names_of), 1), dtype=np.int64)
        for code in present[np.argsort(first)].tolist():
            name = names_of[code]
            found = ids.get(name)
            if found is None:
                found = ids[name] = len(names)
                names.append(name)
            lookup[code] = found
        return lookup[codes]


_BLOCK_ARRAYS = (
    "ruleset",
    "game",
    "deal",
    "seat",
    "player",
    "score",
    "rank",
    "win",
    "turns",
    "farkles",
    "fault",
    "round_limit",
)


@dataclass(frozen=True)
class GameBlock:
    """Whole games of games.csv, one array entry per row in file order; rulesets and players as
    ids of a :class:`Names`.  ``round_limit``: the row's game ended at the round limit.
    ``faults``: the rows whose status is not ok, as errors.csv shows them."""

    ruleset: np.ndarray
    game: np.ndarray
    deal: np.ndarray
    seat: np.ndarray
    player: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    win: np.ndarray
    turns: np.ndarray
    farkles: np.ndarray
    fault: np.ndarray
    round_limit: np.ndarray
    faults: pd.DataFrame

    def __len__(self) -> int:
        return len(self.game)

    def _with(self, part: Any, faults: pd.DataFrame) -> GameBlock:
        return GameBlock(**{name: getattr(self, name)[part] for name in _BLOCK_ARRAYS}, faults=faults)

    def split_last_game(self) -> tuple[GameBlock, GameBlock]:
        """The rows of games before the last one, and the last game's rows (which the next
        block may continue)."""
        last = self.game[-1]
        at_last = self.game == last
        tail = int(at_last.sum())
        faults_last = (self.faults["game"] == last).to_numpy(dtype=bool)
        done_faults, last_faults = self.faults[~faults_last], self.faults[faults_last]
        if at_last[len(self) - tail :].all():  # a game's rows together, as arena writes them: views
            return (
                self._with(slice(0, len(self) - tail), done_faults),
                self._with(slice(len(self) - tail, None), last_faults),
            )
        return self._with(~at_last, done_faults), self._with(at_last, last_faults)

    def after(self, earlier: GameBlock) -> GameBlock:
        """``earlier``'s rows followed by this block's."""
        arrays = {
            name: np.concatenate([getattr(earlier, name), getattr(self, name)]) for name in _BLOCK_ARRAYS
        }
        faults = pd.concat([earlier.faults, self.faults]) if len(earlier.faults) else self.faults
        return GameBlock(**arrays, faults=faults)


def game_blocks(path: Path, names: Names, block_rows: int = BLOCK_ROWS) -> Iterator[GameBlock]:
    """games.csv as :class:`GameBlock` s that never split a game's rows, cut as
    :func:`game_chunks` cuts (a torn last line and a short last game are left out)."""
    carry: GameBlock | None = None
    rows_per_game: int | None = None
    for chunk in _parsed(path, block_rows, BLOCK_COLUMNS):
        block = names.block(chunk)
        if carry is not None:
            block = block.after(carry)
        done, carry = block.split_last_game()
        if len(done):
            if rows_per_game is None:  # the first game is complete once another has begun
                rows_per_game = int((done.game == done.game[0]).sum())
            yield done
    if carry is not None and len(carry) and len(carry) >= (rows_per_game or 0):
        yield carry
