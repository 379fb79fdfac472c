"""Issue 38, point 5: no channel between seats through the kernel objects they share, and no
per-user count of the kernel shared with the host or another seat.

Every seat reads the same runtime, and a bind mount shares its inodes: a lock taken on
``/etc/passwd`` by one seat, or an inotify watch that sees another seat's reads of it, passes
bits between two entries, or between one entry's two processes of a deal (one per seat order).
A probe (a ``cmd:`` bot, standard library only) tries each way, before it says hello, while the
seats started before it live on and keep reading ``/etc/passwd``; it writes what it found to
its log, and the test checks that nothing passed and that each way was refused outright.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena.engine import STANDARD
from arena.players import play_match
from arena.players.builtin.greedy import GreedyPlayer
from arena.sandbox import SeatLimits, SeatPlace, SeatPool, load_player

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="seats of their own user id need arena to run as root"
)

PROBE = textwrap.dedent(
    """
    import ctypes, errno, fcntl, json, os, struct, sys, threading, time
    libc = ctypes.CDLL(None, use_errno=True)
    found = {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
             "layers": os.environ.get("ARENA_SEAT_LAYERS", "")}

    def name(exc):
        return errno.errorcode.get(exc.errno, str(exc.errno))

    def flock_probe(f):
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return "held"
        except OSError as exc:
            return "blocked" if exc.errno == errno.EWOULDBLOCK else name(exc)

    def lock_probe(f, command):
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (and padding)
        try:
            got = fcntl.fcntl(f, command, struct.pack("hhqqixxxx", fcntl.F_WRLCK, 0, 0, 0, 0))
        except OSError as exc:
            return name(exc)
        return "free" if struct.unpack("hhqqixxxx", got)[0] == fcntl.F_UNLCK else "locked"

    def take(f, command):
        try:
            fcntl.fcntl(f, command, struct.pack("hhqqixxxx", fcntl.F_RDLCK, 0, 0, 0, 0))
            return "held"
        except OSError as exc:
            return name(exc)

    def inotify_probe():
        fd = libc.inotify_init1(os.O_NONBLOCK)
        if fd < 0:
            return errno.errorcode.get(ctypes.get_errno(), "?")
        libc.inotify_add_watch(fd, b"/etc/passwd", 0x1 | 0x20)  # IN_ACCESS | IN_OPEN
        time.sleep(0.6)
        try:
            return len(os.read(fd, 65536)) // 16  # events (without names) are 16 bytes
        except BlockingIOError:
            return 0

    def mincore_probe():  # which pages of a shared file are in the page cache
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, *[ctypes.c_int] * 3, ctypes.c_long]
        address = libc.mmap(None, 4096, 1, 2, os.open(os.__file__, os.O_RDONLY), 0)  # PROT_READ, MAP_PRIVATE
        vector = ctypes.create_string_buffer(1)
        if libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(4096), vector) != 0:
            return errno.errorcode.get(ctypes.get_errno(), "?")
        return "answered"

    # Locks on /etc/group (this process keeps reading /etc/passwd below, and closing any file
    # of a process drops its POSIX locks on that file); notices of reads on /etc/passwd.
    group, group_again = open("/etc/group"), open("/etc/group")
    found["flock"] = flock_probe(group)
    found["ofd_getlk"] = lock_probe(group, 36)  # F_OFD_GETLK
    found["getlk"] = lock_probe(group, fcntl.F_GETLK)
    found["setlk"] = take(group, fcntl.F_SETLK)
    found["ofd_setlk"] = take(group_again, 37)  # F_OFD_SETLK
    found["inotify"] = inotify_probe()
    fan = libc.fanotify_init(0x200, os.O_RDONLY)  # FAN_REPORT_FID, as an unprivileged process may
    found["fanotify"] = "made" if fan >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    try:
        fcntl.fcntl(os.open(os.path.dirname(os.__file__), os.O_RDONLY), fcntl.F_NOTIFY, fcntl.DN_ACCESS)
        found["dnotify"] = "set"
    except OSError as exc:
        found["dnotify"] = name(exc)
    found["mincore"] = mincore_probe()
    # Pipe buffers are counted per user: fill this user's soft limit (64 pipes of 1 MiB make
    # the 16,384 pages), after measuring what a new pipe gets.
    r, w = os.pipe()
    found["pipe_size"] = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
    pipes = []
    for _ in range(80):
        r, w = os.pipe()
        pipes.append((r, w))
        try:
            fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
        except OSError:
            break

    def keep_reading():  # for the seats started after this one
        while True:
            with open("/etc/passwd") as f:
                f.read()
            time.sleep(0.005)

    threading.Thread(target=keep_reading, daemon=True).start()
    sys.stderr.write("FINDINGS " + json.dumps(found) + "\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": sys.argv[1]}), flush=True)
        elif m["type"] == "bye":
            break
    """
)


def _findings(log_folder: Path) -> list[dict[str, Any]]:
    lines = "".join(p.read_text() for p in sorted(log_folder.glob("*.log"))).splitlines()
    return [json.loads(line.removeprefix("FINDINGS ")) for line in lines if line.startswith("FINDINGS ")]


def _seats(tmp_path: Path, names: list[str], orders: int) -> list[dict[str, Any]]:
    """Start a probe per name and seat order, one after the other, all alive together."""
    os.chdir(tmp_path)
    (tmp_path / "probe.py").write_text(PROBE)
    limits = SeatLimits(start_seconds=20)
    players = [
        load_player(f"cmd:{sys.executable} probe.py {name}", isolate=True, limits=limits, move_timeout=5.0)
        for name in names
    ]
    logs = tmp_path / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    pool = SeatPool(players, limits, 5.0, place=SeatPlace(log_folder=logs))
    try:
        for index in range(len(players)):
            for order in range(orders):
                pool.seat(index, order)
    finally:
        pool.close()
    found = _findings(logs)
    assert len(found) == len(players) * orders, found
    return found


@pytest.mark.parametrize(
    ("names", "orders"), [(["alice", "bob"], 1), (["alice"], 2)], ids=["two-entries", "two-orders"]
)
def test_no_bit_passes_between_seats_through_locks_or_notices_on_a_shared_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names: list[str], orders: int
) -> None:
    monkeypatch.chdir(tmp_path)
    found = _seats(tmp_path, names, orders)
    assert all("own-root" in seat["layers"] and "seccomp" in seat["layers"] for seat in found), found
    # Nothing passed: no later seat saw a lock of an earlier one, or noticed its reads ...
    seen = [(seat["flock"], seat["getlk"], seat["ofd_getlk"], seat["inotify"]) for seat in found]
    assert not any(
        flock == "blocked" or "locked" in (getlk, ofd) or notices not in ("ENOSYS", 0)
        for flock, getlk, ofd, notices in seen
    ), seen
    # ... because each way is closed, not because the seats missed each other.
    for seat in found:
        assert {seat[k] for k in ("flock", "getlk", "ofd_getlk", "setlk", "ofd_setlk")} == {"ENOLCK"}, seat
        assert seat["inotify"] == "ENOSYS" and seat["fanotify"] == "ENOSYS", seat
        assert seat["dnotify"] == "EINVAL" and seat["mincore"] == "ENOSYS", seat


def test_each_seat_runs_under_a_user_id_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    found = _seats(tmp_path, ["alice", "bob"], 2)
    uids = [seat["uid"] for seat in found]
    assert all(seat["layers"].split(",").count("own-uid") == 1 for seat in found), found
    assert 0 not in uids and len(set(uids)) == len(uids), uids
    assert [seat["gid"] for seat in found] == uids and all(seat["groups"] == [] for seat in found)
    # Pipe buffers are counted per user: each seat filled its user's share, and every later
    # seat still got a full pipe (one user would have left it a single page).
    assert {seat["pipe_size"] for seat in found} == {65536}, found


INOTIFY_HOG = textwrap.dedent(
    """
    import ctypes, json, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    held = []
    while len(held) < 1000:
        fd = libc.inotify_init1(0)
        if fd < 0:
            break
        held.append(fd)
    sys.stderr.write("FINDINGS " + json.dumps({"held": len(held)}) + "\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "hog"}), flush=True)
        elif m["type"] == "bye":
            break
    """
)


def test_a_seat_takes_no_inotify_instance_from_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hog.py").write_text(INOTIFY_HOG)
    limits = SeatLimits(start_seconds=20)
    player = load_player(f"cmd:{sys.executable} hog.py", isolate=True, limits=limits, move_timeout=5.0)
    pool = SeatPool([player], limits, 5.0, place=SeatPlace(log_folder=tmp_path / "logs"))
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        pool.seat(0)  # alive, holding what it could get, while the host asks for one
        fd = libc.inotify_init1(0)
        got = fd >= 0
        if got:
            os.close(fd)
    finally:
        pool.close()
    assert got, f"the host's inotify_init1 failed: {os.strerror(ctypes.get_errno())}"


BOT = textwrap.dedent(
    """
    import os
    from arena.players.builtin.greedy import GreedyPlayer


    class Bot(GreedyPlayer):
        name = "private-bot"

        def __init__(self):
            import sys
            sys.stderr.write("LAYERS " + os.environ.get("ARENA_SEAT_LAYERS", "") + "\\n")
    """
)


def _private(folder: Path) -> None:
    """The organiser's habit: entry files of mode 0600 in a folder of mode 0700."""
    for path in folder.iterdir():
        if path.is_file():
            path.chmod(0o600)
    folder.chmod(0o700)


@pytest.mark.parametrize("kind", ["python", "module", "cmd"])
def test_an_entry_of_mode_0600_in_a_0700_folder_loads_and_plays_under_the_seats_own_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    entry = tmp_path / "entries" / "private"
    entry.mkdir(parents=True)
    if kind == "python":
        (entry / "bot.py").write_text(BOT)
        spec = "entries/private/bot.py"
    elif kind == "module":  # a package folder, bound whole
        (entry / "__init__.py").write_text("from .bot import Bot\n")
        (entry / "bot.py").write_text(BOT)
        monkeypatch.syspath_prepend(str(tmp_path))
        spec = "entries.private:Bot"
    else:
        source = Path(__file__).resolve().parents[1] / "strategies" / "external" / "greedy_bot.py"
        says_layers = (
            "import sys\nimport os\nsys.stderr.write('LAYERS ' + os.environ['ARENA_SEAT_LAYERS'] + '\\n')\n"
        )
        (entry / "greedy_bot.py").write_text(source.read_text().replace("import sys\n", says_layers, 1))
        spec = f"cmd:{sys.executable} entries/private/greedy_bot.py greedy"
    _private(entry)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o700
    limits = SeatLimits(start_seconds=20)
    player = load_player(spec, isolate=True, limits=limits, move_timeout=5.0)
    logs = tmp_path / "logs"
    pool = SeatPool([player], limits, 5.0, place=SeatPlace(log_folder=logs))
    faults: list[Any] = []
    try:
        result = play_match(
            STANDARD, [pool.seat(0), GreedyPlayer()], 7, move_timeout=5.0, on_fault=faults.append
        )
    finally:
        pool.close()
    assert not faults and len(result.scores) == 2
    text = "".join(p.read_text() for p in logs.glob("*.log"))
    assert "own-uid" in text and "own-root" in text, text


def test_where_an_entry_file_cant_be_shown_as_the_seats_the_seat_keeps_its_ids_and_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system without idmapped mounts (NFS, say) holding one of an entry's files: none of
    them is shown as the seat's, and the seat runs without ``own-uid`` rather than fail."""
    from arena.sandbox import seat_root

    made: list[str] = []
    real_owned_tree = seat_root.owned_tree

    def second_refused(source: str, owner: int, namespaces: dict[tuple[int, int], int]) -> int:
        made.append(source)
        if len(made) > 1:
            raise seat_root.RootError(95, "no idmapped mounts here")
        return real_owned_tree(source, owner, namespaces)

    monkeypatch.setattr(seat_root, "owned_tree", second_refused)  # the seat is forked from here
    monkeypatch.chdir(tmp_path)
    entry = tmp_path / "entries" / "private"
    entry.mkdir(parents=True)
    (entry / "__init__.py").write_text("")
    (entry / "bot.py").write_text(BOT)
    (tmp_path / "entries" / "__init__.py").write_text("")
    _private(entry)
    _private(tmp_path / "entries")  # its __init__.py, shown as the seat's, comes first
    monkeypatch.syspath_prepend(str(tmp_path))
    limits = SeatLimits(start_seconds=20)
    player = load_player("entries.private.bot:Bot", isolate=True, limits=limits, move_timeout=5.0)
    logs = tmp_path / "logs"
    pool = SeatPool([player], limits, 5.0, place=SeatPlace(log_folder=logs))
    faults: list[Any] = []
    try:
        play_match(STANDARD, [pool.seat(0), GreedyPlayer()], 7, move_timeout=5.0, on_fault=faults.append)
    finally:
        pool.close()
    assert not faults
    text = "".join(p.read_text() for p in logs.glob("*.log"))
    assert "own-root" in text and "own-uid" not in text, text
