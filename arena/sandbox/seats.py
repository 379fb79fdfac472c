"""Isolated players: loading them, and the :class:`RemoteSeat` that stands in for one in a game.

A :class:`SeatPool` belongs to one process that plays games (a chunk process, or the main
process for ``arena play``).  It keeps one seat process per isolated player, started before the
player's first game, kept for the games that follow (so class state lives as long as it would
in a chunk process), replaced after it died or had to be killed, and closed with the pool.

A :class:`RemoteSeat` is a Player whose ``start_game``, ``decide`` and ``end_game`` send one
message each to the seat process and turn its reply into what the engine expects: an Action,
or the fault the seat reported (:class:`~arena.players.match.ReportedFailure`), or a timeout
(:class:`~arena.players.timeout.MoveTimeout`), so the :class:`~arena.players.match.Guard`
records the same statuses as for a player in the process.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from arena.engine import Action, GameResult, TurnView
from arena.players.loading import PlayerSpec, StrategyError, split_spec
from arena.players.match import ReportedFailure, shorten
from arena.players.protocol import GameInfo
from arena.players.timeout import MoveTimeout
from arena.safe_files import make_folder, open_file
from arena.sandbox import confine, wire
from arena.sandbox.limits import SeatLimits
from arena.sandbox.process import NoReply, SeatProcess

#: The prefix of a player spec that runs a program: ``cmd:PROGRAM ARGS``.
COMMAND_PREFIX = "cmd:"
#: How arena's Python host is started: the parent's import path, then the player spec.
_BOOT = (
    "import sys,json;sys.path[:]=json.loads(sys.argv[1]);"
    "from arena.sandbox.host import main;main(sys.argv[2:])"
)


def is_command(text: str) -> bool:
    return text.strip().startswith(COMMAND_PREFIX)


def seat_argv(text: str) -> list[str]:
    """The program a seat runs for the player spec ``text``: the user's program for ``cmd:``,
    arena's Python host otherwise.  Raises :class:`StrategyError` with one line."""
    text = text.strip()
    if not is_command(text):
        return [sys.executable, "-B", "-c", _BOOT, json.dumps([p for p in sys.path if p]), text]
    try:
        argv = shlex.split(text[len(COMMAND_PREFIX) :])
    except ValueError as exc:
        raise StrategyError(f"{text}: {exc}") from None
    if not argv:
        raise StrategyError(f"{text}: no program after {COMMAND_PREFIX}")
    program = shutil.which(argv[0]) if "/" not in argv[0] else argv[0]
    if program is None or not Path(program).is_file():
        raise StrategyError(f"{text}: no program {argv[0]!r} (not a file, and not found on PATH)")
    argv[0] = str(Path(program).resolve())
    return argv


@dataclass(frozen=True)
class SeatPlace:
    """Where seat processes write their stderr (a log per player in ``log_folder``; this
    process's stderr with ``to_stderr``, for ``arena play``; else nowhere), and what they must
    not see (the run folder)."""

    log_folder: Path | None = None
    hidden: tuple[Path, ...] = ()
    to_stderr: bool = False


#: Seats that log nowhere and have nothing hidden (the Python API without a run folder).
NOWHERE = SeatPlace()


def log_name(label: str) -> str:
    """A player's log file name: its label with anything but letters, digits and ``.-_#``
    replaced."""
    return re.sub(r"[^\w.#-]", "_", label)[:100] + ".log"


