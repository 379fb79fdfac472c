"""``arena duel``: two strategies head to head, with a stopping rule."""

from __future__ import annotations

import math
import os
from typing import NoReturn

import click

from arena.analysis.pairs import MIN_PAIRS
from arena.analysis.stats import elo_from_score
from arena.cli.output import echo_json, fail
from arena.cli.rules_commands import RULES_HELP, resolve_rules
from arena.players import StrategyError, load_player_spec
from arena.tournament.batch import FaultDetail
from arena.tournament.duel import DuelOutcome, Sprt, SprtError, run_duel
from arena.tournament.fault_log import FaultCollector, FaultStop, FaultWatch, full_traceback, warning_block
from arena.tournament.runner import BatchFailed
from arena.tournament.spec import DEFAULT_MOVE_TIMEOUT


def finite(value: float) -> float | None:
    """JSON has no infinity: an Elo of ±inf (one side won every game) is null."""
    return value if math.isfinite(value) else None


def signed(value: float) -> str:
    if value == float("inf"):
        return "+inf"
    if value == float("-inf"):
        return "-inf"
    return f"{value:+.1f}"


@click.command("duel")
@click.argument("player_a", metavar="A")
@click.argument("player_b", metavar="B")
@click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)
@click.option(
    "--sprt",
    "sprt_text",
    default=None,
    metavar="elo0=0,elo1=20,alpha=0.05,beta=0.05",
    help="Stop as soon as the sequential probability ratio test accepts H0 (A is elo0 stronger) "
    "or H1 (elo1 stronger).",
)
@click.option("--games", type=int, default=1000, show_default=True, help="Games to play without --sprt.")
@click.option(
    "--max-games", type=int, default=20_000, show_default=True, help="Most games to play with --sprt."
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=int, default=None, help="Worker processes. [default: all cores]")
@click.option("--move-timeout", type=float, default=DEFAULT_MOVE_TIMEOUT, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr. [default: on a terminal]"
)
@click.option(
    "--fail-fast", is_flag=True, help="Stop at the first game a strategy breaks and show its full traceback."
)
def duel_command(
    player_a: str,
    player_b: str,
    rules_name: str,
    sprt_text: str | None,
    games: int,
    max_games: int,
    seed: int,
    workers: int | None,
    move_timeout: float,
    as_json: bool,
    progress: bool | None,
    fail_fast: bool,
) -> None:
    """Play A against B in game pairs (both seat orders of each deal, same dice) and say which is
    stronger, by how much, and how sure that is."""
    rules = resolve_rules(rules_name)
    try:
        a = load_player_spec(player_a, timeout=move_timeout)
        b = load_player_spec(player_b, timeout=move_timeout)
        sprt = Sprt.parse(sprt_text) if sprt_text is not None else None
    except (StrategyError, SprtError) as exc:
        fail(str(exc))
    limit = max_games if sprt else games
    if limit < 2:
        fail(f"{'--max-games' if sprt else '--games'} must be at least 2 (one pair), got {limit}")
    if workers is not None and workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    collector = FaultCollector()
    try:
        outcome = run_duel(
            rules,
            a,
            b,
            games=limit,
            seed=seed,
            sprt=sprt,
            workers=workers or os.cpu_count() or 1,
            move_timeout=move_timeout,
            progress=progress,
            on_batch=FaultWatch(fail_fast, collector),
        )
    except BatchFailed as exc:
        fail(str(exc), 1)
    except FaultStop as stop:
        fail_at_fault(stop.detail)
    if as_json:
        echo_json(duel_json(outcome, rules.name))
    else:
        click.echo(duel_text(outcome, rules.name))
    for block in duel_warnings(collector, outcome.tally.games):
        click.echo(block, err=True)


def fail_at_fault(detail: FaultDetail) -> NoReturn:
    """``--fail-fast``: the fault's full traceback, one line, exit status 1."""
    for line in full_traceback(detail):
        click.echo(line, err=True)
    fail(
        f"--fail-fast: {detail.player} faulted in game {detail.game:,} (seat {detail.seat}): "
        f"{detail.status}: {detail.reason}",
        1,
    )


def duel_warnings(collector: FaultCollector, games: int) -> list[str]:
    """A warning block for each player that faulted: both play every game of a duel."""
    return [
        warning_block(player, counts, games, collector.first_of(player))
        for player, counts in collector.counts.items()
    ]


def duel_json(o: DuelOutcome, rules: str) -> dict:
    low, high = o.tally.interval()
    data = {
        "rules": rules,
        "a": o.labels[0],
        "b": o.labels[1],
        "games": o.tally.games,
        "pairs": o.tally.pairs,
        "wins": list(o.wins),
        "score": o.tally.mean,
        "score_interval": [low, high],
        "interval_from": "pairs" if o.tally.pairs_are_informative else "games",
        "elo": finite(elo_from_score(o.tally.mean)),
        "elo_interval": [finite(elo_from_score(low)), finite(elo_from_score(high))],
        "faults": o.faults,
    }
    if o.sprt is not None:
        data["sprt"] = {
            "elo0": o.sprt.elo0,
            "elo1": o.sprt.elo1,
            "alpha": o.sprt.alpha,
            "beta": o.sprt.beta,
            "llr": o.llr,
            "bounds": list(o.sprt.bounds),
            "accepted": o.verdict,
        }
    return data


def duel_text(o: DuelOutcome, rules: str) -> str:
    a, b = o.labels
    t = o.tally
    low, high = t.interval()
    game_low, game_high = t.game_interval()
    lines = [
        f"{a} vs {b} on {rules}: {t.games:,} games ({t.pairs:,} deals, each in both seat orders)",
        f"  wins          {a} {o.wins[0]:g}, {b} {o.wins[1]:g}",
        f"  score of {a}  {t.mean * 100:.1f} %  95% interval [{low * 100:.1f}, {high * 100:.1f}] "
        + (
            f"from game pairs ([{game_low * 100:.1f}, {game_high * 100:.1f}] counting games one by one)"
            if t.pairs_are_informative
            else f"counting games one by one (pairs are used from {MIN_PAIRS} on, unless all alike)"
        ),
        f"  Elo difference {signed(elo_from_score(t.mean))}  95% interval "
        f"[{signed(elo_from_score(low))}, {signed(elo_from_score(high))}]",
    ]
    if o.faults:
        lines.append(f"  faults        {o.faults} games lost by a fault")
    if o.sprt is not None:
        lower, upper = o.sprt.bounds
        lines.append(f"  SPRT          {o.sprt}: LLR {o.llr:.2f}, bounds [{lower:.2f}, {upper:.2f}]")
        if o.verdict == "H1":
            lines.append(
                f"  result        H1 accepted: {a} is stronger than {b} by about {o.sprt.elo1:g} Elo or more"
            )
        elif o.verdict == "H0":
            lines.append(
                f"  result        H0 accepted: {a} is not {o.sprt.elo1:g} Elo stronger than {b} "
                f"(at most about {o.sprt.elo0:g})"
            )
        else:
            lines.append(
                f"  result        undecided after {t.games:,} games (--max-games); the interval above "
                "is what is known"
            )
    return "\n".join(lines)
