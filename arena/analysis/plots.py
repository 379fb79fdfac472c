"""PNG plots of a run, with matplotlib (the optional ``plot`` extra, imported only here).

Three per ruleset: win rate per strategy with its 95% interval, the pairwise win-rate heatmap,
and the distribution of game lengths.  Byte-stable: the Agg backend and no software stamp.
"""

from __future__ import annotations

from pathlib import Path

from arena.analysis.reports import RunStats
from arena.distribution import install_hint


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
    written: list[Path] = []
    for ruleset, table in stats.summary.groupby("ruleset", sort=False):
        table = table.iloc[::-1]  # best at the top
        fig, ax = plt.subplots(figsize=(8, 1.2 + 0.45 * len(table)))
        rates = table["win_rate"] * 100
        errors = [rates - table["ci_low"] * 100, table["ci_high"] * 100 - rates]
        ax.barh(table["player"], rates, xerr=errors, color="#4c78a8", capsize=4)
        ax.set_xlim(0, 100)
        ax.set_xlabel("win rate (%), with 95% interval")
        ax.set_title(f"Win rate per strategy: {ruleset}")
        ax.grid(axis="x", alpha=0.3)
        written.append(_save(plt, fig, folder / f"winrate-{slug(ruleset)}.png"))

        pairs = stats.pairwise[stats.pairwise["ruleset"] == ruleset]
        if len(pairs):
            players = list(table["player"][::-1])
            grid = (
                pairs.pivot(index="player", columns="opponent", values="win_rate").reindex(
                    index=players, columns=players
                )
                * 100
            )
            size = 2.5 + 0.8 * len(players)
            fig, ax = plt.subplots(figsize=(size + 1.5, size))
            image = ax.imshow(grid.to_numpy(dtype=float), cmap="RdBu", vmin=0, vmax=100)
            ax.set_xticks(range(len(players)), players, rotation=40, ha="right")
            ax.set_yticks(range(len(players)), players)
            for i in range(len(players)):
                for j in range(len(players)):
                    value = grid.iloc[i, j]
                    if value == value:  # not NaN
                        ink = "white" if abs(value - 50) > 30 else "black"
                        ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=9, color=ink)
            ax.set_xlabel("opponent")
            ax.set_ylabel("player (row) wins against opponent (column), %")
            ax.set_title(f"Pairwise win rate: {ruleset}")
            fig.colorbar(image, ax=ax, label="win rate (%)")
            written.append(_save(plt, fig, folder / f"pairwise-{slug(ruleset)}.png"))

        lengths = stats.lengths[stats.lengths["ruleset"] == ruleset]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar(lengths["rounds"], lengths["games"], width=1.0, color="#72b7b2", edgecolor="white")
        ax.set_xlabel("game length (rounds)")
        ax.set_ylabel("games")
        ax.set_title(f"Distribution of game lengths: {ruleset}")
        written.append(_save(plt, fig, folder / f"lengths-{slug(ruleset)}.png"))
    return written


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path
