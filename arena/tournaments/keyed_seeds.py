"""Keyed game seeds: for a contest that publishes its games' seeds (a league).

A tournament derives a game's seed from (tournament seed, ruleset, table, deal) with splitmix64
(:func:`arena.engine.derive_seed`), a chain of bijections: one published game seed, with the
public ruleset, table and deal, gives the tournament seed back, and with it every other game's
dice.  A keyed game seed is instead a BLAKE2b hash keyed by a secret, over what identifies the
game, so it can't be run backwards and tells nothing about any other game:

- the league's secret seed keys a *table key* per table, a hash over the identities of the
  players seated at it (for a league entry: its id, name, version and content), so a new
  version of an entry meets fresh dice;
- the table key keys each game's seed, a hash over the ruleset and the deal, so both seat
  orders of a deal share their dice (duplicate play) and no other game does.

A plan carries only its own tables' keys (:class:`SeedKey`), never the league's secret: a
process that plays the plan holds nothing that seeds any other table's games.  The compiled
kernel derives seeds with splitmix64 only, so a keyed spec is always played in Python
(:func:`arena.tournaments.batch.compiled_games`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: The name of this scheme, as a league's settings record it (``seed_scheme``).
SCHEME = "keyed-blake2b"
_TABLE_PERSON = b"arena-table-key"
_GAME_PERSON = b"arena-game-seed"
_SPEC_PERSON = b"arena-plan-seed"


def secret_key(secret: int) -> bytes:
    """The 32-byte BLAKE2b key made from a league's secret seed (any whole number)."""
    if secret < 0:
        raise ValueError(f"seed must be zero or more, got {secret}")
    return hashlib.blake2b(str(secret).encode(), digest_size=32, person=b"arena-league-key").digest()


def table_key(secret: int, members: Sequence[str]) -> bytes:
    """The key of the games of the players whose identities are ``members`` (in any order),
    from the league's secret seed."""
    text = json.dumps(sorted(members), ensure_ascii=False).encode()
    return hashlib.blake2b(text, key=secret_key(secret), digest_size=32, person=_TABLE_PERSON).digest()


def _deal_hasher(key: bytes, ruleset: str) -> Any:
    """The hash of a table's games on ``ruleset`` (its JSON text, which holds no NUL) before the
    deal is added."""
    digest = hashlib.blake2b(key=key, digest_size=8, person=_GAME_PERSON)
    digest.update(ruleset.encode() + b"\0")
    return digest


def game_seed(key: bytes, ruleset: str, deal: int) -> int:
    """The 64-bit seed of deal ``deal`` on ``ruleset`` (its JSON text) of the table keyed by
    ``key``: the same for every seat order of the deal."""
    digest = _deal_hasher(key, ruleset)
    digest.update(deal.to_bytes(8, "big"))
    return int.from_bytes(digest.digest(), "big")


class GameSeeds:
    """:func:`game_seed` of each (table, ruleset) of a schedule, with the hash of the key and the
    ruleset made once (a copy per game: a few microseconds, not a new keyed hash)."""

    def __init__(self, keys: Sequence[bytes], rulesets: Sequence[str]) -> None:
        self._made_of = (tuple(keys), tuple(rulesets))
        self._hashers = [[_deal_hasher(key, ruleset) for ruleset in rulesets] for key in keys]

    def __reduce__(self) -> tuple[Any, ...]:
        return GameSeeds, self._made_of  # a hash object can't be pickled; its inputs can

    def seed(self, table: int, ruleset: int, deal: int) -> int:
        digest = self._hashers[table][ruleset].copy()
        digest.update(deal.to_bytes(8, "big"))
        return int.from_bytes(digest.digest(), "big")


@dataclass(frozen=True)
class SeedKey:
    """Keyed seeds for the games of one spec: each player's identity (in the spec's order) and
    the key of each table the spec seats, by its members' identities, sorted.  The keys never
    show in a repr, an identity or a page."""

    players: tuple[str, ...]
    tables: tuple[tuple[tuple[str, ...], bytes], ...] = field(repr=False)

    @classmethod
    def of(cls, secret: int, players: Sequence[str], tables: Sequence[Sequence[int]]) -> SeedKey:
        """The seed key of ``tables`` (player indices) of ``players`` (their identities), from
        the league's secret seed."""
        keys = []
        for table in tables:
            members = tuple(sorted(players[i] for i in table))
            keys.append((members, table_key(secret, members)))
        return cls(tuple(players), tuple(keys))

    def key_for(self, table: Sequence[int]) -> bytes:
        """The key of the table that seats these players; ValueError if the spec has none."""
        members = tuple(sorted(self.players[i] for i in table))
        for seated, key in self.tables:
            if seated == members:
                return key
        raise ValueError(f"no seed key for the table of players {sorted(table)}")

    def spec_seed(self) -> int:
        """A 63-bit stand-in for the tournament seed (it seeds the ``random`` module of each
        chunk): a hash of the table keys, so it gives none of them away."""
        digest = hashlib.blake2b(digest_size=8, person=_SPEC_PERSON)
        for _, key in self.tables:
            digest.update(key)
        return int.from_bytes(digest.digest(), "big") >> 1

    def identity(self) -> dict[str, Any]:
        """What a spec's identity records of its keyed seeds: the scheme and the players'
        identities, never a key."""
        return {"scheme": SCHEME, "players": list(self.players)}
