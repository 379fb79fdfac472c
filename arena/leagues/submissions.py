"""Submissions by students themselves: the POST side of ``league serve --submit``.

Every byte of a request is hostile (docs/security.md, "Submissions").  The walls, in the order a
request meets them:

- only a form posted from the server's own pages (a browser's ``Origin`` and
  ``Sec-Fetch-Site`` say where a form came from; a cross-site form is refused, and as a token is
  never a cookie, a forged form carries none anyway);
- a body of at most :data:`BODY_LIMIT` bytes read within :data:`BODY_SECONDS`: a longer one is
  refused before it is parsed (up to :data:`DRAIN_LIMIT` it is read and dropped, so a browser
  shows the message rather than a reset connection);
- a client that sent :data:`FAILED_TOKENS` wrong tokens within :data:`WINDOW_SECONDS` waits;
- the token, only from the body (never a URL, never logged), names the entrant (:mod:`.tokens`);
  the form's name, if given, must be the token's;
- each name submits at most :data:`SUBMISSIONS` times within :data:`WINDOW_SECONDS`;
- the file must be called ``*.py``, hold at most :data:`UPLOAD_LIMIT` bytes of UTF-8 text
  without NUL; its own file name is used for nothing else (the league stores it as
  :data:`arena.leagues.entries.UPLOAD_FILE`, in a folder named by its hash);
- then the same load check and walls as ``league add`` (:func:`arena.leagues.entries.add_entry`,
  one at a time), under the token's name.

Each refusal is one line on a page, and the server goes on serving.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from arena.leagues.entries import UPLOAD_FILE, EntryRefused, add_entry
from arena.leagues.public_paths import public
from arena.leagues.retirement import retired_names
from arena.leagues.submit_pages import form_page, refused_page, status_page
from arena.leagues.tokens import token_holder
from arena.players.names import normal_name, shown_name
from arena.storage import league_db

#: The most bytes of an uploaded bot.
UPLOAD_LIMIT = 256 << 10
#: The most bytes of a whole form: the bot, the token, the name and the multipart framing.
BODY_LIMIT = UPLOAD_LIMIT + (8 << 10)
#: A longer body up to this is read and dropped before the refusal is sent; beyond it the
#: connection is closed after the refusal.
DRAIN_LIMIT = 4 << 20
#: Seconds a client may take to send a form's body.
BODY_SECONDS = 30.0
#: Submissions a name may make, and wrong tokens a client (an IP address) may send, per window.
SUBMISSIONS = 5
FAILED_TOKENS = 10
WINDOW_SECONDS = 600.0
#: Parts a form may have (it has three).
FORM_PARTS = 8

#: The headers of every page of a submission server's forms and answers.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; "
        "base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make a browser send "Origin: null"
    "Cache-Control": "no-store",
}
#: The paths a submission server answers besides the leaderboard's.
FORM_PATHS = ("/submit", "/status")


def limit_text() -> str:
    return f"{UPLOAD_LIMIT >> 10} KiB"


class Refused(Exception):
    """A request refused: the HTTP status and one line for the student."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RateLimit:
    """At most ``count`` events per key within ``window`` seconds (a sliding window).  Keys whose
    events have all expired are forgotten, so many clients can't fill the memory."""

    def __init__(self, count: int, window: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.count, self.window, self.clock = count, window, clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        """Seconds ``key`` must wait before its next event (0: it may go now)."""
        now = self.clock()
        with self._lock:
            events = self._events.get(key)
            if events is None:
                return 0.0
            while events and events[0] <= now - self.window:
                events.popleft()
            if len(events) < self.count:
                return 0.0
            return events[0] + self.window - now

    def note(self, key: str) -> None:
        now = self.clock()
        with self._lock:
            if len(self._events) > 10_000:
                self._events = {k: v for k, v in self._events.items() if v and v[-1] > now - self.window}
            self._events.setdefault(key, deque()).append(now)


@dataclass(frozen=True)
class Field:
    value: bytes
    filename: str | None


def parse_form(content_type: str, body: bytes) -> dict[str, Field]:
    """The fields of a ``multipart/form-data`` body (RFC 7578); Refused(400) for anything else."""
    header = Message()
    header["content-type"] = content_type
    boundary = header.get_param("boundary")
    if header.get_content_type() != "multipart/form-data" or not isinstance(boundary, str) or not boundary:
        raise Refused(400, "send the form of the /submit page (multipart/form-data)")
    delimiter = b"\r\n--" + boundary.encode("latin-1")
    pieces = (b"\r\n" + body).split(delimiter)
    if len(pieces) < 2 or not pieces[-1].startswith(b"--"):
        raise Refused(400, "the form could not be read: it is cut short or malformed")
    if len(pieces) - 2 > FORM_PARTS:
        raise Refused(400, f"the form could not be read: more than {FORM_PARTS} parts")
    fields: dict[str, Field] = {}
    for piece in pieces[1:-1]:
        head, gap, value = piece.partition(b"\r\n\r\n")
        if not gap or not head.startswith(b"\r\n"):
            raise Refused(400, "the form could not be read: a part has no headers")
        headers = HeaderParser().parsestr(head[2:].decode("utf-8", "replace"))
        name = headers.get_param("name", header="content-disposition")
        if not isinstance(name, str) or name in fields:
            raise Refused(400, "the form could not be read: a part is unnamed or named twice")
        filename = headers.get_param("filename", header="content-disposition")
        fields[name] = Field(value, filename if isinstance(filename, str) else None)
    return fields


def _text(fields: dict[str, Field], name: str) -> str:
    field = fields.get(name)
    return "" if field is None else field.value.decode("utf-8", "replace").strip()


class SubmitDesk:
    """The submissions of one server: its rate limits and its lock (one load check at a time)."""

    def __init__(self, folder: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.folder = Path(folder)
        self.submissions = RateLimit(SUBMISSIONS, WINDOW_SECONDS, clock)
        self.failed_tokens = RateLimit(FAILED_TOKENS, WINDOW_SECONDS, clock)
        self._adding = threading.Lock()

    def holder(self, connection: sqlite3.Connection, client: str, token: str) -> str:
        """The name ``token`` submits for; Refused(403) if none, Refused(429) for a client that
        sent too many wrong ones."""
        wait = self.failed_tokens.wait(client)
        if wait:
            raise Refused(429, f"too many wrong tokens from your address: try again in {wait:.0f} s")
        name = token_holder(connection, token)
        if name is None:
            self.failed_tokens.note(client)
            raise Refused(403, "that token is not valid: use the token your organiser gave you")
        return name

    def submit(self, client: str, fields: dict[str, Field]) -> str:
        """Add the form's bot as its token holder's new version; the status page."""
        connection = league_db.open_league(self.folder, read_only=True)
        try:
            name = self.holder(connection, client, _text(fields, "token"))
        finally:
            connection.close()
        claimed = _text(fields, "name")
        if claimed and normal_name(claimed) != name:
            raise Refused(
                403, f"your token submits for {name!r}, not for {shown_name(claimed)!r}: give your own name"
            )
        bot = fields.get("bot")
        if bot is None or not bot.value:
            raise Refused(400, "choose your bot's .py file")
        filename = (bot.filename or "").replace("\\", "/").rsplit("/", 1)[-1]
        if not filename.lower().endswith(".py"):
            raise Refused(415, f"only Python files (.py) are accepted, not {shown_name(filename)!r}")
        if len(bot.value) > UPLOAD_LIMIT:
            raise Refused(413, f"the file is larger than {limit_text()}")
        if b"\0" in bot.value:
            raise Refused(415, f"{shown_name(filename)!r} is not Python source: it holds NUL bytes")
        try:
            bot.value.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(
                415, f"{shown_name(filename)!r} is not Python source: it is not UTF-8 text"
            ) from None
        wait = self.submissions.wait(name)
        if wait:
            raise Refused(
                429, f"{name} has made {SUBMISSIONS} submissions recently: try again in {wait:.0f} s"
            )
        self.submissions.note(name)
        with self._adding:
            connection = league_db.open_league(self.folder)
            try:
                if name in retired_names(connection):  # the organiser's to undo, not the student's
                    raise Refused(
                        403,
                        f"{name} is retired: your organiser withdrew your entry, and it takes no new "
                        "version until they bring it back; ask them",
                    )
                try:
                    entry, status = add_entry(self.folder, connection, UPLOAD_FILE, name, upload=bot.value)
                except EntryRefused as exc:
                    said = public(" ".join(str(exc).split()), self.folder)  # no path of this machine
                    raise Refused(422, f"your bot was not added: {said}") from None
                said = {
                    "added": f"added {entry.name} version {entry.version}",
                    "again": f"{entry.name} version {entry.version} plays again",
                    "same": f"{entry.name} version {entry.version} already has this content: nothing added",
                }[status]
                return status_page(connection, name, said)
            finally:
                connection.close()

    def status(self, client: str, fields: dict[str, Field]) -> str:
        connection = league_db.open_league(self.folder, read_only=True)
        try:
            name = self.holder(connection, client, _text(fields, "token"))
            return status_page(connection, name)
        finally:
            connection.close()


def _read_body(handler: BaseHTTPRequestHandler, length: int) -> bytes:
    """``length`` bytes of the body, within :data:`BODY_SECONDS`; Refused(408) if slower."""
    deadline = time.monotonic() + BODY_SECONDS
    chunks: list[bytes] = []
    left = length
    try:
        while left:
            if time.monotonic() > deadline:
                raise Refused(408, f"the form took more than {BODY_SECONDS:g} s to arrive")
            chunk = handler.rfile.read1(min(left, 1 << 16))
            if not chunk:
                raise Refused(400, "the form ended before its length")
            chunks.append(chunk)
            left -= len(chunk)
    except TimeoutError:
        raise Refused(408, "the form stopped arriving") from None
    except OSError:  # the client reset the connection: the answer goes nowhere, but is tried
        raise Refused(400, "the form stopped arriving") from None
    return b"".join(chunks)


def _cross_site(handler: BaseHTTPRequestHandler) -> bool:
    """True for a form a browser posted from another site's page."""
    site = handler.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return True
    origin = handler.headers.get("Origin")
    if origin is None:
        return False
    # Either scheme: behind an HTTPS proxy the page is https://HOST, the request still for HOST.
    scheme, _, where = origin.partition("://")
    return scheme not in ("http", "https") or where != handler.headers.get("Host")


def answer_post(handler: BaseHTTPRequestHandler, desk: SubmitDesk) -> tuple[int, str]:
    """The status and page for a POST to :data:`FORM_PATHS`; the body is read here."""
    path = handler.path.split("?", 1)[0]
    try:
        if path not in FORM_PATHS:
            raise Refused(404, "not found")
        if _cross_site(handler):
            raise Refused(403, "a form posted from another site's page is refused")
        try:
            length = int(handler.headers.get("Content-Length", ""))
        except ValueError:
            raise Refused(411, "the form must say its length (Content-Length)") from None
        if length < 0:
            raise Refused(400, "the form's length is negative")
        if length > BODY_LIMIT:
            if length <= DRAIN_LIMIT:
                _read_body(handler, length)
            raise Refused(413, f"the file is larger than {limit_text()}")
        fields = parse_form(handler.headers.get("Content-Type", ""), _read_body(handler, length))
        client = str(handler.client_address[0])
        try:
            if path == "/submit":
                return 200, desk.submit(client, fields)
            return 200, desk.status(client, fields)
        except (sqlite3.Error, league_db.LeagueDatabaseError) as exc:
            # A run writing for longer than SQLite waits, or a league gone bad: the server lives on.
            why = (
                league_db.describe_error(exc, league_db.database_path(desk.folder))
                if isinstance(exc, sqlite3.Error)
                else str(exc)
            )
            raise Refused(
                503, f"the league can't take this now, try again later ({public(why, desk.folder)})"
            ) from None
    except Refused as exc:
        return exc.status, refused_page(str(exc), limit_text())


def send_page(handler: BaseHTTPRequestHandler, status: int, text: str) -> None:
    """A page with :data:`SECURITY_HEADERS`; the connection closes after it (a refused body
    may be unread)."""
    data = text.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    for key, value in SECURITY_HEADERS.items():
        handler.send_header(key, value)
    handler.send_header("Connection", "close")
    handler.close_connection = True
    handler.end_headers()
    handler.wfile.write(data)


def answer_get(handler: BaseHTTPRequestHandler) -> None:
    """The form page, for a GET of either of :data:`FORM_PATHS`."""
    send_page(handler, 200, form_page(limit_text()))
