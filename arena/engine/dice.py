"""Dice: multisets as integer keys, and the seeded streams that roll them.

**Keys.**  A roll is a multiset: which faces, how often, in no order.  All rolls of 1 to 6 dice
are 923 multisets.  A multiset is encoded as one integer, three bits of count per face
(``key = sum(count[f] << 3 * (f - 1))``), so adding a die is adding :data:`FACE_KEY` ``[face]``
and every per-roll question becomes a dictionary lookup in tables built once per ruleset.

**Streams.**  A game is fully determined by its seed and the players' decisions.  The dice of a
seat's k-th turn come from a stream derived from (game seed, seat position, k): the j-th roll of
that turn is a pure function of those four numbers (splitmix64, a counter-based generator), so
two games of one deal with the players' seats swapped give each seat position the same dice
(duplicate play), whatever happened earlier in either game.  No object holds generator state, so
there is nothing a player could reach to change the dice.

The j-th roll of n dice takes the low n base-6 digits of one 64-bit draw: a seat that rolls fewer
dice sees the first dice of what it would have rolled with more.
"""

from __future__ import annotations

from collections.abc import Iterable

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
MAX_DICE = 6
#: ``FACE_KEY[face]`` is what one die of that face adds to a multiset key.
FACE_KEY: dict[int, int] = {face: 1 << (3 * (face - 1)) for face in FACES}
#: ``POW6[n]`` outcomes of n ordered dice.
POW6: tuple[int, ...] = tuple(6**n for n in range(MAX_DICE + 1))

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def key_of(dice: Iterable[int]) -> int:
    """The multiset key of some dice; raises ``KeyError`` for a value that is not a face."""
    key = 0
    for die in dice:
        key += FACE_KEY[die]
    return key


def counts_of(key: int) -> tuple[int, int, int, int, int, int]:
    """How many dice show each face 1..6."""
    return (key & 7, key >> 3 & 7, key >> 6 & 7, key >> 9 & 7, key >> 12 & 7, key >> 15 & 7)


def key_from_counts(counts: Iterable[int]) -> int:
    return sum(c << (3 * i) for i, c in enumerate(counts))


def faces_of(key: int) -> tuple[int, ...]:
    """The dice of a multiset in ascending order."""
    return tuple(face for face, c in zip(FACES, counts_of(key), strict=True) for _ in range(c))


def all_multisets(n_dice: int) -> list[int]:
    """Keys of every multiset of exactly ``n_dice`` dice, in ascending key order."""
    keys = {0}
    for _ in range(n_dice):
        keys = {k + FACE_KEY[f] for k in keys for f in FACES}
    return sorted(keys)


def _outcome_tables() -> tuple[tuple[int, ...], ...]:
    # OUTCOME_KEYS[n][i]: the key of the n dice whose faces are the base-6 digits of i, lowest
    # digit first.  Built outward so that OUTCOME_KEYS[n][i % 6**n] agrees with the larger tables.
    tables: list[tuple[int, ...]] = [(0,)]
    for _ in range(MAX_DICE):
        prev = tables[-1]
        tables.append(tuple(low + FACE_KEY[f] for f in FACES for low in prev))
    return tuple(tables)


OUTCOME_KEYS: tuple[tuple[int, ...], ...] = _outcome_tables()


def _mix(z: int) -> int:
    """The splitmix64 finaliser: a bijection of 64-bit integers with strong avalanche."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
    return z ^ (z >> 31)


def derive_seed(*parts: int) -> int:
    """A 64-bit seed that depends on every part and on their order.

    Parts may be any integers (negative or wider than 64 bits are folded in 64-bit pieces).
    """
    h = 0x243F6A8885A308D3
    for part in parts:
        if part < 0:
            part = -part * 2 + 1  # distinct from every non-negative part
        while True:
            h = _mix((h + _GOLDEN + (part & _MASK)) & _MASK)
            part >>= 64
            if not part:
                break
    return h


def turn_stream(game_seed: int, seat: int, turn: int) -> int:
    """The stream of a seat position's ``turn``-th turn (counted from 0) in one game."""
    return derive_seed(game_seed, seat, turn)


def seat_streams(game_seed: int, n_seats: int) -> list[int]:
    """Per seat, the base from which :func:`next_turn_stream` derives each turn's stream.

    ``next_turn_stream(seat_streams(s, n)[seat], turn) == turn_stream(s, seat, turn)``; the game
    loop uses the two-step form to do a third of the work per turn.
    """
    return [derive_seed(game_seed, seat) for seat in range(n_seats)]


def next_turn_stream(seat_base: int, turn: int) -> int:
    return _mix((seat_base + _GOLDEN + turn) & _MASK)


def roll_key(stream: int, index: int, n_dice: int) -> int:
    """The multiset rolled as the ``index``-th roll (from 0) of a turn's stream, with n dice."""
    draw = _mix((stream + (index + 1) * _GOLDEN) & _MASK)
    return OUTCOME_KEYS[n_dice][draw % POW6[n_dice]]


class ScriptedDice:
    """A roller that hands out given rolls in order, for tests and replays of real games.

    Pass it as ``Game(..., roller=ScriptedDice(rolls))``.  Each roll must have as many dice as
    the game asks for; running out of rolls is an error, so a script can't silently go stale.
    """

    def __init__(self, rolls: Iterable[Iterable[int]]) -> None:
        self._rolls = [tuple(r) for r in rolls]
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._rolls) - self._next

    def __call__(self, stream: int, index: int, n_dice: int) -> int:
        if self._next >= len(self._rolls):
            raise LookupError(f"scripted dice ran out after {len(self._rolls)} rolls")
        roll = self._rolls[self._next]
        if len(roll) != n_dice:
            raise ValueError(f"scripted roll {self._next} is {roll}, but {n_dice} dice are rolled")
        self._next += 1
        return key_of(roll)
