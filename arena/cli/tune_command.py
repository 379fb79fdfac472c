"""``arena tune``: race a grid of a strategy's parameters and report the best setting."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from arena.cli.compiled_option import compiled_option
from arena.cli.output import fail, json_text, say, stdout_for_json
from arena.cli.rules_commands import resolve_rules
from arena.distribution import install_hint
from arena.tournaments.interrupts import StopState, stop_signals

if TYPE_CHECKING:
    from arena.tuning import TuneResult

#: Rows of the one-screen summary's table.
SHOWN = 12


@click.command("tune")
@click.argument("spec", required=False)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=LO..HI/STEP",
    help="A parameter to tune: a range (NAME=LO..HI/STEP, whole numbers or decimals) or a list "
    "(NAME=a,b,c); repeatable (the grid is every combination).",
)
@click.option(
    "--against",
    "against",
    multiple=True,
    metavar="SPEC",
    help="An opponent; repeatable. [default: random, greedy, threshold, tactician, optimal]",
)
@click.option(
    "--rules",
    "rules",
    multiple=True,
    metavar="NAME|FILE",
    help="A preset or a TOML ruleset; repeatable (scores are averaged). [default: standard, short, classic]",
)
@click.option(
    "--budget", type=int, default=None, help="Games at most, over every candidate. [default: 200,000]"
)
@click.option(
    "--tolerance",
    type=float,
    default=None,
    help="Stop when every candidate left is within this many Elo of the best. [default: 5]",
)
@click.option(
    "--alpha",
    type=float,
    default=None,
    help="The chance of dropping the best candidate in the whole race, at most. [default: 0.05]",
)
@click.option(
    "--first-deals",
    type=int,
    default=None,
    help="Deals each candidate plays in round 1; the deals played double each round. [default: 32]",
)
@click.option("--seed", type=int, default=None, help="Seed of the deals. [default: 0]")
@click.option("--workers", type=int, default=None, help="Worker processes. [default: all cores]")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output folder, which must not exist. [default: results/<timestamp>-tune]",
)
@click.option(
    "--resume",
    type=click.Path(path_type=Path),
    default=None,
    help="Continue an interrupted tuning run in this folder, with its saved settings.",
)
@click.option("--plot", is_flag=True, help="Also draw plot.png: score by parameter (needs matplotlib).")
@click.option("--json", "as_json", is_flag=True, help="Print tune.json instead of the summary.")
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr. [default: on a terminal]"
)
@compiled_option
@click.pass_context
def tune_command(
    ctx: click.Context,
    spec: str | None,
    params: tuple[str, ...],
    against: tuple[str, ...],
    rules: tuple[str, ...],
    budget: int | None,
    tolerance: float | None,
    alpha: float | None,
    first_deals: int | None,
    seed: int | None,
    workers: int | None,
    out: Path | None,
    resume: Path | None,
    plot: bool,
    as_json: bool,
    progress: bool | None,
    compiled: str,
) -> None:
    """Find the best parameters of SPEC: race every setting of the --param grid against the
    opponents on the same deals, dropping settings significantly worse than the best.

    \b
    arena tune threshold --param bank_at=200..1000/50 --param min_dice=1..4 --against optimal --rules classic
    arena tune strategies/mybot.py --param risk=0.1..0.9/0.1 --budget 50000
    arena tune --resume results/20250101-120000-tune
    """
    from arena.tuning import (
        DEFAULT_OPPONENTS,
        DEFAULT_RULES,
        TuneError,
        TuneSettings,
        default_folder,
        parse_param,
        read_settings,
    )
    from arena.tuning.runner import (
        DEFAULT_ALPHA,
        DEFAULT_BUDGET,
        DEFAULT_FIRST_DEALS,
        DEFAULT_TOLERANCE,
        run_tune,
    )
    from arena.tuning.space import SpaceError

    if workers is not None and workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    if plot:
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:
            fail(f"--plot needs matplotlib: {install_hint('plot')}")
    given = {
        "spec": spec,
        "--param": params,
        "--against": against,
        "--rules": rules,
        "--budget": budget,
        "--tolerance": tolerance,
        "--alpha": alpha,
        "--first-deals": first_deals,
        "--seed": seed,
        "--out": out,
    }
    # --json: stdout is kept for tune.json; what a strategy prints (when loaded or playing, here
    # or in the worker processes) goes to stderr.  Ctrl-C or SIGTERM, from the games to the last
    # line, stops with the line that says how to go on, 130 or 143 (the files are each whole or
    # absent, and --resume writes the rest); it used to be "Aborted!", 1, or a silent kill.
    result: TuneResult | None = None
    folder: Path | None = None
    stop = StopState()
    try:
        with stdout_for_json() if as_json else contextlib.nullcontext() as json_out, stop_signals() as stop:
            try:
                if resume is not None:
                    extra = [name for name, value in given.items() if value not in (None, ())]
                    if extra:
                        fail(f"--resume continues with the saved settings: leave out {', '.join(extra)}")
                    folder = resume
                    settings = read_settings(folder)
                else:
                    if spec is None:
                        fail("give the strategy to tune (SPEC), or --resume a run folder")
                    ranges = tuple(parse_param(p) for p in params)
                    settings = TuneSettings(
                        spec=spec,
                        params=ranges,
                        against=against or DEFAULT_OPPONENTS,
                        rules=tuple(resolve_rules(r) for r in rules or DEFAULT_RULES),
                        seed=0 if seed is None else seed,
                        budget=DEFAULT_BUDGET if budget is None else budget,
                        tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance,
                        alpha=DEFAULT_ALPHA if alpha is None else alpha,
                        first_deals=DEFAULT_FIRST_DEALS if first_deals is None else first_deals,
                    )
                    folder = out or default_folder()
                result = run_tune(
                    settings,
                    folder,
                    load=_load,
                    resume=resume is not None,
                    workers=workers or os.cpu_count() or 1,
                    compiled=compiled,
                    progress=progress,
                )
            except (TuneError, SpaceError) as exc:
                fail(" ".join(str(exc).split()))
            assert result is not None
            if not (result.interrupted or stop.stopped):
                _write_out(result, settings.params, folder, plot, json_out if as_json else None)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, in the block or as it ends: noted in `stop`
        stop.signum = stop.signum or signal.SIGINT
    if result is not None and result.error is not None:
        fail(
            f"{result.error}; {result.games_played:,} games played and kept in {folder}; "
            f"continue with `arena tune --resume {shlex.quote(str(folder))}`",
            1,
        )
    if result is None or result.interrupted or stop.stopped:
        say(stopped_line(stop, result, folder), err=True)
        sys.exit(stop.exit_status)


def stopped_line(stop: StopState, result: TuneResult | None, folder: Path | None) -> str:
    """The one line of a tuning run stopped by Ctrl-C or SIGTERM: what is kept, and the command
    that continues it (none when it stopped before its folder was made)."""
    from arena.tuning.runner import RUN

    word = "terminated" if stop.terminated else "interrupted"
    if folder is None or not (folder / RUN).is_file():
        return f"{word} before any game was played"
    played = "the games played" if result is None else f"{result.games_played:,} games played"
    again = f"arena tune --resume {shlex.quote(str(folder))}"
    return f"{word}: {played} are kept in {folder}; continue with `{again}`"


def _write_out(result: TuneResult, params: Any, folder: Path, plot: bool, json_out: TextIO | None) -> None:
    """plot.png with --plot; tune.json's object on stdout with --json, else the summary."""
    if plot:
        from arena.tuning.plot import plot_candidates

        plot_candidates(
            result.rows,
            [p.name for p in params],
            folder / "plot.png",
            against=list(result.summary["against"]),
            rules=list(result.summary["rules"]),
        )
    if json_out is not None:
        print(json_text(result.summary), file=json_out)
        return
    click.echo(summary_text(result, params))


