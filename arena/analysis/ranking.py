"""The ranking per ruleset, as the terminal shows it."""

from __future__ import annotations

import pandas as pd


def ranking_text(summary: pd.DataFrame) -> str:
    """One block per ruleset: rank, player, win rate with its 95% interval, the openskill rating
    (mu ± sigma), the Elo fit where there is one (two-player round-robins), games, points per
    turn, farkle rate and errors."""
    lines: list[str] = []
    for ruleset, table in summary.groupby("ruleset", sort=False):
        width = max(6, *(len(p) for p in table["player"]))
        with_elo = bool(table["elo"].notna().any())
        elo_head = "   Elo [95% interval]" if with_elo else ""
        lines.append(f"{ruleset}")
        lines.append(
            f"  rank  {'player':<{width}}  win rate   95% interval   rating{elo_head}    games  pts/turn"
            "  farkles  errors"
        )
        for rank, row in enumerate(table.itertuples(index=False), 1):
            elo = f"  {row.elo:+5.0f} [{row.elo_low:+5.0f}, {row.elo_high:+5.0f}]" if with_elo else ""
            lines.append(
                f"  {rank:>4}  {row.player:<{width}}  {row.win_rate * 100:6.1f} %  "
                f"[{row.ci_low * 100:4.1f}, {row.ci_high * 100:4.1f}]  {row.rating:4.1f}±{row.rating_sd:3.1f}"
                f"{elo}  {row.games:>7,}  {row.points_per_turn:8.1f}  {row.farkle_rate * 100:5.1f} %  "
                f"{row.errors:>6,}"
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
