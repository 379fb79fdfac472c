"""PNG plots of a run, with matplotlib (the optional ``plot`` extra, imported only here).

Four per ruleset:

- ``winrate-*.png``: win rate per strategy with its 95% interval and a line at the fair share
  (1/seats: 50 % in games of two), the names in a margin sized to them;
- ``pairwise-*.png``: the pairwise win rates, rows and columns in ranking order, a ``*`` and a
  frame on each cell whose 95% interval excludes 50 % (pairwise.csv's ``significant``);
- ``lengths-*.png``: the lengths of each strategy's games, one histogram per strategy on an axis
  cut to where the games are (the few longest listed in the title rather than squeezing the rest);
- ``games-*.png``: each seat's score after every turn in a few games, replayed from their seeds
  (:mod:`arena.analysis.sample_games`): how the strategies pace themselves.

Byte-stable: the Agg backend and no software stamp.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from arena.analysis.reports import RunStats
from arena.analysis.sample_games import SampleGame, sample_games
from arena.distribution import install_hint
from arena.safe_files import replacing

#: Inches per character of a tick label at the default 10 pt font (DejaVu Sans averages about
#: 0.6 em): how wide a margin the names need.
CHAR_INCHES = 0.085
#: Share of the games the length axis covers; the rest are counted in the title.
LENGTH_QUANTILE = 0.995
#: Colours of the seats in the sample games (matplotlib's tab10, colour-blind friendlier order).
SEAT_COLOURS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d", "#bab0ac")


class PlotError(Exception):
    """Plots can't be made; the message is one line."""


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotError(f"--plot needs matplotlib: {install_hint('plot')}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text)


def write_plots(stats: RunStats, folder: Path) -> list[Path]:
    """Write the PNGs into ``folder``; return their paths."""
    plt = _pyplot()
    figures = run_figures(plt, stats, sample_games(folder))
    return [_save(plt, figure, folder / name) for name, figure in figures]


def run_figures(plt: Any, stats: RunStats, samples: dict[str, list[SampleGame]]) -> list[tuple[str, Any]]:
    """The run's figures with their file names, per ruleset: win rates, the pairwise matrix,
    game lengths and the sample games (those there are data for)."""
    figures: list[tuple[str, Any]] = []
    for ruleset, table in stats.summary.groupby("ruleset", sort=False):
        name = slug(str(ruleset))
        shares = fair_shares(stats.seats, str(ruleset))
        figures.append((f"winrate-{name}.png", win_rate_figure(plt, str(ruleset), table, shares)))
        pairs = stats.pairwise[stats.pairwise["ruleset"] == ruleset]
        if len(pairs):
            figure = pairwise_figure(plt, str(ruleset), list(table["player"]), pairs)
            figures.append((f"pairwise-{name}.png", figure))
        lengths = stats.player_lengths[stats.player_lengths["ruleset"] == ruleset]
        if len(lengths):
            limits = dict(zip(table["player"], table["round_limit"].astype(int), strict=True))
            figure = lengths_figure(plt, str(ruleset), list(table["player"]), lengths, limits)
            figures.append((f"lengths-{name}.png", figure))
        if samples.get(str(ruleset)):
            figures.append((f"games-{name}.png", games_figure(plt, str(ruleset), samples[str(ruleset)])))
    return figures


def fair_shares(seats: pd.DataFrame, ruleset: str) -> list[float]:
    """The fair shares (1/seats) of the table sizes the ruleset was played at."""
    sizes = sorted({int(n) for n in seats.loc[seats["ruleset"] == ruleset, "seats"]})
    return [1 / n for n in sizes]


def _margin(names: list[str]) -> float:
    """Inches for a column of these names as tick labels."""
    return 0.3 + CHAR_INCHES * max((len(n) for n in names), default=0)


def win_rate_figure(plt: Any, ruleset: str, table: pd.DataFrame, shares: list[float]) -> Any:
    """Horizontal bars, best at the top, with the 95% interval, the rate written at each bar, and
    a dashed line at each fair share.  The figure widens with the names, so the bars keep their
    width however long a name is."""
    table = table.iloc[::-1]
    names = list(table["player"])
    left, plot_width, height = _margin(names), 6.0, 1.3 + 0.42 * len(names)
    width = left + plot_width + 0.3
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((left / width, 0.75 / height, plot_width / width, (height - 1.25) / height))
    rates = table["win_rate"].to_numpy(dtype=float) * 100
    errors = [
        rates - table["ci_low"].to_numpy(dtype=float) * 100,
        table["ci_high"].to_numpy(dtype=float) * 100 - rates,
    ]
    rows = range(len(names))
    ax.barh(rows, rates, xerr=errors, color="#4c78a8", capsize=3, height=0.65, error_kw={"lw": 1})
    ax.set_yticks(rows, names)
    ax.set_ylim(-0.6, len(names) - 0.4)
    for y, (rate, high) in enumerate(zip(rates, table["ci_high"] * 100, strict=True)):
        ax.text(min(high + 1.5, 88), y, f"{rate:.1f} %", va="center", fontsize=8.5)
    for share in shares:
        ax.axvline(share * 100, color="#e45756", ls="--", lw=1.2)
        ax.text(
            share * 100 + 0.8,
            len(names) - 0.45,
            f"fair share {share * 100:.0f} %",
            color="#e45756",
            fontsize=8.5,
            va="bottom",
        )
    ax.set_xlim(0, 100)
    ax.set_xlabel("win rate (%), with 95% interval")
    ax.set_title(f"Win rate per strategy: {ruleset}", pad=16)
    ax.grid(axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    return fig


def pairwise_figure(plt: Any, ruleset: str, players: list[str], pairs: pd.DataFrame) -> Any:
    """The grid of win rates of each player (row) against each opponent (column), ranking order.
    Rows carry the names; columns their ranks (#1, #2, ...), so names never run down the
    figure.  A significant cell gets a ``*`` and a black frame."""
    indexed = pairs.set_index(["player", "opponent"])
    n = len(players)
    grid = [[math.nan] * n for _ in players]
    marks = [[False] * n for _ in players]
    for i, player in enumerate(players):
        for j, other in enumerate(players):
            if (player, other) in indexed.index:
                cell = indexed.loc[(player, other)]
                grid[i][j] = float(cell["win_rate"]) * 100
                marks[i][j] = bool(cell["significant"])
    labels = [f"#{i + 1} {p}" for i, p in enumerate(players)]
    left, cell, bar = _margin(labels), 0.62, 1.1
    width, height = left + n * cell + bar + 0.3, n * cell + 1.5
    fig = plt.figure(figsize=(width, height))
    ax = fig.add_axes((left / width, 0.75 / height, n * cell / width, n * cell / height))
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=100)
    ax.set_xticks(range(n), [f"#{i + 1}" for i in range(n)])
    ax.set_yticks(range(n), labels)
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    for i in range(n):
        for j in range(n):
            value = grid[i][j]
            if value != value:  # NaN: no games together (a player against itself)
                continue
            ink = "white" if abs(value - 50) > 30 else "black"
            star = "*" if marks[i][j] else ""
            ax.text(j, i, f"{value:.0f}{star}", ha="center", va="center", fontsize=9, color=ink)
            if marks[i][j]:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="black", lw=1.2))
    ax.set_xlabel("* and frame: the 95% interval excludes 50 %", fontsize=8.5)
    ax.set_title(f"Pairwise win rate (%), row against column: {ruleset}", fontsize=10, pad=8)
    colour_axes = fig.add_axes(
        ((left + n * cell + 0.2) / width, 0.75 / height, 0.18 / width, n * cell / height)
    )
    fig.colorbar(image, cax=colour_axes, label="win rate (%)")
    return fig


