"""``arena play``: one game, turn by turn."""

from __future__ import annotations

import contextlib
import secrets
import sys
import traceback
from collections.abc import Callable
from typing import TextIO, cast

import click

from arena.cli.event_json import EventLines
from arena.cli.output import fail, say, stdout_for_json
from arena.cli.pacing import Pacer, paced, parse_pace
from arena.cli.render import GameNarrator
from arena.cli.rules_commands import RULES_HELP, resolve_rules
from arena.cli.seat_options import Seating, seat_options, warn_limits_in_force
from arena.engine import Ruleset
from arena.engine.events import Event
from arena.players import (
    Player,
    PlayerFault,
    PlayerSpec,
    StrategyError,
    play_match,
)
from arena.players.advice import ADVISERS, HEADERS
from arena.players.human import HumanPlayer, LeftGame
from arena.players.loading import described, why_not_seated
from arena.players.match import ReportedFailure
from arena.players.text import for_terminal
from arena.sandbox import SeatPlace, SeatPool
from arena.tournaments.fault_log import (
    FAIL_FAST_LINES,
    TERMINAL_TRACEBACK_LINES,
    clip_traceback,
    strategy_frames,
)
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT

PLAYER_HELP = (
    "A strategy: a built-in name with optional parameters (threshold:bank_at=400,min_dice=3), "
    "path/to/bot.py[:Class], package.module:Class, or an installed plugin's name. Repeatable."
)


@click.command("play")
@click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)
@click.option("-p", "--player", "players", multiple=True, metavar="SPEC", help=PLAYER_HELP)
@click.option("--seed", type=int, default=None, help="Seed of the dice (default: a random one, printed).")
@click.option(
    "--human",
    is_flag=True,
    help="Play yourself, at the terminal: Enter takes the default shown, ? shows help, q leaves.",
)
@click.option(
    "--seat",
    "human_seat",
    type=int,
    default=None,
    metavar="N",
    help="With --human: your seat, from 0 (seat 0 plays first).  [default: 0]",
)
@click.option(
    "--advice",
    type=click.Choice(["optimal", "perfect", "none"]),
    default=None,
    help="With --human: beside each keep, optimal's expected points of the turn or perfect's chance "
    "of winning (two seats), if you bank and if you roll on.  [default: perfect against perfect, "
    "else none]",
)
@click.option(
    "--pace",
    default=None,
    metavar="enter|off|SECONDS",
    help="With --human: wait for Enter after each opponent's turn (enter), pause SECONDS after each "
    "of its rolls, or neither (off).  [default: enter at a terminal, else off]",
)
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
    human_seat: int | None,
    advice: str | None,
    pace: str | None,
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
    for name, given in (("--seat", human_seat), ("--advice", advice), ("--pace", pace)):
        if given is not None and not human:
            fail(f"{name} goes with --human")
    try:
        pacing = parse_pace(pace) if pace is not None else ("enter" if sys.stdin.isatty() else "off")
    except ValueError as exc:
        fail(str(exc))
    if human_seat is not None and not 0 <= human_seat <= len(players):
        fail(f"--seat {human_seat}: with {len(players) + 1} seats, choose 0 to {len(players)}")
    # --json: stdout is kept for the JSON lines from here on; what a strategy prints, when it is
    # loaded (its constructor runs then) or while it plays, goes to stderr.
    with stdout_for_json() if as_json else contextlib.nullcontext() as json_out:
        try:
            specs = [seating.load(text, DEFAULT_MOVE_TIMEOUT) for text in players]
        except StrategyError as exc:
            fail(str(exc))
        for spec in specs:
            why = why_not_seated(spec, rules, len(specs) + human)
            if why:
                fail(why)
        adviser = _adviser(advice, rules, specs) if human else None
        pool = None
        if any(s.isolated for s in specs):
            warn_limits_in_force(seating.limits)
            pool = SeatPool(specs, seating.limits, DEFAULT_MOVE_TIMEOUT, place=SeatPlace(to_stderr=True))
        try:
            human_at = (human_seat or 0) if human else None
            _play_one(rules, specs, seed, human_at, adviser, fail_fast, pool, json_out, pacing)
        finally:
            if pool is not None:
                pool.close()


def _adviser(choice: str | None, rules: Ruleset, specs: list[PlayerSpec]) -> str | None:
    """The adviser the person gets: ``choice``, or by default ``perfect`` against ``perfect`` in a
    two-player game and none otherwise.  ``perfect`` outside its games is a one-line error."""
    if choice is None:
        from arena.players.builtin.perfect import PerfectPlayer

        against = any(isinstance(s.cls, type) and issubclass(s.cls, PerfectPlayer) for s in specs)
        choice = "perfect" if against and len(specs) == 1 else "none"
    if choice == "perfect":
        from arena.perfect import why_not_perfect

        why = why_not_perfect(rules, len(specs) + 1)
        if why:
            fail(f"--advice perfect: {why}")
    return None if choice == "none" else choice


