"""The reports' sums made while a run is played, from the numbers its batches bring.

The compiled kernel sends each batch's numbers with its rows
(:class:`~arena.tournaments.results.GameColumns`); summed as the batches are written, they are
what the reports would get from reading games.csv back, parsed (about 2 µs a game, most of a
large run's reports).  The sums are used only where they hold every game of the folder: a run
from its first game whose every batch brought its numbers (a game played in Python brings none,
and may have faults), and as many games summed as written.  Otherwise the reports read
games.csv, as ``arena report`` does; both give the same bytes (``tests/test_live_totals.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.tournaments.results import BatchResult
from arena.tournaments.spec import TournamentSpec

if TYPE_CHECKING:
    from arena.analysis.reports import RunTotals


class LiveTotals:
    """Sums the batches of one run of ``spec`` that starts at game ``start``."""

    def __init__(self, spec: TournamentSpec, start: int) -> None:
        self.rulesets = [r.name for r in spec.rulesets]
        self.labels = list(spec.labels)
        self.tested = spec.labels[0] if spec.format == "gauntlet" else None
        self.usable = start == 0  # the games before a resume are only in games.csv
        self.totals: RunTotals | None = None

    def add(self, result: BatchResult) -> None:
        if not self.usable:
            return
        if result.columns is None:  # played in Python: from now on the reports read the file
            self.usable = False
            self.totals = None
            return
        from arena.analysis.reports import RunTotals

        if self.totals is None:
            self.totals = RunTotals(self.tested)
        block = self.totals.names.numbers_block(result.columns, result.start, self.rulesets, self.labels)
        self.totals.add(block)

    def for_reports(self, written: int) -> RunTotals | None:
        """The sums, if they hold exactly the ``written`` games of the folder; else None."""
        totals = self.totals
        return totals if self.usable and totals is not None and totals.games == written else None