class RemoteSeat:
    """A Player whose decisions are made in a seat process."""

    def __init__(
        self, process: SeatProcess, name: str, limit: float | None, grace: float, keeps: bool = True
    ) -> None:
        self.name = name
        self._keeps = keeps
        self._process = process
        self._limit = limit
        self._grace = grace

    def start_game(self, info: GameInfo) -> None:
        self._call(wire.game_start(info.rules, info.seat, info.names, info.strategy_seed), "ready")

    def decide(self, view: TurnView) -> Action | tuple[Any, Any]:
        return wire.action_from(self._call(wire.turn(view, self._keeps), "action"))

    def end_game(self, result: GameResult) -> None:
        self._call(wire.game_end(result), "done")

    def _call(self, message: bytes, expected: str) -> dict[str, Any]:
        process = self._process
        if not process.alive:
            raise ReportedFailure("error", process.ended or "the seat's process has ended")
        try:
            reply, late = process.request(message, self._limit, self._grace)
        except NoReply:
            raise MoveTimeout from None
        kind = reply["type"]
        if kind == expected:
            if late:
                raise MoveTimeout
            return reply
        if kind == "timeout":
            raise MoveTimeout
        reason = reply.get("reason")
        reason = shorten(" ".join(str(reason).split())) if reason else f"the seat answered {kind}"
        if kind in ("error", "illegal"):
            trace = reply.get("traceback")
            raise ReportedFailure(kind, reason, trace[:20_000] if isinstance(trace, str) else "")
        if kind != "ended":
            process.kill()
            reason = f"protocol: expected {expected}, got {shorten(kind, 40)!r}"
        raise ReportedFailure("error", reason)


class SeatPool:
    """The seat processes of one playing process, one per isolated player (by index)."""

    def __init__(
        self,
        players: Sequence[PlayerSpec],
        limits: SeatLimits,
        move_timeout: float | None,
        *,
        random_seed: int = 0,
        place: SeatPlace = NOWHERE,
    ) -> None:
        self.players = players
        self.limits = limits
        self.move_timeout = move_timeout
        self.random_seed = random_seed
        self.place = place
        self._live: dict[int, tuple[SeatProcess, str, bool]] = {}
        self._starting: dict[int, SeatProcess] = {}
        self._failed: dict[int, ReportedFailure] = {}
        self._logs: dict[int, BinaryIO] = {}

    def start_early(self, indices: Sequence[int]) -> None:
        """Start the seat processes of these players now, all at once, so they load side by side;
        each is greeted (and a failure to start reported) at its player's first game."""
        for index in indices:
            if index not in self._live and index not in self._starting:
                self._starting[index] = self._process(index)

    def seat(self, index: int) -> RemoteSeat:
        """The player ``index``'s seat for its next game: its live process, or a new one if it
        has none or its last one ended.  Raises ReportedFailure if a new one can't start; a
        player whose seat failed to start is not started again by this pool (its failure is
        raised again at once), so a bot that hangs while loading costs one start-up deadline
        per chunk, not one per game."""
        failed = self._failed.get(index)
        if failed is not None:
            raise ReportedFailure(failed.status, failed.reason, failed.traceback_text)
        live = self._live.get(index)
        if live is None or not live[0].alive:
            if live is not None:
                live[0].close()
            self._live.pop(index, None)
            try:
                live = self._greet(self._starting.pop(index, None) or self._process(index))
            except ReportedFailure as failure:
                self._failed[index] = failure
                raise
            self._live[index] = live
        process, name, keeps = live
        return RemoteSeat(process, name, self.move_timeout, self.limits.grace, keeps)

    def _log(self, index: int) -> BinaryIO | None:
        if self.place.to_stderr:
            return sys.stderr.buffer
        folder = self.place.log_folder
        if folder is None:
            return None
        log = self._logs.get(index)
        if log is None:
            make_folder(folder)
            log = self._logs[index] = open_file(folder / log_name(self.players[index].label), "ab")
        return log

    def _process(self, index: int) -> SeatProcess:
        """A started seat process for player ``index`` (not yet greeted)."""
        player = self.players[index]
        process = SeatProcess(
            seat_argv(player.text), self.limits, log=lambda: self._log(index), hidden=self.place.hidden
        )
        process.start()
        return process

    def _greet(self, process: SeatProcess) -> tuple[SeatProcess, str, bool]:
        hello = handshake(process, self.move_timeout, self.random_seed)
        return process, hello["name"], hello.get("legal_keeps") is not False

    def close(self) -> None:
        for process, _, _ in self._live.values():
            process.close()
        for process in self._starting.values():
            process.kill()
            process.close()
        self._live.clear()
        self._starting.clear()
        confine.sweep_stale_cgroups()
        for log in self._logs.values():
            log.close()
        self._logs.clear()


