"""Players for the Python API: spec strings, classes, ``(class, {params})`` pairs, functions.

Every form becomes the same :class:`~arena.players.PlayerSpec` the command line makes, with the
same label, so a class passed in plays the same games (and writes the same games.csv bytes) as
the same class named on the command line in a file: ``-p bot.py:bank_at=500`` and
``(Bot, {"bank_at": 500})`` are both labelled ``<name>:bank_at=500``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from arena.api.errors import ArenaError
from arena.players import PlayerSpec, StrategyError
from arena.players.loading import LOAD_TIMEOUT, check_player, is_player_class

#: What ``players=[...]`` takes: ``"threshold:bank_at=400"``, ``MyBot``, ``(MyBot, {"x": 1})``,
#: ``("threshold", {"bank_at": 400})``, a decide function, or a resolved PlayerSpec.
PlayerLike = str | type | tuple[Any, Mapping[str, Any]] | Callable[..., Any] | PlayerSpec


def value_text(value: Any) -> str:
    """A parameter value as the command line writes it (``true``/``false`` for booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def params_text(params: Mapping[str, Any]) -> str:
    """``{"bank_at": 500, "min_dice": 3}`` -> ``bank_at=500,min_dice=3`` (the command line's form)."""
    return ",".join(f"{key}={value_text(value)}" for key, value in params.items())


def resolve_player(player: PlayerLike, *, move_timeout: float | None = LOAD_TIMEOUT) -> PlayerSpec:
    """One player argument as a PlayerSpec; raises :class:`ArenaError` with one line.

    A class or function is built once to check it and read its name, in a forked child with
    ``move_timeout`` seconds as on the command line (a constructor that hangs or exits is one
    line, not a hung notebook)."""
    if isinstance(player, PlayerSpec):
        return player
    base, params = player, {}
    if isinstance(player, tuple):
        if len(player) != 2 or not isinstance(player[1], Mapping):
            raise ArenaError(f"a player pair is (class or spec, {{params}}), got {player!r}")
        base, params = player[0], dict(player[1])
        if not all(isinstance(key, str) for key in params):
            raise ArenaError(f"parameter names are text, got {list(params)!r}")
    timeout = LOAD_TIMEOUT if move_timeout is None else move_timeout
    try:
        if isinstance(base, str):
            return _from_text(base, params, timeout)
        if inspect.isclass(base):
            return _from_class(base, params, timeout)
        if callable(base) and not params:
            return _from_class(decider_class(base), {}, timeout)
    except StrategyError as exc:
        raise ArenaError(str(exc)) from None
    raise ArenaError(
        "a player is a spec string ('threshold:bank_at=400', 'bots/my_bot.py'), a Player class, "
        f"a (class, {{params}}) pair or a decide function, got {player!r}"
    )


def _from_text(text: str, params: dict[str, Any], timeout: float) -> PlayerSpec:
    from arena.players.loading import split_spec
    from arena.sandbox import load_player

    if params:
        if split_spec(text.strip())[1] is not None:
            raise ArenaError(f"{text}: give parameters in the spec or in the dict, not both")
        text = f"{text.strip()}:{params_text(params)}"
    return load_player(text, isolate=False, limits=None, move_timeout=timeout)


def _from_class(cls: type, params: dict[str, Any], timeout: float) -> PlayerSpec:
    ref = f"{cls.__module__}:{cls.__qualname__}"
    if not is_player_class(cls):
        raise ArenaError(f"{ref}: {cls.__name__} is not a Player class (it needs a decide method)")
    _check_names(cls, params, ref)
    params = _typed(cls, params, ref)
    name = check_player(cls, params, ref, timeout=timeout)
    text = params_text(params)
    # As load_player_spec labels a spec with parameters (unless the name already shows them).
    label = name if not params or "=" in name else f"{name}:{text}"
    return PlayerSpec(f"{ref}:{text}" if params else ref, label, cls, params, "class")


def _typed(cls: type, params: dict[str, Any], ref: str) -> dict[str, Any]:
    """The values as the command line would make them from ``name=value`` text: a string is
    converted to the parameter's type (``"500"`` -> 500, so the games are the CLI's), and a value
    of the wrong type is one line (``bank_at must be int, got 'lots'``)."""
    from arena.players.loading import convert_param
    from arena.players.parameters import strategy_parameters

    kinds = {p.name: p.kind for p in strategy_parameters(cls)}
    typed = dict(params)
    for key, value in params.items():
        kind = kinds.get(key)
        where = f"{ref}: {key}"
        if isinstance(value, str):
            if kind in (int, float, bool):
                try:
                    typed[key] = convert_param(value, kind, where)
                except StrategyError as exc:
                    raise ArenaError(str(exc)) from None
        elif kind is bool and type(value) is not bool:
            raise ArenaError(f"{where} must be true or false, got {value!r}")
        elif kind in (int, float):
            allowed = (int,) if kind is int else (int, float)
            if type(value) is bool or not isinstance(value, allowed):
                raise ArenaError(f"{where} must be {kind.__name__}, got {value!r}")
    return typed


def _check_names(cls: type, params: Mapping[str, Any], ref: str) -> None:
    """Unknown parameter names are one line naming the accepted ones, as on the command line."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    accepted = [p.name for p in signature.parameters.values() if p.kind in kinds]
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    for key in params:
        if key not in accepted and not takes_any:
            raise ArenaError(
                f"{ref}: unknown parameter {key!r} (parameters: {', '.join(accepted) or 'none'})"
            )


def decider_class(decide: Callable[..., Any]) -> type:
    """A Player class around a plain ``decide(view) -> Action`` function, named after it (the
    form :func:`arena.engine.play` takes)."""
    name = getattr(decide, "__name__", "decider")
    return type(
        name,
        (),
        {
            "name": name,
            "decide": staticmethod(decide),
            "__module__": getattr(decide, "__module__", __name__),
            "__qualname__": getattr(decide, "__qualname__", name),
            "__doc__": inspect.getdoc(decide),
        },
    )
