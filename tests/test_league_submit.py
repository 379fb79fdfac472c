"""Issue 39: submissions by students themselves (``league serve --submit``, ``league tokens``).

A student's token binds one entrant name and is stored hashed; an upload passes the same load
check as ``league add``; hostile uploads are refused in one line each and the server keeps
serving; a run that an upload lands in the middle of does not crash."""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.leagues import League
from arena.leagues import play as league_play
from arena.leagues.entries import UPLOAD_FILE, add_entry
from arena.leagues.submissions import UPLOAD_LIMIT, RateLimit
from arena.leagues.tokens import TokenRefused, issue_tokens, token_holder
from arena.leagues.web import make_server
from arena.storage import league_db
from tests.test_league_web import browser, chromium  # noqa: F401 (a fixture)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: A bot that loads and plays, and calls itself by another entrant's name.
GOOD_BOT = b"""from arena.players import Action


class Banker:
    name = "greedy"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= 350 and view.bank_allowed(keep))
"""
#: A bot that loads, then divides by zero on its first decision.
FAULTY_BOT = b"""class Divider:
    name = "divider"

    def decide(self, view):
        return 1 / 0
"""
#: A bot that fails the load check: it raises while its module is imported.
BROKEN_BOT = b"raise RuntimeError('broken at import')\n"


@pytest.fixture
def league_folder(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A league with one built-in entrant (greedy) and tokens for alice and bob."""
    folder = tmp_path / "league"
    league = League.create(folder, games=2, seed=5)
    league.add("greedy")
    tokens = dict(issue_tokens(league.connection, ["alice", "bob"]))
    league.close()
    yield folder, tokens


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    server = make_server(folder, "127.0.0.1", 0, submit=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def post(
    url: str,
    fields: dict[str, str],
    file: tuple[str, bytes] | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, str]]:
    """POST a multipart form as a browser does: (status, page, headers)."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    if file is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="bot"; filename="{file[0]}"\r\n'
            "Content-Type: text/x-python\r\n\r\n".encode()
            + file[1]
            + b"\r\n"
        )
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        url,
        data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers)


def message(page: str) -> str:
    import html
    import re

    found = re.search(r'<p class="(?:refused|done)" id="message">(.*?)</p>', page)
    assert found is not None, page
    return html.unescape(found.group(1))


def entries(folder: Path) -> list[tuple[str, int, str, int]]:
    with sqlite3.connect(league_db.database_path(folder)) as c:
        return c.execute("SELECT name, version, play_spec, active FROM entries ORDER BY id").fetchall()


# --- tokens -----------------------------------------------------------------------------------


def test_league_tokens_prints_each_token_once_and_the_league_keeps_only_its_hash(tmp_path: Path) -> None:
    runner = CliRunner()
    folder = tmp_path / "lg"
    assert runner.invoke(cli, ["league", "init", str(folder), "--games", "2"]).exit_code == 0
    result = runner.invoke(cli, ["league", "tokens", str(folder), "alice", "bob", "--json"])
    assert result.exit_code == 0, result.output
    tokens = json.loads(result.stdout)
    assert sorted(tokens) == ["alice", "bob"] and len(set(tokens.values())) == 2
    path = league_db.database_path(folder)
    database = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))  # with its WAL
    with sqlite3.connect(path) as c:
        stored = {row[0] for row in c.execute("SELECT token_sha256 FROM submit_tokens")}
    assert stored == {hashlib.sha256(t.encode()).hexdigest() for t in tokens.values()}
    for token in tokens.values():
        assert len(token) >= 32 and token.encode() not in database
    connection = league_db.open_league(folder, read_only=True)
    assert token_holder(connection, tokens["alice"]) == "alice"
    assert token_holder(connection, tokens["alice"] + "x") is None
    connection.close()
    # Issuing again replaces the token: the old one stops working.
    again = json.loads(runner.invoke(cli, ["league", "tokens", str(folder), "alice", "--json"]).stdout)
    connection = league_db.open_league(folder, read_only=True)
    assert token_holder(connection, tokens["alice"]) is None
    assert token_holder(connection, again["alice"]) == "alice"
    assert token_holder(connection, tokens["bob"]) == "bob"
    connection.close()


