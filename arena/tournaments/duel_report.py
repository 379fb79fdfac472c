"""A duel's verdict as data (``duel.json``, ``arena duel --json``, ``arena.duel``) and as the
text ``arena duel`` prints."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from arena.analysis.stats import elo_from_score
from arena.engine import DEFAULT_MAX_ROUNDS
from arena.tournaments.duel import DuelOutcome, DuelTally

#: Pairs after which an unbroken run of 1-1 splits is worth a word in the interim lines.
IDENTICAL_PAIRS = 200


def finite(value: float) -> float | None:
    """JSON has no infinity: an Elo of ±inf (one side won every game) is null."""
    return value if math.isfinite(value) else None


def signed(value: float) -> str:
    if value == float("inf"):
        return "+inf"
    if value == float("-inf"):
        return "-inf"
    return f"{value:+.1f}"


def duration_text(seconds: float) -> str:
    """A short time in the unit that suits it: "2.1 µs", "340 µs", "4.2 ms", "1.3 s"."""
    for unit, scale in (("µs", 1e-6), ("ms", 1e-3)):
        if seconds < 1000 * scale:
            value = seconds / scale
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{seconds:.1f} s"


def seconds_per_decision(o: DuelOutcome) -> tuple[float | None, float | None]:
    """A's and B's mean seconds a decision in the games this call played in Python; None for a
    side with no decision timed (its games were played in the compiled kernel)."""
    return tuple(t / n if n else None for t, n in o.decision_times)  # type: ignore[return-value]


def decision_time_line(o: DuelOutcome) -> str | None:
    """The line saying each side's mean time per decision, as arena's process timed it (for an
    isolated player, the trip to its seat process included); None when this call played no game."""
    if o.games_played <= 0:
        return None
    a, b = o.labels
    per = seconds_per_decision(o)
    if per == (None, None):
        return "  time/decision both sides' games were played in the compiled kernel (no strategy code ran)"
    parts = [
        f"{label} {duration_text(value)}" if value is not None else f"{label} -"
        for label, value in zip((a, b), per, strict=True)
    ]
    counts = " and ".join(f"{n:,}" for _, n in o.decision_times)
    return f"  time/decision {', '.join(parts)}  ({counts} decisions)"


def duel_json(o: DuelOutcome, rules: str, folder: Path | None = None) -> dict[str, Any]:
    """The duel's result as JSON-ready data: what `--json` prints and duel.json holds."""
    t = o.tally
    low, high = t.interval()
    game_low, game_high = t.game_interval()
    data: dict[str, Any] = {
        "rules": rules,
        "a": o.labels[0],
        "b": o.labels[1],
        "games": t.games,
        "pairs": t.pairs,
        "wins": list(o.wins),
        "pentanomial": list(t.pentanomial),
        "score": t.mean,
        "score_interval": [low, high],
        "score_interval_games": [game_low, game_high],
        "elo": finite(elo_from_score(t.mean)),
        "elo_interval": [finite(elo_from_score(low)), finite(elo_from_score(high))],
        "normalized_elo": t.normalized_elo(),
        "los": t.los(),
        "faults": o.faults,
        "round_limit": o.round_limit,
        "complete": o.complete,
    }
    if folder is not None:
        data["folder"] = str(folder)
    if o.sprt is not None:
        data["sprt"] = {
            **o.sprt.as_dict(),
            "llr": o.llr,
            "bounds": list(o.sprt.bounds),
            "accepted": o.verdict,
        }
    return data


def duel_text(o: DuelOutcome, rules: str, folder: Path | None = None) -> str:
    a, b = o.labels
    t = o.tally
    low, high = t.interval()
    game_low, game_high = t.game_interval()
    pentanomial = " / ".join(f"{n:,}" for n in t.pentanomial)
    lines = [
        f"{a} vs {b} on {rules}: {t.games:,} games ({t.pairs:,} {'deal' if t.pairs == 1 else 'deals'}, "
        "each in both seat orders)",
        f"  wins          {a} {o.wins[0]:g}, {b} {o.wins[1]:g}",
        f"  pairs         {pentanomial}  scoring 0 / 1/4 / 1/2 / 3/4 / 1 for {a} (pentanomial)",
        f"  score of {a}  {t.mean * 100:.1f} %  95% interval [{low * 100:.1f}, {high * 100:.1f}] from game "
        f"pairs ([{game_low * 100:.1f}, {game_high * 100:.1f}] counting games one by one)",
        f"  Elo difference {signed(elo_from_score(t.mean))}  95% interval "
        f"[{signed(elo_from_score(low))}, {signed(elo_from_score(high))}]",
    ]
    if o.sprt is not None and o.sprt.model == "normalized":
        lines.append(f"  normalized Elo {signed(t.normalized_elo())}")
    lines.append(f"  LOS           {t.los() * 100:.1f} %  (likelihood that {a} is the stronger)")
    if o.faults:
        lines.append(f"  faults        {o.faults} games lost by a fault")
    if o.round_limit:
        lines.append(
            f"  round limit   {o.round_limit:,} of {t.games:,} games ended at the round limit "
            f"({DEFAULT_MAX_ROUNDS:,} rounds) with nobody at the target; they count by score"
        )
    if o.sprt is not None:
        lower, upper = o.sprt.bounds
        unit = "Elo" if o.sprt.model == "logistic" else "normalized Elo"
        llr = f"{o.llr:.2f}" if o.llr is not None else "-"
        lines.append(f"  SPRT          {o.sprt}: LLR {llr}, bounds [{lower:.2f}, {upper:.2f}]")
        if o.verdict == "H1":
            lines.append(
                f"  result        H1 accepted: {a} is stronger than {b} by about {o.sprt.elo1:g} {unit} "
                "or more"
            )
        elif o.verdict == "H0":
            lines.append(
                f"  result        H0 accepted: {a} is not {o.sprt.elo1:g} {unit} stronger than {b} "
                f"(at most about {o.sprt.elo0:g})"
            )
        elif o.complete:
            lines.append(
                f"  result        undecided after {t.games:,} games (--max-games); the interval above "
                "is what is known"
            )
        else:
            lines.append(f"  result        undecided so far ({t.games:,} games)")
    timing = decision_time_line(o)
    if timing is not None:
        lines.append(timing)
    if folder is not None:
        lines.append(f"  saved in      {folder}/ (games.csv, duel.json, run.json)")
    return "\n".join(lines)


def interim_line(tally: DuelTally, labels: tuple[str, str]) -> str:
    """One line of a duel's standing while its SPRT runs: games, A's score with its interval,
    the wins, the pentanomial counts and the LLR against its bounds."""
    t = tally.tally
    low, high = t.interval()
    a, b = labels
    pentanomial = " / ".join(f"{n:,}" for n in t.pentanomial)
    line = (
        f"after {t.games:,} games: {a} scores {t.mean * 100:.1f} % [{low * 100:.1f}, {high * 100:.1f}], "
        f"wins {tally.wins[0]:g}-{tally.wins[1]:g} against {b}, pairs {pentanomial}"
    )
    if tally.sprt is not None and tally.llr is not None:
        lower, upper = tally.sprt.bounds
        line += f", LLR {tally.llr:.2f} of [{lower:.2f}, {upper:.2f}]"
    if t.pairs >= IDENTICAL_PAIRS and t.pentanomial[2] == t.pairs:
        line += f"; every pair so far split 1-1: {a} and {b} may play alike, so the test can't decide"
    return line
