"""Where solved tables come from: the package's own, a cache on disk, or a solve on first use.

The presets' tables ship with arena (``arena/perfect/tables``), so ``perfect`` is instant for them,
and so do those of the repository's ruleset files with a farkle penalty (:mod:`arena.perfect.ship`).
Any other ruleset is solved the first time it is needed, with a progress bar, and saved in the
cache folder: ``$ARENA_CACHE_DIR``, else ``$XDG_CACHE_HOME/arena``, else ``~/.cache/arena``.
Files are named by :func:`~arena.perfect.table.ruleset_key`, so a ruleset with the same rules
under another name finds the same table.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

from arena.engine.rules import Ruleset
from arena.perfect.positions import PAST_TARGET
from arena.perfect.table import WinTable, ruleset_key

PACKAGE_TABLES = Path(__file__).with_name("tables")


def cache_folder() -> Path:
    """The folder solved tables are kept in (see the module's docstring)."""
    if os.environ.get("ARENA_CACHE_DIR"):
        return Path(os.environ["ARENA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena"


def table_file(rules: Ruleset) -> str:
    return f"perfect-{ruleset_key(rules, PAST_TARGET)}.npz"


def stored_table(rules: Ruleset) -> tuple[WinTable, Path] | None:
    """The table for ``rules`` if it is shipped or cached, with where it was found."""
    name = table_file(rules)
    for folder in (PACKAGE_TABLES, cache_folder()):
        path = folder / name
        if path.is_file():
            try:
                return WinTable.load(path, rules), path
            except (OSError, ValueError, KeyError):
                continue  # a damaged cache file is solved again (and replaced)
    return None


@lru_cache(maxsize=8)
def win_table(rules: Ruleset, *, progress: bool | None = None) -> WinTable:
    """The solved table for ``rules``: shipped, cached, or solved now (and cached).

    ``progress`` shows a bar while solving (None: when stderr is a terminal)."""
    found = stored_table(rules)
    if found is not None:
        return found[0]
    table = solve_with_bar(rules, progress)
    try:
        table.save(cache_folder() / table_file(rules))
    except OSError as exc:
        print(f"arena: could not cache the perfect-play table: {exc}", file=sys.stderr)
    return table


def solve_with_bar(rules: Ruleset, progress: bool | None = None) -> WinTable:
    from tqdm import tqdm

    from arena.perfect.solve import solve

    show = sys.stderr.isatty() if progress is None else progress
    with tqdm(
        total=None, unit=" positions", desc=f"solving {rules.name} for perfect play", disable=not show
    ) as bar:

        def advance(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        def swept(sweep: int, change: float) -> None:
            bar.set_postfix_str(f"sweep {sweep + 1}, moved {change:.1e}")

        return solve(rules, progress=advance, on_sweep=swept)
