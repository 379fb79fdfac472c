"""A ladder schedule for large fields: rate an entry on a sample of the field, chosen by rating.

A round robin plays every pair, n(n-1)/2 of them: in a field of 200 a new entry plays 199 pairs'
games.  A ladder (``league init/run --schedule ladder``, docs/league.md, "Ladder") plays an entry
in *rounds* instead, and stops once its rating is known well enough, as the SPRT stops a duel
once it is sure (:mod:`arena.analysis.sprt`):

- **Interval.** The entry's 95% interval is the standings' (one Plackett-Luce fit over every
  stored game between active entries, :mod:`arena.leagues.standings`): the number a person reads
  in ``league table``.  An entry is *placed* once its interval is narrower than the league's
  interval width (``--interval-width``, in Elo: high minus low); one with no rating yet is not.
- **Head.** Each round is played by the newest active entry that is not placed and has an active
  opponent it has not met in full (fewer than the league's games per pair): newest first, as the
  round robin's plans go.
- **Opponents.** The head meets the :data:`ROUND_OPPONENTS` active entries it has not met in full
  whose ratings are nearest its own estimate: one game tells most about a difference of ratings
  where the two are even (its information, p(1-p), peaks at p = 1/2).  The estimate is the
  head's rating, or, for a head with none yet (a newcomer), the median rating of the field.
  Rated opponents come before unrated ones (a rated one anchors the head to the field's scale);
  ties go to the older entry.  A round's pairs play the league's full games per pair, on the
  pair's own keyed dice (:mod:`arena.leagues.seeds`), so a pair's games are the same games
  whether a ladder or a round robin plays them.
- **End.** After each round the ratings are fitted again and the next head is chosen.  Each round
  meets at least one pair in full, so a ladder ends: at worst as the round robin.

Every choice depends on the stored games alone (and ids), whose dice are keyed per pair: the
same seed gives the same rounds and the same games, whatever the workers.
"""

from __future__ import annotations

import json
import math
import sqlite3
import statistics
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from arena.analysis.ratings import Order, plackett_luce_elo

#: The schedules a league knows; a league without one stored plays a round robin.
SCHEDULES = ("round-robin", "ladder")
#: Settings keys.
SCHEDULE_KEY = "schedule"
WIDTH_KEY = "interval_width"
#: The default interval width of a ladder, in Elo (high minus low of the 95% interval).
DEFAULT_INTERVAL_WIDTH = 100.0
#: Opponents a head meets per round.  Two: fewer rounds (and fits) than one at a time, and at
#: most one pair's games played past the point where the interval became narrow enough.
ROUND_OPPONENTS = 2

#: (elo, 95% low, 95% high) by entry id.
IdRatings = Mapping[int, tuple[float, float, float]]


class ScheduleSettingError(ValueError):
    """A stored schedule setting this arena can't play (a hand-edited or newer database)."""


def league_schedule(settings: Mapping[str, object]) -> tuple[str, float]:
    """The league's (schedule, interval width): a league made before schedules plays a round
    robin.  Raises :class:`ScheduleSettingError` for a stored value that is not one."""
    schedule = settings.get(SCHEDULE_KEY, "round-robin")
    width = settings.get(WIDTH_KEY, DEFAULT_INTERVAL_WIDTH)
    if schedule not in SCHEDULES:
        raise ScheduleSettingError(
            f"the league's schedule setting is {json.dumps(schedule)[:40]}, not one of {', '.join(SCHEDULES)}"
        )
    problem = width_problem(width)
    if problem is not None:
        raise ScheduleSettingError(f"the league's interval_width setting {problem}")
    assert isinstance(width, int | float)
    return str(schedule), float(width)


def width_problem(width: object) -> str | None:
    """What is wrong with an interval width, in a few words, or None."""
    if isinstance(width, bool) or not isinstance(width, int | float) or not 0 < width < math.inf:
        return f"must be a positive number of Elo, got {json.dumps(width)[:40]}"
    return None


def placed(rating: tuple[float, float, float] | None, width: float) -> bool:
    """True if the interval of ``rating`` is narrower than ``width`` (no rating: never)."""
    if rating is None or math.isnan(rating[1]) or math.isnan(rating[2]):
        return False
    return rating[2] - rating[1] < width


@dataclass(frozen=True)
class Round:
    """One round of a ladder: ``head`` meets each of ``opponents``."""

    head: int
    opponents: tuple[int, ...]


def next_round(
    field: Sequence[int],
    ratings: IdRatings,
    met_in_full: Collection[frozenset[int]],
    width: float,
    opponents: int = ROUND_OPPONENTS,
) -> Round | None:
    """The ladder's next round over ``field`` (the active, playable entry ids), or None once every
    entry is placed or has met everyone: the rule of this module's docstring."""
    in_field = set(field)
    rated = {i: r for i, r in ratings.items() if i in in_field and not math.isnan(r[0])}
    for head in sorted(field, reverse=True):
        unmet = [o for o in field if o != head and frozenset((head, o)) not in met_in_full]
        if unmet and not placed(rated.get(head), width):
            break
    else:
        return None
    others = [r[0] for i, r in rated.items() if i != head]
    estimate = rated[head][0] if head in rated else statistics.median(others) if others else 0.0

    def nearness(o: int) -> tuple[int, float, int]:
        """Rated before unrated, then nearest the estimate, then older."""
        return (0, abs(rated[o][0] - estimate), o) if o in rated else (1, 0.0, o)

    return Round(head, tuple(sorted(unmet, key=nearness)[:opponents]))


