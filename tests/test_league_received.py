"""A league folder received from someone else is hostile: a link, FIFO or second name planted
where arena opens a file (the database and SQLite's companions, the run lock, the seats' logs,
the stored entries) is refused in one line before anything is written, and a read-only
database is said to be read-only, not damaged, and can still be read (docs/security.md)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League
from arena.storage import league_db

SECRET = b"the organiser's own file, outside the league\n"
BOT = '''
import sys
from arena import Action


class Bot:
    name = "noisy"

    def decide(self, view):
        print("a line on stderr", file=sys.stderr)
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 300 and view.bank_allowed(keep))
'''


def cli_run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league with a stored file entry, a built-in and their games, closed cleanly."""
    base = tmp_path_factory.mktemp("received")
    (base / "noisy.py").write_text(BOT)
    folder = base / "league"
    league = League.create(folder, games=2, seed=7)
    league.add(str(base / "noisy.py"))
    league.add("greedy")
    league.run(trusted=True, progress=False)
    league.close()
    (folder / "data" / "seat-logs").mkdir(exist_ok=True)
    (folder / "data" / "seat-logs" / "noisy.log").write_bytes(b"earlier lines\n")
    return folder


def received(finished: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "league"
    shutil.copytree(finished, folder, symlinks=True)
    return folder


def stored_entry(folder: Path) -> str:
    """The stored copy of the file entry, relative to the league folder."""
    (copy,) = (folder / "entries").glob("*/noisy.py")
    return str(copy.relative_to(folder))


def snapshot(path: Path) -> dict[str, bytes | None]:
    """Every file under ``path`` (or ``path`` itself), by name, with its bytes."""
    if path.is_dir():
        return {str(p.relative_to(path)): p.read_bytes() if p.is_file() else None for p in path.rglob("*")}
    return {"": path.read_bytes()} if path.exists() else {}


def plant(folder: Path, name: str, how: str, tmp_path: Path) -> Path:
    """Put a planted ``how`` at ``name`` in ``folder``; the outside place it leads to."""
    place = folder / name
    outside = tmp_path / "outside"
    if how == "folder-link":
        shutil.copytree(place, outside) if place.is_dir() else outside.mkdir()
        shutil.rmtree(place, ignore_errors=True)
        place.symlink_to(outside, target_is_directory=True)
        return outside
    if how in ("file-link", "hard-link") and name == "data/league.sqlite":
        # The organiser's other league: its database, written through the link.
        shutil.copyfile(place, outside)
    else:
        outside.write_bytes(SECRET)
    if place.is_dir():
        shutil.rmtree(place)
    else:
        place.unlink(missing_ok=True)
    if how == "file-link":
        place.symlink_to(outside)
    elif how == "dangling":
        place.symlink_to(tmp_path / "nothing-yet")
        return tmp_path / "nothing-yet"
    elif how == "fifo":
        os.mkfifo(place)
    elif how == "hard-link":
        os.link(outside, place)
    return outside


FILES = ["data/league.sqlite", "data/league.sqlite-wal", "data/league.sqlite-shm",
         "data/league.sqlite-journal", "data/run.lock", "data/seat-logs/noisy.log", "ENTRY"]  # fmt: skip
FOLDERS = ["data", "data/seat-logs", "entries"]
CASES = [
    *((name, how) for name in FILES for how in ("file-link", "dangling", "fifo", "hard-link")),
    *((name, how) for name in FOLDERS for how in ("folder-link", "dangling")),
]


@pytest.mark.parametrize(("name", "how"), CASES)
def test_a_planted_entry_in_a_received_league_is_refused_before_anything_is_written(
    finished: Path, tmp_path: Path, name: str, how: str
) -> None:
    folder = received(finished, tmp_path)
    name = stored_entry(folder) if name == "ENTRY" else name
    outside = plant(folder, name, how, tmp_path)
    before = snapshot(outside)
    for command in (["run", str(folder), "--trusted"], ["add", str(folder), "random"]):
        code, out, err = cli_run("league", *command)
        assert code == 1, (command, out, err)
        assert err.count("\n") == 1 and err.startswith(f"arena: error: {folder / name}: "), err
        assert "planted links" in err
        assert snapshot(outside) == before
    if name.startswith("data/league.sqlite") or name == "data":
        # A reader too: SQLite would make the -shm beside a link's target, or truncate a journal
        code, _, err = cli_run("league", "table", str(folder))
        assert code == 1 and err.startswith(f"arena: error: {folder / name}: "), err
        assert snapshot(outside) == before


def test_a_linked_seat_log_folder_is_refused_in_one_line_not_made_each_seats_fault(
    finished: Path, tmp_path: Path
) -> None:
    """An isolated entry's stderr goes to ``data/seat-logs``: a planted link there once made
    every stderr line of the entry its fault (the log was opened at the first line)."""
    folder = received(finished, tmp_path)
    League(folder).add("random")  # new games to play
    outside = plant(folder, "data/seat-logs", "folder-link", tmp_path)
    before = snapshot(outside)
    code, _, err = cli_run("league", "run", str(folder))
    assert snapshot(outside) == before
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"arena: error: {folder}/data/seat-logs: it is a symbolic link, and arena never")
    assert err.endswith("a league folder received from someone else may hold planted links: remove it\n")
    assert "error" not in League(folder, read_only=True).games_csv().split("\n", 1)[1]


