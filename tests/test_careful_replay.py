"""Issue 38, point 9(b): a run with a bot that changes the ruleset its view shows gave other
bytes from run to run on a loaded machine.

The race: a chunk process that finds a changed ruleset is re-played with a check after every
call (``careful``), which faults the call that changed it.  That fault was raised from inside
the decision's bookkeeping and skipped the board's "call returned" mark, so the supervisor went
on timing the call as running through arena's own work after it; past the move timeout plus
the grace (a second or so of a loaded machine) it killed the chunk and re-played the call as a
timeout.  The same mutator was then ``error: changed the ruleset`` in one run and ``timeout``
in the next.  The load is played here by arena's own time after each game, slowed on purpose."""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Action
from arena.engine.presets import PRESETS
from arena.players import load_player_spec, play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.match import PHASE, Guard
from arena.tournaments import batch, player_from_class
from arena.tournaments.batch import RULE_FIELDS, copy_ruleset
from arena.tournaments.run_folder import RunFolder
from arena.tournaments.runner import run_tournament
from arena.tournaments.spec import TournamentSpec

CHANGED = "changed the ruleset it was shown (view.rules or info.rules), which strategies may only read"


class Mutator:
    """Changes the ruleset it is shown at its third turn of every game."""

    name = "mutator"

    def decide(self, view: Any) -> Action:
        if view.turn == 3:
            object.__setattr__(view.rules, "target", 50)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 300)


class Honest(Mutator):
    name = "honest"

    def decide(self, view: Any) -> Action:
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep) and view.turn_points + keep.points >= 300)


@pytest.mark.parametrize("game_time", [None, 30.0])  # Guard.play's hot loop; Guard.move
def test_the_fault_of_a_changed_ruleset_leaves_the_board_between_calls(game_time: float | None) -> None:
    rules = copy_ruleset(PRESETS["classic"])
    pristine = RULE_FIELDS(rules)
    guard = Guard(10.0, game_time=game_time)
    guard.watch = lambda: any(a is not b for a, b in zip(RULE_FIELDS(rules), pristine, strict=True))
    faults: list = []
    play_match(rules, [Mutator(), GreedyPlayer()], 3, guard=guard, on_fault=faults.append)
    assert [(f.seat, f.status, f.reason) for f in faults] == [(0, "error", CHANGED)]
    # Even: no call is running (the supervisor times an odd phase as a call in progress).
    assert guard.board[PHASE] % 2 == 0


def _mutator_rows(tmp_path: Path, name: str, cls: type, monkeypatch: pytest.MonkeyPatch, slow: float) -> list:
    """The rows of a two-game run of ``cls`` against greedy, under a supervisor, with ``slow``
    seconds of arena's own time after each game (outside any call)."""
    real = batch.game_rows

    def slowed(*args: Any, **kwargs: Any) -> str:
        time.sleep(slow)
        return real(*args, **kwargs)

    monkeypatch.setattr(batch, "game_rows", slowed)  # the template and chunk processes fork from here
    players = (player_from_class(cls), load_player_spec("greedy"))
    spec = TournamentSpec((PRESETS["standard"],), players, games=2, seed=5, move_timeout=0.2)
    folder = tmp_path / name
    run_tournament(spec, RunFolder.create(folder, spec), workers=1, progress=False)
    with (folder / "games.csv").open(newline="") as file:
        return [(r["game"], r["player"], r["status"], r["reason"]) for r in csv.DictReader(file)]


@pytest.mark.slow
def test_a_slow_moment_after_the_careful_fault_is_not_taken_for_a_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = _mutator_rows(tmp_path, "quick", Mutator, monkeypatch, 0.0)
    assert [r[2:] for r in quick if r[1] == "mutator"] == [("error", CHANGED)] * 2
    # 1.5 s of arena's own time after each game: past the 0.2 s move timeout and the 1 s grace.
    assert _mutator_rows(tmp_path, "slowed", Mutator, monkeypatch, 1.5) == quick
    # The same slow moments with an honest bot: no fault either way (arena's time is its own).
    honest = _mutator_rows(tmp_path, "honest", Honest, monkeypatch, 1.5)
    assert {r[2] for r in honest} == {"ok"}
