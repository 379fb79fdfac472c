"""Issue 12, part L: the lean Python path.  What its shortcuts must not change: a keep known by
identity plays as the same keep given any other way, Game.step and Game.apply agree, and the
watchdog alone (no clock read per call in the main thread) still makes every overlong call a
timeout, swallowed or not, and never a short one."""

from __future__ import annotations

import threading
import time

import pytest

from arena.engine import CLASSIC, STANDARD, Action, Game, IllegalAction, TurnView, play
from arena.players import PlayerFault, play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.threshold import ThresholdPlayer
from arena.players.match import Guard
from arena.players.timeout import MoveTimeout


def _copied(decide):
    """``decide`` with its keep handed back as a new list of the same dice (no identity)."""
    return lambda view: (list(decide(view).keep), decide(view).bank)


def test_a_keep_known_by_identity_plays_as_the_same_dice_given_anew() -> None:
    for rules in (STANDARD, CLASSIC):
        for seed in range(20):
            players = [ThresholdPlayer().decide, GreedyPlayer().decide]
            fast = play(rules, players, seed)
            slow = play(rules, [_copied(d) for d in players], seed)
            assert fast == slow


def test_step_returns_the_next_view_and_apply_agrees() -> None:
    stepped, applied = Game(STANDARD, 2, 9), Game(STANDARD, 2, 9)
    view = stepped.view()
    while view is not None:
        keep = view.legal_keeps[0]
        action = Action(keep.dice, view.bank_allowed(keep) and not view.overshoots(keep))
        assert applied.view() == view and type(view) is TurnView
        view = stepped.step(action)
        applied.apply(action)
    assert applied.over and stepped.result() == applied.result()
    with pytest.raises(IllegalAction, match="the game is over"):
        stepped.step(Action((1,), True))


def test_an_illegal_step_changes_nothing_and_the_game_goes_on() -> None:
    game = Game(CLASSIC, 2, 4)
    view = game.view()
    for bad in ((), (7,), None, ((1,), "yes")):
        with pytest.raises(IllegalAction):
            game.step(bad)  # type: ignore[arg-type]
        assert game.view() is view
    keep = view.legal_keeps[0]
    assert game.step(Action(keep.dice, False)) is game.view()


class Sleeper:
    """Sleeps ``seconds`` at its first decision, then plays greedy; with ``swallow`` it catches the
    MoveTimeout and sleeps on."""

    name = "sleeper"

    def __init__(self, seconds: float, swallow: bool = False) -> None:
        self.seconds, self.swallow, self.slept = seconds, swallow, False
        self.caught = 0

    def decide(self, view: TurnView) -> Action:
        if not self.slept:
            self.slept = True
            end = time.perf_counter() + self.seconds
            while time.perf_counter() < end:
                try:
                    time.sleep(0.005)
                except MoveTimeout:
                    if not self.swallow:
                        raise
                    self.caught += 1
        return GreedyPlayer().decide(view)


def test_the_watchdog_stops_an_overlong_decision_in_the_main_thread() -> None:
    sleeper = Sleeper(5.0)
    began = time.perf_counter()
    with pytest.raises(PlayerFault) as fault:
        play_match(CLASSIC, [sleeper, GreedyPlayer()], 1, move_timeout=0.1)
    assert (fault.value.status, fault.value.reason) == ("timeout", "no decision within 0.1 s")
    assert time.perf_counter() - began < 1.0  # stopped by the signal, not waited out


def test_a_decision_that_swallows_the_timeout_and_returns_still_loses() -> None:
    sleeper = Sleeper(0.4, swallow=True)
    with pytest.raises(PlayerFault) as fault:
        play_match(CLASSIC, [sleeper, GreedyPlayer()], 1, move_timeout=0.1)
    assert fault.value.status == "timeout" and sleeper.caught == 1  # signalled once, not again


