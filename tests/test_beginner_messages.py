"""Messages a beginner meets, each saying what to do (issue 39, point 10): a whole Keep passed as
the dice, a SyntaxError's line said once, "1 round", a league's games as typed JSON, and the
rounds of a game whose seat went out (the issue's own example, through ``arena.play``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena
from arena import Action
from arena.cli.main import cli
from arena.leagues import League


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


class KeepNotDice:
    """Passes the Keep itself where its dice belong: Action(keep) rather than Action(keep.dice)."""

    name = "keep-not-dice"

    def decide(self, view):  # type: ignore[no-untyped-def]
        keep = view.legal_keeps[0]
        return Action(keep, False)  # type: ignore[arg-type]


def test_a_keep_passed_as_the_dice_says_to_pass_keep_dice() -> None:
    record = arena.play([KeepNotDice, "greedy"], seed=1)
    (fault,) = record.faults
    assert fault.status == "illegal"
    assert "is not a die face (1 to 6): pass the faces to keep, as in Action(keep.dice, bank)" in fault.reason
    assert fault.reason.endswith("not the Keep itself")


def test_a_keep_passed_as_the_dice_says_the_same_isolated(tmp_path: Path) -> None:
    bot = tmp_path / "keeper.py"
    bot.write_text(
        "from arena import Action\n\n\nclass Keeper:\n    name = 'keeper'\n\n"
        "    def decide(self, view):\n        return Action(view.legal_keeps[0], False)\n"
    )
    code, _, err = run("play", "--isolate", "-p", str(bot), "-p", "greedy", "--seed", "1")
    assert code == 1
    said = "as in Action(keep.dice, bank) for a keep of view.legal_keeps, not the Keep itself"
    assert err.rstrip().endswith(said)


def test_a_syntax_error_says_its_line_once(tmp_path: Path) -> None:
    bot = tmp_path / "typo.py"
    bot.write_text("class Typo:\n    name = 'typo'\n\n\n    def decide(self view):\n        pass\n")
    code, _, err = run("play", "-p", str(bot), "-p", "greedy")
    assert code == 2
    assert err.count("line 5") == 1, err
    assert err.rstrip().endswith("SyntaxError: invalid syntax (typo.py, line 5)")


def test_a_game_of_one_round_says_1_round() -> None:
    # frank faults at his first decision, in round 1, and the game ends with greedy alone.
    frank = Path(__file__).resolve().parent.parent / "docs" / "examples" / "frank.py"
    code, out, _ = run("play", "-p", str(frank), "-p", "greedy", "--seed", "3")
    assert code == 1
    assert "Game over after 1 round (every other player is out): greedy wins" in out


@pytest.fixture(scope="module")
def faulty_league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("typed") / "league"
    league = League.create(folder, games=2, seed=4)
    league.add(str(Path(__file__).resolve().parent.parent / "docs" / "examples" / "frank.py"))
    league.add("greedy")
    league.run(trusted=True, progress=False)
    league.close()
    return folder


def test_league_games_json_gives_typed_values(faulty_league: Path) -> None:
    code, out, _ = run("league", "games", str(faulty_league), "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == 4
    for row in rows:
        for column in ("game", "deal", "seed", "seat", "score", "rank", "turns", "farkles"):
            assert type(row[column]) is int, (column, row)
        assert type(row["win"]) is float and row["win"] in (0.0, 1.0)
        assert type(row["ruleset"]) is str and type(row["player"]) is str and type(row["status"]) is str
        assert row["end"] == "forfeit"
        if row["player"] == "frank":
            assert row["status"] == "error" and row["reason"] == "ZeroDivisionError: division by zero"
        else:
            assert row["status"] == "ok" and row["reason"] is None
    # The same values as the CSV, typed.
    code, text, _ = run("league", "games", str(faulty_league))
    first = text.splitlines()[1].split(",")
    assert [str(v) if v is not None else "" for v in rows[0].values()] == [
        f if k != 8 else str(float(f)) for k, f in enumerate(first)
    ]


class IllegalFromTurn:
    """Plays greedy until its turn ``at``, then keeps a die that scores nothing (illegal)."""

    name = "illegal"

    def __init__(self, at: int = 15) -> None:
        self.at = at

    def decide(self, view):  # type: ignore[no-untyped-def]
        if view.turn >= self.at:
            dead = [d for d in view.roll if d not in (1, 5)]
            if dead:
                return Action((dead[0],), False)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 350)


def test_rounds_of_the_issues_example_count_no_round_nobody_played() -> None:
    # Issue 39: arena.play([an illegal bot, "optimal", "threshold:bank_at=400"], rules="standard")
    # gave turns 16, 22, 22 and rounds 23: the round the retired seat 0 would have opened for
    # its final turn was counted, though nobody played in it.
    checked = 0
    for seed in range(40):
        players = [IllegalFromTurn, "optimal", "threshold:bank_at=400"]
        result = arena.play(players, rules="standard", seed=seed).result
        if result.retired != (0,) or result.reason != "target":
            continue
        # Seat 0 played its turns up to the fault (the cut-short one counts); the others play
        # every round after it, so the rounds are the most turns any seat took.
        assert result.rounds == max(result.turns), (seed, result.turns, result.rounds)
        # Seat 0 went out before the end: the issue's case, where it owed the final round's turn.
        owed = result.turns[0] < result.turns[1] == result.turns[2]
        checked += owed
    assert checked >= 10
