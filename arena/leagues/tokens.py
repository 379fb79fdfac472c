"""Submission tokens: each binds one entrant name, for ``league serve --submit``.

``arena league tokens FOLDER NAME...`` draws a token per name and prints it once; the league
keeps only its SHA-256, so neither the database nor a copy of it gives a token away.  A token is
:data:`TOKEN_BYTES` random bytes (:func:`secrets.token_urlsafe`): far too many to guess, so one
fast hash is enough (a slow, salted hash protects guessable passwords, which these are not).
Issuing a name's token again replaces the old one, which stops working (docs/league.md,
"Submissions").

The tokens live in a table of their own, made when the first token is issued, so a league made
before this module needs no schema upgrade and a league without tokens has no such table.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from datetime import UTC, datetime

from arena.players.names import look_alike, name_refusal, normal_name, unlike

#: Random bytes in a token: 192 bits, printed as 32 URL-safe characters.
TOKEN_BYTES = 24
#: The longest token text the server hashes; anything longer is not a token.
TOKEN_TEXT_LIMIT = 200

_TABLE = """CREATE TABLE IF NOT EXISTS submit_tokens (
    name TEXT PRIMARY KEY,       -- the entrant name the token submits for
    token_sha256 TEXT NOT NULL UNIQUE,
    issued TEXT NOT NULL
)"""


class TokenRefused(ValueError):
    """A name a token can't be issued for; the message is one line."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def issue_tokens(connection: sqlite3.Connection, names: list[str]) -> list[tuple[str, str]]:
    """A new token for each of ``names`` (normalized as entrant names are,
    :func:`arena.players.names.normal_name`): [(name, token)], stored hashed in one
    transaction, or none if any name is refused (:class:`TokenRefused`): a name that can't be
    an entrant's, one given twice, or one that looks like another entrant's or token holder's
    (the same rule as ``league add``, docs/league.md, "Names")."""
    chosen = [normal_name(n) for n in names]
    for name in chosen:
        refusal = name_refusal(name)
        if refusal is not None:
            raise TokenRefused(f"{name!r}: {refusal}")
    if len(set(chosen)) < len(chosen):
        raise TokenRefused("a name is given twice")
    with connection:
        connection.execute(_TABLE)
    known = [r[0] for r in connection.execute("SELECT name FROM entries WHERE active = 1")]
    known += [r[0] for r in connection.execute("SELECT name FROM submit_tokens")]
    for k, name in enumerate(chosen):
        twin = look_alike(name, [*known, *chosen[:k], *chosen[k + 1 :]])
        if twin is not None:
            raise TokenRefused(
                f"{name!r} looks like the entrant or token holder {twin!r}{unlike(name, twin)}; "
                "give a name that reads differently"
            )
    now = datetime.now(UTC).isoformat(timespec="seconds")
    issued = [(name, secrets.token_urlsafe(TOKEN_BYTES)) for name in chosen]
    with connection:
        for name, token in issued:
            connection.execute(
                "INSERT OR REPLACE INTO submit_tokens (name, token_sha256, issued) VALUES (?, ?, ?)",
                (name, _digest(token), now),
            )
    return issued


def tokens_issued(connection: sqlite3.Connection) -> int:
    """How many names hold a token (0 where none was ever issued)."""
    try:
        return int(connection.execute("SELECT COUNT(*) FROM submit_tokens").fetchone()[0])
    except sqlite3.OperationalError:  # no token issued yet: the table is made by the first
        return 0


def token_holder(connection: sqlite3.Connection, token: str) -> str | None:
    """The entrant name ``token`` submits for, or None (no such token, or none issued)."""
    if not token or len(token) > TOKEN_TEXT_LIMIT:
        return None
    digest = _digest(token)
    try:
        row = connection.execute(
            "SELECT name, token_sha256 FROM submit_tokens WHERE token_sha256 = ?", (digest,)
        ).fetchone()
    except sqlite3.OperationalError:  # no token issued yet: the table is made by the first
        return None
    if row is None or not hmac.compare_digest(row["token_sha256"], digest):
        return None
    return str(row["name"])
