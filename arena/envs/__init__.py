"""Learning bots: a Gymnasium and a PettingZoo environment of the engine's own game, and trained
policies as entries (the ``rl`` extra: ``pip install -e '.[rl]'``).

- :class:`SeatEnv` (:mod:`arena.envs.seat_env`): one seat, the others played by arena player specs;
- :class:`TableEnv` (:mod:`arena.envs.aec_env`): every seat an agent (PettingZoo AEC);
- :mod:`arena.envs.spaces`: the observation, the actions and their mask (NumPy only);
- :mod:`arena.envs.table_player`: a player that plays a saved Q-table (NumPy only);
- :mod:`arena.envs.train_q`: tabular Q-learning, the worked example of ``docs/guides/train-a-bot.md``.

The environments import Gymnasium and PettingZoo when first named here, so the NumPy-only parts
load without the extra.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {"SeatEnv": "arena.envs.seat_env", "TableEnv": "arena.envs.aec_env"}

__all__ = list(_EXPORTS)

#: The modules of the ``rl`` extra.
_EXTRA_MODULES = ("gymnasium", "pettingzoo")


class MissingExtraError(ModuleNotFoundError):
    """The ``rl`` extra is not installed; the message is one line that says how to install it."""


def missing_extra(exc: ModuleNotFoundError) -> ModuleNotFoundError:
    """``exc`` as a :class:`MissingExtraError` if it is a module of the ``rl`` extra, else itself."""
    root = (exc.name or "").split(".")[0]
    if root not in _EXTRA_MODULES:
        return exc
    from arena.distribution import install_hint

    return MissingExtraError(f"arena.envs needs {root}: {install_hint('rl')}", name=exc.name)


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module_name), name)
