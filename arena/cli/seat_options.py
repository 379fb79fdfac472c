"""``--isolate``, the seat limits and the game clock, shared by ``tournament``, ``duel`` and ``play``."""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import click

from arena.cli.output import fail
from arena.players import PlayerSpec
from arena.sandbox import LimitError, SeatLimits, load_player
from arena.sandbox.limits import in_force

_DEFAULTS = SeatLimits()

ISOLATE_HELP = (
    "Run every player in a sandboxed process of its own (untrusted bots): it sees only the view "
    "it is sent, and is killed at its deadline.  cmd:PROGRAM players are always isolated."
)


#: ``--game-time``, a chess clock per seat per game (tournament and duel; league's is stored).
game_time_option = click.option(
    "--game-time",
    type=float,
    default=None,
    help="A chess clock: seconds a strategy may take for all its decisions of one game together "
    "before it loses the game (default: no game clock).",
)


def seat_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --isolate, --seat-memory, --seat-cpu, --seat-processes and --seat-file-size, and pass
    the command one ``seating`` argument made of them (bad limits are a one-line error)."""

    @functools.wraps(command)
    def with_seating(
        *args: Any,
        isolate: bool,
        seat_memory: int,
        seat_cpu: int,
        seat_processes: int,
        seat_file_size: int,
        **kwargs: Any,
    ) -> Any:
        limits = seat_limits(seat_memory, seat_cpu, seat_processes, seat_file_size)
        return command(*args, seating=Seating(isolate, limits), **kwargs)

    options = [
        click.option("--isolate", is_flag=True, help=ISOLATE_HELP),
        click.option(
            "--seat-memory",
            type=int,
            default=_DEFAULTS.memory_mb,
            show_default=True,
            metavar="MIB",
            help="Isolated seats: memory of a seat and all it starts (as root), and address space "
            "per process (RLIMIT_AS).",
        ),
        click.option(
            "--seat-cpu",
            type=int,
            default=_DEFAULTS.cpu_seconds,
            show_default=True,
            metavar="SECONDS",
            help="Isolated seats: CPU seconds per seat process, which serves one seat order of a "
            "chunk of games.",
        ),
        click.option(
            "--seat-processes",
            type=int,
            default=_DEFAULTS.processes,
            show_default=True,
            metavar="N",
            help="Isolated seats: processes and threads of a seat and all it starts.",
        ),
        click.option(
            "--seat-file-size",
            type=int,
            default=_DEFAULTS.file_size_mb,
            show_default=True,
            metavar="MIB",
            help="Isolated seats: the most a seat may store in its scratch folder, the largest file "
            "it may write, and the most of its stderr kept.",
        ),
    ]
    decorated: Callable[..., Any] = with_seating
    for option in reversed(options):
        decorated = option(decorated)
    return decorated


def seat_limits(memory: int, cpu: int, processes: int, file_size: int) -> SeatLimits:
    """The limits from the options; a bad one is a one-line error (exit 2)."""
    for option, value in (
        ("--seat-memory", memory),
        ("--seat-cpu", cpu),
        ("--seat-processes", processes),
        ("--seat-file-size", file_size),
    ):
        if value < 1:
            fail(f"{option} must be at least 1, got {value}")
    try:
        return SeatLimits(memory_mb=memory, cpu_seconds=cpu, processes=processes, file_size_mb=file_size)
    except LimitError as exc:  # the checks above cover every option; kept for the message
        fail(str(exc))


@dataclass(frozen=True)
class Seating:
    """Where the players of a command play: in arena's processes, or (``--isolate``, and always
    for ``cmd:`` programs) in seat processes under ``limits``."""

    isolate: bool
    limits: SeatLimits

    def load(self, text: str, move_timeout: float | None) -> PlayerSpec:
        return load_player(text, isolate=self.isolate, limits=self.limits, move_timeout=move_timeout)

    def limits_for(self, players: Sequence[PlayerSpec]) -> SeatLimits | None:
        """The limits to save with a run of ``players``: None if none of them is isolated."""
        return self.limits if any(p.isolated for p in players) else None

    @staticmethod
    def seed_for(seed: int, given: bool, players: Sequence[PlayerSpec]) -> int:
        """The tournament seed of a new run: the one given; else, when a player is isolated, a
        secret one (64 random bits, kept in the run folder's spec.json, which seats can't read).

        The dice and the strategy seeds are public functions of the tournament seed, so a seed
        a bot can guess (the default 0, or a small number) lets it find each game's seed from
        its ``strategy_seed`` and foresee every roll (tests/cheats/seed_guess.py)."""
        if given and seed < 0:  # refused before anything is said about it
            fail(f"--seed must be zero or more, got {seed}")
        if given or not any(p.isolated for p in players):
            if given and any(p.isolated for p in players):
                click.echo(
                    f"warning: --seed {seed} is no secret: an isolated bot that guesses it can foresee "
                    "the dice; leave --seed out for a contest (a secret seed is drawn and kept in the "
                    "run folder)",
                    err=True,
                )
            return seed
        return secrets.randbits(64)


def warn_limits_in_force(limits: SeatLimits | None) -> None:
    """A warning line for each seat limit lowered to a hard limit arena inherited (a shell's
    ``ulimit``): the seats run under the inherited one, and run.json records what they got."""
    if limits is None:
        return
    for note in in_force(limits)[1]:
        click.echo(f"warning: {note}", err=True)