def test_decisions_within_the_limit_are_never_timeouts() -> None:
    # Each of seat 0's first decisions takes about half the limit: never stopped.
    sleeper = Sleeper(0.05)
    result = play_match(CLASSIC, [sleeper, GreedyPlayer()], 2, move_timeout=0.1)
    assert result.turns[0] > 0


def test_outside_the_main_thread_an_overlong_decision_loses_when_it_returns() -> None:
    faults: list[PlayerFault] = []

    def run() -> None:
        try:
            play_match(CLASSIC, [Sleeper(0.3), GreedyPlayer()], 1, guard=Guard(0.1))
        except PlayerFault as fault:
            faults.append(fault)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    assert [(f.status, f.reason) for f in faults] == [("timeout", "no decision within 0.1 s")]


# --- what the score table answers for strategies ----------------------------------------------------
def _views(rules, games: int = 30) -> list[TurnView]:
    """Every view of a few games of threshold against greedy (exact targets included)."""
    views = []
    for seed in range(games):
        game = Game(rules, 2, seed)
        deciders = (ThresholdPlayer(bank_at=600).decide, GreedyPlayer().decide)
        view = game.view()
        while view is not None:
            views.append(view)
            view = game.step(deciders[view.seat](view))
    return views


@pytest.mark.parametrize("rules", [STANDARD, CLASSIC, STANDARD.replace(name="playoff", ties="playoff")])
def test_the_keep_helpers_answer_as_their_definitions(rules) -> None:
    from arena.players.builtin.common import best_keep, keeps_within_target, most_dice_keep, room

    views = _views(rules)
    passing = any(view.overshoots(view.legal_keeps[0]) for view in views)
    assert passing == rules.exact_target  # under an exact target the slow branch is met
    for view in views:
        keeps = view.legal_keeps
        safe = tuple(k for k in keeps if not view.overshoots(k)) or keeps
        assert keeps_within_target(view) == safe
        assert best_keep(view) is safe[0]
        assert most_dice_keep(view) is max(safe, key=lambda k: (len(k.dice), k.points))
        assert keeps.most_dice == tuple(sorted(keeps, key=lambda k: (-len(k.dice), -k.points)))
        for keep in keeps:
            assert view.may_bank(keep) == (view.bank_allowed(keep) and not view.overshoots(keep))
            left = room(view)
            assert view.overshoots(keep) == (left is not None and keep.points > left)


def test_keeps_are_an_immutable_tuple_that_survives_a_copy() -> None:
    import copy
    import pickle

    from arena.engine import legal_keeps

    keeps = legal_keeps((1, 1, 5, 5, 2, 3), STANDARD)
    assert keeps == tuple(keeps) and isinstance(keeps, tuple)
    with pytest.raises(AttributeError):
        keeps.most_dice = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        keeps.note = 1  # type: ignore[attr-defined]
    for other in (copy.deepcopy(keeps), pickle.loads(pickle.dumps(keeps))):
        assert other == keeps and other.most_dice == keeps.most_dice
    assert keeps.most_dice[0].dice == (1, 1, 5, 5)


def test_keeps_outliving_their_table_still_answer() -> None:
    import gc

    from arena.engine.scoring import ScoreTable

    table = ScoreTable(STANDARD.replace(name="short-lived"))
    keeps = [k for k in table.keeps.values() if len(k) > 3]
    listed = [k.most_dice for k in keeps]
    del table
    gc.collect()
    assert [k.most_dice for k in keeps] == listed  # worked out again, not a stale listing


def test_a_game_stopped_by_an_exception_says_so() -> None:
    from arena.engine import ScriptedDice

    game = Game(CLASSIC, 2, 1, roller=ScriptedDice([(1, 2, 3, 4, 6)]))
    with pytest.raises(LookupError, match="ran out"):
        game.step(Action((1,), False))  # the next roll is past the script
    with pytest.raises(RuntimeError, match="stopped by an exception"):
        game.step(Action((1,), False))