def length_range(lengths: pd.DataFrame) -> tuple[int, int]:
    """The rounds the length axis shows: from the shortest game to the :data:`LENGTH_QUANTILE`
    quantile of all the games (so a rare game hundreds of rounds long, such as one that ran to
    the round limit, does not squeeze the rest into a corner)."""
    counts = lengths.groupby("rounds")["games"].sum().sort_index()
    cumulative = counts.cumsum() / counts.sum()
    high = int(counts.index[int((cumulative >= LENGTH_QUANTILE).to_numpy().argmax())])
    return int(counts.index.min()), high


def lengths_figure(
    plt: Any,
    ruleset: str,
    players: list[str],
    lengths: pd.DataFrame,
    round_limits: dict[str, int] | None = None,
) -> Any:
    """One histogram per strategy (ranking order) of the lengths of the games it played, on one
    shared axis, with each strategy's median.  ``lengths`` leaves out the games that ended at the
    round limit (:class:`~arena.analysis.tally.RunTally`): their length is the limit, not the game's,
    and would stretch the axis; ``round_limits`` (games per player) names them in the titles."""
    from matplotlib.ticker import MaxNLocator

    low, high = length_range(lengths)
    n = len(players)
    fig, axes = plt.subplots(n, 1, figsize=(8, 0.9 + 1.05 * n), sharex=True, squeeze=False)
    for ax, player in zip(axes[:, 0], players, strict=True):
        own = lengths[lengths["player"] == player]
        rounds, games = own["rounds"].to_numpy(), own["games"].to_numpy()
        shown = rounds <= high
        ax.bar(rounds[shown], games[shown], width=1.0, color="#72b7b2", edgecolor="white", linewidth=0.3)
        total = int(games.sum())
        parts = []
        if total:
            median = int(rounds[(games.cumsum() >= total / 2).argmax()])
            ax.axvline(median, color="#e45756", lw=1.2)
            parts.append(f"median {median} rounds, {total:,} games")
            longer = int(games[~shown].sum())
            if longer:
                parts[-1] += f" ({longer:,} longer than {high} rounds, off the axis)"
        stalled = (round_limits or {}).get(player, 0)
        if stalled:
            parts.append(f"{stalled:,} at the round limit, not shown")
        if parts:
            ax.set_title(f"{player}: {'; '.join(parts)}", loc="left", fontsize=9, pad=3)
        ax.set_yticks([])
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
    axes[-1, 0].set_xlim(low - 1, high + 1)
    axes[-1, 0].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1, 0].set_xlabel("game length (rounds; red: the median); each strategy's bars on its own scale")
    fig.suptitle(f"Game lengths per strategy: {ruleset}", fontsize=10.5)
    fig.tight_layout()
    return fig


