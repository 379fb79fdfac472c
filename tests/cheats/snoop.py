"""A probe, not a player worth having: at the start of each game it tries what a bot under
``--isolate`` must not be able to do, and raises (losing the game by ``error``) naming the first
thing that worked.  Plays like ``greedy`` (and says so) when nothing works."""

import contextlib
import os
import socket
from pathlib import Path

from arena.players.builtin.greedy import GreedyPlayer


def breaches() -> list[str]:
    found = []
    me = os.getpid()
    # Other processes: their command lines (the seed is on arena's) and their file descriptors.
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != me:
                with contextlib.suppress(OSError):
                    if b"--seed" in Path(f"/proc/{entry}/cmdline").read_bytes():
                        found.append(f"read the command line of process {entry}")
                with contextlib.suppress(OSError):
                    os.listdir(f"/proc/{entry}/fd")
                    found.append(f"listed the files of process {entry}")
    # Any process it can signal (signal 0 only asks).
    for pid in (os.getppid(), 1, me - 1, me + 1):
        if pid > 1 and pid != me:
            with contextlib.suppress(OSError):
                os.kill(pid, 0)
                found.append(f"may signal process {pid}")
    # The run folder: its spec (the seed) and games.
    with contextlib.suppress(OSError):
        for spec in Path.cwd().rglob("spec.json"):
            with contextlib.suppress(OSError):
                if '"seed"' in spec.read_text():
                    found.append(f"read {spec}")
    # Writing outside its scratch folder.
    with contextlib.suppress(OSError):
        probe = Path.cwd() / f"written-by-a-seat-{me}"
        probe.write_text("x")
        probe.unlink()
        found.append("wrote a file in the working directory")
    # The network.
    with contextlib.suppress(OSError), socket.create_connection(("1.1.1.1", 53), timeout=0.2):
        found.append("opened a network connection")
    return found


class Snoop(GreedyPlayer):
    name = "greedy"

    def start_game(self, info):
        found = breaches()
        if found:
            raise PermissionError("; ".join(found))
