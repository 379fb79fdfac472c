"""``arena report`` and ``arena compare``: read finished (or interrupted) runs.

pandas and the analysis modules built on it are imported inside the commands: they take about
0.2 s to load, and every other command (and ``arena --help``) goes without them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli.output import echo_json, fail, say
from arena.cli.table import aligned_table, interval_cells
from arena.engine import DEFAULT_MAX_ROUNDS
from arena.tournaments.run_info import partial_text, proportion_text, schedule_unit
from arena.tournaments.schedule import ScheduleShape
from arena.tournaments.spec import SCHEDULE_ORDER

if TYPE_CHECKING:
    import pandas as pd

    from arena.analysis.compare import Comparison
    from arena.analysis.reports import RunStats

RUN_DIR = click.Path(path_type=Path)


def read_run(folder: Path) -> tuple[RunStats, dict]:
    """The statistics of a run folder and its run.json (empty if the run never finished)."""
    from arena.analysis.reports import ReportError, build_reports

    games = folder / "games.csv"
    if not folder.is_dir():
        fail(f"{folder}: no such run folder")
    if not games.exists():  # a FIFO or device there is refused, in one line, when it is read
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
    from arena.analysis.run_comparison import CompareError, read_spec

    try:
        return read_spec(path)
    except CompareError as exc:
        fail(str(exc))


def games_played(stats: RunStats) -> int:
    """Games in games.csv (each has one summary row per seat)."""
    return int(stats.summary["games"].sum() // max(1, stats.seats["seats"].iloc[0]))


def saved_shape(spec: dict) -> ScheduleShape | None:
    """The shape of a run's schedule, from the settings in its spec.json; None if they are not
    the ones arena saves."""
    try:
        shape = ScheduleShape.of(
            spec["format"], len(spec["players"]), spec["seats"], spec["games"], len(spec["rulesets"])
        )
    except (KeyError, TypeError, ValueError):
        return None
    return shape if shape.total > 0 else None


def games_total(spec: dict, info: dict) -> int | None:
    """The games a run was to play: from run.json, or for a run that never wrote it (killed),
    sized from its settings in spec.json; None if neither says."""
    total = info.get("games_total")
    if isinstance(total, int) and total > 0:
        return total
    shape = saved_shape(spec)
    return shape.total if shape is not None else None


def completeness(played: int, total: int | None, spec: dict) -> str:
    """``complete: N games``, or for a run that stopped early the partial line the tournament
    printed: the share played and how it spreads over the pairings."""
    if total is not None and played >= total:
        return f"complete: {played:,} games"
    if total is None:
        return f"{played:,} games (the run did not finish)"
    shape = saved_shape(spec)
    proportion: str | None = None
    if shape is not None and shape.total == total:
        unit = schedule_unit(spec["format"], shape)
        if unit is not None and spec.get("schedule") != SCHEDULE_ORDER:
            # Numbered pairing by pairing (an arena from before the interleaved schedule).
            proportion = "not in proportion (an older run, played pairing by pairing)"
        elif unit is not None:
            proportion = proportion_text(shape, played, unit)
    return partial_text(played, total, proportion)


def run_json(folder: Path, stats: RunStats, played: int, total: int | None) -> dict:
    """What ``report --json`` and ``tournament --json`` print of a run: how much of it was
    played and its tables (summary, pairwise, seats, gauntlet) as records with the CSV columns."""
    return {
        "folder": str(folder),
        "complete": total is not None and played >= total,
        "games_played": played,
        "games_total": total,
        "share_played": round(played / total, 6) if total else None,
        "summary": json.loads(stats.summary.to_json(orient="records")),
        "pairwise": json.loads(stats.pairwise.to_json(orient="records")),
        "seats": json.loads(stats.seats.to_json(orient="records")),
        "gauntlet": json.loads(stats.gauntlet.to_json(orient="records")),
    }


def pairwise_text(pairwise: pd.DataFrame, summary: pd.DataFrame) -> str:
    """The pairwise win rates as a grid, rows and columns in ranking order; a ``*`` marks a cell
    whose 95% interval excludes 50 % (pairwise.csv's ``significant``)."""
    lines = []
    for ruleset, table in pairwise.groupby("ruleset", sort=False):
        players = list(summary.loc[summary["ruleset"] == ruleset, "player"])
        indexed = table.set_index(["player", "opponent"])
        width = max(len(p) for p in players)
        heads = [f"#{i + 1}" for i in range(len(players))]
        lines.append(f"pairwise win rate (%) of each player (row) against each opponent (column): {ruleset}")
        lines.append((f"  {'':>3} {'':<{width}}  " + "  ".join(f"{h:>5} " for h in heads)).rstrip())
        for i, player in enumerate(players):
            cells = []
            for other in players:
                if (player, other) not in indexed.index:
                    cells.append("    - ")
                    continue
                cell = indexed.loc[(player, other)]
                cells.append(f"{cell['win_rate'] * 100:5.1f}" + ("*" if cell["significant"] else " "))
            lines.append((f"  #{i + 1:<2} {player:<{width}}  " + "  ".join(cells)).rstrip())
        lines.append("")
    if lines:
        lines.append(
            "* the 95% interval (counted game by game) excludes 50 %: an edge the luck of the dice "
            "hardly explains"
        )
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


REPORT_HELP = """Ranking, pairwise table and first-seat advantage of a finished or interrupted run
(or a duel's folder).  Every number depends only on the set of games in games.csv, never on
their order.

\b
The ranking, one block per ruleset, best Elo first:
  rank          the place by Elo
  player        the strategy's name, with its parameters
  win rate      the share of its games it won (a tied win counts its share), against
                whoever it was seated with; it depends on the field: in games of K
                seats the fair share is 1/K (50 % for two, 33.3 % for three)
  95% interval  the Wilson score interval of the win rate
  Elo [95% interval]
                the strength that best explains every finishing order of the
                ruleset, given who met whom (Plackett-Luce, maximum likelihood; with
                two seats Bradley-Terry); 0 is the field's average, a gap of D
                predicts a head-to-head score of 1 / (1 + 10^(-D/400)): +100 is about
                64 %, +200 about 76 %; the interval is for the Elo against the average
  games         games it played
  pts/turn      its final scores over its turns (every turn counts, farkled ones too)
  farkles       the share of its turns that ended in a farkle
  errors        games it lost by a fault (an exception, an illegal action, a
                timeout): see errors.csv and errors.log

\b
A gauntlet (--format gauntlet) shows the tested player against each opponent instead:
  score         its win share against that opponent, with a 95% interval
  Elo difference the difference that score gives, with its interval
  LOS           likelihood of superiority: the chance the tested player is stronger
  interval from game pairs (each deal in both seat orders, same dice) or games

\b
pairwise: each player's (row) win rate against each opponent (column); in games of
  more seats, the share of their games in which it finished ahead; a * marks a cell
  whose 95% interval excludes 50 %.
first-seat advantage: the win rate by seat position, against the fair share.
"""


@click.command("report", help=REPORT_HELP)
@click.argument("folder", type=RUN_DIR)
@click.option("--plot", is_flag=True, help="Also write PNG plots into the folder (needs matplotlib).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def report_command(folder: Path, plot: bool, as_json: bool) -> None:
    from arena.analysis.ranking import results_text, round_limit_text

    stats, info = read_run(folder)
    spec = read_json(folder / "spec.json")
    played, total = games_played(stats), games_total(spec, info)
    written: list[Path] = []
    if plot:
        from arena.analysis.plots import PlotError, write_plots
        from arena.tournaments.folder_lock import FolderRefused, claim

        try:
            claim(folder)  # the plots are written into the run folder: one writer, no links
            written = write_plots(stats, folder)
        except (PlotError, FolderRefused) as exc:
            fail(str(exc))
    if as_json:
        echo_json({**run_json(folder, stats, played, total), "plots": [str(p) for p in written]})
        return
    say(f"{folder} ({completeness(played, total, spec)})")
    say(results_text(stats))
    limit = round_limit_text(stats.summary, int(spec.get("max_rounds", DEFAULT_MAX_ROUNDS)))
    if limit:
        say(limit + "\n")
    say(pairwise_text(stats.pairwise, stats.summary))
    say(seats_text(stats.seats), nl=False)
    for path in written:
        say(f"wrote {path}")


@click.command("compare")
@click.argument("folder_a", type=RUN_DIR)
@click.argument("folder_b", type=RUN_DIR)
@click.option(
    "--force", is_flag=True, help="Compare runs whose players or rules differ (what they share, unpaired)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def compare_command(folder_a: Path, folder_b: Path, force: bool, as_json: bool) -> None:
    """The strategies of two runs side by side (B minus A), for example before and after
    changing one.  Runs with the same seed, rules and players are compared deal by deal on the
    same dice; others game by game.  Runs whose players met different opponents, or whose
    rulesets of one name have other rules, are refused unless --force is given."""
    from arena.analysis.run_comparison import CompareError, compare_folders

    try:
        comparison = compare_folders(folder_a, folder_b, force=force)
    except CompareError as exc:
        fail(str(exc))
    result, differences, only = comparison.result, comparison.differences, comparison.only_in_one_run
    if as_json:
        echo_json(
            {
                "a": str(folder_a),
                "b": str(folder_b),
                "forced": comparison.forced,
                "differences": differences,
                "changed": comparison.changed,
                "rulesets": [p.as_dict() for p in result.pairings],
                "rows": json.loads(result.rows.to_json(orient="records")),
                "only_in_one_run": only,
            }
        )
        return
    say(f"A = {folder_a}\nB = {folder_b}")
    if differences:
        say(f"forced: {'; '.join(differences)}; compared game by game, on what the runs share")
    if comparison.has_specs:
        say(changed_text(comparison.changed))
    else:
        say("whether a strategy changed is unknown: a run has no spec.json")
    say(compare_text(result, comparison.changed if comparison.has_specs else None), nl=False)
    if only:
        names = ", ".join(f"{o['player']} ({o['ruleset']}, {o['run']})" for o in only)
        say(f"in one run only (not compared): {names}")


def changed_text(changed: list[dict]) -> str:
    """One line naming the strategies whose spec or file changed between the runs."""
    if not changed:
        return "no strategy changed between the runs (same specs, and same file hashes for file strategies)"

    def short(sha: str | None) -> str:
        return f"{sha[:12]}…" if sha else "none"

    parts = []
    for c in changed:
        where = c["spec_a"] if c["spec_a"] == c["spec_b"] else f"{c['spec_a']} -> {c['spec_b']}"
        sha = (
            f", sha256 {short(c['sha256_a'])} -> {short(c['sha256_b'])}"
            if c["sha256_a"] or c["sha256_b"]
            else ""
        )
        parts.append(f"{c['player']} ({where}{sha})")
    return "changed between the runs: " + "; ".join(parts)


def compare_text(result: Comparison, changed: list[dict] | None = None) -> str:
    """One table per ruleset; B - A and the intervals are in percentage points.  Headers and
    values line up whatever the names and numbers (widths come from the content)."""
    from arena.analysis.compare import MIN_DEALS, NEWCOMBE

    lines: list[str] = []
    fallback = False
    for pairing in result.pairings:
        rows = result.rows[result.rows["ruleset"] == pairing.ruleset]
        if rows.empty:
            continue
        intervals = interval_cells(list(zip(rows["diff_low"], rows["diff_high"], strict=True)))
        if pairing.paired:
            of = (
                ""
                if pairing.deals == pairing.deals_a == pairing.deals_b
                else f" (of A's {pairing.deals_a:,} and B's {pairing.deals_b:,})"
            )
            lines.append(
                f"{pairing.ruleset}: paired on {pairing.deals:,} deals{of}, each played on the same dice "
                "in both runs"
            )
            unpaired = interval_cells(list(zip(rows["unpaired_low"], rows["unpaired_high"], strict=True)))
            marks = ["*" if how == NEWCOMBE else "" for how in rows["interval"]]
            fallback = fallback or any(marks)
            headers = ["player", "deals", "win rate A", "win rate B", "B - A", "95% interval", "significant"]
            headers.append("unpaired interval")
            cells = [
                [
                    row.player,
                    f"{row.deals:,}",
                    f"{row.win_rate_a * 100:.1f} %",
                    f"{row.win_rate_b * 100:.1f} %",
                    f"{row.difference * 100:+.1f}",
                    interval + mark,
                    "yes" if row.significant else "no",
                    other,
                ]
                for row, interval, mark, other in zip(
                    rows.itertuples(index=False), intervals, marks, unpaired, strict=True
                )
            ]
            right = [False, True, True, True, True, False, False, False]
        else:
            lines.append(
                f"{pairing.ruleset}: not paired: {pairing.reason}; each run's games counted one by one"
            )
            headers = ["player", "games A", "win rate A", "games B", "win rate B", "B - A", "95% interval"]
            headers.append("significant")
            cells = [
                [
                    row.player,
                    f"{row.games_a:,}",
                    f"{row.win_rate_a * 100:.1f} %",
                    f"{row.games_b:,}",
                    f"{row.win_rate_b * 100:.1f} %",
                    f"{row.difference * 100:+.1f}",
                    interval,
                    "yes" if row.significant else "no",
                ]
                for row, interval in zip(rows.itertuples(index=False), intervals, strict=True)
            ]
            right = [False, True, True, True, True, True, False, False]
        lines += aligned_table(headers, cells, right)
    if fallback:
        lines.append(
            f"* fewer than {MIN_DEALS} deals, or every deal gave the same difference: "
            "the interval counts the games one by one (Newcombe), as the unpaired one does"
        )
    lines.append("B - A and intervals in percentage points; significant: the 95% interval excludes 0")
    names = [c["player"] for c in changed or []]
    moved = sorted(
        {row.player for row in result.rows.itertuples(index=False) if row.significant} - set(names)
    )
    if names and moved:
        lines.append(
            f"{', '.join(moved)} did not change, yet moved significantly: they played "
            f"{', '.join(names)}, whose change moved their win rates too"
        )
    return "\n".join(lines) + "\n"
