"""Solve what the solver-backed built-ins need, once, in the main process, before any worker starts."""

from __future__ import annotations

from arena.tournaments.spec import TournamentSpec


def warm_solvers(spec: TournamentSpec, *, forking: bool = True) -> None:
    """If ``optimal`` plays and workers are forked from here (``forking``), solve its situations
    here, once: otherwise every worker's first chunk and then its template would solve them
    again.  If ``perfect`` plays, load (or solve, with a progress bar, and cache on disk) its
    table for each ruleset, and compile its turn sweep, for the same reason."""
    from arena.players.builtin.optimal import OptimalPlayer
    from arena.players.builtin.perfect import PerfectPlayer

    def plays(kind: type) -> bool:
        return any(isinstance(p.cls, type) and issubclass(p.cls, kind) for p in spec.players)

    if forking and (plays(OptimalPlayer) or plays(PerfectPlayer)):  # perfect's playoff turns: optimal
        from arena.players import solver

        for rules in spec.rulesets:
            solver.warm(rules)
    if plays(PerfectPlayer):
        from arena.perfect.play import turn_values

        for rules in spec.rulesets:
            turn_values(rules, 0, 0, 0)
