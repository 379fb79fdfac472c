"""The compiled path: games whose every seat has a declarative policy, played in a numba kernel.

Importing this package needs no numba: :func:`why_not_compiled` and :func:`compilable_players`
say whether a tournament (or which of its players) can be played compiled, and
:class:`CompiledGames` (imported on first use) plays games with exactly the rows and win shares
of :class:`arena.tournament.batch.BatchPlayer`.  Install numba with ``pip install 'arena[fast]'``.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from arena.players.loading import PlayerSpec
from arena.players.policy import Policy, policy_of

if TYPE_CHECKING:
    from arena.compiled.games import CompiledGames
    from arena.tournament.spec import TournamentSpec

#: A target above this can't be compiled: solved situations are keyed by (minimum, cap) in
#: 24 bits each.
MAX_TARGET = 1 << 22
INSTALL_HINT = "numba is not installed: pip install 'arena[fast]' (or pip install numba)"


def numba_available() -> bool:
    """True if numba can be imported (a ``None`` entry in sys.modules counts as missing)."""
    import sys

    if "numba" in sys.modules:
        return sys.modules["numba"] is not None
    return importlib.util.find_spec("numba") is not None


def player_policy(player: PlayerSpec) -> Policy | None:
    """The policy a player declares, or None (isolated players never compile: their code
    runs in a seat process of its own)."""
    if player.isolated or player.cls is None:
        return None
    try:
        return policy_of(player.create())
    except Exception:
        return None  # a player that can't be made here plays (and faults) in Python


def compilable_players(spec: TournamentSpec) -> list[bool]:
    """Per player of ``spec``: True if it declares a policy the kernel can play."""
    return [player_policy(p) is not None for p in spec.players]


def ruleset_problem(spec: TournamentSpec) -> str | None:
    """Why some ruleset of ``spec`` can't be compiled, or None."""
    for rules in spec.rulesets:
        if rules.target > MAX_TARGET:
            return f"ruleset {rules.name!r}: target {rules.target} is above {MAX_TARGET} (the kernel's limit)"
    return None


def why_not_compiled(spec: TournamentSpec) -> str | None:
    """None if every game of ``spec`` can be played compiled, else one line saying why."""
    if not numba_available():
        return INSTALL_HINT
    for player in spec.players:
        if player.isolated:
            return f"player {player.label!r} is isolated (its code runs in a seat process of its own)"
        if player_policy(player) is None:
            return (
                f"player {player.label!r} has no declarative policy (see docs/declarative.md); "
                "it plays in Python"
            )
    return ruleset_problem(spec)


def __getattr__(name: str) -> Any:
    if name == "CompiledGames":
        from arena.compiled.games import CompiledGames

        return CompiledGames
    raise AttributeError(name)


__all__ = [
    "CompiledGames",
    "compilable_players",
    "numba_available",
    "player_policy",
    "ruleset_problem",
    "why_not_compiled",
]
