"""`arena strategies list`, `arena solve` and `arena play` (with a human at the terminal)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import CLASSIC, STANDARD, Action, Ruleset, TurnView, legal_keeps
from arena.engine.game import play
from arena.perfect import perfect_action
from arena.players.advice import best_choice, optimal_advice, perfect_advice
from arena.players.human import HumanPlayer, LeftGame
from arena.players.solver import optimal_action, solve_turn

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
        (True, False),
        False,
        2,
        1,
        False,
    )
    assert player.decide(view) == Action((1, 1, 1), True)
    assert "  ! keep (3, 5): the roll (1, 1, 1, 2, 3) has no 5" in told
    assert "  ! keep (2,) from (1, 1, 1, 2, 3): 2 scores nothing here; every kept die must score" in told
    assert "  ! please answer b to bank or r to roll on, not 'x'" in told


def classic_view(scores: tuple[int, int], roll: tuple[int, ...], turn_points: int = 0) -> TurnView:
    """Seat 0's decision on ``roll`` in a two-player classic game."""
    need = CLASSIC.entry_threshold if scores[0] == 0 else 0
    keeps = legal_keeps(roll, CLASSIC)
    entered = (need == 0, True)
    return TurnView(
        CLASSIC, 0, 2, scores, roll, turn_points, need, keeps, (0, 0), (0, 0), entered, False, 2, 1, False
    )


def test_human_enter_takes_the_advised_keep_and_bank() -> None:
    # 1 1 2 5 6 with 400 banked: optimal keeps the lone 1 (d) and rolls on (254.4 expected
    # against 100 banked); pressing Enter at both prompts takes exactly that.
    view = classic_view((400, 0), (1, 1, 2, 5, 6))
    told: list[str] = []
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return ""

    player = HumanPlayer(ask=ask, tell=told.append, advise=optimal_advice)
    assert player.decide(view) == optimal_action(view) == Action((1,), False)
    assert "Enter: d;" in prompts[0] and "(Enter: r)" in prompts[1]
    assert "    d) keep 1              100 points, 4 dice left   [bank 100, roll on 254.4]" in told
    # Without advice shown, Enter still plays as optimal would, and no note is printed.
    told.clear()
    assert HumanPlayer(ask=lambda _: "", tell=told.append).decide(view) == optimal_action(view)
    assert not any("[" in line for line in told)


def test_human_help_shows_the_scores_and_q_leaves() -> None:
    view = classic_view((1250, 3400), (2, 3, 5, 6, 6), 300)
    answers = iter(["?", "b", "help", "q"])
    told: list[str] = []
    player = HumanPlayer(ask=lambda _: next(answers), tell=told.append, names=["you", "greedy"])
    with pytest.raises(LeftGame) as left:
        player.decide(view)
    assert left.value.scores == (1250, 3400)
    text = "\n".join(told)
    assert text.count("q             leave the game") == 2  # once at each of the two prompts
    assert "Scores: you 1,250, greedy 3,400; the game is played to 10,000." in text


def test_optimal_and_perfect_advice_pick_what_the_strategies_play() -> None:
    # Every decision of a few whole games: the advice's best keep and its bank-or-roll are the
    # strategy's own action, and a keep's value is the better of its bank and roll-on numbers.
    for rules, adviser, action in [
        (CLASSIC, optimal_advice, optimal_action),
        (STANDARD, optimal_advice, optimal_action),
        (CLASSIC, perfect_advice, perfect_action),
    ]:
        seen = 0

        def decide(view: TurnView, adviser=adviser, action=action, rules: Ruleset = rules) -> Action:
            nonlocal seen
            advice = adviser(view)
            if not advice:  # perfect has no values for this situation
                return optimal_action(view)
            assert len(advice) == len(view.legal_keeps)
            chosen = best_choice(advice)
            expected = action(view)
            assert Action(view.legal_keeps[chosen].dice, advice[chosen].bank) == expected
            seen += 1
            return expected

        for seed in range(3):
            play(rules, [decide, optimal_action], seed)
        assert seen > 20


def test_perfect_advice_is_empty_outside_its_model() -> None:
    three = classic_view((0, 0), (1, 2, 3, 4, 6))._replace(n_players=3, scores=(0, 0, 0))
    assert perfect_advice(three) == []
    assert optimal_advice(three)  # optimal advises in any game


def test_play_human_in_a_chosen_seat_leaves_with_q() -> None:
    code, out, err = run(
        "play",
        "--rules",
        "classic",
        "--human",
        "--seat",
        "1",
        "-p",
        "greedy",
        "--seed",
        "7",
        stdin="\n" * 3 + "q\n",
    )
    assert code == 0 and err == ""
    assert "seed 7 (replay with --seed 7); seats: 0 greedy, 1 you" in out
    assert "Enter takes the default shown, ? shows help and the scores, q leaves." in out
    # Seat 1 moves second: greedy's first turn comes before the person's first roll.
    assert out.index("  greedy (score 0") < out.index("  Your roll:")
    assert out.rstrip().endswith("You left the game; scores then: greedy 0, you 0.")


