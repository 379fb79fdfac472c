"""What a league's pages show of a fault: its reason, the entry's traceback and the replay command.

A student whose bot failed needs the lines of their own code that failed (``frank.py, line 12``),
not arena's game loop: a page shows the stored traceback cut to the entry's own frames
(:func:`arena.tournaments.fault_log.strategy_frames`), or for a ``cmd:`` program the last lines it
wrote to stderr (:mod:`arena.sandbox.last_words`).  Everything here is the entry's text or holds
the organiser's paths, so it goes through :func:`~arena.leagues.public_paths.public` (no absolute
path of the organiser's machine) and then :func:`html.escape`.  A traceback shown once on a page
is not repeated: a later fault with the same one says which game showed it."""

from __future__ import annotations

import html
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.leagues.public_paths import public
from arena.tournaments.fault_log import clip_traceback, strategy_frames


def shown_traceback(traceback_text: str, folder: Path | None) -> str:
    """A stored traceback as a page shows it (plain text, not yet escaped): the entry's own
    frames, with no absolute path of this machine."""
    text = strategy_frames(clip_traceback(traceback_text)).strip("\n")
    return public(text, folder)


def traceback_once(
    traceback_text: str | None,
    folder: Path | None,
    game: int,
    first_in: dict[str, int],
    *,
    last_chars: int | None = None,
) -> str:
    """A fault's traceback as a page shows it: the entry's own frames (:func:`shown_traceback`,
    its last ``last_chars`` characters if given) in a ``<pre class="traceback">`` the first time
    it appears among a page's faults (``first_in`` remembers where), then "the same traceback as
    game N"; nothing for a fault with none."""
    shown = shown_traceback(traceback_text, folder) if traceback_text else ""
    if last_chars is not None:
        shown = shown[-last_chars:]
    if not shown:
        return ""
    if shown in first_in:
        return f'<br><span class="same-traceback">the same traceback as game {first_in[shown]}</span>'
    first_in[shown] = game
    return f'<pre class="traceback">{html.escape(shown)}</pre>'


def fault_items(
    faults: Sequence[sqlite3.Row], folder: Path | None, game_link: Callable[[int], str], *, who: bool = False
) -> list[str]:
    """One ``<li>`` per fault (rows with ``game``, ``status``, ``reason``, ``traceback``, ``replay``
    and, with ``who``, the entry's ``name``): the game, the reason, the traceback in a
    ``<pre class="traceback">`` the first time it appears, and the replay command."""
    first_in: dict[str, int] = {}
    items = []
    for f in faults:
        trace = traceback_once(f["traceback"], folder, f["game"], first_in)
        name = f"{html.escape(f['name'])}: " if who else ""
        items.append(
            f'<li class="fault">{game_link(f["game"])}: {name}{html.escape(f["status"])}: '
            f"{html.escape(public(f['reason'], folder))}{trace}"
            f'<br>replay: <code class="replay">{html.escape(public(f["replay"], folder))}</code></li>'
        )
    return items