def handshake(process: SeatProcess, move_timeout: float | None, random_seed: int) -> dict[str, Any]:
    """Say hello and check the answer: the seat's hello, with a one-line ``name``.  Raises
    ReportedFailure (and kills the seat) otherwise."""
    limits = process.limits
    try:
        reply, _ = process.request(wire.hello(move_timeout, random_seed), limits.start_seconds, 0.0)
    except NoReply:
        raise ReportedFailure(
            "error", f"the seat did not say hello within {limits.start_seconds:g} s of starting"
        ) from None
    kind = reply["type"]
    problem = None
    if kind != "hello":
        problem = str(reply.get("reason") or f"it answered {kind!r} to hello")
        if kind == "ended" and process.stderr_tail:
            # The last line that says something: a crash report may end with a frame of '#'s.
            text = process.stderr_tail.decode(errors="replace").splitlines()
            last = [line for line in text if any(c.isalnum() for c in line)]
            if last:
                problem += f"; its last words on stderr: {last[-1]}"
    elif reply.get("protocol") != wire.PROTOCOL_VERSION:
        problem = f"it speaks protocol {reply.get('protocol')!r}, arena speaks {wire.PROTOCOL_VERSION}"
    elif not isinstance(reply.get("name"), str) or not reply["name"].strip() or "\n" in reply["name"]:
        problem = "its hello has no name (a one-line text)"
    if problem is not None:
        process.kill()
        raise ReportedFailure("error", shorten(" ".join(problem.split())))
    return reply


def load_player(
    text: str, *, isolate: bool, limits: SeatLimits | None, move_timeout: float | None
) -> PlayerSpec:
    """A player spec, loaded in a seat process of its own if ``isolate`` or if it is a
    ``cmd:`` program (always isolated), else here; raises StrategyError with one line."""
    if isolate or is_command(text):
        return load_isolated_player(text, limits or SeatLimits(), move_timeout)
    from arena.players.loading import LOAD_TIMEOUT, load_player_spec

    return load_player_spec(text, timeout=LOAD_TIMEOUT if move_timeout is None else move_timeout)


def load_isolated_player(text: str, limits: SeatLimits, move_timeout: float | None) -> PlayerSpec:
    """Resolve a player spec in a seat process of its own, so its code is never imported here:
    the seat loads it, builds it once and says its name.  Raises StrategyError with one line."""
    confine.protect_this_process()
    text = text.strip()
    if not text:
        raise StrategyError("empty player spec")
    argv = seat_argv(text)
    process = SeatProcess(argv, limits)
    process.start()
    try:
        reply = handshake(process, move_timeout, 0)
    except ReportedFailure as failure:
        reason = failure.reason
        named = reason.startswith((text, split_spec(text)[0]))  # the host's loader names the spec
        raise StrategyError(reason if named else f"{text}: {reason}") from None
    finally:
        process.close()
    name = " ".join(reply["name"].split())
    about = reply.get("about") if isinstance(reply.get("about"), dict) else {}
    if is_command(text):
        return PlayerSpec(text, name, None, {}, "command", isolated=True, about=f"the program {argv[0]}")
    params = about.get("params") if isinstance(about.get("params"), dict) else {}
    label = about.get("label") if isinstance(about.get("label"), str) and about.get("label") else name
    return PlayerSpec(
        text,
        " ".join(label.split()),
        None,
        params,
        str(about.get("source", "file")),
        isolated=True,
        about=str(about.get("description", "")),
    )
