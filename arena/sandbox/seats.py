"""Isolated players: loading them, and the :class:`RemoteSeat` that stands in for one in a game.

A :class:`SeatPool` belongs to one process that plays games (a chunk process, or the main
process for ``arena play``).  It keeps one seat process per isolated player and *seat order*,
started before the first game it serves, kept for the games that follow (so class state lives
for the games of one seat order of a chunk), replaced after it died or had to be killed, and
closed with the pool.  The seat orders of a deal are played on the same dice per seat, so a
process that served two of them would have seen, as an opponent's or its own, dice it is about
to roll; one that serves one order plays each deal once, and knows nothing of a deal's dice
before it rolls them.

A :class:`RemoteSeat` is a Player whose ``start_game``, ``decide`` and ``end_game`` (and, for a
seat that asked for them, ``end_turn``: :class:`RemoteSeatWithTurnEnds`) send one message each
to the seat process and turn its reply into what the engine expects: an Action,
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from arena.engine import Action, GameResult, TurnEnd, TurnView
from arena.players.loading import PlayerSpec, StrategyError, split_spec
from arena.players.match import ReportedFailure, shorten
from arena.players.names import name_refusal, normal_name, player_label
from arena.players.protocol import GameInfo
from arena.players.text import visible
from arena.players.timeout import MoveTimeout
from arena.safe_files import make_folder, open_file
from arena.sandbox import cgroups, confine, exposure, wire
from arena.sandbox.last_words import last_words, telling_line
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
    not see: ``hidden`` from every seat (the run folder), and each folder of ``apart`` from
    every seat whose own files are not in it (a league's stored entries, one folder each)."""

    log_folder: Path | None = None
    hidden: tuple[Path, ...] = ()
    to_stderr: bool = False
    apart: tuple[Path, ...] = ()


#: Seats that log nowhere and have nothing hidden (the Python API without a run folder).
NOWHERE = SeatPlace()


def log_name(label: str) -> str:
    """A player's log file name: its label with anything but letters, digits and ``.-_#``
    replaced."""
    return re.sub(r"[^\w.#-]", "_", label)[:100] + ".log"


class RemoteSeat:
    """A Player whose decisions are made in a seat process."""

    def __init__(
        self,
        process: SeatProcess,
        name: str,
        limit: float | None,
        grace: float,
        keeps: bool = True,
        deadline: Callable[[], float | None] | None = None,
    ) -> None:
        self.name = name
        self._keeps = keeps
        self._process = process
        self._limit = limit
        self._grace = grace
        #: The deadline of the call being made, if it can be shorter than ``limit`` (a game
        #: clock running out: :class:`~arena.players.match.Guard`'s ``call_limit``).
        self._deadline = deadline

    def start_game(self, info: GameInfo) -> None:
        self._call(wire.game_start(info.rules, info.seat, info.names, info.strategy_seed), "ready")

    def decide(self, view: TurnView) -> Action | tuple[Any, Any]:
        reply, late = self._exchange(wire.turn(view, self._keeps))
        if not late and isinstance(reply, bytes):
            action = wire.known_action(reply)  # most decisions repeat a reply seen before
            if action is not None:
                return action
        return wire.action_from(self._replied(reply, late, "action"))

    def end_game(self, result: GameResult) -> None:
        self._call(wire.game_end(result), "done")

    @staticmethod
    def of(
        process: SeatProcess,
        name: str,
        limit: float | None,
        grace: float,
        keeps: bool,
        turn_ends: bool,
        deadline: Callable[[], float | None] | None = None,
    ) -> RemoteSeat:
        """The seat for a process whose hello asked for turn ends (protocol 2) or not."""
        kind = RemoteSeatWithTurnEnds if turn_ends else RemoteSeat
        return kind(process, name, limit, grace, keeps, deadline)

    def _call(self, message: bytes, expected: str) -> dict[str, Any]:
        reply, late = self._exchange(message)
        return self._replied(reply, late, expected)

    def _exchange(self, message: bytes) -> tuple[bytes | dict[str, Any], bool]:
        process = self._process
        if not process.alive:
            raise ended_failure(process, process.ended or "the seat's process has ended")
        limit = self._limit if self._deadline is None else self._deadline()
        try:
            return process.exchange(message, limit, self._grace)
        except NoReply:
            raise MoveTimeout from None

    def _replied(self, reply: bytes | dict[str, Any], late: bool, expected: str) -> dict[str, Any]:
        """The reply (a line, or a message made up by the process) if it is the one
        ``expected``, else the fault it stands for."""
        process = self._process
        try:
            if isinstance(reply, bytes):
                reply = process.decoded(reply)
            return self._read(reply, late, expected)
        except (ReportedFailure, MoveTimeout):
            raise
        except Exception as exc:  # whatever the seat sent, arena's own code must not fail on it
            process.kill()
            reason = f"protocol: a reply arena could not read ({type(exc).__name__})"
            raise ReportedFailure("error", reason) from None

    def _read(self, reply: dict[str, Any], late: bool, expected: str) -> dict[str, Any]:
        """The reply if it is the one ``expected`` (in time), else the fault it stands for."""
        process = self._process
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
        if kind == "ended":
            raise ended_failure(process, reason)
        process.kill()
        raise ReportedFailure("error", f"protocol: expected {expected}, got {shorten(kind, 40)!r}")


