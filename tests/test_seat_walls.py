"""Issue 22, points 3 and 4: what a seat sees, what it can change, and limits per entry.

A probe (a ``cmd:`` bot, standard library only) tries, before it says hello, every way out that
the adversarial trial found: a host unix socket (by path and abstract), metadata changes to a
file outside its scratch folder, another entry's file, the run folder from inside it, the other
seats' scratch folders, the home folder, a terminal; then it fills its scratch folder.  It
writes what it found to stderr (the seat's log), and the test checks each finding, and the
world outside the seat, itself.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import SeatLimits, SeatPlace, SeatPool, load_player

PROBE = textwrap.dedent(
    """
    import json, os, socket, sys
    CONFIG = json.loads(sys.argv[1])
    found = {}

    def attempt(name, action):
        try:
            value = action()
            found[name] = True if value is None else value
        except OSError as exc:
            found[name] = False

    def connect(address):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(1)
        s.connect(address)
        s.sendall(b"hello from a seat")

    attempt("socket", lambda: connect(CONFIG["socket"]))
    attempt("abstract", lambda: connect(CONFIG["abstract"]))
    attempt("chmod", lambda: os.chmod(CONFIG["target"], 0o4777))
    attempt("utime", lambda: os.utime(CONFIG["target"], (0, 0)))
    attempt("xattr", lambda: os.setxattr(CONFIG["target"], "user.arena", b"x"))
    attempt("read_other_entry", lambda: open(CONFIG["other_entry"]).read())
    attempt("run_folder", lambda: os.listdir(CONFIG["run_folder"]))
    attempt("spec_in_cwd", lambda: open("spec.json").read())
    attempt("cwd", lambda: sorted(os.listdir(".")))
    attempt("tmp", lambda: sorted(os.listdir("/tmp")))
    attempt("root", lambda: sorted(os.listdir("/")))
    attempt("home", lambda: sorted(os.listdir("/root")))
    attempt("write_cwd", lambda: open("written-by-a-seat", "w").write("x"))
    found["tty"] = os.path.exists("/dev/tty") or any(os.isatty(fd) for fd in (0, 1, 2))
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    found["user_namespace"] = libc.unshare(0x10000000) == 0  # CLONE_NEWUSER
    written = 0
    try:
        while written < 64:
            with open(os.path.join(os.environ["TMPDIR"], f"fill{written}"), "wb") as f:
                f.write(b"x" * (1 << 20))
            written += 1
    except OSError:
        pass
    found["scratch_mib"] = written
    found["layers"] = os.environ.get("ARENA_SEAT_LAYERS", "")
    sys.stderr.write("FINDINGS " + json.dumps(found) + "\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "probe"}), flush=True)
        elif m["type"] == "bye":
            break
    """
)


def _findings(log_folder: Path) -> list[dict[str, Any]]:
    lines = "".join(p.read_text() for p in log_folder.glob("*.log")).splitlines()
    return [json.loads(line.removeprefix("FINDINGS ")) for line in lines if line.startswith("FINDINGS ")]


def _serve(address: str | bytes) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen(4)
    server.setblocking(False)
    return server


def _no_connection(server: socket.socket) -> bool:
    try:
        server.accept()
    except BlockingIOError:
        return True
    return False


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A contest's surroundings: a host socket, a file of the organiser's, another entry's file,
    a run folder with its spec, and a decoy seat scratch folder in /tmp."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "entries").mkdir()
    probe = tmp_path / "entries" / "probe.py"
    probe.write_text(PROBE)
    other = tmp_path / "entries" / "other_entry.py"
    other.write_text("SECRET = 'the other entry'\n")
    target = tmp_path / "organisers-file"
    target.write_text("mine")
    target.chmod(0o600)
    run = tmp_path / "results" / "run"
    run.mkdir(parents=True)
    (run / "spec.json").write_text('{"seed": 1234}')
    decoy = Path(f"/tmp/arena-seat-decoy-{os.getpid()}")
    decoy.mkdir(exist_ok=True)
    abstract = f"\0arena-walls-{os.getpid()}"
    servers = [_serve(str(tmp_path / "host.sock")), _serve(abstract.encode())]
    config = {
        "socket": str(tmp_path / "host.sock"),
        "abstract": abstract,
        "target": str(target),
        "other_entry": str(other),
        "run_folder": str(run),
    }
    yield {"probe": probe, "config": config, "target": target, "run": run, "servers": servers, "decoy": decoy}
    for server in servers:
        server.close()
    decoy.rmdir()


def _probe(world: dict[str, Any], logs: Path, *, cwd: Path | None = None) -> dict[str, Any]:
    limits = SeatLimits(file_size_mb=8)
    spec_text = f"cmd:{sys.executable} {world['probe']} '{json.dumps(world['config'])}'"
    player = load_player(spec_text, isolate=True, limits=limits, move_timeout=5.0)
    if cwd is not None:
        os.chdir(cwd)
    pool = SeatPool([player], limits, 5.0, place=SeatPlace(log_folder=logs, hidden=(world["run"],)))
    try:
        pool.seat(0)
    finally:
        pool.close()
    found = _findings(logs)
    assert len(found) == 1, found
    return found[0]


def _needs_own_root(found: dict[str, Any]) -> None:
    """As root (as CI runs) every wall must stand; elsewhere a missing root is skipped."""
    if os.geteuid() == 0:
        assert {"own-root", "seccomp", "memory-cgroup"} <= set(found["layers"].split(",")), found["layers"]
    elif "own-root" not in found["layers"]:
        pytest.skip(f"this machine gives seats no root of their own ({found['layers']})")


def test_a_seat_reaches_no_socket_no_file_and_no_folder_but_its_own(
    world: dict[str, Any], tmp_path: Path
) -> None:
    before = world["target"].stat()
    found = _probe(world, tmp_path / "logs")
    _needs_own_root(found)
    assert found["socket"] is False and found["abstract"] is False
    assert all(_no_connection(server) for server in world["servers"])
    assert found["chmod"] is False and found["utime"] is False and found["xattr"] is False
    after = world["target"].stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
    assert "user.arena" not in os.listxattr(world["target"])
    assert found["read_other_entry"] is False
    assert found["run_folder"] is False and found["spec_in_cwd"] is False
    assert found["write_cwd"] is False and not (tmp_path / "written-by-a-seat").exists()
    seats_in_tmp = [name for name in found["tmp"] if name.startswith("arena-seat-")]
    assert len(seats_in_tmp) == 1 and not seats_in_tmp[0].startswith("arena-seat-decoy")
    assert found["home"] in (False, [".pyenv"])  # at most the Python installation it runs on
    assert found["tty"] is False
    assert found["user_namespace"] is False or "seccomp" not in found["layers"]
    assert 1 <= found["scratch_mib"] <= 8  # the whole scratch folder, not one file


def test_a_seat_started_from_inside_the_run_folder_does_not_see_it(
    world: dict[str, Any], tmp_path: Path
) -> None:
    found = _probe(world, tmp_path / "logs", cwd=world["run"])
    _needs_own_root(found)
    assert found["spec_in_cwd"] is False and found["cwd"] == []


HOG = textwrap.dedent(
    """
    import json, os, sys, time
    children = []
    for _ in range(6):
        pid = os.fork()
        if pid == 0:
            block = bytearray(60 << 20)
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    time.sleep(2)
    alive = sum(os.waitpid(pid, os.WNOHANG)[0] == 0 for pid in children)
    found = {"alive": alive, "layers": os.environ["ARENA_SEAT_LAYERS"]}
    sys.stderr.write("FINDINGS " + json.dumps(found) + "\\n")
    sys.stderr.flush()
    for pid in children:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    sys.stdin.readline()
    print(json.dumps({"type": "hello", "protocol": 1, "name": "hog"}), flush=True)
    sys.stdin.readline()
    """
)


@pytest.mark.skipif(os.geteuid() != 0, reason="control groups per seat need root")
def test_a_seats_memory_limit_counts_all_its_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Six children of 60 MiB each would hold 360 MiB under a limit per process of 100 MiB.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hog.py").write_text(HOG)
    limits = SeatLimits(memory_mb=100, processes=8, start_seconds=20)
    player = load_player(f"cmd:{sys.executable} hog.py", isolate=True, limits=limits, move_timeout=5.0)
    pool = SeatPool([player], limits, 5.0, place=SeatPlace(log_folder=tmp_path / "logs"))
    try:
        pool.seat(0)
    finally:
        pool.close()
    found = _findings(tmp_path / "logs")
    if "memory-cgroup" not in found[0]["layers"]:
        pytest.skip("no memory controller here")
    assert found[0]["alive"] <= 1


NOISY = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        m = json.loads(line)
        sys.stderr.write("\\x1b[2J\\x1b[H  1  my-bot  99.9 %\\u202e\\n")
        sys.stderr.flush()
        if m["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "noisy"}), flush=True)
        elif m["type"] == "game_start":
            print('{"type":"ready"}', flush=True)
        elif m["type"] == "turn":
            k = m["legal_keeps"][0]
            print(json.dumps({"type": "action", "keep": k["dice"], "bank": k["bank_allowed"]}), flush=True)
        elif m["type"] == "game_end":
            print('{"type":"done"}', flush=True)
        else:
            break
    """
)


def test_arena_play_shows_a_seats_stderr_without_its_control_characters(tmp_path: Path) -> None:
    import subprocess

    (tmp_path / "noisy.py").write_text(NOISY)
    player = f"cmd:{sys.executable} noisy.py"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "-p", player, "-p", "greedy", "--seed", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "\\x1b[2J" in shown and "99.9 %\\u202e" in shown
