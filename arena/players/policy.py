"""Declarative strategies: a :class:`Policy` says how to keep and when to bank, as data.

A strategy that carries a ``policy`` (a class attribute, or a property for one built from its
parameters) describes its whole play in a few values.  :class:`PolicyPlayer` interprets the
description in Python; :mod:`arena.compiled` interprets the same description in a compiled
kernel, so a tournament whose every seat has one can run many times faster with identical games.

A decision is made after each scoring roll, in this order:

1. **Which dice to keep** (``keep``), chosen among the legal keeps that do not pass an exact
   target (all keeps if every one does; see ``keeps_within_target``):

   - ``"most_points"``: the keep worth most points (the first legal keep);
   - ``"most_dice"``: the keep with most dice, then most points (greedy);
   - ``"fewest_dice"``: the keep with fewest dice, then most points (one die at a time);
   - ``"weighted"``: the keep with the most ``points + die_worth * dice left``, then most
     points (a die left in the cup is worth ``die_worth`` points);
   - ``"random"``: a uniformly random legal keep (from all legal keeps), drawn from the
     player's :class:`RandomStream`;
   - ``"optimal"``: the keep of the turn solver (:mod:`arena.players.solver`); goes with
     ``bank="optimal"``.

   With ``total`` the turn's points after that keep and ``left`` the dice left in the cup (all
   of them after hot dice), and ``leader`` the top score among the *other* seats (0 alone):

2. **On target** (``bank_on_target``, rules ``"threshold"`` and ``"table"``): bank if that
   reaches the target.
3. **Catch-up** (``catch_up``, rules ``"threshold"`` and ``"table"``): in the final round, when
   the player's score is below ``leader``, bank the keep with most points among those whose
   bank gets past ``leader``; if there is none, roll on.  The bank rule is not asked.
4. **The bank rule** (``bank``):

   - ``"threshold"``: bank when ``total >= limit``, with ``limit`` the ``bank_at`` value (one
     number, or six: one per ``left`` from 1 to 6) scaled by the score gap: when ``leader -
     score > margin`` it becomes ``limit * behind_scale[0] // behind_scale[1]``, when ``score -
     leader > margin`` it becomes ``limit * ahead_scale[0] // ahead_scale[1]``, with ``margin =
     target * lead_margin[0] // lead_margin[1]`` (integer arithmetic throughout);
   - ``"table"``: bank when ``table[left - 1][min(total // 50, columns - 1)]`` is true: a
     bank-or-roll table by situation, its last column standing for every larger total;
   - ``"random"``: bank with probability 1/2 whenever banking is allowed (the coin is drawn
     only then);
   - ``"optimal"``: bank when the solver's expected value of rolling on is no more than
     ``total``.

   ``"threshold"`` and ``"table"`` also bank when fewer than ``min_dice`` dice are left.

5. **The keep to roll on** (``roll_keep``): when the policy rolls on, it keeps what
   ``roll_keep`` picks (any rule but ``"optimal"``, a random one drawn after any coin) instead
   of the keep of step 1; ``None`` (the default) rolls on with that keep.

No rule banks where the rules forbid it (below the entry threshold or bar, right after hot dice
under ``must_roll_after_hot_dice``) or where the keep passes an exact target.  The built-in
``tactician`` is the example that uses steps 2 to 5 (see its ``policy``).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine import Action, Keep, TurnView
from arena.engine.dice import _GOLDEN, _MASK, _mix
from arena.engine.rules import POINT_STEP
from arena.players.builtin.common import hits_target, keeps_within_target
from arena.players.protocol import GameInfo

KEEP_RULES: tuple[str, ...] = ("most_points", "most_dice", "fewest_dice", "random", "optimal", "weighted")
BANK_RULES: tuple[str, ...] = ("threshold", "table", "random", "optimal")
#: Dice a ruleset may have at most: ``bank_at`` and ``table`` give one entry per dice left.
MAX_DICE_LEFT = 6
#: A table's columns at most (totals up to 100,000 points in steps of 50).
MAX_TABLE_COLUMNS = 2000
#: The largest ``bank_at`` (far above any target the kernel plays; with the scales' bound it
#: keeps the kernel's 64-bit products ``bank_at * numerator`` far from overflow).
MAX_BANK_AT = 10**9
#: The largest numerator or denominator of ``lead_margin``, ``behind_scale`` and ``ahead_scale``.
MAX_FRACTION_PART = 10_000
#: The largest ``die_worth``.
MAX_DIE_WORTH = 100_000


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


def _check_fraction(name: str, value: object) -> None:
    """Raise a one-line ValueError unless ``value`` is (numerator, denominator) in whole numbers."""
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or any(type(part) is not int for part in value)
        or not 0 <= value[0] <= MAX_FRACTION_PART
        or not 1 <= value[1] <= MAX_FRACTION_PART
    ):
        raise ValueError(
            f"policy {name} must be (numerator, denominator), whole numbers 0 to {MAX_FRACTION_PART} "
            f"and 1 to {MAX_FRACTION_PART}, got {value!r}"
        )


@dataclass(frozen=True)
class Policy:
    """How a strategy keeps and banks, as data (see the module docstring for the meaning).

    The defaults of the score-aware fields (``lead_margin``, ``behind_scale``, ``ahead_scale``,
    ``catch_up``, ``roll_keep``, ``die_worth``) change nothing, so a policy that leaves them out
    plays as it did before they existed.
    """

    keep: str = "most_points"
    bank: str = "threshold"
    bank_at: int | tuple[int, ...] = 300
    min_dice: int = 1
    bank_on_target: bool = True
    table: tuple[tuple[bool, ...], ...] = ()
    #: The score gap (a fraction of the target) beyond which the player counts as behind or ahead.
    lead_margin: tuple[int, int] = (0, 1)
    #: What the threshold's limit is multiplied by when behind by more than the margin.
    behind_scale: tuple[int, int] = (1, 1)
    #: ... and when ahead by more than the margin.
    ahead_scale: tuple[int, int] = (1, 1)
    #: In the final round, when behind: bank only past the leader (most points), else roll on.
    catch_up: bool = False
    #: The keep rule to roll on with; None: the keep of ``keep``.
    roll_keep: str | None = None
    #: Points one die left in the cup is worth, for the ``"weighted"`` keep rule.
    die_worth: int = 0

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
            if type(value) is not int or not 0 <= value <= MAX_BANK_AT:
                raise ValueError(f"policy bank_at must be whole numbers 0 to {MAX_BANK_AT:,}, got {value!r}")
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
        self._check_score_aware()

    def _check_score_aware(self) -> None:
        """Validate the fields added for score-aware play (each a one-line ValueError)."""
        for name in ("lead_margin", "behind_scale", "ahead_scale"):
            _check_fraction(name, getattr(self, name))
        if self.bank != "threshold" and (self.behind_scale != (1, 1) or self.ahead_scale != (1, 1)):
            raise ValueError("policy behind_scale and ahead_scale go with bank='threshold'")
        if self.lead_margin != (0, 1) and self.behind_scale == (1, 1) and self.ahead_scale == (1, 1):
            raise ValueError("policy lead_margin goes with behind_scale or ahead_scale")
        if type(self.catch_up) is not bool:
            raise ValueError(f"policy catch_up must be True or False, got {self.catch_up!r}")
        if self.catch_up and self.bank not in ("threshold", "table"):
            raise ValueError("policy catch_up goes with bank='threshold' or bank='table'")
        roll_rules = tuple(r for r in KEEP_RULES if r != "optimal")
        if self.roll_keep is not None and self.roll_keep not in roll_rules:
            raise ValueError(
                f"policy roll_keep must be None or one of {', '.join(roll_rules)}, got {self.roll_keep!r}"
            )
        if self.roll_keep is not None and self.bank == "optimal":
            raise ValueError("policy roll_keep does not go with bank='optimal' (the solver keeps to roll on)")
        if type(self.die_worth) is not int or not 0 <= self.die_worth <= MAX_DIE_WORTH:
            raise ValueError(f"policy die_worth must be 0 to {MAX_DIE_WORTH} points, got {self.die_worth!r}")
        if self.die_worth and "weighted" not in (self.keep, self.roll_keep):
            raise ValueError("policy die_worth goes with keep='weighted' or roll_keep='weighted'")

    def bank_at_for(self, dice_left: int) -> int:
        """The turn total at which the threshold rule banks with ``dice_left`` dice in the cup
        (before any scaling by the score gap; see :meth:`limit_for`)."""
        at = self.bank_at
        return at[dice_left - 1] if isinstance(at, tuple) else at

    def limit_for(self, dice_left: int, gap: int, target: int) -> int:
        """The threshold rule's limit with ``dice_left`` dice in the cup, ``gap`` points behind
        the leader among the other seats (negative: ahead), under a ruleset's ``target``."""
        limit = self.bank_at_for(dice_left)
        margin = target * self.lead_margin[0] // self.lead_margin[1]
        if gap > margin:
            limit = limit * self.behind_scale[0] // self.behind_scale[1]
        elif -gap > margin:
            limit = limit * self.ahead_scale[0] // self.ahead_scale[1]
        return limit


