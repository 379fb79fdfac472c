"""A league's secret seed and the keyed seeds of its games (docs/league.md, "Seeds").

Every page of a league shows its games' seeds, so a league's game seeds are keyed hashes
(:mod:`arena.tournaments.keyed_seeds`): the league's secret seed keys each pair's key, over the
two entries' identities (id, name, version and content), and that keys each game's seed, over
the ruleset and the deal.  No published seed gives away the secret, nor the dice of a game not
yet played: a new version is a new identity, so it meets fresh dice.

A league made before keyed seeds (no ``seed_scheme`` in its settings) keeps its old scheme, so
its stored games stay valid and a plan it began goes on with the same dice; its seeds derive
from (league seed, ruleset, names, deal) by splitmix64, which one published seed runs backwards,
and ``league run`` says so in one line (:func:`legacy_warning`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.leagues.entries import Entry
from arena.tournaments.keyed_seeds import SCHEME, SeedKey

#: The settings key that names a league's seed scheme; absent in a league made before it.
SCHEME_KEY = "seed_scheme"
#: Bits of a drawn secret seed.
SECRET_BITS = 128


def draw_secret() -> int:
    """A new league's secret seed, from the operating system's random source."""
    return secrets.randbits(SECRET_BITS)


def keyed(settings: dict[str, Any]) -> bool:
    """True if the league's game seeds are keyed (every league made since keyed seeds)."""
    return settings.get(SCHEME_KEY) == SCHEME


def entry_identity(entry: Entry) -> str:
    """What a pair's key hashes of an entry: one version of one entrant, never another's."""
    return f"{entry.id}\x1f{entry.name}\x1f{entry.version}\x1f{entry.content_sha256}"


def plan_seed_key(settings: dict[str, Any], entries: Sequence[Entry]) -> SeedKey | None:
    """The seed key of a plan (a gauntlet of ``entries[0]`` against the others): the keys of
    its pairs only; None for a league of the old scheme."""
    if not keyed(settings):
        return None
    tables = [(0, j) for j in range(1, len(entries))]
    return SeedKey.of(settings["seed"], [entry_identity(e) for e in entries], tables)


def settings_problem(settings: dict[str, Any]) -> str | None:
    """What is wrong with a league's seed settings, in a few words, or None: a seed that is not
    a whole number, or a scheme this arena does not know (a newer arena's: playing it by the old
    scheme would give other dice than the league's)."""
    seed = settings.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        return f"its seed must be a whole number of at least 0, got {json.dumps(seed)[:40]}"
    scheme = settings.get(SCHEME_KEY, SCHEME)
    if scheme != SCHEME:
        return f"its seed scheme {json.dumps(scheme)[:40]} is not one this arena knows: upgrade arena"
    return None


def legacy_warning(folder: Path, settings: dict[str, Any]) -> str | None:
    """One line for a league of the old scheme, whose seeds give its dice away; else None."""
    if keyed(settings):
        return None
    return (
        f"{folder} was made before league seeds were kept secret: each game seed it shows gives "
        "away its league seed and the dice of games not yet played; start a new league "
        "(arena league init) for a contest"
    )
