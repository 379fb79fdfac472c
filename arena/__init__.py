"""arena: write bots for the dice game 10,000 and pit them against each other.

``arena.tune(...)`` tunes a strategy's parameters (see :mod:`arena.tuning`); it is imported on
first use, so ``import arena`` stays light."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "tune":
        from arena.tuning import tune

        return tune
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
