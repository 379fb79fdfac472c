"""``league run``'s progress bar on stderr: games played of the games missing, games left and
the time to go (tqdm, as a tournament's bar)."""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm

#: The bar's line: ``league: 42%|████      | 610/1,440 games, 830 left, 01:12 to go [8.40 games/s]``.
BAR_FORMAT = (
    "league: {percentage:3.0f}%|{bar}| {n:,}/{total:,} games, {left:,} left, {remaining} to go [{rate_fmt}]"
)


class GamesBar(tqdm):
    """A tqdm bar that also knows the games left (``{left}`` in its format)."""

    @property
    def format_dict(self) -> dict[str, Any]:
        values = super().format_dict
        values["left"] = max(0, int(values["total"] or 0) - int(values["n"]))
        return values


def games_bar(total: int, progress: bool | None) -> GamesBar:
    """The bar for ``total`` games on stderr; ``progress`` None: shown only on a terminal."""
    return GamesBar(
        total=total,
        unit=" games",
        file=sys.stderr,
        smoothing=0.1,
        dynamic_ncols=True,
        bar_format=BAR_FORMAT,
        disable=(not sys.stderr.isatty()) if progress is None else not progress,
    )