def test_league_tokens_refuses_a_look_alike_name_in_one_line(
    league_folder: tuple[Path, dict[str, str]],
) -> None:
    folder, _ = league_folder
    result = CliRunner().invoke(cli, ["league", "tokens", str(folder), "\u0430lice"])  # Cyrillic a
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "looks like" in result.output and "'alice'" in result.output
    connection = league_db.open_league(folder)
    with pytest.raises(TokenRefused, match="given twice"):
        issue_tokens(connection, ["carol", "carol"])
    connection.close()


def test_a_league_with_no_token_issued_knows_no_token(tmp_path: Path) -> None:
    League.create(tmp_path / "lg", games=2, seed=1).close()
    connection = league_db.open_league(tmp_path / "lg", read_only=True)
    assert token_holder(connection, "anything") is None
    connection.close()


# --- uploads over HTTP ------------------------------------------------------------------------


def test_an_upload_becomes_the_token_holders_entry_under_the_tokens_name(
    league_folder: tuple[Path, dict[str, str]],
) -> None:
    folder, tokens = league_folder
    with served(folder) as base:
        status, page, headers = post(
            f"{base}/submit", {"name": "alice", "token": tokens["alice"]}, ("../../../etc/evil.py", GOOD_BOT)
        )
    assert status == 200, page
    assert message(page) == "added alice version 1"
    assert (
        "Content-Security-Policy" in headers
        and "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    )
    assert tokens["alice"] not in page
    rows = entries(folder)
    # The bot calls itself "greedy", another entrant's name: it is stored as alice, its token's.
    assert [(r[0], r[1], r[3]) for r in rows] == [("greedy", 1, 1), ("alice", 1, 1)]
    stored = Path(rows[1][2])
    # No path from the upload reached the disk: the copy is entries/<hash>/submission.py.
    assert stored.name == UPLOAD_FILE and stored.parent.parent == (folder / "entries").resolve()
    assert stored.read_bytes() == GOOD_BOT
    assert not (folder.parent / "etc").exists()


def test_hostile_forms_are_refused_in_one_line_each_and_the_server_keeps_serving(
    league_folder: tuple[Path, dict[str, str]],
) -> None:
    folder, tokens = league_folder
    alice = {"name": "alice", "token": tokens["alice"]}
    cases = [
        ({"name": "alice", "token": "not-a-token"}, ("bot.py", GOOD_BOT), 403, "that token is not valid"),
        (
            {"name": "bob", "token": tokens["alice"]},
            ("bot.py", GOOD_BOT),
            403,
            "submits for 'alice', not for 'bob'",
        ),
        ({"name": "greedy", "token": tokens["alice"]}, ("bot.py", GOOD_BOT), 403, "not for 'greedy'"),
        (alice, ("bot.py", b"#" * (UPLOAD_LIMIT + 1)), 413, "larger than 256 KiB"),
        (alice, ("bot.py", b"x = 1\n" * 60_000), 413, "larger than 256 KiB"),  # the body, before parsing
        (alice, ("bot.exe", GOOD_BOT), 415, "only Python files (.py) are accepted, not 'bot.exe'"),
        (alice, ("../../bot.sh", GOOD_BOT), 415, "not 'bot.sh'"),
        (alice, ("<b id=bold>x.exe", GOOD_BOT), 415, "not '<b id=bold>x.exe'"),  # text, not markup
        (alice, ("bot.py", b"\x7fELF\0\0\x01"), 415, "holds NUL bytes"),
        (alice, ("bot.py", "print('é')".encode("latin-1")), 415, "not UTF-8 text"),
        (alice, ("bot.py", BROKEN_BOT), 422, "your bot was not added"),
        (alice, None, 400, "choose your bot's .py file"),
    ]
    with served(folder) as base:
        for fields, file, code, said in cases:
            status, page, headers = post(f"{base}/submit", fields, file)
            assert (status, said in message(page)) == (code, True), (file and file[0], message(page))
            assert "\n" not in message(page) and "Traceback" not in page and "<b id=bold>" not in page
            assert "Content-Security-Policy" in headers
            # The server goes on serving.
            assert urllib.request.urlopen(f"{base}/", timeout=30).status == 200
        assert "broken at import" in message(post(f"{base}/submit", alice, ("bot.py", BROKEN_BOT))[1])
        # A form another site's page posted is refused, even with a good token.
        status, page, _ = post(
            f"{base}/submit", alice, ("bot.py", GOOD_BOT), {"Origin": "http://evil.example"}
        )
        assert (status, message(page)) == (403, "a form posted from another site's page is refused")
        host = base.removeprefix("http://")
        for origin in ("null", f"http://{host}.evil.example", f"ftp://{host}"):
            assert post(f"{base}/submit", alice, ("bot.py", GOOD_BOT), {"Origin": origin})[0] == 403
        # A token in the URL is no token: only the body's counts.
        status, page, _ = post(f"{base}/status?token={tokens['alice']}", {})
        assert status == 403 and "not valid" in message(page)
        # Not a multipart form.
        request = urllib.request.Request(f"{base}/submit", data=b"token=x", method="POST")
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(request, timeout=30)
        assert error.value.code == 400
    # Nothing was stored, and no copy of a refused bot is left.
    assert [r[0] for r in entries(folder)] == ["greedy"]
    assert not (folder / "entries").exists() or not any((folder / "entries").iterdir())
    # The server's own page, also behind an HTTPS proxy, may post.
    with served(folder) as base:
        host = base.removeprefix("http://")
        status, page, _ = post(f"{base}/submit", alice, ("bot.py", GOOD_BOT), {"Origin": f"https://{host}"})
        assert (status, message(page)) == (200, "added alice version 1")


def test_a_server_without_submit_takes_no_posts(league_folder: tuple[Path, dict[str, str]]) -> None:
    folder, tokens = league_folder
    server = make_server(folder, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        status, _, _ = post(f"{base}/submit", {"name": "alice", "token": tokens["alice"]}, ("b.py", GOOD_BOT))
        assert status == 405
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(f"{base}/submit", timeout=30)
        assert error.value.code == 404
    finally:
        server.shutdown()
        server.server_close()
    assert [r[0] for r in entries(folder)] == ["greedy"]


def test_wrong_tokens_and_submissions_are_rate_limited(
    league_folder: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.leagues import submissions

    monkeypatch.setattr(submissions, "FAILED_TOKENS", 3)
    monkeypatch.setattr(submissions, "SUBMISSIONS", 1)
    folder, tokens = league_folder
    with served(folder) as base:
        first = post(f"{base}/submit", {"token": tokens["bob"]}, ("bob.py", GOOD_BOT))
        assert first[0] == 200 and message(first[1]) == "added bob version 1"
        second = post(f"{base}/submit", {"token": tokens["bob"]}, ("bob.py", FAULTY_BOT))
        assert second[0] == 429 and "bob has made 1 submissions recently: try again in" in message(second[1])
        for _ in range(3):
            assert post(f"{base}/status", {"token": "guess"})[0] == 403
        # The fourth try from this address waits, even with a good token.
        status, page, _ = post(f"{base}/status", {"token": tokens["alice"]})
        assert status == 429 and "too many wrong tokens from your address" in message(page)


def test_a_rate_limit_forgets_events_older_than_its_window() -> None:
    now = [0.0]
    limit = RateLimit(2, 10.0, clock=lambda: now[0])
    limit.note("a")
    now[0] = 4.0
    limit.note("a")
    assert limit.wait("a") == pytest.approx(6.0) and limit.wait("b") == 0
    now[0] = 10.5
    assert limit.wait("a") == 0


def test_the_status_page_shows_the_entrys_games_and_faults_with_the_traceback(
    league_folder: tuple[Path, dict[str, str]],
) -> None:
    folder, tokens = league_folder
    with served(folder) as base:
        status, page, _ = post(
            f"{base}/submit", {"name": "bob", "token": tokens["bob"]}, ("d.py", FAULTY_BOT)
        )
        assert status == 200, page
        assert "has 2 games to play" in page  # 2 games per pair (one deal, both seat orders)
        league = League(folder)
        report = league.run(trusted=True, progress=False)
        league.close()
        assert report.played == 2 and report.faults == 2
        status, page, _ = post(f"{base}/status", {"token": tokens["bob"]})
    assert status == 200
    assert "bob: your entry" in page and "has all its games" in page
    assert "ZeroDivisionError" in page and "submission.py" in page and "return 1 / 0" in page
    # Both faults raised the same error: its traceback is shown once, as on the entrant's page.
    assert page.count("return 1 / 0") == 1 and "the same traceback as game" in page
    # No absolute path of the organiser's machine: the league's folder, arena's own files.
    assert str(folder.resolve()) not in page and str(Path(league_play.__file__).parent) not in page
    assert "<td>2</td>" in page  # games of version 1


# --- a run that an upload lands in --------------------------------------------------------------


def test_an_upload_that_retires_an_entry_after_planning_does_not_crash_the_run(
    league_folder: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """play.py looks up the entries a plan seats after planning: an upload that makes a new
    version meanwhile retires the one planned (failed before: KeyError)."""
    folder, _ = league_folder
    league = League(folder)
    league.add("random", name="alice")
    planned = league_play.plan_work

    def plan_then_upload(*args: object, **kwargs: object) -> list[tuple[int, list[int]]]:
        plans = planned(*args, **kwargs)  # type: ignore[arg-type]
        other = league_db.open_league(folder)
        add_entry(folder, other, UPLOAD_FILE, "alice", upload=GOOD_BOT)
        other.close()
        return plans

    monkeypatch.setattr(league_play, "plan_work", plan_then_upload)
    report = league.run(trusted=True, progress=False)
    assert report.played == 2  # the planned pair, played with the version loaded
    monkeypatch.undo()
    assert [(r[0], r[1], r[3]) for r in entries(folder)] == [
        ("greedy", 1, 1),
        ("alice", 1, 0),
        ("alice", 2, 1),
    ]
    assert league.run(trusted=True, progress=False).played == 2  # then the new version's games
    league.close()


# --- in Chromium --------------------------------------------------------------------------------


@browser
def test_a_student_submits_in_chromium_sees_the_status_and_hostile_uploads_are_refused(
    league_folder: tuple[Path, dict[str, str]],
    tmp_path: Path,
    chromium: Browser,  # noqa: F811 (the fixture)
) -> None:
    folder, tokens = league_folder
    files = {
        "alice.py": GOOD_BOT,
        "big.py": b"#" * (UPLOAD_LIMIT + 100),
        "notes.txt": b"hello",
        "broken.py": BROKEN_BOT,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)

    with served(folder) as base:
        page = chromium.new_page()
        violations: list[str] = []
        page.on(
            "console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None
        )

        def submit(name: str, token: str, file: str) -> str:
            page.goto(f"{base}/submit")
            page.fill("#submit input[name=name]", name)
            page.fill("#submit input[name=token]", token)
            page.set_input_files("#submit input[name=bot]", str(tmp_path / file))
            page.click("#submit button")
            page.wait_for_selector("#message")
            return page.text_content("#message") or ""

        try:
            assert submit("alice", tokens["alice"], "alice.py") == "added alice version 1"
            assert "alice: your entry" in page.text_content("h1")
            assert "has 2 games to play" in page.text_content("#state")
            assert page.locator("#versions tr").count() == 2
            assert "larger than 256 KiB" in submit("alice", tokens["alice"], "big.py")
            assert "only Python files (.py)" in submit("alice", tokens["alice"], "notes.txt")
            assert "broken at import" in submit("alice", tokens["alice"], "broken.py")
            assert "not valid" in submit("alice", "wrong", "alice.py")
            assert "not for 'bob'" in submit("bob", tokens["alice"], "alice.py")
            # The status form, with the token typed again (never in a URL).
            page.goto(f"{base}/submit")
            page.fill("#status input[name=token]", tokens["alice"])
            page.click("#status button")
            page.wait_for_selector("#state")
            assert "alice: your entry" in page.text_content("h1")
            assert tokens["alice"] not in page.url and tokens["alice"] not in page.content()
        finally:
            page.close()
    assert violations == []
    assert [r[0] for r in entries(folder)] == ["greedy", "alice"]


def test_league_serve_submit_serves_the_form_from_the_command_line(
    league_folder: tuple[Path, dict[str, str]],
) -> None:
    import subprocess
    import sys

    folder, tokens = league_folder
    arena = str(Path(sys.executable).with_name("arena"))
    command = [arena, "league", "serve", str(folder), "--submit", "--port", "0", "--json"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        url = json.loads("".join(server.stdout.readline() for _ in range(3)))["url"]  # indented JSON
        with urllib.request.urlopen(f"{url}submit", timeout=30) as response:
            assert response.status == 200 and 'enctype="multipart/form-data"' in response.read().decode()
        status, page, _ = post(f"{url}submit", {"token": tokens["alice"]}, ("a.py", GOOD_BOT))
        assert (status, message(page)) == (200, "added alice version 1")
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_busy_league_is_one_line_and_the_server_keeps_serving(
    league_folder: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that holds the database longer than SQLite waits: 503 in one line, not a dropped
    connection (failed before: the handler's exception closed the connection unanswered)."""
    from arena.leagues import submissions

    folder, tokens = league_folder
    opened = submissions.league_db.open_league

    def busy(where: Path, *, read_only: bool = False) -> sqlite3.Connection:
        if not read_only:
            raise sqlite3.OperationalError("database is locked")
        return opened(where, read_only=True)

    with served(folder) as base:
        monkeypatch.setattr(submissions.league_db, "open_league", busy)
        status, page, _ = post(f"{base}/submit", {"token": tokens["alice"]}, ("a.py", GOOD_BOT))
        assert status == 503 and message(page).startswith("the league can't take this now, try again later (")
        assert str(folder.resolve()) not in page
        monkeypatch.undo()
        assert post(f"{base}/submit", {"token": tokens["alice"]}, ("a.py", GOOD_BOT))[0] == 200


def test_a_retired_students_upload_is_refused_in_words_for_the_student(
    league_folder: tuple[Path, dict[str, str]],
) -> None:
    """A student whose entry the organiser retired is told so, not handed the organiser's
    `arena league reinstate FOLDER NAME` command (with the league's folder) (review)."""
    folder, tokens = league_folder
    with served(folder) as base:
        status, page, _ = post(f"{base}/submit", {"name": "bob", "token": tokens["bob"]}, ("b.py", GOOD_BOT))
        assert status == 200, page
        league = League(folder)
        league.retire("bob")
        league.close()
        status, page, _ = post(
            f"{base}/submit", {"name": "bob", "token": tokens["bob"]}, ("d.py", FAULTY_BOT)
        )
    assert status == 403
    assert message(page) == (
        "bob is retired: your organiser withdrew your entry, and it takes no new version until they "
        "bring it back; ask them"
    )
    assert "arena league" not in message(page) and folder.name not in message(page)
    assert [(n, v) for n, v, *_ in entries(folder)] == [("greedy", 1), ("bob", 1)]


def test_serve_submit_warns_when_no_student_holds_a_token(tmp_path: Path) -> None:
    """`serve --submit` on a league with no token issued: every upload would be refused, so the
    organiser is told on stderr how to issue them (review)."""
    import subprocess
    import sys

    folder = tmp_path / "league"
    League.create(folder, games=2).close()
    arena = str(Path(sys.executable).with_name("arena"))
    command = [arena, "league", "serve", str(folder), "--submit", "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith("serving ")  # the warning is written before
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert (
        "arena: warning: no token is issued yet, so no student can submit: issue them with "
        f"arena league tokens {folder} NAME...\n"
    ) in err
