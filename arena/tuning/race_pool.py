"""The workers of a whole tuning race: one pool and one loaded kernel for every block.

A race plays one gauntlet per candidate and round (:func:`arena.tuning.runner.gauntlet`).  When
the compiled kernel plays every game, those gauntlets differ only in their seed, their number of
games and the candidate's policy, so one :class:`~arena.tournaments.supervisor.ChunkPool`,
forked once with the kernel loaded once, plays them all as variants
(:class:`~arena.tournaments.compiled_games.Variant`): no pool to fork, no kernel to load and no
tables to build per block.  The games are the same, byte for byte, as a pool per gauntlet would
play (``tests/test_tune.py``).  Any other gauntlet (a strategy without a declarative
policy, ``--compiled off``) gets a pool of its own, as a tournament does: its chunks must start
from a template that has run no strategy code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

from arena.sandbox import SeatPlace
from arena.tournaments.results import BatchResult
from arena.tournaments.runner import batch_results
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.supervisor import ChunkPool

if TYPE_CHECKING:
    from arena.tournaments.compiled_games import Variant


class RacePool:
    """Plays the gauntlets of a race; :meth:`close` it at the end."""

    def __init__(self, workers: int, place: SeatPlace) -> None:
        self.workers = workers
        self.place = place
        self._pool: ChunkPool | None = None  # shared, made at the first gauntlet it can play
        self._base: TournamentSpec | None = None

    def results(self, spec: TournamentSpec) -> Iterator[BatchResult]:
        """The results of every game of ``spec``, in game order."""
        total = len(Schedule(spec))
        variant = self._variant(spec)
        if variant is None:
            with batch_results(spec, 0, total, self.workers, place=self.place) as results:
                yield from results
            return
        assert self._pool is not None
        yield from self._pool.results(0, total, variant=variant)

    def _variant(self, spec: TournamentSpec) -> Variant | None:
        """``spec``'s games as a variant of the shared pool's, or None where they can't be."""
        if not spec.compiled or spec.isolated:
            return None
        from arena.compiled import numba_available, player_policy, ruleset_problem

        if not numba_available() or ruleset_problem(spec) is not None:
            return None
        policies = tuple(player_policy(p) for p in spec.players)
        if any(p is None for p in policies):
            return None
        from arena.tournaments.compiled_games import Variant

        base = self._base
        if base is None:
            self._pool = ChunkPool(spec, self.workers, None, self.place)
            self._base = spec
        elif dataclasses.replace(spec, players=base.players, seed=base.seed, games=base.games) != base:
            return None  # not the same gauntlet but for its seed, games and policies
        return Variant(spec.seed, spec.games, policies)

    def close(self, graceful: bool) -> None:
        """Stop the shared pool: ``graceful`` when every block was played to its end (a block
        cut short by Ctrl-C or a failure may still have jobs in play)."""
        if self._pool is not None:
            self._pool.close(graceful=graceful)
            self._pool = None
