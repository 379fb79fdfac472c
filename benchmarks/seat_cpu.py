"""Fair CPU: an honest seat's decision time against an idle and a CPU-burning opponent.

    python benchmarks/seat_cpu.py [--games 2] [--move-timeout 1.5]

The honest bot (tests/cheats/thinker.py) spends 0.1 s of its own CPU on each decision; the
burner (tests/cheats/cpu_burner.py) forks 60 children that spin for as long as its seat lives;
the idle opponent is greedy.  Both players are isolated, one worker, each deal in both seat
orders, on standard played to 3,000 (not exactly), as tests/test_seat_cpu.py plays them.

Each opponent is measured with the CPU wall (every seat in a cpu control group of its own, the
full weight only for the seat arena waits for: arena/sandbox/on_move.py) and without it: there
each seat's processes are moved back into arena's own cpu group once the seat has said hello,
before it runs a game, which is where every seat ran before the wall.  The figures are the
honest seat's decision times as arena sees them (from sending the turn to reading the reply,
median and max), its timeouts, and the ratio of the median against the burner to the median
against the idle opponent.  The script runs itself in a cpu control group of its own, as arena
runs under systemd or in a container (in the root group, the kernel's autogroups give each
session a share of its own, which a contest machine can't count on).  It needs root and the
cpu controller.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bare_loop import machine  # run as a script, benchmarks/ is on the path

from arena.engine import STANDARD, Action, GameResult, Ruleset, TurnView
from arena.players import play_match
from arena.players.match import PlayerFault
from arena.players.protocol import GameInfo
from arena.sandbox import SeatLimits, SeatPool, cgroups, load_player
from arena.sandbox.seats import RemoteSeat

HERE = Path(__file__).resolve().parent.parent / "tests" / "cheats"
THINKER = str(HERE / "thinker.py")
OPPONENTS = {"idle": "greedy", "burning": str(HERE / "cpu_burner.py")}
RULES: Ruleset = STANDARD.replace(name="cpu-test", target=3000, exact_target=False)


def cpu_group_folder() -> Path | None:
    """This process's cpu group: (the cgroup v1 cpu hierarchy's folder, or v2's) or None."""
    if os.geteuid() != 0:
        return None
    bases = cgroups._bases()
    if (cgroups.V1_CPU / "cgroup.procs").exists():
        return bases[cgroups.V1_CPU]
    if "cpu" in cgroups._controllers_v2(bases[cgroups.V2]):
        return bases[cgroups.V2]
    return None


@contextlib.contextmanager
def own_cpu_group(parent: Path) -> Iterator[Path]:
    group = parent / f"arena-bench-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    # The weight of 16 plain processes, so that other work on the machine weighs less on the
    # figures; inside the group the seats compete as a contest's do.
    for name, weight in (("cpu.shares", "16384"), ("cpu.weight", "1600")):
        with contextlib.suppress(OSError):
            (group / name).write_text(weight)
    (group / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield group
    finally:
        (parent / "cgroup.procs").write_text(str(os.getpid()))
        for _ in range(100):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.05)


class Timed:
    """A seat whose decisions are timed as arena sees them."""

    def __init__(self, seat: RemoteSeat, times: list[float]) -> None:
        """``times``: where each decision's seconds are added."""
        self.seat = seat
        self.name = seat.name
        self.times = times

    def start_game(self, info: GameInfo) -> None:
        self.seat.start_game(info)

    def decide(self, view: TurnView) -> Action | tuple[Any, Any]:
        began = time.perf_counter()
        try:
            return self.seat.decide(view)
        finally:
            self.times.append(time.perf_counter() - began)

    def end_game(self, result: GameResult) -> None:
        self.seat.end_game(result)


def played(opponent: str, games: int, move_timeout: float, wall: bool, home: Path) -> tuple[list[float], int]:
    """The honest seat's decision times and its timeouts against ``opponent``."""
    limits = SeatLimits()
    players = [
        load_player(p, isolate=True, limits=limits, move_timeout=move_timeout) for p in (THINKER, opponent)
    ]
    pool = SeatPool(players, limits, move_timeout)
    times: list[float] = []
    timeouts = 0
    try:
        for game in range(games):
            deal, order = divmod(game, 2)
            seats = [pool.seat(index, order) for index in (0, 1)]
            if not wall:  # where seats ran before the wall: in arena's own cpu group
                for seat in seats:
                    for pid in cgroups.processes_in(cgroups.seat_groups(seat._process.pid)):
                        with contextlib.suppress(OSError):
                            (home / "cgroup.procs").write_text(str(pid))
            honest = Timed(seats[0], times)
            table: list[Any] = [honest, seats[1]] if order == 0 else [seats[1], honest]
            faults: list[PlayerFault] = []
            play_match(RULES, table, 1000 + deal, move_timeout=move_timeout, on_fault=faults.append)
            timeouts += sum(1 for f in faults if table[f.seat] is honest and f.status == "timeout")
    finally:
        pool.close()
    return times, timeouts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--move-timeout", type=float, default=1.5)
    args = parser.parse_args()
    parent = cpu_group_folder()
    if parent is None:
        sys.exit("seat_cpu.py needs root and the cpu cgroup controller")
    print(
        f"machine: {machine()}; thinker (0.1 s of CPU a decision) against each opponent, "
        f"{args.games} games, move timeout {args.move_timeout:g} s, one worker"
    )
    print("opponent  CPU wall  decisions  median s  max s  timeouts")
    medians: dict[tuple[str, bool], float | None] = {}
    with own_cpu_group(parent) as home:
        for wall in (True, False):
            for label, opponent in OPPONENTS.items():
                times, timeouts = played(opponent, args.games, args.move_timeout, wall, home)
                # None when it timed out before its first decision (in start_game).
                median = medians[label, wall] = statistics.median(times) if times else None
                shown = f"{median:8.3f}  {max(times):5.2f}" if times else f"{'-':>8}  {'-':>5}"
                print(
                    f"{label:<9} {'with' if wall else 'without':<9} {len(times):>9}  {shown}  {timeouts:>8}"
                )
    for wall in (True, False):
        burning, idle = medians["burning", wall], medians["idle", wall]
        ratio = f"{burning / idle:.2f}x" if burning and idle else "- (no decision made)"
        print(f"median against the burner / against idle, {'with' if wall else 'without'} the wall: {ratio}")


if __name__ == "__main__":
    main()
