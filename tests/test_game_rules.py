"""The game state machine: turns, hot dice, entry, exact target, bar and strikes, penalties,
both end-of-game rules, ties, and illegal decisions; replayed with scripted dice."""

from __future__ import annotations

import pytest

from arena.engine import CLASSIC, SHORT, STANDARD, Action, Game, IllegalAction, ScriptedDice, play, score
from arena.engine import events as ev
from tests.scripted import ScriptedGame

FARKLE_6 = (2, 2, 3, 3, 4, 6)  # no 1, no 5, no triple; three pairs are off in CLASSIC_6
THREE_ONES_6 = (1, 1, 1, 2, 3, 4)
# Six dice, target 1000, no entry: three 1s banked reach the target in one turn.
QUICK = CLASSIC.replace(name="quick", dice=6, target=1000, entry_threshold=0)


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("final_round", ["everyone_else", "rest_of_round"])
def test_final_round_gives_the_documented_turns(n: int, final_round: str) -> None:
    for trigger in range(n):
        # 001: every other player gets exactly one more turn; 000/002: only those still to play
        # in the same round.
        turns_after = n - 1 if final_round == "everyone_else" else n - 1 - trigger
        rolls = [FARKLE_6] * trigger + [THREE_ONES_6] + [FARKLE_6] * turns_after
        script = ScriptedGame(QUICK.replace(final_round=final_round), n, rolls, [((1, 1, 1), True)])
        result = script.run()
        assert result is not None, "the game should be over"
        assert script.dice.remaining == 0, "every scripted turn must have been played"
        assert script.of(ev.FinalRound) == [ev.FinalRound(trigger, 1000, turns_after)]
        assert result.winners == (trigger,)
        assert sum(result.turns) == trigger + 1 + turns_after


def test_001_preset_uses_everyone_else_and_000_002_rest_of_round() -> None:
    assert STANDARD.final_round == "everyone_else"
    assert SHORT.final_round == CLASSIC.final_round == "rest_of_round"


def test_last_round_catch_up_wins_and_ties_share() -> None:
    # Seat 0 reaches 1000; seat 1 passes it in its last turn (002: "vorbeizuziehen").
    rolls = [THREE_ONES_6, (1, 1, 1, 1, 2, 3)]
    script = ScriptedGame(QUICK, 2, rolls, [((1, 1, 1), True), ((1, 1, 1, 1), True)])
    result = script.run()
    assert result.scores == (1000, 2000) and result.winners == (1,) and result.ranks == (2, 1)
    # Equal top scores share the win (002: "teilen sich die Spieler den Sieg").
    script = ScriptedGame(QUICK, 3, [THREE_ONES_6] * 3, [((1, 1, 1), True)] * 3)
    result = script.run()
    assert result.winners == (0, 1, 2)
    assert result.win_shares == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert result.ranks == (1, 1, 1)


def test_playoff_breaks_a_tie_with_one_turn_each() -> None:
    rules = QUICK.replace(ties="playoff")
    rolls = [THREE_ONES_6, THREE_ONES_6, (5, 2, 3, 4, 6, 6), (1, 2, 3, 4, 6, 6)]
    decisions = [((1, 1, 1), True), ((1, 1, 1), True), ((5,), True), ((1,), True)]
    script = ScriptedGame(rules, 2, rolls, decisions)
    result = script.run()
    assert script.of(ev.PlayoffStarted) == [ev.PlayoffStarted((0, 1))]
    assert result.scores == (1000, 1000)  # playoff points decide, they are not added
    assert result.winners == (1,) and result.win_shares == (0.0, 1.0) and result.ranks == (2, 1)
    # In a playoff turn there is no minimum and no exact target.
    assert all(v.playoff and v.bank_minimum == 0 for v in script.views[2:])


# --- hot dice ---------------------------------------------------------------------------------
def test_hot_dice_hand_back_all_dice_with_the_points() -> None:
    script = ScriptedGame(
        STANDARD,
        1,
        rolls=[(1, 1, 1, 5, 5, 2), (5,), (1, 1, 1, 1, 1, 1), (1, 2, 3, 4, 6, 6)],
        decisions=[((1, 1, 1, 5, 5), False), ((5,), False), ((1, 1, 1, 1, 1, 1), False)],
    )
    script.run()
    assert [(k.turn_points, k.dice_left, k.hot) for k in script.of(ev.Kept)] == [
        (1100, 1, False),
        (1150, 6, True),
        (9150, 6, True),
    ]
    assert [len(r.dice) for r in script.of(ev.Rolled)] == [6, 1, 6, 6]


