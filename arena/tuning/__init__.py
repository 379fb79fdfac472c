"""Tuning: find the best parameters of a strategy by racing its settings on duplicate dice.

``arena.tune(...)`` (or ``arena tune`` on the command line) plays a grid of settings of one
strategy against a field of opponents, drops settings significantly worse than the leader round
by round (:mod:`arena.tuning.race`) and writes a run folder (:mod:`arena.tuning.runner`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from arena.api.errors import ArenaError
from arena.api.players import PlayerLike, resolve_player
from arena.engine import Ruleset
from arena.players import PlayerSpec, StrategyError
from arena.players.loading import parse_params, split_spec
from arena.tournaments.folder_lock import release
from arena.tuning.runner import (
    DEFAULT_ALPHA,
    DEFAULT_BUDGET,
    DEFAULT_FIRST_DEALS,
    DEFAULT_TOLERANCE,
    TuneError,
    TuneResult,
    TuneSettings,
    read_settings,
    run_tune,
)
from arena.tuning.space import ParamRange, SpaceError, parse_param

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_OPPONENTS",
    "ParamRange",
    "SpaceError",
    "TuneError",
    "TuneResult",
    "TuneSettings",
    "default_folder",
    "parse_param",
    "tune",
]

#: The opponents when none are named: every built-in but ``perfect`` (two seats, no rising bar).
DEFAULT_OPPONENTS = ("random", "greedy", "threshold", "tactician", "optimal")
DEFAULT_RULES = ("standard", "short", "classic")


def default_folder() -> Path:
    """results/<timestamp>-tune, numbered if it exists."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path("results") / f"{stamp}-tune"
    n = 2
    while path.exists():
        path = Path("results") / f"{stamp}-tune-{n}"
        n += 1
    return path


def _load(text: str) -> PlayerSpec:
    from arena.sandbox import load_player

    return load_player(text, isolate=False, limits=None, move_timeout=None)


def _spec_text(player: PlayerLike, role: str, classes: dict[str, type]) -> str:
    """A player in any form the API takes, as the spec text a tune run stores and rebuilds its
    candidates from: a class becomes ``module:Class``, a pair ``module:Class:a=1``.  The class
    itself goes into ``classes`` by that reference, so one defined anywhere (a notebook, a
    function) is found again: the run's processes are forked from this one."""
    if isinstance(player, str):
        return player
    try:
        resolved = resolve_player(player)
    except ArenaError as exc:
        raise TuneError(f"{role}: {exc}") from None
    if resolved.cls is not None and resolved.source == "class":
        classes[split_spec(resolved.text)[0]] = resolved.cls
    return resolved.text


def _loader(classes: dict[str, type]) -> Callable[[str], PlayerSpec]:
    """How a tune run makes each player from its spec text: the classes it was given by
    reference, anything else as the command line loads it."""

    def load(text: str) -> PlayerSpec:
        reference, params = split_spec(text.strip())
        cls = classes.get(reference)
        if cls is None:
            return _load(text)
        try:
            return resolve_player((cls, parse_params(cls, params, reference)))
        except ArenaError as exc:
            raise StrategyError(str(exc)) from None

    return load


def tune(
    spec: PlayerLike,
    params: Iterable[str | ParamRange] = (),
    *,
    against: Iterable[PlayerLike] = DEFAULT_OPPONENTS,
    rules: Iterable[str | Ruleset] = DEFAULT_RULES,
    budget: int = DEFAULT_BUDGET,
    tolerance: float = DEFAULT_TOLERANCE,
    alpha: float = DEFAULT_ALPHA,
    first_deals: int = DEFAULT_FIRST_DEALS,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path | None = None,
    resume: str | Path | None = None,
    compiled: str = "auto",
    progress: bool | None = False,
) -> pd.DataFrame:
    """Tune ``spec`` over ``params`` (``"bank_at=200..1000/50"``, ``"min_dice=1,2,3"``), as
    ``arena tune`` does, and return the candidates (candidates.csv) as a DataFrame; the run's
    summary (tune.json) is in ``df.attrs["tune"]`` and its folder in ``df.attrs["folder"]``.

    ``spec`` and each of ``against`` take every form :func:`arena.tournament` takes: a spec
    string, a Player class, a ``(class, {params})`` pair (those parameters stay fixed) or a
    decide function.

    ``resume``: continue the run in that folder with its saved settings (the other game
    settings are then ignored).  Raises :class:`TuneError` with one line for bad input."""
    import pandas as pd

    from arena.engine import load_ruleset
    from arena.engine.rules import RulesetError

    classes: dict[str, type] = {}
    if resume is not None:  # classes given again are found by their reference
        for player in (spec, *against):
            _spec_text(player, "a player", classes)
        folder = Path(resume)
        settings = read_settings(folder)
    else:
        try:
            ranges = tuple(p if isinstance(p, ParamRange) else parse_param(p) for p in params)
            rulesets = tuple(load_ruleset(r) for r in rules)
        except (SpaceError, RulesetError) as exc:
            raise TuneError(" ".join(str(exc).split())) from None
        settings = TuneSettings(
            spec=_spec_text(spec, "the strategy to tune", classes),
            params=ranges,
            against=tuple(_spec_text(p, "an opponent", classes) for p in against),
            rules=rulesets,
            seed=seed,
            budget=budget,
            tolerance=tolerance,
            alpha=alpha,
            first_deals=first_deals,
        )
        folder = Path(out) if out is not None else default_folder()
    try:
        result = run_tune(
            settings,
            folder,
            load=_loader(classes),
            resume=resume is not None,
            workers=workers or os.cpu_count() or 1,
            compiled=compiled,
            progress=progress,
        )
    finally:
        release(folder)  # this process may go on (a notebook): let others at the folder
    frame = pd.DataFrame(result.rows)
    frame["eliminated"] = frame["eliminated"].astype("Int64")  # a round, or <NA> if never dropped
    frame.attrs["tune"] = result.summary
    frame.attrs["folder"] = str(result.folder)
    frame.attrs["interrupted"] = result.interrupted
    return frame
