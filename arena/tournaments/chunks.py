"""Chunks: the unit of work of a tournament, and the pieces of them a run plays.

Chunk c holds games c * chunk_games to (c + 1) * chunk_games - 1, always, so each chunk starts
from the same state whatever the number of workers or the batch size (see
:mod:`arena.tournaments.supervisor`).  A run that starts inside a chunk (a resumed one) plays
that chunk from its first game and sends only the games from its start on.  Pieces are
generated lazily: a run of 10**16 games holds none of them in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.tournaments.compiled_games import Variant


@dataclass(frozen=True)
class Job:
    """Play games first..stop-1 (``first`` starts a chunk) and send those from ``emit_from``.
    ``variant``: the games of another seed and policies of the pool's compiled players."""

    first: int
    emit_from: int
    stop: int
    variant: Variant | None = None


def chunk_jobs(start: int, stop: int, chunk: int, variant: Variant | None = None) -> Iterator[Job]:
    """The chunk pieces covering games start..stop-1, in order, lazily."""
    first = start - start % chunk
    while first < stop:
        yield Job(first, max(start, first), min(stop, first + chunk), variant)
        first += chunk


def chunk_count(start: int, stop: int, chunk: int) -> int:
    """How many chunks games start..stop-1 touch (without listing them)."""
    return 0 if stop <= start else (stop - 1) // chunk - start // chunk + 1
