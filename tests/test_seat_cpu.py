"""Fair CPU: a seat gets its share of CPU whatever another seat does (docs/security.md).

An honest isolated bot that thinks 0.1 s of CPU per decision (tests/cheats/thinker.py) plays
against an entry that forks 60 spinning children inside every limit (tests/cheats/cpu_burner.py)
and against an idle opponent (greedy), on one and on two workers.  Its timeouts against the
burner must equal those against the idle opponent: none, with a move timeout 15 times its
thinking.  The test compares timeouts, never times, so a loaded machine can't fail it.

arena runs in a cpu control group of its own here, as a service under systemd or in a container
does.  (In the root group, the kernel's autogroups already give each session, and so each
seat, a share of its own; a contest machine can't count on that.)
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

CHEATS = Path(__file__).parent / "cheats"
THINKER = str(CHEATS / "thinker.py")
#: Games of each run: one deal in both seat orders, each a chunk of its own (so two workers
#: play both at once, each with seat processes of both players).
GAMES = 2
BURNER = str(CHEATS / "cpu_burner.py")

#: Plays a tournament of the two players in the control group given, and prints each
#: player's statuses (player -> status -> games).
DRIVER = textwrap.dedent(
    """
    import collections, json, os, sys
    from pathlib import Path

    group, out, workers, GAMES, *players = sys.argv[1:]
    GAMES = int(GAMES)
    Path(group, "cgroup.procs").write_text(str(os.getpid()))

    import pandas as pd

    from arena.engine import STANDARD
    from arena.sandbox import SeatLimits, load_player
    from arena.tournaments import TournamentSpec, run_tournament
    from arena.tournaments.run_folder import RunFolder

    # Games short enough for a test: to 3,000, not exactly.
    rules = STANDARD.replace(name="cpu-test", target=3000, exact_target=False)
    limits = SeatLimits()
    specs = [load_player(p, isolate=True, limits=limits, move_timeout=1.5) for p in players]
    spec = TournamentSpec(
        (rules,), tuple(specs), games=GAMES, seed=5, move_timeout=1.5, chunk_games=1, seat_limits=limits
    )
    outcome = run_tournament(spec, RunFolder.create(Path(out), spec), workers=int(workers), progress=False)
    assert not outcome.interrupted, outcome.error
    games = pd.read_csv(Path(out) / "games.csv")
    counts = collections.defaultdict(dict)
    for (player, status), rows in games.groupby(["player", "status"]):
        counts[player][status] = len(rows)
    print(json.dumps(counts))
    """
)


def _cpu_parent() -> Path | None:
    """The folder of this process's cpu group (v1, or v2 with the cpu controller enabled)."""
    if os.geteuid() != 0:
        return None
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        own.update(dict.fromkeys(controllers.split(","), path.lstrip("/")))
    v1 = Path("/sys/fs/cgroup/cpu")
    if (v1 / "cgroup.procs").exists():
        return v1 / own.get("cpu", "")
    v2 = Path("/sys/fs/cgroup") / own.get("", "")
    with contextlib.suppress(OSError):
        if "cpu" in (v2 / "cgroup.subtree_control").read_text().split():
            return v2
    return None


@pytest.fixture
def cpu_group() -> Iterator[Path]:
    """A fresh cpu control group for arena to run in, removed afterwards."""
    parent = _cpu_parent()
    if parent is None:
        pytest.skip("needs root and the cpu cgroup controller")
    group = parent / f"arena-test-{uuid.uuid4().hex[:12]}"
    group.mkdir()
    # The weight of 16 plain processes against the rest of the machine, so that load from
    # outside the test (a loaded CI machine) does not decide an honest seat's timeouts; inside
    # the group the seats compete as a contest's do.
    for name, weight in (("cpu.shares", "16384"), ("cpu.weight", "1600")):
        with contextlib.suppress(OSError):
            (group / name).write_text(weight)
    try:
        yield group
    finally:
        for _ in range(200):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.05)


def statuses(group: Path, folder: Path, workers: int, players: list[str]) -> dict[str, dict[str, int]]:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(group), str(folder), str(workers), str(GAMES), *players],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).parent.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_an_honest_seats_timeouts_do_not_depend_on_a_cpu_burning_opponent(
    tmp_path: Path, cpu_group: Path, workers: int
) -> None:
    idle = statuses(cpu_group, tmp_path / "idle", workers, [THINKER, "greedy"])
    burning = statuses(cpu_group, tmp_path / "burning", workers, [THINKER, BURNER])
    assert idle["thinker"] == {"ok": GAMES}, idle
    assert burning["thinker"].get("timeout", 0) == idle["thinker"].get("timeout", 0) == 0, burning
    # The burner played its games (its children spun through them) and broke no limit.
    assert burning["cpu-burner"] == {"ok": GAMES}, burning


def test_only_the_seat_arena_waits_for_has_the_full_weight(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every exchange with a seat starts with that seat at a plain process's weight and every
    other seat of the process at the least, each seat's group at one CPU (arena/sandbox/on_move.py)."""
    from arena.engine import STANDARD
    from arena.players import play_match
    from arena.sandbox import SeatLimits, SeatPool, cgroups, load_player, on_move

    if _cpu_parent() is None:
        pytest.skip("needs root and the cpu cgroup controller")
    limits = SeatLimits()
    player = load_player("greedy", isolate=True, limits=limits, move_timeout=10.0)
    pool = SeatPool([player, player], limits, 10.0)
    seen: list[tuple[int, dict[int, str]]] = []
    give = on_move.give
    full, least = "", ""

    def watched(reaper: int) -> None:
        nonlocal full, least
        give(reaper)
        weights = {}
        # A seat whose group was not made yet when give() ran is lowered at the next one.
        for seat in set(live) - on_move._fresh:
            found = cgroups.weight_file(seat)
            assert found is not None
            full, least = found[1]
            with contextlib.suppress(FileNotFoundError):  # a seat still starting
                weights[seat] = found[0].read_text().strip()
        seen.append((reaper, weights))

    monkeypatch.setattr(on_move, "give", watched)
    rules = STANDARD.replace(name="cpu-test", target=3000, exact_target=False)
    try:
        pool.start_early([(0, 0), (1, 0), (0, 1), (1, 1)])
        live = [process.pid for process in pool._starting.values()]
        for game in range(2):
            play_match(rules, [pool.seat(0, game), pool.seat(1, game)], 7, move_timeout=10.0)
        groups = [g for seat in live for g in cgroups.seat_groups(seat) if (g / "cpu.weight").exists()]
        groups = groups or [
            g for seat in live for g in cgroups.seat_groups(seat) if (g / "cpu.shares").exists()
        ]
        quotas = {
            (g / "cpu.cfs_quota_us").read_text().strip()
            if (g / "cpu.cfs_quota_us").exists()
            else (g / "cpu.max").read_text().split()[0]
            for g in groups
        }
    finally:
        pool.close()
    assert len(seen) > 20 and {reaper for reaper, _ in seen} == set(live)
    for reaper, weights in seen:
        assert weights.get(reaper, full) == full, (reaper, weights)
        assert all(w == least for seat, w in weights.items() if seat != reaper), (reaper, weights)
    assert len(groups) == 4 and quotas == {str(cgroups.QUOTA_US)}
