"""Small things on the command line: score's grammar, solve's thresholds within the target, help
text for every option, and report --help explaining every column of the ranking."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import SHORT, STANDARD
from arena.players.solver import solve_turn


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("dice", "why"),
    [
        ("3 5", "3 scores nothing"),
        ("3 4 6 1", "3, 4 and 6 score nothing"),
        ("2 2", "two 2s score nothing"),
        ("2 2 3 1", "two 2s and 3 score nothing"),
    ],
)
def test_score_says_which_dice_score_nothing_in_good_grammar(dice: str, why: str) -> None:
    code, out, err = run("score", *dice.split())
    assert code == 1 and out == ""
    assert err == f"arena: {dice} is not a legal keep under standard: {why}; every kept die must score\n"


@pytest.mark.parametrize("rules", [SHORT, STANDARD])
def test_solve_shows_no_bank_threshold_past_the_target(rules: object) -> None:
    solution = solve_turn(rules)
    assert solution.bank_threshold(6) > rules.target  # what the points solver alone would print
    code, out, _ = run("solve", "--rules", rules.name)
    assert code == 0
    shown = [line.split()[2].replace(",", "") for line in out.splitlines() if line.startswith("  ")]
    numbers = [int(s) for s in shown if s.isdigit()]
    assert len(numbers) == 5 and max(numbers) <= rules.target
    assert f"  6 dice  never below the target of {rules.target:,}  (after hot dice)" in out
    data = json.loads(run("solve", "--rules", rules.name, "--json")[1])
    assert data["bank_at"]["6"] is None
    assert data["bank_at"]["5"] == solution.bank_threshold(5) <= rules.target


def test_every_option_of_every_command_has_help() -> None:
    def missing(command: click.Command, path: str) -> list[str]:
        if isinstance(command, click.Group):
            return [m for name, sub in command.commands.items() for m in missing(sub, f"{path} {name}")]
        return [
            f"{path} {p.opts[0]}"
            for p in command.params
            if isinstance(p, click.Option) and not p.hidden and not (p.help or "").strip()
        ]

    assert missing(cli, "arena") == []
    code, out, _ = run("duel", "--help")
    assert code == 0 and "A and B are player specs" in out
    assert "--move-timeout FLOAT" in out and "loses the game" in out


def test_report_help_explains_every_column_of_the_ranking() -> None:
    code, out, _ = run("report", "--help")
    assert code == 0
    heads = ["rank", "player", "win rate", "95% interval", "Elo [95% interval]", "games", "pts/turn"]
    heads += ["farkles", "errors", "score", "Elo difference", "LOS", "interval from"]
    lines = [line.strip() for line in out.splitlines()]
    for head in heads:  # each column starts a line of its own, followed by what it means
        assert any(line.startswith(head) and len(line) > len(head) + 5 for line in lines) or (
            f"{head}" in lines
        ), head
    assert "fair share is 1/K" in out and "Wilson score interval" in out and "Plackett-Luce" in out


def test_every_command_takes_json() -> None:
    def leaves(command: click.Command, path: str) -> list[tuple[str, click.Command]]:
        if isinstance(command, click.Group):
            return [leaf for name, sub in command.commands.items() for leaf in leaves(sub, f"{path} {name}")]
        return [(path, command)]

    without = [
        path for path, command in leaves(cli, "arena") if not any("--json" in p.opts for p in command.params)
    ]
    assert without == []
