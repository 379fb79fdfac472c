"""The search space of ``arena tune``: ``--param`` texts parsed into values, and the grid of
candidate player specs they make.

``NAME=LO..HI/STEP`` is a range (whole numbers when LO, HI and STEP all are, else decimals, kept
exact with :class:`decimal.Decimal` so that ``0.1..0.3/0.1`` gives 0.1, 0.2, 0.3 and no
0.30000000000000004); ``NAME=LO..HI`` steps by 1; ``NAME=a,b,c`` lists values.  Values are
passed to the strategy as spec text (``threshold:bank_at=400,min_dice=3``), so the strategy's
own type hints and checks decide what is accepted (:func:`arena.players.loading.parse_params`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from arena.players.loading import split_spec

#: Candidates a grid may hold at most: each is loaded (and built once) before any game.
MAX_CANDIDATES = 10_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class SpaceError(ValueError):
    """A ``--param`` or a grid that can't be searched; the message is one line."""


@dataclass(frozen=True)
class ParamRange:
    """One tuned parameter: its name and its values as spec text, in order."""

    name: str
    values: tuple[str, ...]

    def text(self) -> str:
        return f"{self.name}={','.join(self.values)}"


def _number(raw: str, where: str) -> Decimal:
    try:
        value = Decimal(raw.strip())
    except InvalidOperation:
        raise SpaceError(f"{where}: {raw.strip()!r} is not a number") from None
    if not value.is_finite():
        raise SpaceError(f"{where}: {raw.strip()!r} is not a finite number")
    return value


def _text(value: Decimal, whole: bool) -> str:
    if whole:
        return str(int(value))
    text = format(value.normalize(), "f")
    return text if "." in text else text + ".0"  # 1.0 stays a float for an untyped parameter


def parse_param(text: str) -> ParamRange:
    """``NAME=LO..HI/STEP``, ``NAME=LO..HI`` or ``NAME=a,b,c`` -> a :class:`ParamRange`."""
    name, eq, rest = text.partition("=")
    name, rest = name.strip(), rest.strip()
    if not eq or not _NAME.match(name):
        raise SpaceError(f"--param {text!r}: expected NAME=LO..HI/STEP or NAME=a,b,c")
    where = f"--param {name}"
    if not rest:
        raise SpaceError(f"{where}: no values")
    if ".." not in rest:
        values = tuple(v.strip() for v in rest.split(","))
        if any(not v for v in values):
            raise SpaceError(f"{where}: an empty value in {rest!r}")
        if len(set(values)) != len(values):
            raise SpaceError(f"{where}: a value is listed twice in {rest!r}")
        return ParamRange(name, values)
    span, slash, step_text = rest.partition("/")
    low_text, _, high_text = span.partition("..")
    low, high = _number(low_text, where), _number(high_text, where)
    step = _number(step_text, where) if slash else Decimal(1)
    if step <= 0:
        raise SpaceError(f"{where}: the step must be positive, got {step_text.strip()}")
    if high < low:
        raise SpaceError(f"{where}: {low_text.strip()}..{high_text.strip()} is empty (HI is below LO)")
    count = int((high - low) / step) + 1
    if count > MAX_CANDIDATES:
        raise SpaceError(f"{where}: {count:,} values; at most {MAX_CANDIDATES:,}")
    whole = all(x == x.to_integral_value() and "." not in str(x) for x in (low, high, step))
    whole = whole and all("." not in t and "e" not in t.lower() for t in (low_text, high_text, step_text))
    return ParamRange(name, tuple(_text(low + i * step, whole) for i in range(count)))


@dataclass(frozen=True)
class Grid:
    """Every combination of the tuned values, on top of the base spec's fixed parameters."""

    reference: str  # the strategy, without parameters: threshold, strategies/bot.py:Bot
    fixed: str  # the base spec's own parameters, "" if none
    params: tuple[ParamRange, ...]

    def settings(self) -> list[tuple[str, ...]]:
        """Each candidate's values, one per tuned parameter, first parameter slowest."""
        return list(itertools.product(*(p.values for p in self.params)))

    def spec_text(self, values: tuple[str, ...]) -> str:
        """The player spec of one candidate, e.g. ``threshold:min_dice=3,bank_at=400``."""
        tuned = ",".join(f"{p.name}={v}" for p, v in zip(self.params, values, strict=True))
        return f"{self.reference}:{self.fixed + ',' if self.fixed else ''}{tuned}"

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)


def make_grid(spec: str, params: list[ParamRange] | tuple[ParamRange, ...]) -> Grid:
    """The grid of ``params`` on the strategy ``spec`` (whose own parameters stay fixed)."""
    if not params:
        raise SpaceError("give at least one --param NAME=LO..HI/STEP (or NAME=a,b,c) to tune")
    reference, fixed = split_spec(spec.strip())
    fixed_names = {item.partition("=")[0].strip() for item in (fixed or "").split(",") if item}
    names = [p.name for p in params]
    for name in names:
        if names.count(name) > 1:
            raise SpaceError(f"--param {name} is given twice")
        if name in fixed_names:
            raise SpaceError(f"{name} is fixed in the spec {spec!r} and tuned by --param: choose one")
    count = 1
    for p in params:
        count *= len(p.values)
    if count > MAX_CANDIDATES:
        raise SpaceError(f"the grid has {count:,} candidates; at most {MAX_CANDIDATES:,}")
    if count == 1:
        raise SpaceError(
            "the grid has one setting: nothing to race (give a --param two values or more; "
            "arena duel or arena tournament measures one setting)"
        )
    return Grid(reference, fixed or "", tuple(params))
