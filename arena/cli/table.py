"""Text tables whose headers line up with their values whatever the values are."""

from __future__ import annotations

from collections.abc import Sequence

GAP = "  "
INDENT = "  "


def aligned_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> list[str]:
    """Lines of a table: every column as wide as its widest cell, header included, so long
    names, large counts and signs never push a value out from under its header.  Columns marked
    ``right`` (numbers) align header and values on the right edge, the others on the left."""
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        padded = (c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True))
        return (INDENT + GAP.join(padded)).rstrip()

    return [line(headers), *(line(row) for row in rows)]


def interval_cells(bounds: Sequence[tuple[float, float]], scale: float = 100.0) -> list[str]:
    """``[low, high]`` cells with signed bounds padded to one width, so the brackets and the
    comma line up down a column."""
    lows = [f"{low * scale:+.1f}" for low, _ in bounds]
    highs = [f"{high * scale:+.1f}" for _, high in bounds]
    width = max((len(t) for t in lows + highs), default=0)
    return [f"[{lo:>{width}}, {hi:>{width}}]" for lo, hi in zip(lows, highs, strict=True)]
