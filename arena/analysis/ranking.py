"""The results per ruleset as the terminal shows them: a ranking, or for a gauntlet the tested
player against each opponent (a ranking would mix the tested player's games against everyone
with each opponent's few)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from arena.analysis.reports import RunStats

#: A cell: text, or the parts of "[low, high]" or "value [low, high]", padded part by part.
Cell = str | tuple[str, ...]


def results_text(stats: RunStats) -> str:
    """The gauntlet table for a gauntlet run, else the ranking."""
    if len(stats.gauntlet):
        return gauntlet_text(stats.gauntlet)
    return ranking_text(stats.summary, stats.seats)


def fair_share_note(seats: pd.DataFrame | None, ruleset: str) -> str:
    """ " (K seats a game: fair share X %)" for a ruleset played at tables of more than two: the
    win rate an equal strategy would get (1/K), which the win rates are read against.  Empty for
    games of two, where it is the familiar 50 %."""
    if seats is None or seats.empty:
        return ""
    sizes = sorted({int(n) for n in seats.loc[seats["ruleset"] == ruleset, "seats"]})
    if not sizes or sizes == [2]:
        return ""
    parts = [f"{n} seats a game: fair share {100 / n:.1f} %" for n in sizes]
    return f" ({'; '.join(parts)})"


def ranking_text(summary: pd.DataFrame, seats: pd.DataFrame | None = None) -> str:
    """One block per ruleset, best Elo first: rank, player, win rate with its 95% interval, Elo
    with its 95% interval, games, points per turn, farkle rate and errors.  With ``seats`` (the
    seat table of :class:`RunStats`), a ruleset played at tables of more than two names its fair
    share, 1/seats, in its heading."""
    lines: list[str] = []
    for ruleset, table in summary.groupby("ruleset", sort=False):
        rows: list[list[Cell]] = [
            [
                f"{rank}",
                row.player,
                f"{row.win_rate * 100:.1f} %",
                _interval(row.ci_low * 100, row.ci_high * 100, "{:.1f}"),
                _with_interval(row.elo, row.elo_low, row.elo_high),
                f"{row.games:,}",
                _number(row.points_per_turn, "{:.1f}"),
                _number(row.farkle_rate * 100, "{:.1f} %"),
                f"{row.errors:,}",
            ]
            for rank, row in enumerate(table.itertuples(index=False), 1)
        ]
        heads = ["rank", "player", "win rate", "95% interval", "Elo [95% interval]", "games", "pts/turn"]
        heads += ["farkles", "errors"]
        lines.append(f"{ruleset}{fair_share_note(seats, ruleset)}")
        lines += _table(heads, rows, left={1})
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def round_limit_text(summary: pd.DataFrame, max_rounds: int) -> str:
    """The warning for the players whose games ended at the round limit (``max_rounds``, the
    tournament's safety valve: ``docs/rules.md``, reading 13), one line per ruleset and player,
    most first; empty when no game did.  Such a game is ranked by score, so a player that stalls
    there still shows in the ranking, and only this says why its points per turn are low."""
    hit = summary[summary["round_limit"] > 0]
    if hit.empty:
        return ""
    hit = hit.assign(share=hit["round_limit"] / hit["games"]).sort_values(
        ["share", "player"], ascending=[False, True], kind="stable"
    )
    cells = [
        (row.ruleset, row.player, f"{row.round_limit:,}", f"{row.games:,}", f"{row.share * 100:.1f}")
        for row in hit.itertuples(index=False)
    ]
    widths = [max(len(c[k]) for c in cells) for k in range(5)]
    lines = [f"warning: games ended at the round limit ({max_rounds:,} rounds) with nobody at the target"]
    lines += [
        f"  {r.ljust(widths[0])}  {p.ljust(widths[1])}  {n.rjust(widths[2])} of {g.rjust(widths[3])} games"
        f" ({share.rjust(widths[4])} %)"
        for r, p, n, g, share in cells
    ]
    lines.append("  such a game counts as played, ranked by score; a bot gets there when it can't finish,")
    lines.append("  e.g. one that keeps more than an exact target needs, turn after turn")
    return "\n".join(lines)


def gauntlet_text(gauntlet: pd.DataFrame) -> str:
    """One block per ruleset: the tested player's score against each opponent with its 95%
    interval, the Elo difference it gives with its interval, the likelihood of superiority and
    the games, the interval from game pairs where there are enough."""
    lines: list[str] = []
    for ruleset, table in gauntlet.groupby("ruleset", sort=False):
        tested = table["player"].iloc[0]
        rows: list[list[Cell]] = [
            [
                row.opponent,
                f"{row.score * 100:.1f} %",
                _interval(row.score_low * 100, row.score_high * 100, "{:.1f}"),
                _with_interval(row.elo, row.elo_low, row.elo_high),
                f"{row.los * 100:.1f} %",
                f"{row.games:,}",
                f"{row.pairs:,} pairs" if row.interval == "pairs" else "games",
            ]
            for row in table.itertuples(index=False)
        ]
        heads = ["opponent", "score", "95% interval", "Elo difference [95%]", "LOS", "games", "interval from"]
        lines.append(f"{ruleset}: {tested} against each opponent")
        lines += _table(heads, rows, left={0, 6})
        lines.append("")
    lines.append(
        "score: the tested player's win share, Elo: the difference it gives, LOS: the chance the tested "
        "player is stronger;\nintervals and LOS from game pairs (each deal in both seat orders, same dice), "
        "as in arena duel."
    )
    return "\n".join(lines) + "\n"


def _table(heads: Sequence[str], rows: Sequence[Sequence[Cell]], left: set[int]) -> list[str]:
    """Aligned lines: every column as wide as its widest cell, text columns ``left`` aligned
    left, numbers right.  The parts of a composite cell, ``(low, high)`` shown as "[low, high]"
    or ``(value, low, high)`` as "value [low, high]", are each padded to line up."""
    parts = [
        [max(len(row[k][i]) for row in rows) for i in range(len(rows[0][k]))]
        if rows and isinstance(rows[0][k], tuple)
        else []
        for k in range(len(heads))
    ]

    def text(k: int, cell: Cell) -> str:
        if isinstance(cell, str):
            return cell
        if not any(cell):
            return "-"
        padded = [part.rjust(width) for part, width in zip(cell, parts[k], strict=True)]
        bracket = f"[{padded[-2]}, {padded[-1]}]"
        return f"{padded[0]} {bracket}" if len(padded) == 3 else bracket

    texts = [[text(k, cell) for k, cell in enumerate(row)] for row in rows]
    widths = [max(len(head), *(len(row[k]) for row in texts)) for k, head in enumerate(heads)]

    def line(cells: Sequence[str]) -> str:
        return (
            "  "
            + "  ".join(
                cell.ljust(width) if k in left else cell.rjust(width)
                for k, (cell, width) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()
        )

    return [line(heads), *(line(row) for row in texts)]


def _number(value: float, fmt: str) -> str:
    return fmt.format(value) if math.isfinite(value) else "-"


def _elo(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "+inf" if value == math.inf else "-inf" if value == -math.inf else f"{value:+.0f}"


def _with_interval(elo: float, low: float, high: float) -> tuple[str, ...]:
    """An Elo and its interval as three parts; empty parts if there is none."""
    if math.isnan(elo):
        return "", "", ""
    return (_elo(elo), *_interval(low, high, "{:+.0f}"))


def _interval(low: float, high: float, fmt: str) -> tuple[str, str]:
    """The two ends of an interval as text (infinite ends as ±inf); ("", "") if there is none."""
    if math.isnan(low) or math.isnan(high):
        return "", ""
    return (
        _elo(low) if math.isinf(low) else fmt.format(low),
        _elo(high) if math.isinf(high) else fmt.format(high),
    )
