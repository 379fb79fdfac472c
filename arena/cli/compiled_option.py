"""``--compiled auto|on|off``: where the games of declarative strategies are played.

Games whose every seat has a declarative policy (:mod:`arena.players.policy`) can be played in
the compiled kernel (:mod:`arena.compiled`, needs numba: ``pip install numba``) with the
same rows as in Python.  ``auto`` plays them there when numba is installed and the others in
Python; ``on`` insists (one line and exit 2 when some player or ruleset can't be compiled, or
numba is missing); ``off`` plays everything in Python.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from arena.cli.output import fail

if TYPE_CHECKING:
    from arena.tournaments.spec import TournamentSpec

COMPILED_MODES = ("auto", "on", "off")


def compiled_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """Adds ``--compiled`` (passed to the command as ``compiled``)."""
    return click.option(
        "--compiled",
        "compiled",
        type=click.Choice(COMPILED_MODES),
        default="auto",
        show_default=True,
        help="Play games whose every player has a declarative policy in the compiled kernel "
        "(numba; same games, many times faster): auto where possible, on (refuse if it can't), off.",
    )(command)


def wants_compiled(mode: str, spec: TournamentSpec) -> bool:
    """Whether to play ``spec``'s games compiled where possible; exits with one line when
    ``mode`` is ``on`` and some game can't be."""
    if mode == "off":
        return False
    from arena.compiled import numba_available, why_not_compiled

    if mode == "on":
        reason = why_not_compiled(spec)
        if reason is not None:
            fail(f"--compiled on: {reason}")
        return True
    return numba_available()


def with_compiled(mode: str, spec: TournamentSpec) -> TournamentSpec:
    """``spec`` with its ``compiled`` flag set for ``mode`` (see :func:`wants_compiled`)."""
    return dataclasses.replace(spec, compiled=wants_compiled(mode, spec))