def test_play_human_with_optimal_advice() -> None:
    code, out, _ = run(
        "play",
        "--rules",
        "classic",
        "--human",
        "-p",
        "greedy",
        "--seed",
        "7",
        "--advice",
        "optimal",
        stdin="\n" * 200 + "q\n",
    )
    assert code == 0
    assert "optimal's advice: the points you can expect to bank this turn" in out
    assert "[roll on 224.2]" in out  # keep a lone 1 of 1 1 2 5 6 with 350 needed: optimal's value


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "1", "-p", "greedy"], "--seat goes with --human"),
        (["--advice", "optimal", "-p", "greedy"], "--advice goes with --human"),
        (["--human", "--seat", "2", "-p", "greedy"], "--seat 2: with 2 seats, choose 0 to 1"),
        (["--human", "--seat", "-1", "-p", "greedy"], "--seat -1: with 2 seats, choose 0 to 1"),
        (["--human", "--advice", "perfect", "-p", "greedy", "-p", "greedy"], "--advice perfect: "),
        (["--human", "--advice", "perfect", "-p", "greedy", "--rules", "short"], "--advice perfect: "),
        (["--pace", "enter", "-p", "greedy"], "--pace goes with --human"),
        (["--human", "--pace", "soon", "-p", "greedy"], "--pace takes enter, off or a pause in seconds"),
        (["--human", "--pace", "100", "-p", "greedy"], "--pace 100: a pause is 0 to 10 seconds"),
    ],
)
def test_play_human_options_bad_input(args: list[str], message: str) -> None:
    code, out, err = run("play", *args)
    assert code == 2 and out == "" and err.startswith(f"arena: error: {message}")
    assert len(err.strip().splitlines()) == 1


def test_the_rising_bar_says_where_it_comes_from() -> None:
    """000's bar: each "needs N to bank" under the rising bar names the turn it comes from, and
    that turn's bank (or the miss that reset it) is the line before it in the story."""
    import re

    code, out, _ = run("play", "--rules", "short", "-p", "greedy", "-p", "threshold", "--seed", "3")
    assert code == 0
    lines = out.splitlines()
    explained = 0
    last_bank: int | None = None
    for line in lines:
        bank = re.search(r"banks (\d+):", line)
        if bank:
            last_bank = int(bank.group(1))
        if "FARKLE" in line or "OVERSHOT" in line:
            last_bank = None
        need = re.search(r"needs (\d+) to bank: the bar, (\d+) banked in the turn before \+ 50", line)
        if need:
            assert last_bank == int(need.group(2)) and int(need.group(1)) == last_bank + 50, line
            explained += 1
        if "back to 350 after a missed turn" in line:
            assert last_bank is None, line
            explained += 1
    assert explained >= 10


def test_pace_enter_waits_after_each_opponent_turn_before_the_next_one_starts() -> None:
    # Three seats: the person, then two bots; Enter answers every prompt, the pacer's too.
    code, out, err = run(
        "play", "--rules", "classic", "--human", "-p", "greedy", "-p", "threshold", "--seed", "3",
        "--pace", "enter", stdin="\n" * 3000,
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    waits = [k for k, line in enumerate(lines) if "(Enter to go on, q to leave)" in line]
    starts = [k for k, line in enumerate(lines) if line.startswith("  ") and " (score " in line]
    assert waits
    for k in waits:  # what follows the wait (the runner echoes the Enter) is the next turn's start
        after = lines[k].split("(Enter to go on, q to leave)", 1)[1].strip() or lines[k + 1]
        assert after.startswith("Round ") or " (score " in after
    # Every turn that follows a bot's turn waits, and no other does.
    seat_of = [lines[k].split(" (score ")[0].split()[-1] for k in starts]
    expected = sum(1 for a, _ in itertools.pairwise(seat_of) if a != "you")
    assert len(waits) == expected > 0


def test_pace_q_at_the_wait_leaves_and_off_never_waits() -> None:
    code, out, _ = run(
        "play", "--rules", "classic", "--human", "-p", "greedy", "--seed", "1", "--pace", "enter",
        stdin="\n\n" + "q\n",
    )  # fmt: skip
    assert code == 0 and out.count("(Enter to go on") == 1
    assert out.rstrip().endswith("You left the game; scores then: you 600, greedy 0.")
    code, out, _ = run(
        "play", "--rules", "classic", "--human", "-p", "greedy", "--seed", "7", "--pace", "off",
        stdin="\n" * 400,
    )  # fmt: skip
    assert code == 0 and "Enter to go on" not in out and "Game over" in out


def test_pace_seconds_pauses_after_each_opponent_roll_only() -> None:
    from arena.cli.pacing import Pacer, paced, parse_pace
    from arena.engine import events as ev

    assert parse_pace(" 0.5 ") == 0.5 and parse_pace("ENTER") == "enter" and parse_pace("off") == "off"
    slept: list[float] = []
    shown: list[str] = []
    pacer = Pacer(0, 0.25, ask=lambda _: "", scores=lambda: (0, 0), sleep=slept.append)
    on_event = paced(lambda e: shown.append(type(e).__name__), pacer)
    for event in (
        ev.TurnStarted(0, 0, 350), ev.Rolled(0, (1, 2, 3, 4, 6)), ev.Farkled(0, 0),
        ev.TurnStarted(1, 0, 350), ev.Rolled(1, (1, 1, 2, 3, 4)), ev.Rolled(1, (2, 2, 3)),
    ):  # fmt: skip
        on_event(event)
    assert slept == [0.25, 0.25]  # the bot's two rolls, not the person's
    assert shown == ["TurnStarted", "Rolled", "Farkled", "TurnStarted", "Rolled", "Rolled"]
