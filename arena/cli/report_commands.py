"""``arena report`` and ``arena compare``: read finished (or interrupted) runs."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from arena.analysis.compare import compare_summaries
from arena.analysis.ranking import results_text
from arena.analysis.reports import ReportError, RunStats, build_reports
from arena.cli.output import echo_json, fail

RUN_DIR = click.Path(path_type=Path)


def read_run(folder: Path) -> tuple[RunStats, dict]:
    """The statistics of a run folder and its run.json (empty if the run never finished)."""
    games = folder / "games.csv"
    if not folder.is_dir():
        fail(f"{folder}: no such run folder")
    if not games.is_file():
        fail(f"{folder} is not a tournament folder (no games.csv)")
    spec, info = read_json(folder / "spec.json"), read_json(folder / "run.json")
    rulesets = spec.get("rulesets", [])
    if not isinstance(rulesets, list) or not all(
        isinstance(r, dict) and isinstance(r.get("name"), str) for r in rulesets
    ):
        fail(f"{folder / 'spec.json'} is damaged (its rulesets are not the ones arena saved)")
    order = [r["name"] for r in rulesets] or None
    players = spec.get("players")
    tested = None
    if spec.get("format") == "gauntlet" and isinstance(players, list) and players:
        tested = players[0].get("label") if isinstance(players[0], dict) else None
        if not isinstance(tested, str):
            fail(f"{folder / 'spec.json'} is damaged (its players are not the ones arena saved)")
    try:
        stats = build_reports(games, order, tested=tested)
    except ReportError as exc:
        fail(str(exc))
    if stats.summary.empty:
        fail(f"{folder} has no finished games yet")
    return stats, info


def read_json(path: Path) -> dict:
    """A JSON object from the run folder; {} if the file is missing; one line if it is damaged."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        fail(f"{path} can't be read: {' '.join(str(exc).split())}")
    if not isinstance(data, dict):
        fail(f"{path} is damaged (not the object arena writes)")
    return data


def completeness(stats: RunStats, info: dict) -> str:
    played = int(stats.summary["games"].sum() // max(1, stats.seats["seats"].iloc[0]))
    total = info.get("games_total")
    if info.get("complete"):
        return f"complete: {played:,} games"
    return (
        f"interrupted: {played:,} of {total:,} games"
        if total
        else f"{played:,} games (the run did not finish)"
    )


def pairwise_text(pairwise: pd.DataFrame, summary: pd.DataFrame) -> str:
    lines = []
    for ruleset, table in pairwise.groupby("ruleset", sort=False):
        players = list(summary.loc[summary["ruleset"] == ruleset, "player"])
        grid = table.pivot(index="player", columns="opponent", values="win_rate").reindex(
            index=players, columns=players
        )
        width = max(len(p) for p in players)
        heads = [f"#{i + 1}" for i in range(len(players))]
        lines.append(f"pairwise win rate (%) of each player (row) against each opponent (column): {ruleset}")
        lines.append(f"  {'':>3} {'':<{width}}  " + "  ".join(f"{h:>5}" for h in heads))
        for i, player in enumerate(players):
            cells = [
                "    -"
                if player == other or grid.loc[player, other] != grid.loc[player, other]
                else f"{grid.loc[player, other] * 100:5.1f}"
                for other in players
            ]
            lines.append(f"  #{i + 1:<2} {player:<{width}}  " + "  ".join(cells))
        lines.append("")
    return "\n".join(lines)


def seats_text(seats: pd.DataFrame) -> str:
    lines = [
        "first-seat advantage (win rate by seat position; duplicate play gives every seat the same "
        "strategies)"
    ]
    for (ruleset, n), table in seats.groupby(["ruleset", "seats"], sort=False):
        parts = [
            f"seat {row.seat} {row.win_rate * 100:.1f} % [{row.ci_low * 100:.1f}, {row.ci_high * 100:.1f}]"
            for row in table.itertuples(index=False)
        ]
        lines.append(f"  {ruleset}, {n} seats (fair share {100 / n:.1f} %): " + "; ".join(parts))
    return "\n".join(lines) + "\n"


@click.command("report")
@click.argument("folder", type=RUN_DIR)
@click.option("--plot", is_flag=True, help="Also write PNG plots into the folder (needs matplotlib).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def report_command(folder: Path, plot: bool, as_json: bool) -> None:
    """Ranking, pairwise table and first-seat advantage of a finished or interrupted run."""
    stats, info = read_run(folder)
    written: list[Path] = []
    if plot:
        from arena.analysis.plots import PlotError, write_plots

        try:
            written = write_plots(stats, folder)
        except PlotError as exc:
            fail(str(exc))
    if as_json:
        echo_json(
            {
                "folder": str(folder),
                "complete": bool(info.get("complete")),
                "summary": json.loads(stats.summary.to_json(orient="records")),
                "pairwise": json.loads(stats.pairwise.to_json(orient="records")),
                "seats": json.loads(stats.seats.to_json(orient="records")),
                "gauntlet": json.loads(stats.gauntlet.to_json(orient="records")),
                "plots": [str(p) for p in written],
            }
        )
        return
    click.echo(f"{folder} ({completeness(stats, info)})")
    click.echo(results_text(stats))
    click.echo(pairwise_text(stats.pairwise, stats.summary))
    click.echo(seats_text(stats.seats), nl=False)
    for path in written:
        click.echo(f"wrote {path}")


@click.command("compare")
@click.argument("folder_a", type=RUN_DIR)
@click.argument("folder_b", type=RUN_DIR)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def compare_command(folder_a: Path, folder_b: Path, as_json: bool) -> None:
    """The strategies of two runs side by side (B minus A), and whether each difference is
    significant (its 95% interval excludes zero)."""
    a, _ = read_run(folder_a)
    b, _ = read_run(folder_b)
    table = compare_summaries(a.summary, b.summary)
    if table.empty:
        fail(f"{folder_a} and {folder_b} have no strategy on a ruleset in common")
    if as_json:
        echo_json(json.loads(table.to_json(orient="records")))
        return
    click.echo(f"A = {folder_a}\nB = {folder_b}")
    only = sorted(
        set(zip(a.summary["ruleset"], a.summary["player"], strict=True))
        ^ set(zip(b.summary["ruleset"], b.summary["player"], strict=True))
    )
    for ruleset, group in table.groupby("ruleset", sort=False):
        width = max(6, *(len(p) for p in group["player"]))
        click.echo(f"{ruleset}")
        click.echo(
            f"  {'player':<{width}}    win rate A    win rate B    B - A   95% interval      significant"
        )
        for row in group.itertuples(index=False):
            click.echo(
                f"  {row.player:<{width}}  {row.win_rate_a * 100:6.1f} % ({row.games_a:,})"
                f"  {row.win_rate_b * 100:6.1f} % ({row.games_b:,})  {row.difference * 100:+6.1f}"
                f"   [{row.diff_low * 100:+5.1f}, {row.diff_high * 100:+5.1f}]   "
                f"{'yes' if row.significant else 'no'}"
            )
    if only:
        click.echo("in one run only (not compared): " + ", ".join(f"{p} ({r})" for r, p in only))
    click.echo("note: a win rate depends on the field too; compare runs with the same opponents.")