def _play_one(
    rules: Ruleset,
    specs: list[PlayerSpec],
    seed: int | None,
    human_seat: int | None,
    adviser: str | None,
    fail_fast: bool,
    pool: SeatPool | None,
    json_out: TextIO | None = None,
    pace: str | float = "off",
) -> None:
    """Play and narrate one game; ``human_seat`` is the person's seat, if one plays, and
    ``pace`` how the other seats' turns are shown to them (:mod:`arena.cli.pacing`)."""
    seat_of = [i + (human_seat is not None and i >= human_seat) for i in range(len(specs))]
    names = unique_names([spec.label for spec in specs])
    if human_seat is not None:
        names = unique_names(["you", *names])
        names.insert(human_seat, names.pop(0))
    seated: list[Player] = []
    for index, spec in enumerate(specs):
        try:
            if pool is not None and spec.isolated:
                # A RemoteSeat plays as a Player; its decide passes a malformed reply on to the engine.
                seated.append(cast(Player, pool.seat(index)))
            else:
                seated.append(spec.create())
        except KeyboardInterrupt:
            raise
        except ReportedFailure as failure:  # its seat process could not start
            fail(f"{names[seat_of[index]]} (seat {seat_of[index]}) could not be created: {failure.reason}", 1)
        except BaseException as exc:  # it built when loaded; a constructor may still fail now
            _show_traceback(exc, fail_fast)
            fail(f"{names[seat_of[index]]} (seat {seat_of[index]}) could not be created: {described(exc)}", 1)
    if human_seat is not None:
        seated.insert(human_seat, _human(rules, adviser, names))
    if seed is None:  # an isolated bot must not be able to guess it (see Seating.seed_for)
        seed = secrets.randbits(64) if pool is not None else secrets.randbelow(1_000_000)
    lines = EventLines(rules, names, lambda line: print(line, file=json_out)) if json_out else None
    if lines is not None:
        lines.start(seed)
    else:
        say(f"{rules.name}: {rules.description}")
        say(
            f"seed {seed} (replay with --seed {seed}); seats: "
            + ", ".join(f"{i} {name}" for i, name in enumerate(names))
        )
    faults: list[PlayerFault] = []

    def on_fault(fault: PlayerFault) -> None:
        """A seat broke the game: it is out and the others play on (docs/faults.md); a person
        who left, or a prompt that ended, stops the game."""
        if isinstance(fault.__cause__, (LeftGame, click.Abort, EOFError)):
            raise _Stopped(fault)
        faults.append(fault)
        if lines is not None:
            lines.fault(fault.seat, fault.status, fault.reason)
        else:
            click.echo(f"  ** {names[fault.seat]} is out of the game: {fault.status}: {fault.reason} **")
        cause = fault.__cause__
        if type(cause) is ReportedFailure:  # an isolated seat's: its own traceback, not arena's frames
            if cause.traceback_text and not cause.from_stderr:  # its stderr is shown as it comes
                _show_traceback_text(cause.traceback_text, fail_fast)
        elif cause is not None:
            _show_traceback(cause, fail_fast)

    try:
        narrator = GameNarrator(rules, names, say)
        narrate: Callable[[Event], None] = lines or narrator
        if lines is None and human_seat is not None and pace != "off":
            pacer = Pacer(human_seat, pace, ask_line, lambda: narrator.scores)
            narrate = paced(narrator, pacer)
        play_match(rules, seated, seed, on_event=narrate, on_fault=on_fault)
    except _Stopped as stopped:
        fault = stopped.fault
        if lines is not None:
            lines.fault(fault.seat, fault.status, fault.reason)
        if isinstance(fault.__cause__, LeftGame):
            left = fault.__cause__.scores
            scores = ", ".join(f"{name} {score:,}" for name, score in zip(names, left, strict=True))
            say(f"You left the game; scores then: {scores}.")
            return
        fail("game abandoned at the prompt", 1)
    if faults:
        first = faults[0]
        more = f" (and {len(faults) - 1} more faults)" if len(faults) > 1 else ""
        who = f"{names[first.seat]} (seat {first.seat})"
        fail(f"{who} lost the game: {first.status}: {first.reason}{more}", 1)


class _Stopped(Exception):
    """Stops ``arena play`` at a fault that ends the session, not just a seat's game."""

    def __init__(self, fault: PlayerFault) -> None:
        super().__init__(str(fault))
        self.fault = fault


def _human(rules: Ruleset, adviser: str | None, names: list[str]) -> HumanPlayer:
    """The person's seat, asking at the terminal, with the advice chosen (its header shown now)."""
    if adviser is not None:
        if adviser == "perfect":
            from arena.perfect import win_table

            win_table(rules)  # solved (or loaded) now, not in the middle of the first turn
        say(HEADERS[adviser])
    say("At each prompt, Enter takes the default shown, ? shows help and the scores, q leaves.")
    return HumanPlayer(
        ask=ask_line,
        tell=say,
        advise=ADVISERS[adviser] if adviser is not None else None,
        names=names,
    )


def ask_line(prompt: str) -> str:
    """A line from the person at the terminal; Enter gives ""."""
    return str(click.prompt(prompt, prompt_suffix="", default="", show_default=False))


def _show_traceback(exc: BaseException, full: bool) -> None:
    """A strategy's traceback on stderr: its own frames, or all of them with ``full``; cut to a
    bounded number of lines, as a tournament's warning block is (its text is the strategy's)."""
    _show_traceback_text("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), full)


def _show_traceback_text(traceback_text: str, full: bool) -> None:
    """As :func:`_show_traceback`, for a traceback as text (an isolated seat's, as it reported it)."""
    text = clip_traceback(traceback_text)
    shown = (text if full else strategy_frames(text)).rstrip("\n")
    lines = FAIL_FAST_LINES if full else TERMINAL_TRACEBACK_LINES
    click.echo(for_terminal(shown, max_lines=lines), err=True)


def unique_names(raw: list[str]) -> list[str]:
    """Seat names, with #2, #3 ... added where two seats would share one."""
    seen: dict[str, int] = {}
    names = []
    for name in raw:
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return names
