"""The compiled path: games whose every seat has a declarative policy, played in a numba kernel.

Importing this package needs no numba: :func:`why_not_compiled` and :func:`compilable_players`
say whether a tournament (or which of its players) can be played compiled.  The kernel itself
(:mod:`arena.compiled.kernel`) knows only arrays; the tournament's adapter,
:class:`arena.tournaments.compiled_games.CompiledGames`, builds its tables and plays games with
exactly the rows and win shares of :class:`arena.tournaments.batch.BatchPlayer`.  Install numba
with ``pip install numba`` (in a checkout: ``pip install -e '.[fast]'``).
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import sys
import threading
from collections.abc import Sequence
from typing import Protocol

from arena.engine import Ruleset
from arena.players.loading import LOAD_TIMEOUT, PlayerSpec, described, in_child
from arena.players.policy import Policy, policy_of


class Field(Protocol):
    """What the compiled path reads of a tournament: its players and rulesets (a
    :class:`~arena.tournaments.spec.TournamentSpec` is one)."""

    @property
    def players(self) -> Sequence[PlayerSpec]: ...

    @property
    def rulesets(self) -> Sequence[Ruleset]: ...

#: A target above this can't be compiled: solved situations are keyed by (minimum, cap) in
#: 24 bits each.
MAX_TARGET = 1 << 22
INSTALL_HINT = "numba is not installed: pip install numba (in a checkout of arena: pip install -e '.[fast]')"


def numba_available() -> bool:
    """True if numba can be imported (a ``None`` entry in sys.modules counts as missing)."""

    if "numba" in sys.modules:
        return sys.modules["numba"] is not None
    return importlib.util.find_spec("numba") is not None


def player_policy(player: PlayerSpec) -> Policy | None:
    """The policy a player declares, or None (isolated players never compile: their code
    runs in a seat process of its own)."""
    return read_policy(player)[0]


def read_policy(player: PlayerSpec, timeout: float = LOAD_TIMEOUT) -> tuple[Policy | None, str]:
    """The policy a player declares, or None and one line saying why not.

    Reading it makes the player and runs its ``policy`` (maybe a property): strategy code.  A
    strategy's own code (not a built-in) is read as :func:`arena.players.loading.check_player`
    builds it, in a forked child killed after ``timeout`` seconds, so a constructor or property
    that calls ``sys.exit`` or ``os._exit``, crashes or never returns can't end or hang arena:
    the player then plays (and faults) in Python."""
    if player.isolated or player.cls is None:
        return None, "is isolated (its code runs in a seat process of its own)"
    forkable = hasattr(os, "fork") and threading.current_thread() is threading.main_thread()
    if player.source == "built-in" or not forkable:
        return _read_here(player)
    return _read_in_child(player, timeout)


def _read_here(player: PlayerSpec) -> tuple[Policy | None, str]:
    """The policy, read twice from one new player and once from another: Python makes a new
    player for every game and reads ``policy`` at every decision, the kernel reads it once, so
    a policy drawn at random (in the constructor or the property) can't be compiled."""
    try:
        first = player.create()
        policies = [policy_of(first), policy_of(first), policy_of(player.create())]
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: a strategy may not end arena
        return None, f"could not be made or its policy read: {described(exc)}"
    policy = policies[0]
    if policy is None and type(getattr(first, "policy", None)) is Policy and hasattr(type(first), "end_turn"):
        return None, "has an end_turn hook, which the compiled kernel does not call; it plays in Python"
    if policy is None:
        return None, "has no declarative policy (see docs/declarative.md); it plays in Python"
    if any(other != policy for other in policies):
        return None, "has a policy that changes from player to player or read to read; it plays in Python"
    return policy, ""


def _read_in_child(player: PlayerSpec, timeout: float) -> tuple[Policy | None, str]:
    """:func:`_read_here` in a forked child (:func:`arena.players.loading.in_child`)."""
    reply, in_time, _status = in_child(lambda: pickle.dumps(_read_here(player)).hex().encode(), timeout)
    if not in_time:
        return None, f"took longer than {timeout:g} s to be made and read its policy"
    try:
        policy, why = pickle.loads(bytes.fromhex(reply.decode().strip()))
    except Exception:
        return None, "ended its process while being made or reading its policy"
    return (policy, why) if policy is None or isinstance(policy, Policy) else (None, why)


def compilable_players(spec: Field) -> list[bool]:
    """Per player of ``spec``: True if it declares a policy the kernel can play."""
    return [player_policy(p) is not None for p in spec.players]


def ruleset_problem(spec: Field) -> str | None:
    """Why some ruleset of ``spec`` can't be compiled, or None."""
    for rules in spec.rulesets:
        if rules.target > MAX_TARGET:
            return f"ruleset {rules.name!r}: target {rules.target} is above {MAX_TARGET} (the kernel's limit)"
    return None


def why_not_compiled(spec: Field) -> str | None:
    """None if every game of ``spec`` can be played compiled, else one line saying why."""
    if not numba_available():
        return INSTALL_HINT
    for player in spec.players:
        policy, why = read_policy(player)
        if policy is None:
            return f"player {player.label!r} {why}"
    return ruleset_problem(spec)


__all__ = [
    "Field",
    "compilable_players",
    "numba_available",
    "player_policy",
    "read_policy",
    "ruleset_problem",
    "why_not_compiled",
]
