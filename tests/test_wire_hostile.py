"""Issue 22, point 1: whatever a seat sends, at any time, arena's own code never raises because
of it.  The entry loses that game with a status and a reason and the run goes on; at load time
the answer is one line and exit 2.

Both sides of the wire are fuzzed: the parent's reading of any line a seat may write (the
hand-shake, every reply of a game), and arena's Python host's reading of any message.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.cli.main import cli
from arena.engine import STANDARD, Game
from arena.players import load_player_spec
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.match import Guard, PlayerFault, ReportedFailure, play_match
from arena.sandbox import SeatLimits, wire
from arena.sandbox.host import Host
from arena.sandbox.process import SeatProcess
from arena.sandbox.seats import RemoteSeat, handshake

DEEP = b"[" * 2000 + b"]" * 2000

# ------------------------------------------------------------------------------ generators
json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=30,
)
KINDS = ["hello", "ready", "action", "done", "error", "illegal", "timeout", "ended", "turn", "bye", ""]
FIELDS = ["protocol", "name", "legal_keeps", "about", "reason", "traceback", "keep", "bank", "type"]


@st.composite
def reply_lines(draw: st.DrawFn) -> bytes:
    """A line a hostile seat might write: a message of a known type with fields of any shape,
    sometimes deeply nested, or raw bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=200)) + b"\n"
    message: dict[str, Any] = {"type": draw(st.sampled_from(KINDS) | st.text(max_size=5))}
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=5)):
        message[field] = draw(json_values)
    line = msgspec.json.encode(message)
    depth = draw(st.sampled_from([0, 0, 0, 20, 900, 2000]))
    if depth:
        line = line[:-1] + b',"deep":' + b"[" * depth + b"]" * depth + b"}"
    return line + b"\n"


class ScriptedSeat(SeatProcess):
    """A seat process that answers from a list of lines, through the parent's own decoding of
    a reply (:meth:`SeatProcess.decoded`), without any process behind it."""

    def __init__(self, lines: list[bytes]) -> None:
        super().__init__([sys.executable], SeatLimits())
        self.lines = list(lines)
        self.alive = True

    def exchange(
        self, message: bytes, limit: float | None, grace: float
    ) -> tuple[bytes | dict[str, Any], bool]:
        if not self.lines:
            self.alive = False
            return {"type": "ended", "reason": "no more lines"}, False
        return self.lines.pop(0), False

    def kill(self) -> None:  # nothing to kill: never signal pid 0 (this process group)
        self.alive = False

    def close(self) -> None:
        self.alive = False


# ----------------------------------------------------------------------------- the parent
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | reply_lines())
def test_decoding_any_line_is_a_message_or_a_protocol_error(line: bytes) -> None:
    try:
        message = wire.decode(line)
    except wire.ProtocolError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 200
    else:
        assert isinstance(message, dict) and isinstance(message["type"], str)


@pytest.mark.parametrize("depth", [17, 900, 2000, 100_000])
def test_a_deeply_nested_line_is_a_protocol_error_not_a_recursion_error(depth: int) -> None:
    line = b'{"type":"hello","protocol":1,"name":' + b"[" * depth + b"]" * depth + b"}\n"
    with pytest.raises(wire.ProtocolError, match="nested deeper than 16 levels"):
        wire.decode(line)


def test_the_deepest_message_of_the_protocol_is_read() -> None:
    view = Game(STANDARD, 2, 3).view()
    assert wire.decode(wire.turn(view))["type"] == "turn"  # legal_keeps: a list of objects of lists


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply_lines())
def test_any_hello_is_a_hello_or_a_reported_failure(line: bytes) -> None:
    seat = ScriptedSeat([line])
    try:
        reply = handshake(seat, 1.0, 5)
    except ReportedFailure as failure:
        assert failure.status == "error" and failure.reason and "\n" not in failure.reason
    else:
        assert reply["type"] == "hello" and isinstance(reply["name"], str)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(reply_lines(), min_size=1, max_size=6), st.integers(0, 10**6))
def test_any_replies_in_a_game_are_a_fault_of_that_seat_or_a_game(lines: list[bytes], seed: int) -> None:
    # A "ready" first, so that some of the fuzzed lines reach the decisions.
    seat = RemoteSeat(ScriptedSeat([b'{"type":"ready"}\n', *lines]), "fuzzed", 1.0, 0.5)
    try:
        result = play_match(STANDARD, [seat, GreedyPlayer()], seed, guard=Guard(None))
    except PlayerFault as fault:
        assert fault.seat == 0 and fault.status in ("error", "illegal", "timeout")
        assert fault.reason and "\n" not in fault.reason and len(fault.reason) <= 300
    else:
        assert sorted(result.ranks) in ([1, 2], [1, 1])


