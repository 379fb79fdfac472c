"""The optional ``end_turn`` hook (issue 25, point 8): every seat is told how every turn ended,
in-process, under ``--isolate`` and as protocol 2's ``turn_end`` message to a ``cmd:`` bot; a
hook's fault is its own seat's; a declarative strategy with the hook plays in Python."""

from __future__ import annotations

import csv
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import PRESETS, Ruleset, TurnEnd
from arena.players import Policy, PolicyPlayer, play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.policy import policy_of
from arena.sandbox import wire

#: Rulesets that reach every way a turn ends: the exact target's forfeits (standard), the rising
#: bar's strikes and strike-outs (short), the farkle penalty and the playoff (variants of 002).
RULESETS = [
    PRESETS["standard"],
    PRESETS["short"],
    PRESETS["classic"],
    Ruleset(name="penalty", dice=5, target=3000, farkle_penalty=300, farkle_penalty_streak=2),
    Ruleset(name="playoff", target=4000, ties="playoff"),
]


class Listener:
    """Greedy's play, and every turn end it is told."""

    name = "listener"

    def __init__(self) -> None:
        self.ends: list[TurnEnd] = []
        self.greedy = GreedyPlayer()

    def end_turn(self, turn: TurnEnd) -> None:
        self.ends.append(turn)

    def decide(self, view):  # type: ignore[no-untyped-def]
        return self.greedy.decide(view)


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_every_seat_hears_every_turn_and_the_ends_add_up_to_the_result(rules: Ruleset) -> None:
    seen = Counter()
    for seed in range(40):
        seats = [Listener(), Listener(), Listener()]
        result = play_match(rules, seats, seed)
        ends = seats[0].ends
        assert all(s.ends == ends for s in seats)  # everyone hears the same, in the same order
        for seat in range(3):
            own = [e for e in ends if e.seat == seat]
            assert [e.turn for e in own] == list(range(result.turns[seat]))  # each turn, once, in order
            assert sum(e.how == "farkled" for e in own) == result.farkles[seat]
            scored = [e for e in own if not e.playoff]
            banked = sum(e.points for e in scored if e.how == "banked")
            assert banked - sum(e.penalty for e in scored) == result.scores[seat]
            if scored:
                assert scored[-1].score == result.scores[seat]
        assert ends[-1].scores == result.scores or ends[-1].playoff
        for e in ends:
            seen[e.how] += 1
            seen["struck"] += e.struck
            seen["penalty"] += e.penalty > 0
            seen["playoff"] += e.playoff
            assert e.scores[e.seat] == e.score
            assert not (e.struck and e.how == "banked") and (e.struck or e.strikes == 0 or e.how != "banked")
            assert e.how != "forfeited" or rules.exact_target
            assert not e.struck or rules.rising_bar
    assert seen["banked"] and seen["farkled"]
    if rules.exact_target:
        assert seen["forfeited"]
    if rules.rising_bar:
        assert seen["struck"] and seen["penalty"]  # strikes, and three of them setting a score to 0
    if rules.farkle_penalty:
        assert seen["penalty"]
    if rules.ties == "playoff":
        assert seen["playoff"]


#: A strategy whose play depends on what it hears: it banks at 300 after an opponent's farkle,
#: else at 600.
GRUDGE = """
from arena.players import Action


class Grudge:
    name = "grudge"

    def start_game(self, info):
        self.seat = info.seat
        self.riled = False

    def end_turn(self, turn):
        if turn.seat != self.seat:
            self.riled = turn.how == "farkled"

    def decide(self, view):
        keep = view.legal_keeps[0]
        need = 300 if self.riled else 600
        return Action(keep.dice, view.turn_points + keep.points >= need and view.may_bank(keep))
"""


