"""Solve the presets ``perfect`` plays, and the variants it ships tables for, and write the
tables that ship with arena.

    python -m arena.perfect.ship

The variants in :data:`SHIPPED_VARIANTS` have a farkle penalty: solving one takes about an hour,
so their tables ship too; every other ruleset solves in minutes on first use.

Run it after a change to the rules of a preset or to the solver's model (``MODEL_VERSION``):
the tables are found by a key of the rules and the model, so a stale table is never used, and
``tests/test_perfect.py`` fails until the presets' tables are there again.  Tables of earlier keys
are removed.
"""

from __future__ import annotations

from arena.engine.loading import load_ruleset
from arena.engine.presets import PRESETS
from arena.perfect.positions import why_not_perfect
from arena.perfect.store import PACKAGE_TABLES, solve_with_bar, table_file

#: The variants (arena/engine/variants/) whose tables ship with arena.
SHIPPED_VARIANTS = ("house", "three-farkles-to-zero")


def main() -> None:
    kept = set()
    shipped = [*PRESETS.values(), *(load_ruleset(name) for name in SHIPPED_VARIANTS)]
    for rules in shipped:
        if why_not_perfect(rules, 2):
            print(f"{rules.name}: not solved: perfect {why_not_perfect(rules, 2)}")
            continue
        table = solve_with_bar(rules, progress=True)
        path = PACKAGE_TABLES / table_file(rules)
        table.save(path)
        kept.add(path.name)
        print(
            f"{rules.name}: first player wins {100 * table.first_player_win:.2f} %, convergence error "
            f"{table.residual:.1e}, solved in {table.seconds:.1f} s with {table.solved_with} -> {path}"
        )
    for stale in PACKAGE_TABLES.glob("perfect-*.npz"):
        if stale.name not in kept:
            stale.unlink()
            print(f"removed {stale}")


if __name__ == "__main__":
    main()
