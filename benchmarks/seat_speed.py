"""What a sandboxed seat costs per decision: in arena's process, under --isolate, through cmd:.

    python benchmarks/seat_speed.py [--games 300] [--cmd 'python3 strategies/external/greedy_bot.py']

Two `greedy` players on `standard`, one worker, the same games three ways, played as a
tournament plays them: each deal in both seat orders, one after the other:

1. in-process: both players in this process (the guarded game loop of a tournament);
2. --isolate: both in seat processes of their own, running arena's Python host;
3. cmd: both as an external program (default: the stdlib-only example bot).

For each: decisions per second, and the cost of one decision.  The round trip of a seat is the
isolated cost minus the in-process cost.  The baselines, measured in the same run, are the bare
floor of any design that talks over pipes: a 300-byte line to an echo process and back, with
os.write, poll and os.read and nothing else; once back to back, and once per decision of the same
in-process games (a seat's process sleeps while the other seat plays, and on a virtual machine
waking it costs more the longer it slept).  As in a tournament, each player has a seat process
per seat order (none plays two games of a deal), so each sleeps through every other game; the
echo baseline has an echo process per player and seat order too.  Seat processes are started
before the clock runs (a tournament starts them once per chunk of 1,000 games).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import time
from pathlib import Path

from bare_loop import machine  # run as a script, benchmarks/ is on the path

from arena.engine import STANDARD
from arena.players import play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.sandbox import SeatLimits, SeatPool, load_player
from arena.sandbox import seats as seats_module

LINE = b"x" * 299 + b"\n"
#: Seat orders of a deal: two players, two orders.
ORDERS = 2


def games_of(games: int) -> list[tuple[int, int, tuple[int, int]]]:
    """(seed, seat order, players in seat order) of each game: deal by deal, each deal in both
    seat orders, as a tournament plays them."""
    return [
        (game // ORDERS, game % ORDERS, (0, 1) if game % ORDERS == 0 else (1, 0)) for game in range(games)
    ]


class Echo:
    """A child process that sends back every line it gets: the bare transport of a seat."""

    def __init__(self) -> None:
        to_child_r, self.to_child = os.pipe()
        self.from_child, to_parent_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                for fd in range(3, 256):  # every inherited pipe end but its own two
                    if fd not in (to_child_r, to_parent_w):
                        with contextlib.suppress(OSError):
                            os.close(fd)
                while True:
                    data = os.read(to_child_r, 65536)
                    if not data:
                        break
                    os.write(to_parent_w, data)
            finally:
                os._exit(0)
        os.close(to_child_r)
        os.close(to_parent_w)
        self.poll = select.poll()
        self.poll.register(self.from_child, select.POLLIN)

    def round_trip(self) -> None:
        os.write(self.to_child, LINE)
        self.poll.poll()
        os.read(self.from_child, 65536)

    def close(self) -> None:
        os.close(self.to_child)
        os.waitpid(self.pid, 0)
        os.close(self.from_child)


def ping_pong(rounds: int) -> float:
    """Seconds per round trip of one line to an echo process, back to back (the tight floor)."""
    echo = Echo()
    began = time.perf_counter()
    for _ in range(rounds):
        echo.round_trip()
    seconds = (time.perf_counter() - began) / rounds
    echo.close()
    return seconds


def echoed_games(games: int) -> tuple[float, int]:
    """The in-process games, each decision also making one bare round trip to an echo process
    of its own player: the transport floor in the rhythm of real games, where a seat's process
    sleeps while the other seat plays (and waking a sleeping process costs more than the trip)."""
    echoes = {(player, order): Echo() for player in range(2) for order in range(ORDERS)}

    class Echoed(GreedyPlayer):
        decisions = 0

        def __init__(self, echo: Echo) -> None:
            self.echo = echo

        def decide(self, view):  # type: ignore[no-untyped-def]
            Echoed.decisions += 1
            self.echo.round_trip()
            return super().decide(view)

    began = time.perf_counter()
    for seed, order, players in games_of(games):
        play_match(STANDARD, [Echoed(echoes[p, order]) for p in players], seed, move_timeout=10.0)
    seconds = time.perf_counter() - began
    for echo in echoes.values():
        echo.close()
    return seconds, Echoed.decisions


class CountingGreedy(GreedyPlayer):
    decisions = 0

    def decide(self, view):  # type: ignore[no-untyped-def]
        CountingGreedy.decisions += 1
        return super().decide(view)


def in_process(games: int) -> tuple[float, int]:
    CountingGreedy.decisions = 0
    began = time.perf_counter()
    for seed, _, _ in games_of(games):
        play_match(STANDARD, [CountingGreedy(), CountingGreedy()], seed, move_timeout=10.0)
    return time.perf_counter() - began, CountingGreedy.decisions


def seated(text: str, games: int) -> tuple[float, int]:
    limits = SeatLimits()
    player = load_player(text, isolate=True, limits=limits, move_timeout=10.0)
    pool = SeatPool([player, player], limits, 10.0)
    calls = 0
    original = seats_module.RemoteSeat.decide

    def counted(self, view):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return original(self, view)

    try:
        for order in range(ORDERS):  # started before the clock runs
            pool.seat(0, order), pool.seat(1, order)
        seats_module.RemoteSeat.decide = counted  # type: ignore[method-assign]
        began = time.perf_counter()
        for seed, order, players in games_of(games):
            play_match(STANDARD, [pool.seat(p, order) for p in players], seed, move_timeout=10.0)
        return time.perf_counter() - began, calls
    finally:
        seats_module.RemoteSeat.decide = original  # type: ignore[method-assign]
        pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--cmd", default="python3 strategies/external/greedy_bot.py")
    args = parser.parse_args()
    print(f"machine: {machine()}; greedy vs greedy on standard, {args.games} games, one worker")
    tight = min(ping_pong(20_000) for _ in range(3))
    base_seconds, base_decisions = min(in_process(args.games) for _ in range(3))
    base = base_seconds / base_decisions
    echo_seconds, echo_decisions = min(echoed_games(args.games) for _ in range(3))
    floor = echo_seconds / echo_decisions - base
    print(f"baseline: bare pipe round trip, back to back:           {tight * 1e6:6.1f} µs")
    print(f"baseline: bare pipe round trip, in the rhythm of games: {floor * 1e6:6.1f} µs")
    rate = base_decisions / base_seconds
    print(f"in-process:  {rate:>9,.0f} decisions/s  {base * 1e6:6.1f} µs per decision")
    ways = [("--isolate", "greedy")]
    command = args.cmd.split()[-1]
    if Path(command).is_file():
        ways.append(("cmd:", f"cmd:{args.cmd}"))
    else:
        print(f"cmd: skipped ({command} not found)")
    for label, text in ways:
        seconds, decisions = min(seated(text, args.games) for _ in range(3))
        cost = seconds / decisions
        trip = cost - base
        print(
            f"{label:<11} {decisions / seconds:>9,.0f} decisions/s  {cost * 1e6:6.1f} µs per decision; "
            f"round trip {trip * 1e6:5.1f} µs = {trip / floor:.1f}x the bare one in the rhythm of games"
        )


if __name__ == "__main__":
    main()