#: The same strategy as a protocol-2 program.
GRUDGE_BOT = """
import json, sys

riled, seat = False, 0
for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        reply = {"type": "hello", "protocol": 2, "name": "grudge"}
    elif kind == "game_start":
        riled, seat = False, m["seat"]
        reply = {"type": "ready"}
    elif kind == "turn_end":
        if m["seat"] != seat:
            riled = m["how"] == "farkled"
        reply = {"type": "ok"}
    elif kind == "turn":
        keep = m["legal_keeps"][0]
        total = m["turn_points"] + keep["points"]
        bank = total >= (300 if riled else 600) and keep["bank_allowed"] and not keep["overshoots"]
        reply = {"type": "action", "keep": keep["dice"], "bank": bank}
    elif kind == "game_end":
        reply = {"type": "done"}
    else:
        break
    print(json.dumps(reply), flush=True)
"""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _games(folder: Path) -> bytes:
    return (folder / "games.csv").read_bytes()


@pytest.fixture(scope="module")
def grudge_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("grudge")
    (base / "grudge.py").write_text(GRUDGE)
    (base / "grudge_bot.py").write_text(GRUDGE_BOT)
    return base


def test_in_process_isolated_and_a_protocol_2_program_play_the_same_games(
    grudge_files: Path, tmp_path: Path
) -> None:
    common = ("--rules", "classic", "-p", "greedy", "--games", "40", "--seed", "5", "--workers", "1")
    common += ("--no-progress",)
    spec = str(grudge_files / "grudge.py")
    assert run("tournament", "-p", spec, *common, "--out", str(tmp_path / "here"))[0] == 0
    code, _, err = run("tournament", "-p", spec, *common, "--isolate", "--out", str(tmp_path / "isolated"))
    assert code == 0, err
    program = f"cmd:{sys.executable} {grudge_files / 'grudge_bot.py'}"
    code, _, err = run("tournament", "-p", program, *common, "--out", str(tmp_path / "program"))
    assert code == 0, err
    assert _games(tmp_path / "here") == _games(tmp_path / "isolated") == _games(tmp_path / "program")
    # The control: the same games with nothing heard (always 600) are other games.
    deaf = (grudge_files / "grudge.py").read_text().replace("def end_turn", "def _unheard")
    (tmp_path / "deaf.py").write_text(deaf)
    deaf_run = run("tournament", "-p", str(tmp_path / "deaf.py"), *common, "--out", str(tmp_path / "deaf"))
    assert deaf_run[0] == 0
    assert _games(tmp_path / "deaf") != _games(tmp_path / "here")
    with (tmp_path / "here" / "games.csv").open() as file:
        assert {r["status"] for r in csv.DictReader(file)} == {"ok"}


def test_a_hook_that_raises_is_its_own_seats_fault() -> None:
    class Sulky(Listener):
        name = "sulky"

        def end_turn(self, turn: TurnEnd) -> None:
            if turn.seat == 1 and turn.how == "banked":
                raise ValueError("not their bank")

    faults = []
    other = Listener()
    result = play_match(PRESETS["classic"], [Sulky(), other], 3, on_fault=faults.append)
    (fault,) = faults
    assert (fault.seat, fault.status, fault.reason) == (0, "error", "end_turn: ValueError: not their bank")
    assert result.retired == (0,) and result.winners == (1,)
    assert other.ends and other.ends[-1].scores == result.scores  # the other seat heard the game out


def test_a_declarative_strategy_with_the_hook_plays_in_python() -> None:
    class Careful(PolicyPlayer):
        name = "careful"
        policy = Policy(keep="fewest_dice", bank_at=(250, 300, 400, 800, 1500, 3000))

    class CarefulListener(Careful):
        heard = 0

        def end_turn(self, turn: TurnEnd) -> None:
            type(self).heard += 1

    assert policy_of(Careful()) is not None and policy_of(CarefulListener()) is None
    play_match(PRESETS["classic"], [CarefulListener(), GreedyPlayer()], 1)
    assert CarefulListener.heard > 0


def test_a_protocol_1_bot_and_one_that_declines_get_no_turn_end(tmp_path: Path) -> None:
    strict = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    t = m["type"]
    if t == "hello":  # as the example bots of version 1 did: only a hello of protocol 1 will do
        if m["protocol"] != 1 and PROTOCOL == 1:
            r = {"type": "error", "reason": "this bot speaks protocol 1"}
        else:
            r = {"type": "hello", "protocol": PROTOCOL, "name": "strict", **EXTRA}
    elif t == "game_start": r = {"type": "ready"}
    elif t == "turn":
        k = m["legal_keeps"][0]
        r = {"type": "action", "keep": k["dice"], "bank": k["bank_allowed"] and not k["overshoots"]}
    elif t == "game_end": r = {"type": "done"}
    elif t == "bye": break
    else: r = {"type": "error", "reason": "unknown message " + t}
    print(json.dumps(r), flush=True)