def test_bank_right_after_hot_dice_is_allowed_in_the_base_form() -> None:
    script = ScriptedGame(CLASSIC, 1, [(1, 1, 1, 5, 5), (1, 2, 3, 4, 6)], [((1, 1, 1, 5, 5), True)])
    script.run()
    assert script.game.scores == (1100,)


def test_must_roll_after_hot_dice() -> None:
    rules = CLASSIC.replace(must_roll_after_hot_dice=True)
    script = ScriptedGame(rules, 1, [(1, 1, 1, 5, 5), (2, 2, 3, 4, 6), (1, 2, 3, 4, 6)], [])
    script.run()
    with pytest.raises(IllegalAction, match="rolling all dice again"):
        script.game.apply(Action((1, 1, 1, 5, 5), True))
    script.game.apply(Action((1, 1, 1, 5, 5), False))
    assert script.of(ev.Farkled) == [ev.Farkled(0, 1100)]
    assert script.of(ev.Kept)[0].hot


# --- entry ------------------------------------------------------------------------------------
def test_001_entry_500() -> None:
    script = ScriptedGame(STANDARD, 1, [(4, 4, 4, 5, 2, 3)], [])
    script.run()
    assert script.game.view().bank_minimum == 500
    with pytest.raises(IllegalAction, match="at least 500"):
        script.game.apply(Action((4, 4, 4), True))
    with pytest.raises(IllegalAction, match="at least 500"):
        script.game.apply(Action((4, 4, 4, 5), True))  # 450
    game = ScriptedGame(
        STANDARD,
        1,
        [(4, 4, 4, 5, 2, 3), (5, 2), (5, 2, 3, 4, 6, 6), (2, 3, 4, 6, 5, 3)],
        [((4, 4, 4, 5), False), ((5,), True), ((5,), True)],
    )
    game.run()
    assert [b.points for b in game.of(ev.Banked)] == [500, 50]
    assert game.views[2].bank_minimum == 0


def test_entry_stays_done_after_losing_the_score() -> None:
    # Reading: entering is a one-time hurdle; a penalty back to zero does not bring it back.
    rules = STANDARD.replace(farkle_penalty_to_zero=True, farkle_penalty_streak=1)
    script = ScriptedGame(rules, 1, [(1, 1, 1, 2, 3, 4), FARKLE_6, (5, 2, 3, 4, 6, 6)], [((1, 1, 1), True)])
    script.run()
    assert script.of(ev.FarklePenalty) == [ev.FarklePenalty(0, 1000, 0)]
    assert script.game.view().bank_minimum == 0
    # The view says so (for a player weighing an opponent at 0 points: perfect play does).
    assert script.views[0].entered == (False,)
    assert script.game.view().entered == (True,) and script.game.view().score == 0


# --- exact target (001) -----------------------------------------------------------------------
def test_001_overshoot_forfeits_the_turn() -> None:
    rules = STANDARD.replace(target=1500)
    script = ScriptedGame(
        rules,
        1,
        rolls=[THREE_ONES_6, (1, 1, 1, 5, 2, 3), (5, 5, 5, 2, 3, 4), (5, 2, 3, 4, 6, 6)],
        decisions=[((1, 1, 1), True), ((1, 1, 1), False), ((5, 5, 5), True)],
    )
    result = script.run()
    # 1000 + 1000 passes 1500: the turn is lost at once, even though the player wanted to roll on.
    assert script.of(ev.Overshot) == [ev.Overshot(0, 1000)]
    assert script.views[1].overshoots(script.views[1].legal_keeps[0])
    # 1000 + 500 hits 1500 exactly: the target is reached and the game ends.
    assert result is not None and result.scores == (1500,)


