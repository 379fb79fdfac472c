"""The seat side for Python strategies: a fresh interpreter that loads one strategy and speaks
the seat protocol (:mod:`arena.sandbox.wire`) on stdin and stdout.

It is started by :class:`~arena.sandbox.process.SeatProcess` with the player spec as its
argument, inside the walls of :mod:`arena.sandbox.confine`.  The strategy file or module is
imported here and nowhere else.  Every call into the strategy goes through the same
:class:`~arena.players.match.Guard` as in-process play, with this process's own watchdog at the
move timeout, so a strategy gets the same faults and reasons as when it runs inside arena; a
strategy that outlasts the watchdog is killed by the parent after its grace.  Its class state
lives for the games this process serves: one seat order of a chunk
(:class:`~arena.sandbox.seats.SeatPool`).
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
from typing import Any

from arena.engine import TurnView
from arena.players import match
from arena.players.loading import StrategyError, load_player_spec, split_spec
from arena.players.match import (
    CREATE,
    DECIDE,
    END_GAME,
    END_TURN,
    NO_ARGUMENT,
    PREPARE,
    START_GAME,
    Guard,
    PlayerFault,
)
from arena.players.protocol import GameInfo
from arena.sandbox import wire
from arena.sandbox.confine import LAYERS_VARIABLE, PR_SET_DUMPABLE, prctl


class Lines:
    """Reads lines from a file descriptor, through one buffer, without Python's file objects
    (so nothing is read ahead of what the protocol asks for)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def next(self) -> bytes | None:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line, self.buffer = self.buffer[: end + 1], self.buffer[end + 1 :]
                return line
            if len(self.buffer) > wire.MAX_LINE:
                raise wire.ProtocolError("a line longer than the protocol allows")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk


#: The protocol's way out: fd 1 as the seat was started, moved by :func:`own_channel`.
_REPLIES = 1


def send(data: bytes) -> None:
    while data:
        data = data[os.write(_REPLIES, data) :]


def own_channel() -> int:
    """Move the protocol off fds 0 and 1, before any strategy code runs, and return the fd its
    messages come in on.  What the strategy prints (``print``, ``sys.stdout``, a C library's
    ``printf``) then goes to fd 2, the seat's log (the terminal in ``arena play``), as it does
    for a ``cmd:`` bot's stderr, and never between two messages; ``input()`` finds an empty
    stdin instead of arena's next message."""
    global _REPLIES
    messages, _REPLIES = os.dup(0), os.dup(1)
    empty, closed = os.pipe()
    os.close(closed)
    os.dup2(empty, 0)
    os.close(empty)
    os.dup2(2, 1)
    # Line by line, so that a debugging line shows when it is printed, between the games' lines.
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return messages


def fault_reply(fault: PlayerFault) -> bytes:
    if fault.status == "timeout":
        return wire.reply("timeout", reason=fault.reason)
    return wire.reply(fault.status, reason=fault.reason, traceback=fault.traceback_text)


