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