def test_target_need_not_be_exact_in_the_base_form() -> None:
    # 002: "10.350 zählen genauso wie 10.000, nur eben mehr."
    rules = QUICK.replace(target=1000)
    script = ScriptedGame(rules, 1, [(1, 1, 1, 1, 5, 2)], [((1, 1, 1, 1, 5), True)])
    assert script.run().scores == (2050,)


# --- 000: the rising bar and strikes ----------------------------------------------------------
def test_000_bar_rises_by_50_and_resets_after_a_miss() -> None:
    script = ScriptedGame(
        SHORT,
        2,
        rolls=[(4, 4, 4, 2, 3, 6), FARKLE_6, (1, 2, 3, 4, 6, 6)],
        decisions=[((4, 4, 4), True)],
    )
    script.run()
    assert script.views[0].bank_minimum == 350  # "Der erste Zug muss mindestens 350 Punkte"
    assert script.game.view().bank_minimum == 350  # seat 0 after seat 1's miss
    starts = script.of(ev.TurnStarted)
    assert [(s.seat, s.bank_minimum) for s in starts] == [(0, 350), (1, 450), (0, 350)]
    assert script.of(ev.Struck) == [ev.Struck(1, 1)]
    assert script.game.view().strikes == (0, 1)


def test_000_bank_below_the_bar_is_refused() -> None:
    script = ScriptedGame(SHORT, 2, [(4, 4, 4, 2, 3, 6), (4, 4, 4, 2, 3, 6)], [((4, 4, 4), True)])
    script.run()
    assert script.game.view().bank_minimum == 450
    assert script.game.view().points_to_bank == 450
    with pytest.raises(IllegalAction, match="at least 450 before banking \\(the bar"):
        script.game.apply(Action((4, 4, 4), True))


def test_000_three_strikes_set_the_score_to_zero_and_a_success_clears_them() -> None:
    bank_400 = (4, 4, 4, 2, 3, 6)
    # Solo game: bar after a bank of 400 is 450; after a miss 350.
    rolls = [bank_400, FARKLE_6, FARKLE_6, bank_400, FARKLE_6, FARKLE_6, FARKLE_6, (1, 2, 3, 4, 6, 6)]
    script = ScriptedGame(SHORT, 1, rolls, [((4, 4, 4), True), ((4, 4, 4), True)])
    script.run()
    assert [s.strikes for s in script.of(ev.Struck)] == [1, 2, 1, 2, 3]
    assert script.of(ev.StruckOut) == [ev.StruckOut(0, 800)]
    assert script.game.scores == (0,)
    assert script.game.view().strikes == (0,)


def test_000_farkle_counts_as_a_missed_bar_across_players() -> None:
    # Seat 0 banks 400, seat 1 farkles (strike; the bar for seat 2 is back at 350).
    script = ScriptedGame(SHORT, 3, [(4, 4, 4, 2, 3, 6), FARKLE_6, (1, 1, 1, 2, 3, 4)], [((4, 4, 4), True)])
    script.run()
    assert script.game.seat == 2 and script.game.view().bank_minimum == 350
    assert script.game.view().strikes == (0, 1, 0)


def test_rising_bar_with_an_exact_target_counts_an_overshoot_as_a_miss() -> None:
    rules = SHORT.replace(exact_target=True, target=1000)
    script = ScriptedGame(
        rules,
        1,
        [(6, 6, 6, 2, 3, 4), (1, 1, 1, 2, 3, 4), (5, 5, 5, 2, 3, 4)],
        [((6, 6, 6), True), ((1, 1, 1), False)],
    )
    script.run()
    assert script.of(ev.Overshot) == [ev.Overshot(0, 1000)]
    assert script.of(ev.Struck) == [ev.Struck(0, 1)]
    assert script.game.view().bank_minimum == 350


