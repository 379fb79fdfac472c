"""``arena.play(...)``: one game between players of any form, with every event it produced."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.api.errors import ArenaError
from arena.api.players import PlayerLike
from arena.api.runs import load_rulesets, players_of
from arena.engine import DEFAULT_MAX_ROUNDS, GameResult, Ruleset
from arena.engine.events import Event
from arena.players import PlayerFault, play_match
from arena.tournaments.spec import unique_labels


@dataclass(frozen=True, repr=False)
class GameRecord:
    """One game: its ruleset, seed, the names in seat order, every event (the engine's event
    objects: TurnStarted, Rolled, Kept, Banked, Farkled, ..., GameOver) and the result.
    ``faults``: each seat whose player broke the game (a :class:`arena.players.PlayerFault`,
    with its ``seat``, ``status`` and ``reason``), in the order they happened; those seats
    ranked last and won nothing, and the others played on (``docs/faults.md``)."""

    rules: Ruleset
    seed: int
    names: tuple[str, ...]
    events: tuple[Event, ...]
    result: GameResult
    faults: tuple[PlayerFault, ...] = ()

    @property
    def scores(self) -> tuple[int, ...]:
        return self.result.scores

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seats (more than one for a shared win)."""
        return self.result.winners

    @property
    def turns(self) -> tuple[int, ...]:
        """Turns played per seat."""
        return self.result.turns

    def __repr__(self) -> str:
        seats = ", ".join(f"{name} {score:,}" for name, score in zip(self.names, self.scores, strict=True))
        return f"<arena game on {self.rules.name}, seed {self.seed}: {seats}; {len(self.events):,} events>"


def play(
    players: Iterable[PlayerLike],
    *,
    rules: str | Path | Ruleset = "standard",
    seed: int | None = None,
    move_timeout: float | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> GameRecord:
    """Play one game, ``players[i]`` in seat i, and return it with its events.

    Players take every form :func:`arena.tournament` takes, and plain decide functions
    (``view -> Action``, the form :func:`arena.engine.play` takes).  ``seed`` decides the dice
    (default: a random one, kept in the record); the same seed and players give the same game
    as ``arena play --seed``.  ``move_timeout``: seconds a call into a strategy may take (default:
    no limit).  A strategy that raises, cheats or runs out of time is out of the game, as in a
    tournament: it ranks last and wins nothing, the others play on, and the record's
    ``faults`` say who, how and why (``docs/faults.md``); bad input raises
    :class:`ArenaError`.  Programs (``cmd:``) play in ``arena.tournament``,
    ``arena.duel`` and ``arena play``, not here."""
    if not isinstance(rules, str | Path | Ruleset):
        raise ArenaError(f"a game is played on one ruleset (a name, a TOML file or a Ruleset), got {rules!r}")
    (ruleset,) = load_rulesets(rules)
    specs = unique_labels(players_of(players, move_timeout))
    if not specs:
        raise ArenaError("a game needs at least one player")
    if any(s.isolated for s in specs):
        raise ArenaError(
            "cmd: programs play in arena.tournament, arena.duel and `arena play`, not arena.play"
        )
    from arena.players.loading import why_not_seated

    for spec in specs:
        why = why_not_seated(spec, ruleset, len(specs))
        if why:
            raise ArenaError(why)
    if seed is None:
        seed = secrets.randbelow(1_000_000)
    events: list[Event] = []
    faults: list[PlayerFault] = []
    result = play_match(
        ruleset,
        [spec.create() for spec in specs],
        seed,
        on_event=events.append,
        max_rounds=max_rounds,
        move_timeout=move_timeout,
        on_fault=faults.append,
    )
    names = tuple(s.label for s in specs)
    return GameRecord(ruleset, seed, names, tuple(events), result, tuple(faults))