class Host:
    """One strategy, served game after game until ``bye`` or the end of stdin."""

    def __init__(self, spec_text: str, messages: int = 0) -> None:
        self.spec_text = spec_text
        self.lines = Lines(messages)
        self.guard: Guard | None = None
        self.reader: wire.ViewReader | None = None
        self.player: Any = None
        self.seat = 0

    def run(self) -> None:
        hello = self._next()
        if hello is None:
            return
        protocols = hello.get("protocols")
        speaks = isinstance(protocols, list) and wire.PROTOCOL_VERSION in protocols
        if hello.get("type") != "hello" or not speaks:
            send(wire.reply("error", reason=f"this host speaks protocol {wire.PROTOCOL_VERSION}"))
            return
        try:
            spec = load_player_spec(self.spec_text)
        except StrategyError as exc:
            send(wire.reply("error", reason=str(exc)))
            return
        seed = hello.get("random_seed")
        if isinstance(seed, int):
            _seed_generators(seed)
        limit = hello.get("move_timeout")
        self.guard = Guard(limit if isinstance(limit, int | float) and limit > 0 else None)
        _, param_text = split_spec(self.spec_text)
        name = spec.label
        if param_text and name.endswith(f":{param_text}"):
            name = name[: -len(param_text) - 1]
        about = {
            "label": spec.label,
            "params": spec.params,
            "source": spec.source,
            "description": spec.description,  # its class's: loaded here, so cls is set
        }
        layers = os.environ.get(LAYERS_VARIABLE, "")
        send(
            wire.reply(
                "hello",
                protocol=wire.PROTOCOL_VERSION,
                name=name,
                legal_keeps=False,  # they come from this process's own score table
                # turn_end messages only for a strategy with the hook: a round trip a turn
                turn_ends=getattr(spec.cls, "end_turn", None) is not None,
                about=about,
                sandbox={
                    "layers": [x for x in layers.split(",") if x],
                    "uid": os.getuid(),
                    "pid": os.getpid(),
                },
            )
        )
        self.spec = spec
        while True:
            try:
                line = self.lines.next()
                if line is None:
                    return
                view = self.reader.view_of_line(line) if self.reader is not None else None
                if view is not None:  # nearly every message: a turn, read the fast way
                    send(self.answer_turn(view))
                    continue
                message = wire.decode(line)
            except wire.ProtocolError as exc:  # one answer a message, so the exchange keeps in step
                send(wire.reply("error", reason=f"protocol: {exc}"))
                continue
            if message["type"] == "bye":
                return
            send(self.answer(message))

    def _next(self) -> dict[str, Any] | None:
        line = self.lines.next()
        return None if line is None else wire.decode(line)

    def answer(self, message: dict[str, Any]) -> bytes:
        """The reply to one message from arena: never raises, whatever the message holds (a
        message the host can't read is answered ``error``, and the strategy loses that game)."""
        try:
            return self._answer(message)
        except Exception as exc:
            kind = message.get("type")
            what = kind if isinstance(kind, str) and len(kind) <= 20 else "a"
            reason = f"protocol: the host could not read {what} message ({type(exc).__name__})"
            return wire.reply("error", reason=reason)

    def answer_turn(self, view: TurnView) -> bytes:
        """The reply to a turn message already read into a view (as :meth:`answer`)."""
        if self.player is None:
            return wire.reply("error", reason="protocol: a turn before game_start")
        guard = self.guard
        assert guard is not None
        try:
            return guard.call(self.seat, DECIDE, self._decide, view, None)
        except PlayerFault as fault:
            return fault_reply(fault)
        except Exception as exc:
            reason = f"protocol: the host could not read turn message ({type(exc).__name__})"
            return wire.reply("error", reason=reason)

    def _answer(self, message: dict[str, Any]) -> bytes:
        kind = message["type"]
        guard = self.guard
        assert guard is not None
        try:
            if kind == "turn":
                if self.reader is None or self.player is None:
                    return wire.reply("error", reason="protocol: a turn before game_start")
                return self.answer_turn(self.reader.view(message))
            if kind == "game_start":
                return self._start(message)
            if kind == "turn_end":
                hook = self.player[4] if self.player is not None else None
                if hook is not None:
                    guard.call(self.seat, END_TURN, hook, wire.turn_end_from(message), None)
                return wire.reply("ok")
            if kind == "game_end":
                end = self.player[3] if self.player is not None else None
                self.player = None
                if end is not None:
                    guard.call(self.seat, END_GAME, end, wire.result_from(message), None)
                return wire.reply("done")
        except PlayerFault as fault:
            return fault_reply(fault)
        return wire.reply("error", reason=f"protocol: unknown message type {kind!r}")

    def _decide(self, view: Any) -> bytes:
        return wire.action_line(self.player[2](view), view)

    def _start(self, message: dict[str, Any]) -> bytes:
        guard = self.guard
        assert guard is not None
        rules = wire.ruleset_from(message["rules"])
        if self.reader is None or self.reader.rules != rules:
            self.reader = wire.ViewReader(rules)
        self.seat = seat = message["seat"]
        self.player = None
        instance = guard.call(seat, CREATE, self.spec.create, NO_ARGUMENT, None)
        prepared = guard.call(seat, PREPARE, match._prepare, instance, None)
        names = tuple(message["names"])
        start = prepared[1]
        if start is not None:
            info = GameInfo(self.reader.rules, seat, message["n_players"], names, message["strategy_seed"])
            guard.call(seat, START_GAME, start, info, None)
        self.player = prepared
        return wire.reply("ready")


def _seed_generators(seed: int) -> None:
    """As a chunk process does (arena.tournaments.supervisor): ``random``, and numpy if loaded."""
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)


def main(argv: list[str]) -> None:
    prctl(PR_SET_DUMPABLE, 0)  # before any strategy code: other seats can't read this one
    match.strategy_interrupts_are_faults = True
    messages = own_channel()
    try:
        Host(argv[0], messages).run()
    finally:
        for stream in (sys.stdout, sys.stderr):  # what the strategy printed last, to its log
            with contextlib.suppress(Exception):
                stream.flush()
    os._exit(0)
