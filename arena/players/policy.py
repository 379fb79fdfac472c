"""Declarative strategies: a :class:`Policy` says how to keep and when to bank, as data.

A strategy that carries a ``policy`` (a class attribute, or a property for one built from its
parameters) describes its whole play in a few values.  :class:`PolicyPlayer` interprets the
description in Python; :mod:`arena.compiled` interprets the same description in a compiled
kernel, so a tournament whose every seat has one can run many times faster with identical games.

A decision is made in two steps, after each scoring roll:

1. **Which dice to keep** (``keep``), chosen among the legal keeps that do not pass an exact
   target (all keeps if every one does; see ``keeps_within_target``):

   - ``"most_points"``: the keep worth most points (the first legal keep);
   - ``"most_dice"``: the keep with most dice, then most points (greedy);
   - ``"fewest_dice"``: the keep with fewest dice, then most points (one die at a time);
   - ``"random"``: a uniformly random legal keep (from all legal keeps), drawn from the
     player's :class:`RandomStream`;
   - ``"optimal"``: the keep of the turn solver (:mod:`arena.players.solver`); goes with
     ``bank="optimal"``.

2. **Whether to bank** (``bank``) after that keep, with ``total`` the turn's points after it
   and ``left`` the dice left in the cup (all of them after hot dice):

   - ``"threshold"``: bank when ``total >= bank_at`` (one number, or six: one per ``left``
     from 1 to 6);
   - ``"table"``: bank when ``table[left - 1][min(total // 50, columns - 1)]`` is true: a
     bank-or-roll table by situation, its last column standing for every larger total;
   - ``"random"``: bank with probability 1/2 whenever banking is allowed (the coin is drawn
     only then);
   - ``"optimal"``: bank when the solver's expected value of rolling on is no more than
     ``total``.

   ``"threshold"`` and ``"table"`` also bank when fewer than ``min_dice`` dice are left, and
   (with ``bank_on_target``) when banking reaches the target.  No rule banks where the rules
   forbid it (below the entry threshold or bar, right after hot dice under
   ``must_roll_after_hot_dice``) or where the keep passes an exact target.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine import Action, Keep, TurnView
from arena.engine.dice import _GOLDEN, _MASK, _mix
from arena.engine.rules import POINT_STEP
from arena.players.builtin.common import hits_target, keeps_within_target
from arena.players.protocol import GameInfo

KEEP_RULES: tuple[str, ...] = ("most_points", "most_dice", "fewest_dice", "random", "optimal")
BANK_RULES: tuple[str, ...] = ("threshold", "table", "random", "optimal")
#: Dice a ruleset may have at most: ``bank_at`` and ``table`` give one entry per dice left.
MAX_DICE_LEFT = 6
#: A table's columns at most (totals up to 100,000 points in steps of 50).
MAX_TABLE_COLUMNS = 2000


class RandomStream:
    """A counter-based random stream: the i-th draw (from 0) is
    ``splitmix64_mix(seed + (i + 1) * 0x9E3779B97F4A7C15 mod 2**64)``, a 64-bit integer.

    The same function as the dice streams of :mod:`arena.engine.dice` (Steele, Lea and Flood,
    "Fast splittable pseudorandom number generators", OOPSLA 2014), keyed on the seat's
    ``GameInfo.strategy_seed`` (a keyed hash, so it reveals nothing about the dice).  Being a
    pure function of (seed, counter), the compiled kernel draws exactly the same numbers.
    """

    __slots__ = ("count", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed & _MASK
        self.count = 0

    def next(self) -> int:
        """The next 64-bit draw."""
        self.count += 1
        return _mix((self.seed + self.count * _GOLDEN) & _MASK)

    def below(self, n: int) -> int:
        """A number from 0 to n-1 (the draw modulo n; the bias is below n / 2**64)."""
        return self.next() % n

    def coin(self) -> bool:
        """True with probability 1/2 (the draw's top bit is 0)."""
        return self.next() < 1 << 63


@dataclass(frozen=True)
class Policy:
    """How a strategy keeps and banks, as data (see the module docstring for the meaning)."""

    keep: str = "most_points"
    bank: str = "threshold"
    bank_at: int | tuple[int, ...] = 300
    min_dice: int = 1
    bank_on_target: bool = True
    table: tuple[tuple[bool, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.keep not in KEEP_RULES:
            raise ValueError(f"policy keep must be one of {', '.join(KEEP_RULES)}, got {self.keep!r}")
        if self.bank not in BANK_RULES:
            raise ValueError(f"policy bank must be one of {', '.join(BANK_RULES)}, got {self.bank!r}")
        if (self.keep == "optimal") != (self.bank == "optimal"):
            raise ValueError("policy keep='optimal' and bank='optimal' go together (the solver decides both)")
        at = self.bank_at
        values = at if isinstance(at, tuple) else (at,)
        if isinstance(at, tuple) and len(at) != MAX_DICE_LEFT:
            raise ValueError(f"policy bank_at must be one number or six (dice left 1 to 6), got {len(at)}")
        for value in values:
            if type(value) is not int or value < 0:
                raise ValueError(f"policy bank_at must be whole numbers of zero or more, got {value!r}")
        if type(self.min_dice) is not int or not 1 <= self.min_dice <= MAX_DICE_LEFT:
            raise ValueError(f"policy min_dice must be 1 to 6, got {self.min_dice!r}")
        if type(self.bank_on_target) is not bool:
            raise ValueError(f"policy bank_on_target must be True or False, got {self.bank_on_target!r}")
        if self.bank == "table":
            table = self.table
            if not isinstance(table, tuple) or len(table) != MAX_DICE_LEFT:
                raise ValueError("policy table must be six rows (dice left 1 to 6), each a tuple of bools")
            widths = {len(row) if isinstance(row, tuple) else -1 for row in table}
            if len(widths) != 1 or not 1 <= widths.pop() <= MAX_TABLE_COLUMNS:
                raise ValueError(
                    f"policy table rows must be tuples of the same length, 1 to {MAX_TABLE_COLUMNS} columns"
                )
            if any(type(cell) is not bool for row in table for cell in row):
                raise ValueError("policy table cells must be True (bank) or False (roll on)")
        elif self.table:
            raise ValueError("policy table goes with bank='table'")

    def bank_at_for(self, dice_left: int) -> int:
        """The turn total at which the threshold rule banks with ``dice_left`` dice in the cup."""
        at = self.bank_at
        return at[dice_left - 1] if isinstance(at, tuple) else at


def choose_keep(policy: Policy, view: TurnView, stream: RandomStream) -> Keep:
    """The keep ``policy`` picks in ``view`` (not for ``"optimal"``)."""
    rule = policy.keep
    if rule == "random":
        keeps = view.legal_keeps
        return keeps[stream.below(len(keeps))]
    keeps = keeps_within_target(view)
    if rule == "most_points":
        return keeps[0]
    if rule == "most_dice":
        return max(keeps, key=lambda k: (len(k.dice), k.points))
    return min(keeps, key=lambda k: len(k.dice))  # fewest dice; the first has the most points


def decide_by_policy(policy: Policy, view: TurnView, stream: RandomStream) -> Action:
    """The action ``policy`` takes in ``view``; random choices come from ``stream``."""
    if policy.keep == "optimal":
        from arena.players.builtin.optimal import optimal_action  # the solver needs numpy

        return optimal_action(view)
    keep = choose_keep(policy, view, stream)
    if policy.bank == "random":
        return Action(keep.dice, view.bank_allowed(keep) and stream.coin())
    total = view.turn_points + keep.points
    left = keep.dice_left
    if policy.bank == "threshold":
        wants = total >= policy.bank_at_for(left)
    else:
        row = policy.table[left - 1]
        wants = row[min(total // POINT_STEP, len(row) - 1)]
    wants = wants or left < policy.min_dice or (policy.bank_on_target and hits_target(view, keep))
    return Action(keep.dice, wants and view.bank_allowed(keep) and not view.overshoots(keep))


class PolicyPlayer:
    """A strategy that is its :class:`Policy`: write only the description, e.g.::

        class Careful(PolicyPlayer):
            name = "careful"
            policy = Policy(keep="fewest_dice", bank_at=(250, 300, 400, 800, 1500, 3000))

    Its ``decide`` interprets the policy, so a tournament can also play it in the compiled
    kernel (:mod:`arena.compiled`) with the same games.
    """

    name = "policy"
    policy: Policy = Policy()

    def __init__(self) -> None:
        if not isinstance(self.policy, Policy):
            raise ValueError(f"{type(self).__name__}.policy must be a Policy, got {self.policy!r}")
        self._stream = RandomStream(0)

    def start_game(self, info: GameInfo) -> None:
        self._stream = RandomStream(info.strategy_seed)

    def decide(self, view: TurnView) -> Action:
        return decide_by_policy(self.policy, view, self._stream)


#: The methods through which a strategy plays: a class that changes one of them below the class
#: that declared its policy plays something else than that policy.
PLAYING_METHODS = ("decide", "start_game", "end_game")


def policy_of(player: object) -> Policy | None:
    """The policy a player object declares, or None if it declares none, or if its class
    overrides ``decide`` (or a hook) below the class that declared the policy: a subclass of
    ``greedy`` with its own ``decide`` does not play greedy's policy, so it must play in Python.
    A :class:`PolicyPlayer` whose ``decide`` is the interpreter always plays its policy."""
    policy = getattr(player, "policy", None)
    if not isinstance(policy, Policy):
        return None
    cls = type(player)
    if all(getattr(cls, name, None) is getattr(PolicyPlayer, name, None) for name in PLAYING_METHODS):
        return policy
    declaring = next((c for c in cls.__mro__ if "policy" in vars(c)), None)
    if declaring is None or any(
        getattr(cls, name, None) is not getattr(declaring, name, None) for name in PLAYING_METHODS
    ):
        return None
    return policy