def test_a_league_made_in_a_folder_with_a_planted_data_link_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    folder.mkdir()
    (tmp_path / "outside").mkdir()
    (folder / "data").symlink_to(tmp_path / "outside")
    code, _, err = cli_run("league", "init", str(folder))
    assert code == 1 and "data: it is a symbolic link" in err and err.count("\n") == 1
    assert list((tmp_path / "outside").iterdir()) == []


# --- A read-only league -----------------------------------------------------------------------

READ_ONLY = "is read-only"


def read_only_commands(folder: Path) -> dict[str, tuple[int, str, str]]:
    site = folder.parent / "site"
    return {
        "table": cli_run("league", "table", str(folder)),
        "games": cli_run("league", "games", str(folder)),
        "export": cli_run("league", "export", str(folder), str(site)),
        "add": cli_run("league", "add", str(folder), "random"),
        "run": cli_run("league", "run", str(folder), "--trusted"),
    }


def check_read_only(results: dict[str, tuple[int, str, str]], table: str, games: str) -> None:
    assert results["table"][:2] == (0, table)
    assert results["games"][:2] == (0, games)
    assert results["export"][0] == 0
    for command in ("add", "run"):
        code, _, err = results[command]
        assert code == 1 and err.count("\n") == 1, (command, err)
        assert READ_ONLY in err and "damaged" not in err and "restore" not in err, (command, err)


