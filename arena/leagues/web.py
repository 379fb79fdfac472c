"""``league serve`` and ``league export``: the pages of :mod:`arena.leagues.pages`, live or
as a static site.  The server opens the database read-only for each request."""

from __future__ import annotations

import contextlib
import errno
import re
import resource
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from arena.leagues.pages import all_pages, entry_page, game_page, index_page, projector, standings_json
from arena.leagues.submissions import FORM_PATHS, SubmitDesk, answer_get, answer_post, send_page
from arena.safe_files import FileRefused, make_folder, refuse_unsafe, write_text
from arena.storage import league_db

_ENTRY = re.compile(r"^/entry-(\d{1,18})\.html$")
_GAME = re.compile(r"^/game-(\d{1,18})\.html$")


#: The names of the pages an export writes: what it may replace in a folder it wrote before.
_PAGE = re.compile(r"^(index|projector|entry-\d{1,18}|game-\d{1,18})\.html$")


def export_site(folder: Path, out: Path) -> list[Path]:
    """Write every page to ``out`` (made if missing); the files written.  ``out`` must be new,
    empty, or hold only pages of an earlier export, which are replaced; anything else there, a
    link or FIFO among its pages, or ``out`` itself a link, is refused in one line
    (:class:`~arena.safe_files.FileRefused`, an OSError) before a page is written, and each
    page is written as every file of a received folder is (:mod:`arena.safe_files`)."""
    connection = league_db.open_league(folder, read_only=True)
    try:
        pages = all_pages(connection)
    finally:
        connection.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    make_folder(out)
    refuse_unsafe(out, hard_links=True)
    for other in sorted(out.iterdir()):
        if not _PAGE.match(other.name) or not other.is_file():
            why = "it is not a page of an earlier export, and export replaces only those"
            raise FileRefused(other, why, errno.EEXIST)
    written = []
    for name, text in pages.items():
        write_text(out / name, text)
        written.append(out / name)
    return written


#: Seconds a connection may take to send its whole request (line and headers); a body is read
#: only by ``--submit``'s forms, under a deadline of its own (:mod:`arena.leagues.submissions`).
REQUEST_TIMEOUT = 10.0
#: Connections served at once at most, and file descriptors kept free besides (the database's
#: three per request, the process's own).
MAX_CONNECTIONS = 256
FD_MARGIN = 64


class _Server(ThreadingHTTPServer):
    """The standard library's server with walls against slowloris: a connection that has not
    sent its whole request within ``request_timeout`` seconds is closed (a watchdog, so a byte
    sent now and then does not keep it open), and at most ``cap`` connections are open at
    once: a new one beyond that closes the connection that has waited longest for its request,
    so half-sent requests can't keep a full request out nor use up the open files."""

    daemon_threads = True
    request_queue_size = 128  # a burst of connections waits in the kernel, not in SYN retries

    def __init__(self, address: tuple[str, int], handler: type, request_timeout: float, cap: int) -> None:
        super().__init__(address, handler)
        self.request_timeout = request_timeout
        self.cap = cap
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._reading: dict[socket.socket, float] = {}  # connections still sending their request
        self._watchdog = threading.Thread(target=self._expire, daemon=True)
        self._watchdog.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            if len(self._open) >= self.cap:
                if self._reading:
                    oldest = min(self._reading, key=self._reading.__getitem__)
                    self._drop(oldest)
                else:  # every slot serves a full request: this one waits for none
                    self.shutdown_request(request)
                    return
            self._open.add(request)
            self._reading[request] = time.monotonic()
        super().process_request(request, client_address)

    def request_read(self, request: socket.socket) -> None:
        with self._lock:
            self._reading.pop(request, None)

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._open.discard(request)
            self._reading.pop(request, None)
        super().shutdown_request(request)

    def _drop(self, request: socket.socket) -> None:
        """End a connection still sending its request (its thread's read returns at once)."""
        self._reading.pop(request, None)
        with contextlib.suppress(OSError):
            request.shutdown(socket.SHUT_RDWR)

    def _expire(self) -> None:
        while True:
            time.sleep(min(0.25, self.request_timeout / 4))
            now = time.monotonic()
            with self._lock:
                for request, since in list(self._reading.items()):
                    if now - since > self.request_timeout:
                        self._drop(request)


def connection_cap() -> int:
    """:data:`MAX_CONNECTIONS`, or fewer where the open-file limit is low."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(4, min(MAX_CONNECTIONS, soft - FD_MARGIN))


def make_server(
    folder: Path, host: str, port: int, *, request_timeout: float = REQUEST_TIMEOUT, submit: bool = False
) -> ThreadingHTTPServer:
    """``league serve``'s server on ``host``:``port`` (not yet serving), with the walls of
    :class:`_Server`.  ``submit``: also the upload and status forms of
    :mod:`arena.leagues.submissions` (``league serve --submit``; the league must be writable)."""
    league_db.open_league(folder, read_only=not submit).close()  # refuse a bad folder before serving
    desk = SubmitDesk(folder) if submit else None

    class Handler(BaseHTTPRequestHandler):
        timeout = request_timeout  # each read, besides the watchdog's whole-request deadline

        def parse_request(self) -> bool:
            done = super().parse_request()
            server.request_read(self.request)
            return done

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if desk is not None and path in FORM_PATHS:
                return answer_get(self)
            connection = league_db.open_league(folder, read_only=True)
            try:
                kind, body = "text/html; charset=utf-8", None
                if path in ("/", "/index.html"):
                    body = index_page(connection, live=True)
                elif path == "/projector.html":
                    body = projector(connection)
                elif path == "/standings.json":
                    kind, body = "application/json", standings_json(connection)
                elif match := _ENTRY.match(path):
                    body = entry_page(connection, int(match.group(1)))
                elif match := _GAME.match(path):
                    body = game_page(connection, int(match.group(1)))
            finally:
                connection.close()
            data = (body or "not found").encode()
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", kind if body is not None else "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            if desk is None:
                self.send_error(405, "this server takes no submissions (league serve --submit)")
                return
            send_page(self, *answer_post(self, desk))

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = _Server((host, port), Handler, request_timeout, connection_cap())
    return server
