"""A strategy's parameters: the keyword arguments of its constructor, with their types and defaults.

A player spec passes them after the reference, ``threshold:bank_at=400,min_dice=2`` or
``mybots/steady.py:bank_at=500``, and ``arena strategies list`` shows them.  A parameter's type
is its annotation in ``__init__``, else the type of its default; values are converted to it.
"""

from __future__ import annotations

import inspect
import json
import typing
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    """One constructor parameter a player spec may set."""

    name: str
    kind: Any  # the type its value is converted to (an annotation), or None: a guessed number or text
    default: Any = inspect.Parameter.empty

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty

    @property
    def type_name(self) -> str:
        """``int``, ``float``, ``int | None``; ``any`` for a parameter with neither annotation nor default."""
        if self.kind is None:
            return "any"
        if isinstance(self.kind, type):
            return self.kind.__name__
        return str(self.kind).replace("typing.", "")

    def shown(self) -> str:
        """``bank_at: int = 300`` (as in a signature), or ``name: str (required)``."""
        if self.required:
            return f"{self.name}: {self.type_name} (required)"
        return f"{self.name}: {self.type_name} = {self.default!r}"

    def as_json(self) -> dict[str, Any]:
        default = None if self.required else self.default
        try:
            json.dumps(default)
        except (TypeError, ValueError):
            default = repr(default)  # a default JSON can't hold is shown as Python writes it
        return {"name": self.name, "type": self.type_name, "default": default, "required": self.required}


def strategy_parameters(cls: type) -> list[Parameter]:
    """The parameters of ``cls``'s constructor a spec may set (not ``*args``/``**kwargs``), in order.

    The type is the annotation of ``__init__`` (read with :func:`typing.get_type_hints`, so string
    annotations work), else the type of a default other than None, else unknown (None)."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # a class whose signature can't be read takes no parameters here
        return []
    try:
        # mypy: "__init__ on an instance is unsound"; only its annotations are read here, not called.
        hints = typing.get_type_hints(cls.__init__)  # type: ignore[misc]
    except Exception:  # an annotation that names something undefined: fall back to the defaults
        hints = {}
    found = []
    for p in signature.parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        kind = hints.get(p.name)
        if kind is None and p.default is not p.empty and p.default is not None:
            kind = type(p.default)
        found.append(Parameter(p.name, kind, p.default))
    return found