def test_an_immutable_database_file_is_read_only_not_damaged(finished: Path, tmp_path: Path) -> None:
    """Root ignores file modes, not ``chattr +i``: the database file can't be opened to write."""
    folder = received(finished, tmp_path)
    table, games = cli_run("league", "table", str(folder))[1], cli_run("league", "games", str(folder))[1]
    database = league_db.database_path(folder)
    if subprocess.run(["chattr", "+i", str(database)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i needs root and a file system that has it")
    try:
        results = read_only_commands(folder)
    finally:
        subprocess.run(["chattr", "-i", str(database)], check=True)
    check_read_only(results, table, games)
    assert "(the file is read-only)" in results["add"][2]


MOUNTED = """
import json, sys
from click.testing import CliRunner
from arena.cli.main import cli
from pathlib import Path
from tests.test_league_received import read_only_commands
results = read_only_commands(Path(sys.argv[1]))
print(json.dumps(results))
"""


def test_a_league_on_a_read_only_mount_is_read_and_said_read_only(finished: Path, tmp_path: Path) -> None:
    """The league's folder bound read-only in a mount namespace of a child process: no -shm
    can be made, so the database is read as immutable; writing commands say read-only."""
    import json

    folder = received(finished, tmp_path)
    assert not list((folder / "data").glob("*-shm"))  # closed cleanly: the -shm must be made
    table, games = cli_run("league", "table", str(folder))[1], cli_run("league", "games", str(folder))[1]
    for leftover in (folder / "data").glob("league.sqlite-*"):
        leftover.unlink()  # what the reads left: a received league holds none
    script = (
        f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
        f"exec {sys.executable} -c '{MOUNTED}' {folder}"
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"no mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    results = {k: tuple(v) for k, v in json.loads(done.stdout).items()}
    check_read_only(results, table, games)  # type: ignore[arg-type]
    assert "(it is on a read-only mount)" in results["add"][2]


def test_busy_not_a_database_and_damaged_are_each_their_own_line(finished: Path, tmp_path: Path) -> None:
    folder = received(finished, tmp_path)
    database = league_db.database_path(folder)
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError) as raised:
            sqlite3.connect(database, timeout=0).execute("INSERT INTO meta VALUES ('x', 'y')")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    said = league_db.describe_error(raised.value, database)
    assert said.startswith(f"{database} is busy (another process holds it locked") and "damaged" not in said
    database.write_bytes(b"not a database at all\n" * 300)
    code, _, err = cli_run("league", "table", str(folder))
    assert code == 1 and err.count("\n") == 1
    assert f"{database} is not a league database (not an SQLite file" in err and "damaged" not in err


# --- league export and league serve -------------------------------------------------------------

EXPORT_CASES = [("index.html", "file-link"), ("index.html", "dangling"), ("index.html", "fifo"),
                ("entry-1.html", "hard-link"), ("", "folder-link"), ("notes.txt", "other")]  # fmt: skip


@pytest.mark.parametrize(("name", "how"), EXPORT_CASES)
def test_export_writes_through_no_planted_link_and_replaces_only_its_own_pages(
    finished: Path, tmp_path: Path, name: str, how: str
) -> None:
    site = tmp_path / "site"
    assert cli_run("league", "export", str(finished), str(site))[0] == 0  # an earlier export
    first = snapshot(site)
    assert cli_run("league", "export", str(finished), str(site))[0] == 0  # replaced: allowed
    assert snapshot(site) == first
    outside = tmp_path / "outside"
    outside.write_bytes(SECRET)
    place = site / name
    if how == "folder-link":
        shutil.rmtree(site)
        outside.unlink()
        outside.mkdir()
        site.symlink_to(outside, target_is_directory=True)
        place = site
    elif how == "other":
        place.write_bytes(SECRET)  # the user's own file: export does not overwrite a folder holding it
    else:
        place.unlink()
        if how == "file-link":
            place.symlink_to(outside)
        elif how == "dangling":
            place.symlink_to(tmp_path / "nothing-yet")
        elif how == "fifo":
            os.mkfifo(place)
        elif how == "hard-link":
            os.link(outside, place)
    before = snapshot(outside)
    code, _, err = cli_run("league", "export", str(finished), str(site))
    assert code == 1 and err.count("\n") == 1 and err.startswith(f"arena: error: {place}: "), err
    assert snapshot(outside) == before and not (tmp_path / "nothing-yet").exists()
    if how == "other":
        assert place.read_bytes() == SECRET


def test_a_busy_port_is_one_line_that_names_port(finished: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = cli_run("league", "serve", str(finished), "--port", str(port))
    assert code == 1 and err == (
        f"arena: error: port {port} on 127.0.0.1 is in use: choose another with --port (0 picks a free one)\n"
    )


SERVER = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
from arena.leagues.web import make_server
server = make_server(Path(sys.argv[1]), "127.0.0.1", 0, request_timeout=2.0)
print(server.server_address[1], server.cap, flush=True)
server.serve_forever()
"""


@pytest.mark.slow
def test_league_serve_survives_slowloris_past_its_open_file_limit(finished: Path) -> None:
    """A server with 200 open files at most; 300 half-sent requests, a request line that never
    ends, a huge header: a full request still gets the standings at once, the half-sent ones are
    closed after the request timeout, and the server lives on."""
    import socket
    import time
    import urllib.request

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(finished)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    clients: list[socket.socket] = []
    try:
        port_text, cap = server.stdout.readline().split()  # type: ignore[union-attr]
        port = int(port_text)
        assert int(cap) == 200 - 64
        base = f"http://127.0.0.1:{port}"
        for k in range(300):
            client = socket.create_connection(("127.0.0.1", port), timeout=10)
            client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n" if k % 2 else b"GET /" + b"x" * 100)
            clients.append(client)
        start = time.monotonic()
        page = urllib.request.urlopen(f"{base}/", timeout=10).read().decode()
        assert "<h1>Standings</h1>" in page and time.monotonic() - start < 5
        huge = socket.create_connection(("127.0.0.1", port), timeout=10)
        huge.sendall(b"GET / HTTP/1.1\r\n" + b"X: " + b"y" * 70000 + b"\r\n\r\n")
        assert huge.recv(100).startswith(b"HTTP/1.0 431")
        huge.close()
        time.sleep(3)  # past the request timeout: every half-sent connection is closed
        for client in clients[-100:]:
            with contextlib.suppress(ConnectionResetError):
                assert client.recv(10) == b""
        page = urllib.request.urlopen(f"{base}/standings.json", timeout=10).read()
        assert page.startswith(b"{") and server.poll() is None
    finally:
        for client in clients:
            client.close()
        server.kill()
        server.wait()


def test_exported_and_served_pages_carry_no_absolute_path_of_the_organisers_machine(
    finished: Path, tmp_path: Path
) -> None:
    """The file entry was added by its absolute path; the league stores its copy by one."""
    import urllib.request

    from arena.leagues.public_paths import public
    from arena.leagues.web import export_site, make_server

    site = tmp_path / "site"
    export_site(finished, site)
    organiser = str(finished.parent.resolve())
    pages = {p.name: p.read_text() for p in site.iterdir()}
    assert len(pages) > 3 and "noisy.py" in pages["entry-1.html"]
    assert [name for name, text in pages.items() if organiser in text or "/tmp/" in text] == []
    server = make_server(finished, "127.0.0.1", 0)
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        live = urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/entry-1.html", timeout=10)
        assert organiser not in live.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    replay = f"arena play --rules standard -p '{finished.resolve()}/entries/ab/bot.py' -p greedy --seed 3"
    assert public(replay, finished) == "arena play --rules standard -p 'entries/ab/bot.py' -p greedy --seed 3"
