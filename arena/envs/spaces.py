"""The fixed-shape observation and the discrete action of a seat, with its mask of legal actions.

What a learning agent sees and does, worked out from the engine's own :class:`TurnView` and
checked by the engine's own game (nothing here applies a rule a second time; the mask asks the
view what the game will accept).  Needs only NumPy, so a trained policy plays from it without
Gymnasium (:mod:`arena.envs.table_player`).

**Observation** (``float32``, :func:`observation_size` values), always from the deciding seat's
side: per-seat values start with that seat, then the others in playing order after it.

====================  =======  ===================================================================
part                  values   meaning
====================  =======  ===================================================================
``roll``              6        how many dice of each face (1 to 6) the roll shows
``dice_rolled``       1        dice in this roll
``turn_points``       1        points set aside earlier this turn
``bank_minimum``      1        turn total needed to bank: entry threshold or the bar (000); 0 if none
``roll_number``       1        rolls so far this turn, this one included
``final_round``       1        1 once a seat has reached the target
``playoff``           1        1 in a tie-break turn
``scores``            n        banked scores
``strikes``           n        strikes (rising bar, 000); 0 under other rules
``farkle_streaks``    n        farkles in a row
``entered``           n        1 where the entry threshold no longer applies
====================  =======  ===================================================================

**Action**: ``2 * k + bank``.  ``k`` picks the ``k``-th of the roll's legal keeps in the
engine's order (``view.legal_keeps``: best points first, then most dice left); ``bank`` is 1 to
bank after it, 0 to roll the dice left.  :func:`action_count` is ``2 * max_keeps(rules)``, the
most legal keeps any roll of the ruleset has.

**Mask** (``int8``, one per action, as sb3-contrib's MaskablePPO and PettingZoo's classic games
use it): 1 where the game accepts the action.  Rolling on after any keep is always accepted;
banking where :meth:`TurnView.bank_allowed` says so, or where the keep passes an exact target
(001: the turn is forfeited whatever ``bank`` says).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from arena.engine import Action, Keep, Ruleset, TurnView, score_table

#: The bound of every observation value: scores have no rule's bound, so a finite one far above
#: any game's (a game ends at its target or after at most 1000 rounds).
OBSERVATION_HIGH = 1e9
#: Observation values before the per-seat parts.
_HEAD = 12
#: Per-seat parts: scores, strikes, farkle streaks, entered.
_PER_SEAT = 4


@lru_cache(maxsize=64)
def max_keeps(rules: Ruleset) -> int:
    """The most legal keeps that any roll of ``rules`` allows (a roll of six dice can have dozens)."""
    return max(len(keeps) for keeps in score_table(rules).keeps.values())


def action_count(rules: Ruleset) -> int:
    """Size of the discrete action space: every keep index, banked or not."""
    return 2 * max_keeps(rules)


def observation_size(n_players: int) -> int:
    return _HEAD + _PER_SEAT * n_players


def observe(view: TurnView) -> np.ndarray:
    """The observation of the seat to decide (see the module docstring for its layout)."""
    seat = view.seat
    counts = [0, 0, 0, 0, 0, 0]
    for face in view.roll:
        counts[face - 1] += 1
    head = [
        len(view.roll),
        view.turn_points,
        view.bank_minimum,
        view.roll_number,
        view.final_round,
        view.playoff,
    ]
    values: list[int | bool] = [*counts, *head]
    for part in (view.scores, view.strikes, view.farkle_streaks, view.entered):
        values += part[seat:]  # the deciding seat first, then the others in playing order
        values += part[:seat]
    return np.array(values, dtype=np.float32)


def may_bank_after(view: TurnView, keep: Keep) -> bool:
    """Whether the game accepts ``bank=True`` after ``keep``: banking is allowed, or the keep
    passes an exact target and forfeits the turn either way (001)."""
    return view.bank_allowed(keep) or view.overshoots(keep)


def action_mask(view: TurnView, size: int) -> np.ndarray:
    """1 for each action the game accepts in ``view``, 0 for the others; ``size`` actions."""
    flags: list[bool] = []
    for keep in view.legal_keeps:
        flags += (True, view.bank_allowed(keep) or view.overshoots(keep))
    mask = np.zeros(size, dtype=np.int8)
    mask[: len(flags)] = flags
    return mask


def decode(view: TurnView, action: int) -> Action | None:
    """The engine's :class:`Action` for ``action``, or None where the mask has it 0."""
    k, bank = divmod(int(action), 2)
    if not 0 <= k < len(view.legal_keeps):
        return None
    keep = view.legal_keeps[k]
    if bank and not may_bank_after(view, keep):
        return None
    return Action(keep.dice, bool(bank))


def encode(view: TurnView, action: Action) -> int:
    """The action number of an engine :class:`Action` that is legal in ``view`` (a strategy's
    decision, to replay it through an environment)."""
    wanted = tuple(sorted(action.keep))
    for k, keep in enumerate(view.legal_keeps):
        if keep.dice == wanted:
            return 2 * k + bool(action.bank)
    raise ValueError(f"keep {action.keep} is not a legal keep of the roll {view.roll}")