"""
    for protocol, extra in ((1, {}), (2, {"turn_ends": False})):
        bot = tmp_path / f"strict{protocol}.py"
        bot.write_text(strict.replace("PROTOCOL", str(protocol)).replace("EXTRA", repr(extra)))
        out = tmp_path / f"run{protocol}"
        code, _, err = run(
            "tournament", "-p", f"cmd:{sys.executable} {bot}", "-p", "greedy", "--rules", "classic",
            "--games", "4", "--workers", "1", "--no-progress", "--out", str(out),
        )  # fmt: skip
        assert code == 0, err
        with (out / "games.csv").open() as file:
            assert {r["status"] for r in csv.DictReader(file)} == {"ok"}, protocol  # never sent one


def test_turn_end_messages_carry_every_field_both_ways() -> None:
    end = TurnEnd(1, 7, "farkled", 350, True, 2, 0, 4200, (3900, 4200), False)
    message = wire.decode(wire.turn_end(end))
    assert message["type"] == "turn_end" and wire.turn_end_from(message) == end
    assert wire.wants_turn_ends({"protocol": 2}) and not wire.wants_turn_ends({"protocol": 1})
    assert not wire.wants_turn_ends({"protocol": 2, "turn_ends": False})


def test_a_hook_that_changes_what_it_is_told_changes_nothing_for_the_others() -> None:
    class Forger(Listener):
        name = "forger"

        def end_turn(self, turn: TurnEnd) -> None:
            object.__setattr__(turn, "scores", (99_999,) * len(turn.scores))
            object.__setattr__(turn, "how", "farkled")

    honest = [Listener(), Listener()]
    play_match(PRESETS["classic"], honest, 9)
    forged = [Forger(), Listener()]
    play_match(PRESETS["classic"], forged, 9)
    assert forged[1].ends == honest[1].ends  # the seat after the forger hears the truth


def test_a_hook_on_an_instance_alone_is_not_one_in_any_place() -> None:
    # arena's host for an isolated strategy reads the hook from the class before any game, so
    # in arena's own process a hook set only on an instance is not called either.
    class SetsItLate(GreedyPlayer):
        def __init__(self) -> None:
            self.heard: list[TurnEnd] = []
            self.end_turn = self.heard.append

    player = SetsItLate()
    play_match(PRESETS["classic"], [player, GreedyPlayer()], 2)
    assert player.heard == []


def test_the_duel_clock_counts_the_time_spent_in_the_hook() -> None:
    # A strategy can't look fast by thinking in end_turn instead of decide.
    import time

    from arena.players.match import DecisionClock

    class Brooding(Listener):
        def end_turn(self, turn: TurnEnd) -> None:
            super().end_turn(turn)
            time.sleep(0.001)

    clock = DecisionClock(2)
    brooder = Brooding()
    play_match(PRESETS["classic"], [brooder, Listener()], 4, clock=clock)
    assert len(brooder.ends) > 20
    assert clock.seconds[0] >= 0.001 * len(brooder.ends) > 10 * clock.seconds[1]
    assert clock.decisions[0] > 0  # the hook's calls are time, not decisions


def test_a_policy_with_the_hook_is_refused_for_the_hook_not_the_policy(tmp_path: Path) -> None:
    bot = tmp_path / "careful.py"
    bot.write_text(
        "from arena.players import Policy, PolicyPlayer\n\n\n"
        "class CarefulListener(PolicyPlayer):\n"
        "    name = 'careful-listener'\n"
        "    policy = Policy(keep='fewest_dice')\n\n"
        "    def end_turn(self, turn):\n"
        "        pass\n"
    )
    code, _, err = run(
        "tournament", "-p", str(bot), "-p", "greedy", "--rules", "classic", "--games", "2",
        "--compiled", "on", "--no-progress", "--out", str(tmp_path / "r"),
    )  # fmt: skip
    assert code == 2 and "has an end_turn hook, which the compiled kernel does not call" in err
