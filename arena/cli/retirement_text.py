"""What ``arena league retire`` and ``reinstate`` say they did, in one line."""

from __future__ import annotations

from arena.leagues.retirement import Retirement


def retirement_line(done: Retirement) -> str:
    """One line: what changed, or that nothing did and why.  A run playing now goes on with the
    entries it started with, so a retirement takes hold at the next ``league run``."""
    who = f"{done.name} version {done.version}"
    if done.retired and done.changed:
        return (
            f"retired {who}: it plays no new games from the next `league run` on; its "
            f"{done.games:,} games stay in the standings, and its name stays reserved"
        )
    if done.retired:
        return f"{done.name} is already retired (since {done.since}): nothing changed"
    if done.changed:
        return f"reinstated {who}: the next `league run` plays the games it missed"
    return f"{done.name} is not retired: nothing changed"