def _load(text: str) -> Any:
    from arena.sandbox import load_player

    return load_player(text, isolate=False, limits=None, move_timeout=None)


def edge_lines(chosen: dict[str, Any], params: Any) -> list[str]:
    """A line for each numeric parameter whose best value is the lowest or highest of its grid:
    the best setting may lie beyond the range raced."""
    lines = []
    for param in params:
        try:
            values = [float(v) for v in param.values]
            value = float(chosen[param.name])
        except (KeyError, TypeError, ValueError):
            continue  # a parameter that is not a number (or not shown): no edge to speak of
        if len(values) < 3 or value not in (min(values), max(values)):
            continue
        side = "lowest" if value == min(values) else "highest"
        lines.append(
            f"edge      {param.name}={chosen[param.name]} is the {side} value raced: the best may lie "
            f"beyond it; widen the range of --param {param.name} and tune again"
        )
    return lines


def _behind(points: float) -> str:
    return f"{abs(points):.2f} behind" if points >= 0 else f"{abs(points):.2f} ahead"


def runner_up_lines(runner: dict[str, Any]) -> list[str]:
    """The runner-up in plain words: how far behind the best it scored, in percentage points
    of the score, on the deals both played, the 95% interval of that, and whether it tells the
    two apart."""
    gap = 100 * runner["gap"]
    low, high = (100 * g for g in runner["gap_interval"])
    elo = runner.get("elo_gap")
    apart = "the best is clearly ahead" if low > 0 else "too close to tell apart"
    return [
        f"runner-up {runner['candidate']}: {_behind(gap)}{'' if gap >= 0 else ' of'} the best in "
        "percentage points on the "
        f"{runner['deals']:,} deals both played",
        f"          (95% interval: {_behind(low)} to {_behind(high)}"
        + (f"; about {elo:.1f} Elo" if elo is not None else "")
        + f"), {apart}",
    ]


