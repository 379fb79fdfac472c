"""The rows of games.csv: one row per player per game, in game order then seat order."""

from __future__ import annotations

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
)
HEADER = ",".join(COLUMNS) + "\n"


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


def game_rows(ruleset: str, game: int, deal: int, seed: int, players: list[str], result: GameResult) -> str:
    """The rows of one finished game; ``ruleset`` and ``players`` are already CSV fields."""
    head = f"{ruleset},{game},{deal},{seed},"
    return "".join(
        f"{head}{seat},{players[seat]},{result.scores[seat]},{result.ranks[seat]},"
        f"{win_text(result.win_shares[seat])},{result.turns[seat]},{result.farkles[seat]},ok,\n"
        for seat in range(len(players))
    )


def fault_shares(n: int, faulty: int) -> tuple[float, ...]:
    """Win shares of a game a player broke: nothing for it, the rest split among the others."""
    share = 1.0 / (n - 1) if n > 1 else 0.0
    return tuple(0.0 if seat == faulty else share for seat in range(n))


def fault_rows(
    ruleset: str,
    game: int,
    deal: int,
    seed: int,
    players: list[str],
    scores: tuple[int, ...],
    turns: tuple[int, ...],
    farkles: tuple[int, ...],
    faulty: int,
    status: str,
    reason: str,
) -> str:
    """The rows of a game a player broke: it loses (last rank, no win); the others share the
    win and are ranked by their scores when the game stopped.  The reason is the one cell an
    entry writes: it never starts with a spreadsheet formula character (numbers stay numbers)."""
    n = len(players)
    others = [s for s in range(n) if s != faulty]
    share = win_text(fault_shares(n, faulty)[others[0]]) if others else "0"
    lines = []
    for seat in range(n):
        if seat == faulty:
            rank, win, state, why = n, "0", status, csv_field(csv_text(one_line_text(reason)))
        else:
            rank = 1 + sum(scores[o] > scores[seat] for o in others)
            win, state, why = share, "ok", ""
        lines.append(
            f"{ruleset},{game},{deal},{seed},{seat},{players[seat]},{scores[seat]},{rank},{win},"
            f"{turns[seat]},{farkles[seat]},{state},{why}\n"
        )
    return "".join(lines)
