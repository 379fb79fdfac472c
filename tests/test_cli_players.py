"""`arena strategies list`, `arena solve` and `arena play` (with a human at the terminal)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, STANDARD, Action, TurnView, legal_keeps
from arena.players.human import HumanPlayer
from arena.players.solver import solve_turn

REPO = Path(__file__).resolve().parents[1]


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_strategies_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = run("strategies", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("random ") and "built-in" in lines[0]
    assert any(line.startswith("strategies/template.py:Template") for line in lines)
    data = json.loads(run("strategies", "list", "--json")[1])
    assert {"spec", "source", "description"} <= set(data[0])


def test_solve_prints_expected_points_and_the_banking_table() -> None:
    code, out, _ = run("solve", "--rules", "standard")
    assert code == 0
    expected = solve_turn(STANDARD).expected_turn_points
    assert f"expected points per turn: {expected:.2f}" in out
    assert "1 die " in out and "(after hot dice)" in out
    data = json.loads(run("solve", "--rules", "classic", "--json")[1])
    assert set(data) == {"rules", "expected_turn_points", "bank_at"}
    assert set(data["bank_at"]) == {"1", "2", "3", "4", "5"}
    assert 250 < data["expected_turn_points"] < 400


def test_play_shows_the_game_turn_by_turn() -> None:
    code, out, _ = run("play", "--rules", "classic", "-p", "optimal", "-p", "greedy", "--seed", "4")
    assert code == 0
    assert "seed 4 (replay with --seed 4); seats: 0 optimal, 1 greedy" in out
    assert "Round 1" in out and "  optimal (score 0, needs 350 to bank)" in out
    assert "    rolls " in out and "    keeps " in out and "banks " in out
    assert "Game over after" in out and "final scores: optimal" in out
    # The same seed replays the same game.
    assert run("play", "--rules", "classic", "-p", "optimal", "-p", "greedy", "--seed", "4")[1] == out


def test_play_explains_why_a_keep_scored() -> None:
    out = run("play", "--rules", "standard", "-p", "greedy", "--seed", "1")[1]
    keeps = [line for line in out.splitlines() if line.startswith("    keeps ")]
    assert keeps and all("(" in line and "turn " in line for line in keeps)


def test_play_with_duplicate_players_names_them_apart() -> None:
    out = run("play", "-p", "greedy", "-p", "greedy", "--seed", "2")[1]
    assert "seats: 0 greedy, 1 greedy#2" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "-p", "nope"], "arena: error: unknown strategy 'nope'"),
        (["play"], "arena: error: name at least one player"),
        (["play", "--rules", "kniffel", "-p", "greedy"], "arena: error: kniffel: unknown ruleset"),
    ],
)
def test_play_bad_input(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.startswith(message) and len(err.strip().splitlines()) == 1


def test_play_reports_a_strategy_that_breaks_the_rules(tmp_path: Path) -> None:
    bot = tmp_path / "cheat.py"
    bot.write_text(
        "from arena.players import Action\n\nclass Cheat:\n    name = 'cheat'\n\n"
        "    def decide(self, view):\n        return Action((2, 2), True)\n"
    )
    code, _, err = run("play", "-p", str(bot), "-p", "greedy", "--seed", "1")
    assert code == 1
    assert err.startswith("arena: error: cheat (seat 0) lost the game: illegal: keep (2, 2)")


def test_human_seat_checks_input_and_asks_again() -> None:
    # Seat 0 is the person; with seed 7 their first scoring roll is 1 3 3 5 5 (after a farkle).
    code, out, err = run(
        "play", "--rules", "classic", "--human", "-p", "greedy", "--seed", "7", stdin="9\nx y\na\n"
    )
    assert "  Your roll: 1 3 3 5 5   (turn so far 0, 350 more needed to bank)" in out
    assert "    a) keep 1 5 5          200 points, 2 dice left" in out
    assert "! 9 is not a die face (1 to 6)" in out
    assert "! 'x y' is neither a letter from the list nor dice like '1 5'" in out
    assert "Turn total 200; rolling on (banking needs 350 in the turn)." in out
    assert "    a) keep 1              100 points, 1 die left" in out
    # Input ran out at the next prompt: the game is abandoned, not lost by a fault.
    assert code == 1 and err.strip() == "arena: error: game abandoned at the prompt"


def test_human_player_explains_illegal_keeps_and_bad_answers() -> None:
    answers = iter(["3 5", "2", "1 1 1", "x", "b"])
    told: list[str] = []
    player = HumanPlayer(ask=lambda prompt: next(answers), tell=told.append)
    view = TurnView(
        CLASSIC,
        0,
        2,
        (500, 0),
        (1, 1, 1, 2, 3),
        0,
        0,
        legal_keeps((1, 1, 1, 2, 3), CLASSIC),
        (0, 0),
        (0, 0),
        False,
        2,
        1,
        False,
    )
    assert player.decide(view) == Action((1, 1, 1), True)
    assert "  ! keep (3, 5): the roll (1, 1, 1, 2, 3) has no 5" in told
    assert "  ! keep (2,) from (1, 1, 1, 2, 3): 2 scores nothing here; every kept die must score" in told
    assert "  ! please answer b to bank or r to roll on, not 'x'" in told