def dropped_higher_lines(rows: list[dict[str, Any]], best: dict[str, Any]) -> list[str]:
    """Why a dropped setting can show a higher score than the best: its score is over the few
    deals it played before it was dropped, while the race compared it with the leader of its
    round on the deals both had played, where it fell behind."""
    higher = [r for r in rows if r["eliminated"] is not None and r["score"] > best["score"]]
    if not higher:
        return []
    first = max(higher, key=lambda r: r["score"])
    others = len(higher) - 1
    more = f" (as {others} more do)" if others else ""
    return [
        f"note      {first['candidate']} scores higher than the best{more}, but was dropped in round "
        f"{first['eliminated']}:",
        f"          its {100 * first['score']:.1f}% is over its first {first['deals']:,} deals only; "
        "on the deals it shared with that round's",
        "          leader it scored lower, and that paired comparison is what the race judges",
    ]


def summary_text(result: TuneResult, params: Any) -> str:
    """The one-screen summary: the leading candidates, the best, the gap to the runner-up."""
    s = result.summary
    best = s["best"]
    rows = sorted(result.rows, key=lambda r: (-r["deals"], -r["score"]))
    width = max(len(r["candidate"]) for r in rows[:SHOWN])
    lines = [
        f"tuned {s['spec']} over {s['candidates']} settings against {', '.join(s['against'])} "
        f"on {', '.join(s['rules'])}",
        f"{s['games']:,} games of a budget of {s['budget']:,} in {s['rounds']} rounds; "
        f"stopped: {s['stop']} ({s['remaining']} left)",
        "",
        f"  {'setting':<{width}}  {'score':>7}  {'95% interval':<16}  {'Elo':>6}  {'games':>7}  dropped",
    ]
    for r in rows[:SHOWN]:
        dropped = f"round {r['eliminated']}" if r["eliminated"] is not None else ""
        lines.append(
            f"  {r['candidate']:<{width}}  {100 * r['score']:6.1f}%  "
            f"[{100 * r['low']:5.1f}, {100 * r['high']:5.1f}]    {r['elo']:+6.0f}  {r['games']:>7,}  "
            f"{dropped}".rstrip()
        )
    if len(rows) > SHOWN:
        lines.append(f"  ... {len(rows) - SHOWN} more in {result.folder / 'candidates.csv'}")
    lines.append("")
    lo, hi = best["interval"]
    lines.append(
        f"best      {best['candidate']}: {100 * best['score']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
        f"on {best['games']:,} games"
    )
    runner = s["runner_up"]
    if runner is not None:
        lines += runner_up_lines(runner)
    lines += dropped_higher_lines(result.rows, best)
    lines += edge_lines(best.get("params") or {}, params)
    faults = s.get("faults") or {}
    for label, fault in list(faults.items())[:SHOWN]:
        lines.append(
            f"warning   {label} faulted in {fault['games']:,} games, each counted as a loss "
            f"(first: {fault['first']}); see games.csv (status, reason)"
        )
    if len(faults) > SHOWN:
        lines.append(f"warning   ... and {len(faults) - SHOWN} more settings faulted: see tune.json")
    lines.append(f"folder    {result.folder}")
    return "\n".join(lines)
