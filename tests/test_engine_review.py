"""Adversarial review of the game state machine, rulesets and TOML loading.

Tests that fail demonstrate a problem found in review; the others pin down non-obvious cases the
other test files do not cover.  001 = "Standard", 000 = "Kurze Partie (5000)", 002 = the guide.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine import (
    CLASSIC,
    SHORT,
    Action,
    Game,
    IllegalAction,
    RulesetError,
    ScriptedDice,
    load_ruleset,
    score,
)
from arena.engine import events as ev
from tests.scripted import ScriptedGame

FARKLE_6 = (2, 2, 3, 3, 4, 6)
THREE_ONES_6 = (1, 1, 1, 2, 3, 4)
ONE_FIVE_6 = (5, 2, 3, 4, 6, 6)  # only a single 5 scores
ONE_ONE_6 = (1, 2, 3, 4, 6, 6)  # only a single 1 scores
# Six dice, target 1000, no entry: three 1s banked reach the target in one turn.
QUICK = CLASSIC.replace(name="review-quick", dice=6, target=1000, entry_threshold=0)


# --- illegal decisions must be refused, and refused as IllegalAction ---------------------------
def test_keep_of_eight_dice_does_not_alias_another_face() -> None:
    # Keys hold three bits per face, so eight 4s add up to the key of one 5.  The roll has one 4;
    # keeping eight of them is illegal, yet the engine reads it as keeping the 5.
    # Spare rolls (five dice, then six) let an accepted keep play on to the next decision.
    script = ScriptedGame(QUICK, 1, [ONE_FIVE_6, (2, 3, 4, 6, 6), THREE_ONES_6], [])
    script.run()
    before = script.game.view()
    with pytest.raises(IllegalAction):
        script.game.apply(Action((4,) * 8, False))
    assert script.game.view() == before
    assert script.of(ev.Kept) == []


@pytest.mark.parametrize("keep", [(True,), (1.0,), (True, 2)], ids=["True", "1.0", "True-and-2"])
def test_dice_that_are_not_int_faces_are_illegal_actions(keep: tuple) -> None:
    # score()/legal_keeps() refuse a die that is not an int 1..6; the game accepts True and 1.0 as
    # a 1 (hash-equal dict keys), and for (True, 2) raises a plain ValueError from
    # non_scoring_dice instead of IllegalAction.
    script = ScriptedGame(QUICK, 1, [ONE_ONE_6, THREE_ONES_6], [])
    script.run()
    before = script.game.view()
    with pytest.raises(IllegalAction):
        script.game.apply(Action(keep, True))
    assert script.game.view() == before


def test_refused_decisions_emit_no_events_and_change_nothing() -> None:
    # Bank below the bar (000) and bank right after hot dice under must_roll_after_hot_dice.
    rules = SHORT.replace(must_roll_after_hot_dice=True)
    script = ScriptedGame(rules, 2, [(1, 1, 1, 5, 5, 5), (4, 4, 4, 2, 3, 6)], [])
    script.run()
    before, n_events = script.game.view(), len(script.events)
    with pytest.raises(IllegalAction, match="rolling all dice again"):
        script.game.apply(Action((1, 1, 1, 5, 5, 5), True))
    with pytest.raises(IllegalAction, match="at least 350"):
        script.game.apply(Action((5,), True))
    assert script.game.view() == before and len(script.events) == n_events
    script.game.apply(Action((1, 1, 1, 5, 5, 5), False))
    assert script.game.view().turn_points == 3000  # two triplets (000): 1500 + 1000 + 500


# --- the safety valve ------------------------------------------------------------------------
def test_round_limit_reports_the_rounds_played() -> None:
    # Every turn farkles; max_rounds=3 plays three rounds, but the result says 4.
    game = Game(QUICK, 2, seed=0, roller=ScriptedDice([FARKLE_6] * 6), max_rounds=3)
    result = game.result()
    assert result.reason == "round_limit" and result.turns == (3, 3)
    assert result.rounds == 3


def test_round_limit_does_not_cut_the_last_turns_short() -> None:
    # 001 "jeder andere Spieler noch genau einen Zug": seat 1 reaches the target in the last
    # allowed round; seat 0's last turn falls in the next round and is skipped by the valve,
    # which also reports "round_limit" for a game that reached its target.
    rules = QUICK.replace(final_round="everyone_else")
    dice = ScriptedDice([FARKLE_6, THREE_ONES_6, THREE_ONES_6])
    game = Game(rules, 2, seed=0, roller=dice, max_rounds=1)
    game.apply(Action((1, 1, 1), True))
    assert not game.over, "seat 0 is owed its last turn"
    assert game.seat == 0 and game.view().final_round


# --- the view ----------------------------------------------------------------------------------
def test_view_after_the_game_is_over_is_refused() -> None:
    # After the end, view() still returns the last decision's stale situation (its roll, its
    # turn points, legal keeps) as if a decision were pending; result() raises the other way.
    script = ScriptedGame(QUICK, 1, [THREE_ONES_6], [((1, 1, 1), True)])
    script.run()
    assert script.game.over
    with pytest.raises(RuntimeError):
        script.game.view()


def test_a_bot_cannot_rescore_a_keep_through_the_view() -> None:
    # The view hands out the engine's own Keep records, shared process-wide through the
    # lru_cache'd score table; "frozen" does not stop object.__setattr__, so a bot can change what
    # a keep is worth for every game of that ruleset.  (A NamedTuple record could not be changed.)
    rules = QUICK.replace(name="review-tamper")
    game = Game(rules, 1, seed=0, roller=ScriptedDice([ONE_FIVE_6, THREE_ONES_6]))
    keep = game.view().legal_keeps[0]
    try:
        object.__setattr__(keep, "points", 950)
    except (AttributeError, TypeError):
        return  # the record cannot be changed
    try:
        game.apply(Action(keep.dice, True))
        assert game.scores == (50,)
    finally:
        object.__setattr__(keep, "points", 50)


# --- presets against the documents --------------------------------------------------------------
def test_classic_three_pairs_variant_is_worth_1500() -> None:
    # 002: "Nur mit sechs Würfeln: drei verschiedene Paare in einem Wurf ... zählen 1.500."
    # docs/rules.md: three_pairs_value "002: 1500", and "every variant below is one field away
    # ... CLASSIC.replace(dice=6, three_pairs=True)"; but CLASSIC keeps the default 750 (001's).
    rules = CLASSIC.replace(dice=6, three_pairs=True)
    assert score((2, 2, 4, 4, 6, 6), rules) == 1500


# --- end of game: coverage for non-obvious cases ----------------------------------------------
def test_final_round_starts_once_and_wraps_for_everyone_else() -> None:
    # Seat 1 of 3 reaches the target; seats 2 and 0 get one turn each (wrapping into the next
    # round); seat 2 passing the target again starts nothing new and wins.
    rules = QUICK.replace(final_round="everyone_else")
    rolls = [FARKLE_6, THREE_ONES_6, (1, 1, 1, 1, 2, 3), FARKLE_6]
    script = ScriptedGame(rules, 3, rolls, [((1, 1, 1), True), ((1, 1, 1, 1), True)])
    result = script.run()
    assert script.of(ev.FinalRound) == [ev.FinalRound(1, 1000, 2)]
    assert result.turns == (2, 1, 1) and result.winners == (2,) and result.ranks == (3, 2, 1)
    assert result.reason == "target"


def test_playoff_ignores_the_exact_target_and_ranks_losers_below_the_winner() -> None:
    # Exact target 1000 and a three-way tie: in the playoff 1000 more points count (no exact
    # target).  Round 1: seats 0 and 1 take 50, seat 2 farkles; round 2: seat 0 wins.
    rules = QUICK.replace(exact_target=True, ties="playoff")
    rolls = [THREE_ONES_6] * 3 + [ONE_FIVE_6, ONE_FIVE_6, FARKLE_6, THREE_ONES_6, ONE_FIVE_6]
    decisions = [((1, 1, 1), True)] * 3 + [((5,), True), ((5,), True), ((1, 1, 1), True), ((5,), True)]
    script = ScriptedGame(rules, 3, rolls, decisions)
    result = script.run()
    assert script.of(ev.PlayoffStarted) == [ev.PlayoffStarted((0, 1, 2)), ev.PlayoffStarted((0, 1))]
    assert script.of(ev.Overshot) == []
    assert result.scores == (1000, 1000, 1000) and result.winners == (0,)
    assert result.ranks == (1, 2, 2) and result.win_shares == (1.0, 0.0, 0.0)


def test_overshoot_is_no_farkle_and_breaks_the_farkle_run() -> None:
    # docs/rules.md reading 10: a forfeited overshoot breaks the run of farkles.
    rules = QUICK.replace(target=1500, exact_target=True, farkle_penalty=500, farkle_penalty_streak=2)
    rolls = [THREE_ONES_6, FARKLE_6, THREE_ONES_6, FARKLE_6, ONE_FIVE_6]
    script = ScriptedGame(rules, 1, rolls, [((1, 1, 1), True), ((1, 1, 1), False)])
    script.run()
    assert script.of(ev.Overshot) == [ev.Overshot(0, 1000)]
    assert script.of(ev.FarklePenalty) == []
    assert script.game.view().farkle_streaks == (1,) and script.game.scores == (1000,)


def test_entry_and_rising_bar_take_the_higher_minimum() -> None:
    rules = SHORT.replace(entry_threshold=500)
    script = ScriptedGame(rules, 2, [(1, 1, 1, 2, 3, 4), (6, 6, 6, 2, 3, 4)], [((1, 1, 1), True)])
    script.run()
    assert script.views[0].bank_minimum == 500  # max(entry 500, bar 350)
    assert script.game.view().bank_minimum == 1050  # seat 1: max(entry 500, bar 1000 + 50)


# --- TOML: refused naming the key ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('extends = "classic"\ntarget = 5000.0\n', "target"),
        ('extends = "classic"\n[extra]\ndice = 6\n', "extra"),
        ('extends = "classic"\ndice = [6]\n', "dice"),
        ("extends = 1\n", "extends"),
        ('extends = "classic"\nfinal_round = "Everyone_else"\n', "final_round"),
        ('extends = "classic"\nname = 5\n', "name"),
    ],
)
def test_toml_refusals_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        load_ruleset(str(path))
    assert info.value.key == key and str(info.value).startswith(f"{key}: ")