class RemoteSeatWithTurnEnds(RemoteSeat):
    """A seat whose hello asked for ``turn_end`` messages: it has the ``end_turn`` hook (a seat
    that did not ask has none, so it is sent none)."""

    def end_turn(self, end: TurnEnd) -> None:
        self._call(wire.turn_end(end), "ok")


class VisibleStream:
    """A terminal for a seat's stderr (``arena play``): the seat's bytes with every control and
    format character but line breaks and tabs written as a visible escape, so a bot can't move
    the cursor, clear the screen or rewrite what arena printed."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def write(self, data: bytes) -> int:
        self.stream.write(visible(data.decode(errors="replace"), keep="\n\t").encode())
        return len(data)

    def flush(self) -> None:
        self.stream.flush()

    def fileno(self) -> int:
        return self.stream.fileno()


#: A seat process's key in a :class:`SeatPool`: (player index, seat order).
SeatKey = tuple[int, int]


class SeatPool:
    """The seat processes of one playing process: one per isolated player (by index) and seat
    order (the caller's: a tournament passes the seat order of the game's deal, so that no
    process plays two games of one deal)."""

    def __init__(
        self,
        players: Sequence[PlayerSpec],
        limits: SeatLimits,
        move_timeout: float | None,
        *,
        random_seed: int = 0,
        place: SeatPlace = NOWHERE,
        deadline: Callable[[], float | None] | None = None,
    ) -> None:
        """``deadline``: the deadline of each call, where it can be shorter than the move
        timeout (a game clock: the guard's ``call_limit``)."""
        self.deadline = deadline
        self.players = players
        self.limits = limits
        self.move_timeout = move_timeout
        self.random_seed = random_seed
        self.place = place
        self._live: dict[SeatKey, tuple[SeatProcess, str, bool, bool]] = {}
        self._starting: dict[SeatKey, SeatProcess] = {}
        self._failed: dict[int, ReportedFailure] = {}  # by player: one failed start is enough
        self._logs: dict[int, BinaryIO] = {}  # by player: its processes share one log

    def start_early(self, keys: Iterable[SeatKey]) -> None:
        """Start the seat processes of these (player, seat order) keys now, all at once, so they
        load side by side; each is greeted (and a failure to start reported) at its first game."""
        for key in keys:
            if key not in self._live and key not in self._starting:
                self._starting[key] = self._process(key[0])

    def seat(self, index: int, order: int = 0) -> RemoteSeat:
        """The player ``index``'s seat for its next game, of seat order ``order`` of its deal:
        the live process of that order, or a new one if it has none or its last one ended
        (``order`` may stay 0 where no deal is played twice, as in ``arena play``).
        Raises ReportedFailure if a new one can't start.  A player one of whose seats failed to
        start is not started again by this pool, for any order (its failure is raised again at
        once), so a bot that hangs while loading costs one start-up deadline per chunk, not one
        per game or per order."""
        failed = self._failed.get(index)
        if failed is not None:
            raise ReportedFailure(
                failed.status, failed.reason, failed.traceback_text, from_stderr=failed.from_stderr
            )
        key = (index, order)
        live = self._live.get(key)
        if live is None or not live[0].alive:
            if live is not None:
                live[0].close()
            self._live.pop(key, None)
            starting = self._starting.pop(key, None)
            try:
                live = self._greet(starting or self._process(index))
            except ReportedFailure as failure:
                self._fail(index, failure)
                raise
            except StrategyError as exc:  # the program went away between the load and this chunk
                self._fail(index, ReportedFailure("error", shorten(str(exc))))
                raise self._failed[index] from None
            self._live[key] = live
        process, name, keeps, turn_ends = live
        return RemoteSeat.of(
            process, name, self.move_timeout, self.limits.grace, keeps, turn_ends, self.deadline
        )

    def _fail(self, index: int, failure: ReportedFailure) -> None:
        """Remember that player ``index`` can't start, and stop its other orders' processes
        still starting: none of them will be greeted in this pool."""
        self._failed[index] = failure
        for key in [k for k in self._starting if k[0] == index]:
            process = self._starting.pop(key)
            process.kill()
            process.close()

    def _log(self, index: int) -> BinaryIO | None:
        if self.place.to_stderr:
            return VisibleStream(sys.stderr.buffer)  # type: ignore[return-value]
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
        process = new_seat_process(
            player.text, self.limits, self.place.hidden, apart=self.place.apart, log=lambda: self._log(index)
        )
        process.start()
        return process

    def _greet(self, process: SeatProcess) -> tuple[SeatProcess, str, bool, bool]:
        hello = handshake(process, self.move_timeout, self.random_seed)
        return process, hello["name"], hello.get("legal_keeps") is not False, wire.wants_turn_ends(hello)

    def close(self) -> None:
        for process, *_ in self._live.values():
            process.close()
        for process in self._starting.values():
            process.kill()
            process.close()
        self._live.clear()
        self._starting.clear()
        cgroups.sweep_stale_groups()
        for log in self._logs.values():
            log.close()
        self._logs.clear()


def new_seat_process(
    text: str,
    limits: SeatLimits,
    hidden: Sequence[Path] = (),
    *,
    apart: Sequence[Path] = (),
    log: Callable[[], BinaryIO | None] | None = None,
) -> SeatProcess:
    """A seat process (not started) for the player spec ``text``, in a root of its own that
    holds the runtime and the entry's own files (:mod:`arena.sandbox.exposure`).  Besides
    ``hidden``, it is kept from each folder of ``apart`` that holds none of its own files, so
    where no root of its own can be made, the walls that remain still keep entries apart."""
    argv = seat_argv(text)
    cwd = Path.cwd()
    seen = exposure.seat_paths(argv, text, command=is_command(text), cwd=cwd, hidden=hidden)
    others = [f for f in map(Path, apart) if not any(p == f or f in p.parents for p in seen)]
    covered = tuple(dict.fromkeys([*hidden, *others]))
    own = exposure.own_paths(seen)
    return SeatProcess(argv, limits, log=log, hidden=covered, cwd=str(cwd), exposed=seen, own=own)


def ended_failure(process: SeatProcess, how: str) -> ReportedFailure:
    """The fault of a seat whose process ended: ``how`` it ended, with the line of its stderr
    that names the error, and its last lines on stderr as the fault's traceback
    (:mod:`arena.sandbox.last_words`)."""
    said = telling_line(process.stderr_tail)
    if said:
        how += f"; its last words on stderr: {said}"
    reason = shorten(" ".join(how.split()))
    return ReportedFailure("error", reason, last_words(process.stderr_tail), from_stderr=True)


def handshake(process: SeatProcess, move_timeout: float | None, random_seed: int) -> dict[str, Any]:
    """Say hello and check the answer: the seat's hello, with a ``name`` that keeps the name
    rule (:mod:`arena.players.names`).  Raises ReportedFailure (and kills the seat) otherwise,
    whatever the seat sent."""
    limits = process.limits
    try:
        reply, _ = process.request(wire.hello(move_timeout, random_seed), limits.start_seconds, 0.0)
    except NoReply:
        raise ReportedFailure(
            "error", f"the seat did not say hello within {limits.start_seconds:g} s of starting"
        ) from None
    try:
        return _checked_hello(process, reply)
    except ReportedFailure:
        raise
    except Exception as exc:  # whatever the seat sent, arena's own code must not fail on it
        process.kill()
        reason = f"protocol: a hello arena could not read ({type(exc).__name__})"
        raise ReportedFailure("error", reason) from None


def _checked_hello(process: SeatProcess, reply: dict[str, Any]) -> dict[str, Any]:
    kind = reply["type"]
    problem = None
    if kind != "hello":
        problem = str(reply.get("reason") or f"it answered {kind!r} to hello")
        if kind == "ended":
            process.kill()
            raise ended_failure(process, problem)
    elif reply.get("protocol") not in wire.PROTOCOL_VERSIONS or type(reply.get("protocol")) is not int:
        versions = " or ".join(map(str, wire.PROTOCOL_VERSIONS))
        problem = f"it speaks protocol {reply.get('protocol')!r}, arena speaks {versions}"
    else:
        problem = name_refusal(reply.get("name"))
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
    process = new_seat_process(text, limits)
    argv = process.argv
    process.start()
    try:
        reply = handshake(process, move_timeout, 0)
    except ReportedFailure as failure:
        reason = failure.reason
        named = reason.startswith((text, split_spec(text)[0]))  # the host's loader names the spec
        raise StrategyError(reason if named else f"{text}: {reason}") from None
    finally:
        process.close()
    name = normal_name(reply["name"])
    about = reply.get("about")
    if not isinstance(about, dict):
        about = {}
    if is_command(text):
        return PlayerSpec(text, name, None, {}, "command", isolated=True, about=f"the program {argv[0]}")
    return PlayerSpec(
        text,
        player_label(name, split_spec(text)[1]),  # made here: the seat's own "label" is not trusted
        None,
        _plain_params(about.get("params")),
        _text(about.get("source"), "file", 40),
        isolated=True,
        about=_text(about.get("description"), "", 300),
    )


#: What a seat may say its parameters are: a few names with plain values.
MAX_PARAMS = 64


def _plain_params(value: Any) -> dict[str, Any]:
    """A seat's parameters as arena keeps them: text names with plain values (text, a number
    or a truth value), at most :data:`MAX_PARAMS`; anything else in its hello is left out."""
    if not isinstance(value, dict):
        return {}
    plain = {
        k: v
        for k, v in value.items()
        if isinstance(k, str) and len(k) <= 100 and isinstance(v, str | int | float)
    }
    kept = list(plain.items())[:MAX_PARAMS]
    return {k: (shorten(visible(v), 300) if isinstance(v, str) else v) for k, v in kept}


def _text(value: Any, default: str, limit: int) -> str:
    """A text field of a seat's hello, cut to ``limit``; ``default`` if it is not text."""
    if not isinstance(value, str):
        return default
    return shorten(visible(" ".join(value[: 4 * limit].split())), limit)