_ACTIVE_PAIRS = """
SELECT a.entry, a.rank, b.entry, b.rank, COUNT(*)
FROM games g JOIN seats a ON a.game = g.id AND a.seat = 0 JOIN seats b ON b.game = g.id AND b.seat = 1
WHERE g.low IN (SELECT id FROM entries WHERE active = 1)
  AND g.high IN (SELECT id FROM entries WHERE active = 1)
GROUP BY a.entry, a.rank, b.entry, b.rank
"""


def active_ratings(connection: sqlite3.Connection) -> dict[int, tuple[float, float, float]]:
    """The standings' ratings by entry id: the same Plackett-Luce fit over the same finishing
    orders, keyed by name as the standings key it, so its numbers are the table's exactly (the
    fit depends only on the orders and their counts).  A league's games have two seats."""
    names = dict(connection.execute("SELECT id, name FROM entries WHERE active = 1").fetchall())
    orders: dict[Order, int] = {}
    for first, first_rank, second, second_rank, count in connection.execute(_ACTIVE_PAIRS):
        a, b = names[first], names[second]
        if first_rank == second_rank:
            order: Order = (tuple(sorted((a, b))),)
        elif first_rank < second_rank:
            order = ((a,), (b,))
        else:
            order = ((b,), (a,))
        orders[order] = orders.get(order, 0) + count
    by_name = plackett_luce_elo(orders) if orders else {}
    return {i: by_name[name] for i, name in names.items() if name in by_name}


def ladder_plans(
    connection: sqlite3.Connection, settings: Mapping[str, object], games_per_pair: int, playable: set[int]
) -> list[tuple[int, list[int]]]:
    """The plans a ladder plays now: the unfinished ones that can be played, else one new plan,
    the next round (:func:`next_round`) among the ``playable`` active entries, else none.  A plan
    is (plan id, [head, opponents...]), as :func:`arena.leagues.play.plan_work` gives them."""
    width = league_schedule(settings)[1]
    active = [r[0] for r in connection.execute("SELECT id FROM entries WHERE active = 1 ORDER BY id")]
    with connection:  # plans a kill left before they were sized: nothing was played in them
        connection.execute("DELETE FROM plans WHERE total = 0 AND id NOT IN (SELECT plan FROM games)")
    unfinished = []
    for plan_id, players in connection.execute(
        "SELECT id, players FROM plans WHERE next_game < total ORDER BY id"
    ):
        seated = json.loads(players)
        if set(seated) <= playable and set(seated) <= set(active):
            unfinished.append((int(plan_id), seated))
    if unfinished:
        return unfinished
    counts = connection.execute("SELECT low, high, COUNT(*) FROM games GROUP BY low, high").fetchall()
    met = {frozenset((low, high)) for low, high, n in counts if n >= games_per_pair}
    field = [i for i in active if i in playable]
    chosen = next_round(field, active_ratings(connection), met, width)
    if chosen is None:
        return []
    players = [chosen.head, *chosen.opponents]
    with connection:
        cursor = connection.execute(
            "INSERT INTO plans (players, total) VALUES (?, 0)", (json.dumps(players),)
        )
    return [(int(cursor.lastrowid or 0), players)]


def games_left_in_rounds(
    connection: sqlite3.Connection, games_per_pair: int, entry: int | None = None
) -> int:
    """The games a ladder's rounds begun still lack, among active entries (a round whose head
    was replaced by a new version is dropped): each of a round's pairs lacks ``games_per_pair``
    less the games it has stored.  What a ladder owes, as far as it knows; with ``entry``,
    only the games of its own pairs."""
    active = {  # a retired entrant's rounds wait: they are owed by nobody playing now
        r[0]
        for r in connection.execute(
            "SELECT id FROM entries WHERE active = 1 AND name NOT IN (SELECT name FROM retirements)"
        )
    }
    counts = {
        frozenset((low, high)): n
        for low, high, n in connection.execute("SELECT low, high, COUNT(*) FROM games GROUP BY low, high")
    }
    pairs: set[frozenset[int]] = set()
    for (players,) in connection.execute("SELECT players FROM plans WHERE next_game < total"):
        seated = json.loads(players)
        if set(seated) <= active:
            pairs |= {frozenset((seated[0], o)) for o in seated[1:]}
    if entry is not None:
        pairs = {pair for pair in pairs if entry in pair}
    return sum(max(0, games_per_pair - counts.get(pair, 0)) for pair in pairs)
