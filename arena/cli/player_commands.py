"""``arena play``: one game, turn by turn."""

from __future__ import annotations

import contextlib
import secrets
import traceback
from collections.abc import Callable
from typing import TextIO

import click

from arena.cli.event_json import EventLines
from arena.cli.output import fail, stdout_for_json
from arena.cli.render import GameNarrator
from arena.cli.rules_commands import RULES_HELP, resolve_rules
from arena.cli.seat_options import Seating, seat_options
from arena.engine import Ruleset, TurnView
from arena.players import (
    Player,
    PlayerFault,
    PlayerSpec,
    StrategyError,
    play_match,
)
from arena.players.human import HumanPlayer
from arena.players.loading import described, why_not_seated
from arena.players.match import ReportedFailure
from arena.sandbox import SeatPlace, SeatPool
from arena.tournament.fault_log import strategy_frames
from arena.tournament.spec import DEFAULT_MOVE_TIMEOUT

PLAYER_HELP = (
    "A strategy: a built-in name with optional parameters (threshold:bank_at=400,min_dice=3), "
    "path/to/bot.py[:Class], package.module:Class, or an installed plugin's name. Repeatable."
)


@click.command("play")
@click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)
@click.option("-p", "--player", "players", multiple=True, metavar="SPEC", help=PLAYER_HELP)
@click.option("--seed", type=int, default=None, help="Seed of the dice (default: a random one, printed).")
@click.option("--human", is_flag=True, help="Take the first seat yourself, at the terminal.")
@click.option(
    "--fail-fast", is_flag=True, help="On a strategy's fault, show the full traceback (arena's frames too)."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the game's events as JSON lines (one object a line: the game, then each event) "
    "instead of text; anything a strategy prints goes to stderr.",
)
@seat_options
def play_command(
    rules_name: str,
    players: tuple[str, ...],
    seed: int | None,
    human: bool,
    fail_fast: bool,
    seating: Seating,
    as_json: bool,
) -> None:
    """Play one game and show it turn by turn.  An isolated player's stderr is shown here."""
    rules = resolve_rules(rules_name)
    if as_json and human:
        fail("--json is for programs and --human for a person: choose one")
    if not players and not human:
        fail("name at least one player with -p SPEC (or play yourself with --human)")
    try:
        specs = [seating.load(text, DEFAULT_MOVE_TIMEOUT) for text in players]
    except StrategyError as exc:
        fail(str(exc))
    for spec in specs:
        why = why_not_seated(spec, rules, len(specs) + human)
        if why:
            fail(why)
    pool = None
    if any(s.isolated for s in specs):
        pool = SeatPool(specs, seating.limits, DEFAULT_MOVE_TIMEOUT, place=SeatPlace(to_stderr=True))
    try:
        with stdout_for_json() if as_json else contextlib.nullcontext() as json_out:
            _play_one(rules, specs, seed, human, fail_fast, pool, json_out)
    finally:
        if pool is not None:
            pool.close()


def _perfect_advice(rules: Ruleset, specs: list[PlayerSpec]) -> Callable[[TurnView], list[str]] | None:
    """Against ``perfect`` in a two-player game, the chance of winning of each of your choices."""
    from arena.players.builtin.perfect import PerfectPlayer

    against_perfect = any(isinstance(s.cls, type) and issubclass(s.cls, PerfectPlayer) for s in specs)
    if len(specs) != 1 or not against_perfect:
        return None
    from arena.perfect import advice

    click.echo("perfect's advice: your chance of winning after each keep, if you bank and if you roll on")
    return advice


def _play_one(
    rules: Ruleset,
    specs: list[PlayerSpec],
    seed: int | None,
    human: bool,
    fail_fast: bool,
    pool: SeatPool | None,
    json_out: TextIO | None = None,
) -> None:
    seated: list[Player] = (
        [
            HumanPlayer(
                ask=lambda prompt: click.prompt(prompt, prompt_suffix="", default="", show_default=False),
                advise=_perfect_advice(rules, specs),
            )
        ]
        if human
        else []
    )
    names = unique_names((["you"] if human else []) + [spec.label for spec in specs])
    for index, spec in enumerate(specs):
        try:
            seated.append(pool.seat(index) if pool is not None and spec.isolated else spec.create())
        except KeyboardInterrupt:
            raise
        except ReportedFailure as failure:  # its seat process could not start
            fail(f"{names[len(seated)]} (seat {len(seated)}) could not be created: {failure.reason}", 1)
        except BaseException as exc:  # it built when loaded; a constructor may still fail now
            _show_traceback(exc, fail_fast)
            fail(f"{names[len(seated)]} (seat {len(seated)}) could not be created: {described(exc)}", 1)
    if seed is None:  # an isolated bot must not be able to guess it (see Seating.seed_for)
        seed = secrets.randbits(64) if pool is not None else secrets.randbelow(1_000_000)
    lines = EventLines(rules, names, lambda line: print(line, file=json_out)) if json_out else None
    if lines is not None:
        lines.start(seed)
    else:
        click.echo(f"{rules.name}: {rules.description}")
        click.echo(
            f"seed {seed} (replay with --seed {seed}); seats: "
            + ", ".join(f"{i} {name}" for i, name in enumerate(names))
        )
    try:
        play_match(rules, seated, seed, on_event=lines or GameNarrator(rules, names, click.echo))
    except PlayerFault as fault:
        if lines is not None:
            lines.fault(fault.seat, fault.status, fault.reason)
        if isinstance(fault.__cause__, (click.Abort, EOFError)):
            fail("game abandoned at the prompt", 1)
        if fault.__cause__ is not None:
            _show_traceback(fault.__cause__, fail_fast)
        fail(f"{names[fault.seat]} (seat {fault.seat}) lost the game: {fault.status}: {fault.reason}", 1)


def _show_traceback(exc: BaseException, full: bool) -> None:
    """A strategy's traceback on stderr: its own frames, or all of them with ``full``."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    click.echo((text if full else strategy_frames(text)).rstrip("\n"), err=True)


def unique_names(raw: list[str]) -> list[str]:
    """Seat names, with #2, #3 ... added where two seats would share one."""
    seen: dict[str, int] = {}
    names = []
    for name in raw:
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names
