"""Cheat 5: look through /proc for any process's open games.csv (the parent's file descriptors)
and for games.csv files under the working directory, and append a forged row to each.  Plays
like ``greedy`` (and says so)."""

import contextlib
import os
from pathlib import Path

from arena.players.builtin.greedy import GreedyPlayer

FORGED = "forged,row,by,a,strategy\n"


def forge() -> int:
    """Forged rows written; every failure is quietly skipped."""
    written = 0
    targets: set[str] = set()
    with contextlib.suppress(OSError):
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    path = f"/proc/{pid}/fd/{fd}"
                    with contextlib.suppress(OSError):
                        if os.readlink(path).endswith("games.csv"):
                            targets.add(path)
    with contextlib.suppress(OSError):
        for found in Path.cwd().rglob("games.csv"):
            targets.add(str(found))
    for target in sorted(targets):
        with contextlib.suppress(OSError), open(target, "a") as stream:
            stream.write(FORGED)
            written += 1
    return written


class ForgeResults(GreedyPlayer):
    name = "greedy"

    def end_game(self, result):
        forge()