def test_a_reply_the_parent_cant_read_is_the_seats_fault_and_kills_it() -> None:
    seat_process = ScriptedSeat([b'{"type":"ready"}\n', b'{"type":"action","keep":' + DEEP + b"}\n"])
    seat = RemoteSeat(seat_process, "deep", 1.0, 0.5)
    with pytest.raises(PlayerFault) as caught:
        play_match(STANDARD, [seat, GreedyPlayer()], 1, guard=Guard(None))
    assert caught.value.seat == 0 and caught.value.status == "error"
    assert caught.value.reason == "protocol: a line nested deeper than 16 levels"
    assert not seat_process.alive  # out of step: its process is ended


action_lines = st.fixed_dictionaries(
    {"type": st.sampled_from(["action", "action", "ready", "Action"])},
    optional={
        "keep": st.lists(st.integers(-2, 9), max_size=7) | json_values,
        "bank": st.booleans() | json_values,
    },
).map(lambda message: msgspec.json.encode(message) + b"\n")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action_lines | reply_lines() | st.binary(max_size=80))
def test_a_remembered_action_is_the_one_the_long_way_reads(line: bytes) -> None:
    """The parent's fast way to read an action reply (:func:`wire.known_action`) gives an
    Action only where decoding the line and reading it as an action gives the same one."""
    known = wire.known_action(line)
    if known is None:
        return
    message = wire.decode(line)
    assert message["type"] == "action" and set(message) == {"type", "keep", "bank"}
    assert wire.action_from(message) == known and type(known.bank) is bool
    assert wire.known_action(line) is known  # remembered


def test_a_plain_action_is_remembered_and_a_bool_die_is_not() -> None:
    assert wire.known_action(b'{"type":"action","keep":[1,5],"bank":true}\n') == ((1, 5), True)
    assert wire.known_action(b'{"type":"action","keep":[true],"bank":false}\n') is None
    assert wire.known_action(b'{"type":"action","keep":[1],"bank":0}\n') is None
    assert wire.known_action(b'{"type":"action","keep":[1],"bank":false,"x":1}\n') is None


# ------------------------------------------------------------------------ the host's side
def _host() -> Host:
    host = Host("greedy")
    host.spec = load_player_spec("greedy")
    host.guard = Guard(None)
    return host


TURN_FIELDS = [
    *("seat", "n_players", "scores", "roll", "turn_points", "bank_minimum", "strikes"),
    *("farkle_streaks", "entered", "final_round", "turn", "roll_number", "playoff", "type"),
]


@st.composite
def turn_lines(draw: st.DrawFn) -> bytes:
    """A real turn message with a few fields changed to values of any shape, left out, or
    doubled, sometimes with extra fields."""
    game = Game(STANDARD, 2, draw(st.integers(0, 50)))
    message: dict[str, Any] = msgspec.json.decode(wire.turn(game.view(), keeps=draw(st.booleans())))
    for field in draw(st.lists(st.sampled_from(TURN_FIELDS), max_size=3)):
        if draw(st.booleans()):
            message[field] = draw(json_values | st.sampled_from([True, 1, 0, [1, 2], [True, False]]))
        else:
            message.pop(field, None)
    line = msgspec.json.encode(message)
    if draw(st.booleans()):
        line = line[:-1] + b',"roll":' + msgspec.json.encode(draw(json_values)) + b"}"
    return line + b"\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn_lines() | reply_lines())
def test_the_hosts_fast_reading_of_a_turn_is_the_long_way_or_nothing(line: bytes) -> None:
    """:meth:`wire.ViewReader.view_of_line` gives a view only where :func:`wire.decode` and
    :meth:`~wire.ViewReader.view` give the same one."""
    reader = wire.ViewReader(STANDARD)
    fast = reader.view_of_line(line)
    if fast is None:
        return
    assert reader.view(wire.decode(line)) == fast


messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["turn", "game_start", "game_end", "hello", "nonsense"])},
    optional={
        name: json_values
        for name in ("seat", "n_players", "names", "rules", "strategy_seed", "scores", "roll", "turn_points")
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, min_size=1, max_size=5))
def test_the_host_answers_any_message_with_one_reply_line(sequence: list[dict[str, Any]]) -> None:
    host = _host()
    for message in sequence:
        line = host.answer(message)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert wire.decode(line)["type"] in ("ready", "action", "done", "error", "illegal", "timeout")


