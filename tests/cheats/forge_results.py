"""Cheat 5: look through /proc at its own ancestors' open files for games.csv (the file the
main process writes, through its file descriptors), and for games.csv files under the working
directory's results/, and append a forged row to each.  (Only its own ancestors and results/,
so that a test of it can't reach other runs on the machine.)  Plays like ``greedy`` (and says
so)."""

import contextlib
import os
from pathlib import Path

from arena.players.builtin.greedy import GreedyPlayer

FORGED = "forged,row,by,a,strategy\n"


def forge() -> int:
    """Forged rows written; every failure is quietly skipped."""
    written = 0
    targets: set[str] = set()
    pid = os.getppid()
    while pid > 1:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                path = f"/proc/{pid}/fd/{fd}"
                with contextlib.suppress(OSError):
                    if os.readlink(path).endswith("games.csv"):
                        targets.add(path)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rpartition(")")[2].split()[1])  # the parent's pid
        except (OSError, ValueError, IndexError):
            break
    with contextlib.suppress(OSError):
        for found in (Path.cwd() / "results").rglob("games.csv"):
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