# --- 002: three farkles in a row cost points ---------------------------------------------------
@pytest.mark.parametrize(
    ("penalty", "to_zero", "expected"), [(500, False, 500), (1000, False, 0), (0, True, 0)]
)
def test_farkle_penalty(penalty: int, to_zero: bool, expected: int) -> None:
    rules = QUICK.replace(target=5000, farkle_penalty=penalty, farkle_penalty_to_zero=to_zero)
    rolls = [THREE_ONES_6, FARKLE_6, FARKLE_6, FARKLE_6, FARKLE_6, (1, 2, 3, 4, 6, 6)]
    script = ScriptedGame(rules, 1, rolls, [((1, 1, 1), True)])
    script.run()
    assert script.of(ev.FarklePenalty) == [ev.FarklePenalty(0, 1000 - expected, expected)]
    assert script.game.scores == (expected,)
    # The run starts again after a penalty: the fourth farkle is the first of a new run.
    assert script.game.view().farkle_streaks == (1,)


def test_farkle_penalty_needs_farkles_in_a_row() -> None:
    rules = QUICK.replace(target=5000, farkle_penalty=500)
    rolls = [THREE_ONES_6, FARKLE_6, FARKLE_6, (5, 2, 3, 4, 6, 6), FARKLE_6, FARKLE_6, THREE_ONES_6]
    script = ScriptedGame(rules, 1, rolls, [((1, 1, 1), True), ((5,), True)])
    script.run()
    assert script.of(ev.FarklePenalty) == []
    assert script.game.scores == (1050,)


def test_penalty_never_takes_the_score_below_zero() -> None:
    rules = QUICK.replace(target=5000, farkle_penalty=1000)
    script = ScriptedGame(rules, 1, [(5, 2, 3, 4, 6, 6)] + [FARKLE_6] * 3 + [THREE_ONES_6], [((5,), True)])
    script.run()
    assert script.of(ev.FarklePenalty) == [ev.FarklePenalty(0, 50, 0)]


# --- illegal decisions ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Action((), False), "empty keep"),
        (Action((6,), False), "has no 6"),
        (Action((1, 1, 1), False), "has only 2 × 1"),
        (Action((2, 5), False), "2 scores nothing"),
        (Action((2, 2), False), "2 scores nothing"),
        (Action((7,), False), "7 is not a die face"),
        (Action((1,), "yes"), "bank must be True or False"),
        (None, "Action\\(keep, bank\\)"),
        ((1, 5, 3), "Action\\(keep, bank\\)"),
    ],
)
def test_illegal_actions_say_what_was_wrong_and_change_nothing(action: object, message: str) -> None:
    script = ScriptedGame(CLASSIC, 2, [(1, 1, 5, 2, 2), (1, 2)], [])
    script.run()
    before = script.game.view()
    with pytest.raises(IllegalAction, match=message):
        script.game.apply(action)  # type: ignore[arg-type]
    assert script.game.view() == before
    script.game.apply(Action((1, 1, 5), False))  # the same situation can still be decided


def test_no_decision_after_the_game_is_over() -> None:
    script = ScriptedGame(QUICK, 1, [THREE_ONES_6], [((1, 1, 1), True)])
    script.run()
    with pytest.raises(IllegalAction, match="over"):
        script.game.apply(Action((1,), True))


# --- games of any size, and the safety valve --------------------------------------------------
def test_one_player_game_ends_at_the_target() -> None:
    script = ScriptedGame(QUICK, 1, [THREE_ONES_6], [((1, 1, 1), True)])
    result = script.run()
    assert result.winners == (0,) and result.rounds == 1 and result.turns == (1,)


def test_round_limit_stops_a_game_nobody_can_finish() -> None:
    def always_overshoot(view):  # banks everything, so a 50-point gap is never closed exactly
        return Action(view.legal_keeps[0].dice, view.bank_allowed(view.legal_keeps[0]))

    rules = STANDARD.replace(target=550)
    result = play(rules, [always_overshoot, always_overshoot], seed=3, max_rounds=40)
    assert result.rounds <= 40
    if result.reason == "round_limit":
        assert result.rounds == 40
        assert result.winners == tuple(s for s, x in enumerate(result.scores) if x == max(result.scores))


def test_game_rejects_no_players() -> None:
    with pytest.raises(ValueError, match="at least one player"):
        Game(CLASSIC, 0, seed=1)


# --- edge cases of the state machine: refused decisions, round limits, final round, playoff -----
ONE_FIVE_6 = (5, 2, 3, 4, 6, 6)  # only a single 5 scores
ONE_ONE_6 = (1, 2, 3, 4, 6, 6)  # only a single 1 scores


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