def test_the_host_plays_on_after_a_message_it_cant_read() -> None:
    host = _host()
    start = {
        "type": "game_start",
        "seat": 0,
        "n_players": 2,
        "names": ["greedy", "x"],
        "rules": STANDARD.as_dict(),
        "strategy_seed": 1,
    }
    assert wire.decode(host.answer({"type": "turn", "roll": "oops"}))["type"] == "error"
    assert wire.decode(host.answer(start))["type"] == "ready"
    view = Game(STANDARD, 2, 3).view()
    assert wire.decode(host.answer(wire.decode(wire.turn(view, keeps=False))))["type"] == "action"


# ------------------------------------------------------------------- whole runs, real seats
BOT = textwrap.dedent(
    """
    import json, sys
    DEEP = "[" * 2000 + "]" * 2000
    for line in sys.stdin:
        m = json.loads(line)
        t = m["type"]
        if t == "hello":
            name = '"deep"' if m["random_seed"] == 0 or WHEN != "hello" else DEEP
            print('{"type":"hello","protocol":1,"name":' + name + '}', flush=True)
        elif t == "game_start":
            print('{"type":"ready"}' if WHEN != "ready" else '{"type":"ready","x":' + DEEP + '}', flush=True)
        elif t == "turn":
            k = m["legal_keeps"][0]
            print(json.dumps({"type": "action", "keep": k["dice"], "bank": k["bank_allowed"]}), flush=True)
        elif t == "game_end":
            print('{"type":"done"}', flush=True)
        else:
            break
    """
)


def _bot(tmp_path: Path, when: str) -> str:
    path = tmp_path / f"bot_{when}.py"
    path.write_text(f"WHEN = {when!r}\n" + BOT)
    return f"cmd:{sys.executable} {path}"


def _arena(*args: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    """``arena ARGS...`` run in this process from ``cwd`` (the tests are about its files and
    messages; the seats are processes of their own either way)."""
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("when", ["hello", "ready"])
def test_a_seat_that_sends_a_deep_line_mid_run_loses_its_games_and_the_run_goes_on(
    tmp_path: Path, when: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 4 games: each seat order plays twice, so a seat killed for its line is replaced at least once.
    args = ["tournament", "-p", _bot(tmp_path, when), "-p", "greedy", "--games", "4", "--rules", "standard"]
    done = _arena(*args, "--seed", "3", "--out", str(tmp_path / "run"), cwd=tmp_path, monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.stderr
    rows = pd.read_csv(tmp_path / "run" / "games.csv")
    assert rows.game.nunique() == 4
    bot_rows = rows[rows.player == "deep"]
    assert len(bot_rows) == 4 and (bot_rows.status == "error").all()
    assert bot_rows.reason.str.contains("nested deeper than 16 levels").all()
    again = _arena("tournament", "--resume", str(tmp_path / "run"), cwd=tmp_path, monkeypatch=monkeypatch)
    assert again.exit_code == 0, again.stderr


def test_a_deep_hello_at_load_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bot.py"
    path.write_text(
        "import sys\nsys.stdin.readline()\n"
        "print('{\"type\":\"hello\",\"protocol\":1,\"name\":' + '[' * 2000 + ']' * 2000 + '}', flush=True)\n"
    )
    player = f"cmd:{sys.executable} {path}"
    done = _arena(
        "tournament", "-p", player, "-p", "greedy", "--games", "2", cwd=tmp_path, monkeypatch=monkeypatch
    )
    assert done.exit_code == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nested deeper than 16 levels" in lines[0], done.stderr


def test_an_isolated_strategy_that_wraps_its_seats_send_loses_its_games_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "wrapper.py"
    path.write_text(
        textwrap.dedent(
            """
            import arena.sandbox.host as host
            from arena.players.builtin.greedy import GreedyPlayer

            real = host.send
            DEEP = b"[" * 2000 + b"]" * 2000

            def send(data):
                if data.startswith(b'{"type":"action"'):
                    data = b'{"type":"action","keep":' + DEEP + b',"bank":true}\\n'
                real(data)

            host.send = send


            class Wrapper(GreedyPlayer):
                name = "wrapper"
            """
        )
    )
    args = ["tournament", "--isolate", "-p", str(path), "-p", "greedy", "--games", "4", "--rules", "standard"]
    done = _arena(*args, "--seed", "4", "--out", str(tmp_path / "run"), cwd=tmp_path, monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.stderr
    rows = pd.read_csv(tmp_path / "run" / "games.csv")
    wrapper = rows[rows.player == "wrapper"]
    assert rows.game.nunique() == 4 and (wrapper.status == "error").all()
    assert json.loads((tmp_path / "run" / "spec.json").read_text())["games"] == 4
