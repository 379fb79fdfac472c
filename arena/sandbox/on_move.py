"""CPU for the seat arena waits for: a plain process's weight for it, the least for the others.

Every seat's processes share one cpu group (:mod:`~arena.sandbox.cgroups`): at most one CPU
together, whatever they start, so 60 spinning children weigh what one process does.  That is
not enough on its own: each player has a seat process per seat order, and one playing process
holds several, so an entry that spins in all of them between its turns would still take a
core each from the opponent's seat on move.  So a playing process (a chunk process, or the
main process of ``arena play``) gives the full weight (v1 ``cpu.shares`` 1024, v2
``cpu.weight`` 100: a plain process's) to one seat only, the one whose reply it waits for, and
the kernel's least (2, or 1) to every other seat it has started.  A waiting seat then runs only
on CPU nothing else wants: what it computes between its turns can't slow a seat on move, and
an honest seat's decision time does not depend on what its opponent does (measured by
``benchmarks/seat_cpu.py``; ``tests/test_seat_cpu.py``).

A seat starts at the full weight (it loads as any process would) and is lowered once arena
waits for another seat.  Switching costs two writes of a few microseconds each when the seat
arena waits for changes, and nothing while the same seat makes the decisions of its turn.  (A
cgroup freezer for the waiting seats would stop them altogether, but freezing and thawing
took about 3 ms per switch on the 2-core development machine, 70 times a round trip, and a
frozen seat can't be killed in cgroup v1 until it is thawed.)
"""

from __future__ import annotations

import contextlib
import os

from arena.sandbox import cgroups

#: Seat (by its reaper's pid) -> an open weight file, with its (full, least) values.
_files: dict[int, tuple[int, tuple[bytes, bytes]]] = {}
#: Seats started and not yet waited for: at the full weight, or about to be.
_fresh: set[int] = set()
#: The seat at the full weight that arena waited for last.
_holder: int | None = None
#: Whether seats get cpu groups here (known at the first seat started).
_usable: bool | None = None
#: The process the state above belongs to: a forked child starts afresh (its parent's seats
#: are not its own).
_owner = 0


def started(reaper: int) -> None:
    """A seat process has been started (its group, made by the seat, holds the full weight)."""
    global _usable
    _own()
    if _usable is None:
        _usable = cgroups.weight_file(reaper) is not None
    if _usable:
        _fresh.add(reaper)


def give(reaper: int) -> None:
    """Arena is about to wait for this seat: it gets the full weight, every other seat started
    here the least.  A group not made yet (a seat still starting) is tried again next time."""
    global _holder
    _own()
    if not _usable or (reaper == _holder and not _fresh):
        return
    if _holder is not None and _holder != reaper:
        _set(_holder, full=False)  # it has answered, so its group exists if it ever will
    for other in [seat for seat in _fresh if seat != reaper]:
        if _set(other, full=False):
            _fresh.discard(other)
    if reaper in _fresh:
        _fresh.discard(reaper)  # still at the full weight it started with
    elif reaper != _holder:
        _set(reaper, full=True)
    _holder = reaper


def forget(reaper: int) -> None:
    """The seat has ended: close its weight file."""
    global _holder
    _own()
    _fresh.discard(reaper)
    if _holder == reaper:
        _holder = None
    entry = _files.pop(reaper, None)
    if entry is not None:
        with contextlib.suppress(OSError):
            os.close(entry[0])


def _own() -> None:
    global _owner, _holder, _usable
    if _owner != os.getpid():
        _owner, _holder, _usable = os.getpid(), None, None
        _files.clear()  # the parent's descriptors, inherited: the parent closes them
        _fresh.clear()


def _set(reaper: int, *, full: bool) -> bool:
    """Write the seat's weight; False if it has no group (yet)."""
    entry = _files.get(reaper)
    if entry is None:
        found = cgroups.weight_file(reaper)
        if found is None:
            return False
        path, values = found
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            return False
        entry = _files[reaper] = (fd, (values[0].encode(), values[1].encode()))
    fd, weights = entry
    try:
        os.write(fd, weights[0] if full else weights[1])
    except OSError:
        return False
    return True
