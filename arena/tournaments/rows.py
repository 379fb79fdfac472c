"""The rows of games.csv: one row per player per game, in game order then seat order.

The last column, ``end``, says how the game ended, the same in every row of a game: ``target``
(a seat reached the target, the rule documents' ending), ``round_limit`` (nobody did within the
tournament's ``max_rounds``, a safety valve the documents don't have) or ``forfeit`` (faults left at
most one seat in)."""

from __future__ import annotations

from collections.abc import Mapping

from arena.engine import GameResult
from arena.players.text import csv_text

COLUMNS = (
    "ruleset",
    "game",
    "deal",
    "seed",
    "seat",
    "player",
    "score",
    "rank",
    "win",
    "turns",
    "farkles",
    "status",
    "reason",
    "end",
)
#: The values of the ``end`` column (:attr:`arena.engine.GameResult.reason`).
ENDS = ("target", "round_limit", "forfeit")
HEADER = ",".join(COLUMNS) + "\n"
#: The header of games.csv before the end column (arena before it said how games ended).
OLDER_HEADER = ",".join(COLUMNS[:-1]) + "\n"


def csv_field(text: str) -> str:
    """``text`` as one CSV field: quoted, with quotes doubled, where it holds a comma, a quote or
    a line break (the csv module would leave a bare line break in a field unquoted)."""
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def one_line_text(text: str) -> str:
    """A reason on one line: every run of white space, line breaks included, becomes a space."""
    return " ".join(text.split())


def win_text(share: float) -> str:
    """1, 0, or a tied win's share with six decimals ("0.5", "0.333333")."""
    if share == 1.0:
        return "1"
    if share == 0.0:
        return "0"
    return f"{share:.6f}".rstrip("0")


def game_rows(
    ruleset: str,
    game: int,
    deal: int,
    seed: int,
    players: list[str],
    result: GameResult,
    faults: Mapping[int, tuple[str, str]] | None = None,
) -> str:
    """The rows of one game; ``ruleset`` and ``players`` are already CSV fields.  ``faults``:
    seat -> (status, reason) of each seat whose player broke the game (retired: the result
    already ranks it last with no win); every other seat's status is ``ok``.  The reason is the
    one cell an entry writes: it never starts with a spreadsheet formula character."""
    head = f"{ruleset},{game},{deal},{seed},"
    end = f",{result.reason}\n"
    lines = []
    for seat in range(len(players)):
        fault = faults.get(seat) if faults else None
        reason = "" if fault is None else csv_field(csv_text(one_line_text(fault[1])))
        state = "ok," if fault is None else f"{fault[0]},{reason}"
        lines.append(
            f"{head}{seat},{players[seat]},{result.scores[seat]},{result.ranks[seat]},"
            f"{win_text(result.win_shares[seat])},{result.turns[seat]},{result.farkles[seat]},{state}{end}"
        )
    return "".join(lines)
