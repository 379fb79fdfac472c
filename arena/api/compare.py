"""``arena.compare``: two runs side by side, B minus A, as ``arena compare`` prints them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.api.errors import ArenaError

if TYPE_CHECKING:
    import pandas as pd

    from arena.api.duels import DuelResult
    from arena.api.runs import Run


def compare(
    a: str | Path | Run | DuelResult, b: str | Path | Run | DuelResult, *, force: bool = False
) -> pd.DataFrame:
    """The strategies of runs ``a`` and ``b`` (folders, or what :func:`arena.tournament` and
    :func:`arena.duel` returned) side by side, B minus A: one row per ruleset and player in
    both, with ``arena compare --json``'s ``rows`` columns (``win_rate_a``, ``win_rate_b``,
    ``difference``, ``diff_low``, ``diff_high``, ``significant``, ...).

    Runs with the same seed, rules and players are paired deal by deal, on the same dice;
    others are compared game by game.  Runs whose players met different opponents, or whose
    rulesets of one name have other rules, raise :class:`ArenaError` unless ``force``.
    ``df.attrs`` holds the rest of ``--json``'s object: ``rulesets`` (how each was paired),
    ``differences``, ``changed``, ``only_in_one_run`` and ``forced``."""
    from arena.analysis.run_comparison import CompareError, compare_folders

    folders: list[Path] = []
    for run in (a, b):
        folder = run if isinstance(run, str | Path) else run.folder
        if folder is None:
            raise ArenaError(f"{run!r} kept no folder (out=None): compare needs its games.csv")
        folders.append(Path(folder))
    try:
        comparison = compare_folders(folders[0], folders[1], force=force)
    except CompareError as exc:
        raise ArenaError(str(exc)) from None
    frame = comparison.result.rows.reset_index(drop=True)
    frame.attrs.update(
        {
            "rulesets": [p.as_dict() for p in comparison.result.pairings],
            "differences": comparison.differences,
            "changed": comparison.changed,
            "only_in_one_run": comparison.only_in_one_run,
            "forced": comparison.forced,
        }
    )
    return frame