def games_figure(plt: Any, ruleset: str, games: list[SampleGame]) -> Any:
    """Each seat's score after every turn of a few games, with the target, one panel a game."""
    from matplotlib.ticker import MaxNLocator

    columns = 2 if len(games) > 1 else 1
    rows = math.ceil(len(games) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 0.6 + 3.4 * rows), squeeze=False)
    for ax in axes.ravel()[len(games) :]:
        ax.set_visible(False)
    for ax, game in zip(axes.ravel(), games, strict=False):
        for seat, (player, scores) in enumerate(zip(game.players, game.scores, strict=True)):
            won = " (won)" if seat in game.winners else ""
            ax.plot(
                range(len(scores)),
                scores,
                drawstyle="steps-post",
                marker=".",
                markersize=3,
                lw=1.4,
                color=SEAT_COLOURS[seat % len(SEAT_COLOURS)],
                label=f"seat {seat}: {player}{won}",
            )
        ax.axhline(game.target, color="grey", ls="--", lw=1)
        ax.set_title(f"game {game.game} (deal {game.deal})", fontsize=9.5)
        ax.set_xlabel("round (each seat plays one turn a round)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("score")
        ax.set_ylim(0, max(game.target, *(max(s) for s in game.scores)) * 1.12)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7.5, loc="upper left")
    fig.suptitle(
        f"Score after each turn in {len(games)} sample games: {ruleset} (dashed: the target)", fontsize=11
    )
    fig.tight_layout()
    return fig


def _save(plt: Any, fig: Any, path: Path) -> Path:
    with replacing(path, "wb") as file:  # whole or not at all, whenever a Ctrl-C lands
        fig.savefig(file, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path
