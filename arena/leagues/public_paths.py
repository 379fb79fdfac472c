"""What a league's pages may show of the organiser's machine: no absolute path.

A spec, a replay command or a fault's reason may hold the organiser's paths (the league's own
folder, where a file entry's stored copy lives; the folder an entry was added from).  On a page
the league's folder becomes relative (a replay command then runs from the league's folder),
and any other absolute path keeps only its last part."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

#: An absolute path not inside a word or another path: its folders, then its last part.
_ABSOLUTE = re.compile(r"(?<![\w./~-])/(?:[^\s/'\"<>;:,]+/)+(?=[^\s/'\"<>;:,]*)")


def league_folder(connection: sqlite3.Connection) -> Path | None:
    """The folder of the league whose database ``connection`` reads (``data/..``)."""
    for row in connection.execute("PRAGMA database_list"):
        if row[1] == "main" and row[2]:
            return Path(row[2]).parent.parent
    return None


def public(text: str, folder: Path | None) -> str:
    """``text`` with no absolute path of this machine (see the module's description)."""
    if folder is not None:
        for prefix in sorted({str(folder.resolve()), str(folder.absolute())}, key=len, reverse=True):
            text = text.replace(prefix + "/", "")
    return _ABSOLUTE.sub("", text)