def pick_keep(rule: str, policy: Policy, view: TurnView, stream: RandomStream) -> Keep:
    """The keep that keep ``rule`` (any but ``"optimal"``) picks in ``view``."""
    keeps: tuple[Keep, ...]
    if rule == "random":
        keeps = view.legal_keeps
        return keeps[stream.below(len(keeps))]
    keeps = keeps_within_target(view)
    if rule == "most_points":
        return keeps[0]
    if rule == "most_dice":
        return max(keeps, key=lambda k: (len(k.dice), k.points))
    if rule == "weighted":
        worth = policy.die_worth
        return max(keeps, key=lambda k: (k.points + worth * k.dice_left, k.points))
    return min(keeps, key=lambda k: len(k.dice))  # fewest dice; the first has the most points


def choose_keep(policy: Policy, view: TurnView, stream: RandomStream) -> Keep:
    """The keep ``policy`` picks in ``view`` (not for ``"optimal"``)."""
    return pick_keep(policy.keep, policy, view, stream)


def leader_score(view: TurnView) -> int:
    """The top score among the other seats (0 if there are none)."""
    return max((s for seat, s in enumerate(view.scores) if seat != view.seat), default=0)


def decide_by_policy(policy: Policy, view: TurnView, stream: RandomStream) -> Action:
    """The action ``policy`` takes in ``view``; random choices come from ``stream``.

    The steps in the order of the module docstring: keep, on target, catch-up, bank rule, the
    keep to roll on."""
    if policy.keep == "optimal":
        from arena.players.solver import optimal_action  # the solver needs numpy

        return optimal_action(view)
    keep = choose_keep(policy, view, stream)
    bankable = view.bank_allowed(keep) and not view.overshoots(keep)
    if policy.bank == "random":
        if view.bank_allowed(keep) and stream.coin():
            return Action(keep.dice, True)  # an overshoot forfeits the turn whatever it says
        return _roll_on(policy, view, stream, keep)
    if policy.bank_on_target and bankable and hits_target(view, keep):
        return Action(keep.dice, True)
    leader = leader_score(view)
    if policy.catch_up and view.final_round and view.score < leader:
        past = [
            k
            for k in keeps_within_target(view)
            if view.score + view.turn_points + k.points > leader
            and view.bank_allowed(k)
            and not view.overshoots(k)
        ]
        if past:
            return Action(max(past, key=lambda k: k.points).dice, True)
        return _roll_on(policy, view, stream, keep)
    total = view.turn_points + keep.points
    left = keep.dice_left
    if policy.bank == "threshold":
        wants = total >= policy.limit_for(left, leader - view.score, view.rules.target)
    else:
        row = policy.table[left - 1]
        wants = row[min(total // POINT_STEP, len(row) - 1)]
    if (wants or left < policy.min_dice) and bankable:
        return Action(keep.dice, True)
    return _roll_on(policy, view, stream, keep)


def _roll_on(policy: Policy, view: TurnView, stream: RandomStream, keep: Keep) -> Action:
    """Roll on, keeping ``roll_keep``'s pick (or ``keep`` when there is no ``roll_keep``)."""
    if policy.roll_keep is not None:
        keep = pick_keep(policy.roll_keep, policy, view, stream)
    return Action(keep.dice, False)


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
    overrides ``decide`` (or a hook) below the class that declared the policy (a subclass of
    ``greedy`` with its own ``decide`` does not play greedy's policy, so it must play in Python),
    or if it has an ``end_turn`` hook, which only a game played in Python calls.
    A :class:`PolicyPlayer` whose ``decide`` is the interpreter always plays its policy.  Only a
    :class:`Policy` itself counts: a subclass could override what the kernel reads as data."""
    policy = getattr(player, "policy", None)
    if type(policy) is not Policy:
        return None  # a subclass of Policy may interpret itself otherwise than the kernel does
    if getattr(type(player), "end_turn", None) is not None:
        return None  # the kernel tells no hook how turns end: a player that asks plays in Python
    cls = type(player)
    if all(getattr(cls, name, None) is getattr(PolicyPlayer, name, None) for name in PLAYING_METHODS):
        return policy
    declaring = next((c for c in cls.__mro__ if "policy" in vars(c)), None)
    if declaring is None or any(
        getattr(cls, name, None) is not getattr(declaring, name, None) for name in PLAYING_METHODS
    ):
        return None
    return policy
