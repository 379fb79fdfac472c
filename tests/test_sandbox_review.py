"""Issue 11, review: attacks on the seat sandbox that got through, each kept as a test.

Every test here failed before its fix (see the commit that added it).  The seats are small
``cmd:``-style Python programs spoken to directly through :class:`SeatProcess`, so each test
takes a second or two; anything that could hang arena runs under an alarm.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.players.timeout import MoveTimeout
from arena.sandbox import SeatLimits, wire
from arena.sandbox.confine import pids_cgroup_of
from arena.sandbox.process import NoReply, SeatProcess

HELLO = 'print(\'{"type":"hello","protocol":1,"name":"x"}\', flush=True)'


class StillWaiting(BaseException):
    """Raised by :func:`at_most`; not an OSError, which arena's code suppresses around system calls."""


@contextlib.contextmanager
def at_most(seconds: float) -> Iterator[None]:
    """Fail (rather than hang the test run) if the block takes longer than ``seconds``."""

    def expired(signum: int, frame: object) -> None:
        raise StillWaiting(f"arena still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def seat(tmp_path: Path) -> Iterator[list[SeatProcess]]:
    """Seat processes started by a test, closed after it whatever happened."""
    started: list[SeatProcess] = []
    yield started
    for process in started:
        process.close()


def start(started: list[SeatProcess], folder: Path, program: str) -> SeatProcess:
    """A seat running the Python ``program`` (no arena code in it: a program any bot could be)."""
    path = folder / "bot.py"
    path.write_text(textwrap.dedent(program))
    process = SeatProcess([sys.executable, str(path)], SeatLimits())
    started.append(process)
    process.start()
    return process


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# ------------------------------------------------------------- a seat that claims it has ended
def test_a_seat_that_forges_its_ended_line_is_killed_not_waited_for(tmp_path: Path, seat: list) -> None:
    # The reaper writes {"type":"ended"} on the seat's own stdout once the seat is gone; a seat
    # could write the same line and live on.  arena waited for the reaper, which waited for
    # the seat: a hang with no deadline (at hello, outside any move timer, the whole run stalled).
    process = start(
        seat,
        tmp_path,
        """
        import sys, time
        sys.stdin.readline()
        print('{"type":"ended","reason":"I am gone, honest"}', flush=True)
        time.sleep(60)
        """,
    )
    began = time.monotonic()
    with at_most(5):
        reply, _ = process.request(wire.hello(1.0, 0), 1.0, 0.2)
    assert reply["type"] == "ended"
    assert time.monotonic() - began < 2.5
    assert not process.alive and not alive(process.pid)


# ---------------------------------------------------------------- a seat that stops reading
def fill_pipe(fd: int) -> None:
    """Fill the pipe ``fd`` writes to, as a seat that stopped reading its stdin leaves it."""
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(fd, b" " * 4096)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(fd, b" ")
    os.set_blocking(fd, blocking)
    assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK == (0 if blocking else os.O_NONBLOCK)


SILENT_READER = f"""
import sys, time
sys.stdin.readline()
{HELLO}
sys.stdout.write('{{"type":"done"}}\\n' * 5000)  # replies to messages it will never read
sys.stdout.flush()
time.sleep(60)
"""


def test_a_seat_that_stops_reading_loses_at_its_deadline(tmp_path: Path, seat: list) -> None:
    # Its replies come at once, but arena's messages pile up in its stdin until the pipe is
    # full; arena's write then blocked with no deadline (or until the move timer, again and
    # again, without ever killing the seat).
    process = start(seat, tmp_path, SILENT_READER)
    process.request(wire.hello(1.0, 0), 5.0, 0.0)
    message = b'{"type":"game_end","padding":"' + b"x" * 2000 + b'"}\n'
    began = time.monotonic()
    with at_most(10), pytest.raises(NoReply):
        for _ in range(1000):
            process.request(message, 0.3, 0.2)
    assert time.monotonic() - began < 3
    assert not process.alive and not alive(process.pid)


def test_closing_a_seat_whose_stdin_is_full_does_not_wait(tmp_path: Path, seat: list) -> None:
    # Saying bye to such a seat blocked too: the chunk process hung at its last game.
    process = start(seat, tmp_path, SILENT_READER)
    process.request(wire.hello(1.0, 0), 5.0, 0.0)
    fill_pipe(process._to)
    began = time.monotonic()
    with at_most(10):
        process.close()
    assert time.monotonic() - began < 2
    assert not alive(process.pid)


# ---------------------------------------------------------------- a seed the bot can guess
ARENA = [sys.executable, "-m", "arena.cli"]
SEED_GUESS = str(Path(__file__).parent / "cheats" / "seed_guess.py")


def tournament(folder: Path, first: str, *options: str) -> subprocess.CompletedProcess[str]:
    """40 games of ``first`` against optimal under the standard rules, through the command line."""
    args = ["-p", first, "-p", "optimal", "--rules", "standard", "--games", "40", "--workers", "1"]
    result = subprocess.run(
        [*ARENA, "tournament", *args, "--out", str(folder), *options],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result


def test_an_isolated_run_without_a_seed_plays_on_a_secret_one(tmp_path: Path) -> None:
    # The dice are public functions of the tournament seed.  With the default seed 0 the cheat
    # found each game's seed from its strategy seed and rolled on only into scoring rolls.
    tournament(tmp_path / "cheat", SEED_GUESS, "--isolate")
    seed = json.loads((tmp_path / "cheat" / "spec.json").read_text())["seed"]
    assert seed != 0
    honest = tournament(tmp_path / "honest", "greedy", "--seed", str(seed))
    assert "warning" not in honest.stderr  # nobody isolated: a known seed is fine
    assert (tmp_path / "cheat" / "games.csv").read_bytes() == (tmp_path / "honest" / "games.csv").read_bytes()


def test_a_known_seed_is_still_guessable_and_arena_says_so(tmp_path: Path) -> None:
    # The control: the cheat is real.  Given --seed 11, it foresees the dice even isolated.
    cheat = tournament(tmp_path / "cheat", SEED_GUESS, "--isolate", "--seed", "11")
    assert "warning: --seed 11 is no secret" in cheat.stderr
    tournament(tmp_path / "honest", "greedy", "--seed", "11")
    assert (tmp_path / "cheat" / "games.csv").read_bytes() != (tmp_path / "honest" / "games.csv").read_bytes()


# ------------------------------------------------- a seat killed while the move watchdog fires
def test_a_seat_killed_as_its_move_timer_fires_leaves_nothing_behind(tmp_path: Path, seat: list) -> None:
    # A reply longer than the protocol allows, then the rest of it left in the pipe: killing
    # the seat waited a second for its reaper (stuck writing its ended line into that full
    # pipe), and the move watchdog's MoveTimeout, raised inside that wait, left the reaper
    # running and the seat's pids cgroup on the machine for good.
    process = start(
        seat,
        tmp_path,
        f"""
        import os, sys, time
        sys.stdin.readline()
        {HELLO}
        sys.stdin.readline()
        os.write(1, b"x" * (3 << 20))
        time.sleep(60)
        """,
    )
    process.request(wire.hello(1.0, 0), 5.0, 0.0)

    def watchdog(signum: int, frame: object) -> None:
        raise MoveTimeout("no decision within 0.3 s")

    previous = signal.signal(signal.SIGALRM, watchdog)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with contextlib.suppress(MoveTimeout):
            reply, _ = process.request(b'{"type":"game_start"}\n', 5.0, 0.5)
            assert reply["reason"] == "protocol: a reply longer than 1 MiB"
        with contextlib.suppress(MoveTimeout):
            time.sleep(0.5)  # whatever the timer did, it has done it
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not process.alive and not alive(process.pid)
    assert pids_cgroup_of(process.pid) is None


# ------------------------------------------------------ arena's process dies under its seats
def test_a_seat_whose_chunk_process_dies_leaves_no_cgroup(tmp_path: Path) -> None:
    # Ctrl-C ends the chunk processes; their seats died with them (parent-death signal), but
    # nobody removed the seats' pids cgroups: an empty folder per seat was left on the machine.
    path = tmp_path / "bot.py"
    path.write_text(f"import sys, time\nsys.stdin.readline()\n{HELLO}\ntime.sleep(60)\n")
    report_r, report_w = os.pipe()
    chunk = os.fork()
    if chunk == 0:  # a chunk process: starts a seat, says which, and waits to be killed
        try:
            process = SeatProcess([sys.executable, str(path)], SeatLimits())
            process.start()
            process.request(wire.hello(1.0, 0), 10.0, 0.0)
            os.write(report_w, f"{process.pid}\n".encode())
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(report_w)
    with at_most(20):
        reaper = int(os.read(report_r, 100))
    os.close(report_r)
    seat_group = pids_cgroup_of(reaper)
    os.kill(chunk, signal.SIGKILL)
    os.waitpid(chunk, 0)
    give_up = time.monotonic() + 3
    while time.monotonic() < give_up and (alive(reaper) or pids_cgroup_of(reaper) is not None):
        time.sleep(0.02)
    assert not alive(reaper)
    if seat_group is not None:  # (only where arena runs as root with a pids cgroup controller)
        assert pids_cgroup_of(reaper) is None
