"""plot.png of a tuning run: score by parameter, a line for one parameter, a heat map for two.
Imports matplotlib (about 1 s) only when called."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.safe_files import replacing

#: The colour of the best setting's mark.
BEST_COLOUR = "#d62728"


def plot_candidates(
    rows: list[dict[str, Any]],
    names: list[str],
    path: Path,
    *,
    against: list[str] | None = None,
    rules: list[str] | None = None,
) -> None:
    """Draw :func:`candidates_figure` to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = candidates_figure(plt, rows, names, against=against, rules=rules)
    with replacing(path, "wb") as file:  # whole or not at all, whenever a Ctrl-C lands
        figure.savefig(file, format="png", metadata={"Software": None})
    plt.close(figure)


def candidates_figure(
    plt: Any,
    rows: list[dict[str, Any]],
    names: list[str],
    *,
    against: list[str] | None = None,
    rules: list[str] | None = None,
) -> Any:
    """The candidates' scores (with their intervals for one parameter), the best setting marked
    with a red star, and the opponents and rules in the title.  More than two parameters: the
    first two, each point the best over the others."""
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=100)
    best = max(rows, key=lambda r: (r["best"], r["score"]))
    if len(names) == 1:
        name = names[0]
        points = [(r[name], r["score"], r["low"], r["high"], r["deals"]) for r in rows]
        numeric = all(isinstance(p[0], int | float) and not isinstance(p[0], bool) for p in points)
        xs = [p[0] if numeric else i for i, p in enumerate(points)]
        scores = [100 * p[1] for p in points]
        errors = [[100 * (p[1] - p[2]) for p in points], [100 * (p[3] - p[1]) for p in points]]
        axes.errorbar(xs, scores, yerr=errors, marker="o", capsize=3)
        at = rows.index(best)
        axes.plot([xs[at]], [scores[at]], marker="*", markersize=16, color=BEST_COLOUR, zorder=3)
        if not numeric:
            axes.set_xticks(xs, [str(p[0]) for p in points])
        axes.set_xlabel(name)
        axes.set_ylabel("score, % (95% interval)")
    else:
        first, second = names[0], names[1]
        xs = list(dict.fromkeys(r[first] for r in rows))
        ys = list(dict.fromkeys(r[second] for r in rows))
        cells: dict[tuple[Any, Any], float] = {}
        for r in rows:
            key = (r[first], r[second])
            cells[key] = max(cells.get(key, 0.0), 100 * r["score"])
        grid = [[cells.get((x, y), float("nan")) for x in xs] for y in ys]
        image = axes.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        axes.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=90 if len(xs) > 8 else 0)
        axes.set_yticks(range(len(ys)), [str(y) for y in ys])
        axes.set_xlabel(first)
        axes.set_ylabel(second)
        figure.colorbar(image, ax=axes, label="score, %")
        axes.plot(
            [xs.index(best[first])], [ys.index(best[second])], marker="*", markersize=18,
            color=BEST_COLOUR, markeredgecolor="white", linestyle="none", label="best",
        )  # fmt: skip
    where = ""
    if against:
        where += f" against {', '.join(against)}"
    if rules:
        where += f" on {', '.join(rules)}"
    axes.set_title(f"best (red star): {best['candidate']}\nscore{where}", fontsize=9)
    figure.tight_layout()
    return figure
