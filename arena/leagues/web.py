"""``league serve`` and ``league export``: the pages of :mod:`arena.leagues.pages`, live or
as a static site.  The server opens the database read-only for each request."""

from __future__ import annotations

import errno
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from arena.leagues.pages import all_pages, entry_page, game_page, index_page, standings_json
from arena.safe_files import FileRefused, make_folder, refuse_unsafe, write_text
from arena.storage import league_db

_ENTRY = re.compile(r"^/entry-(\d{1,18})\.html$")
_GAME = re.compile(r"^/game-(\d{1,18})\.html$")


#: The names of the pages an export writes: what it may replace in a folder it wrote before.
_PAGE = re.compile(r"^(index|entry-\d{1,18}|game-\d{1,18})\.html$")


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


def make_server(folder: Path, host: str, port: int) -> ThreadingHTTPServer:
    league_db.open_league(folder, read_only=True).close()  # refuse a bad folder before serving

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            connection = league_db.open_league(folder, read_only=True)
            try:
                kind, body = "text/html; charset=utf-8", None
                if path in ("/", "/index.html"):
                    body = index_page(connection, live=True)
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

        def log_message(self, format: str, *args: object) -> None:
            pass

    return ThreadingHTTPServer((host, port), Handler)
