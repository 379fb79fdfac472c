"""Where an entry's files are, whatever folder a run starts in and wherever its league now is.

A ``cmd:`` entry names its program and files as the organiser typed them, often relative to the
folder ``league add`` ran in (``cmd:node bots/alice.js``).  A later run may start anywhere, and a
league folder may be moved, so ``add`` stores the command *anchored* (docs/league.md,
``league add``): every program path (one with a ``/``; a bare name is found on ``PATH``) and
every argument that names an existing file or folder (but the module after ``-m``, as in
``python3 -m mybot``) is made absolute, and one inside the league
folder is written relative to it behind :data:`LEAGUE_MARK`.  A run puts the league folder where
it is now in place of the mark.  A file entry plays its stored copy under ``entries/``: a run
finds it there in the league folder as it is now.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from pathlib import Path

from arena.players.loading import StrategyError

#: How a stored command names the league folder: an argument ``{league}/bots/a.js`` is
#: ``bots/a.js`` inside the league folder, wherever that folder is when the league runs.
LEAGUE_MARK = "{league}"
COMMAND_PREFIX = "cmd:"


def _command_argv(text: str) -> list[str]:
    """The words of a ``cmd:`` spec; StrategyError in one line."""
    try:
        argv = shlex.split(text.strip()[len(COMMAND_PREFIX) :])
    except ValueError as exc:
        raise StrategyError(f"{text}: {exc}") from None
    if not argv:
        raise StrategyError(f"{text}: no program after {COMMAND_PREFIX}")
    return argv


def _names_a_path(word: str, index: int) -> bool:
    """Whether the command's word number ``index`` is one arena anchors: the program when it
    holds a ``/``; an argument that is not an option (as the sandbox sees them,
    :func:`arena.sandbox.exposure.argument_paths`)."""
    if index == 0:
        return "/" in word
    return bool(word) and not word.startswith("-")


def anchor_command(text: str, cwd: Path, league_folder: Path) -> str:
    """``text`` (a ``cmd:`` spec as typed in ``cwd``) with its paths anchored (see the module's
    description).  The current folder is taken through its real path, so an anchored path
    holds no link the seat's sandbox would refuse.  Raises StrategyError for a word that
    already begins with the mark (it would be read as the league folder)."""
    base = os.path.realpath(cwd)
    league = os.path.realpath(league_folder)
    argv = _command_argv(text)
    anchored = []
    for index, word in enumerate(argv):
        if word == LEAGUE_MARK or word.startswith(LEAGUE_MARK + "/"):
            raise StrategyError(
                f"{text}: {word!r} begins with {LEAGUE_MARK}, which a league keeps for its own folder"
            )
        if not _names_a_path(word, index) or (index > 1 and argv[index - 1] == "-m"):
            anchored.append(word)  # an option, or the module of ``python -m MODULE``: no path
            continue
        path = os.path.normpath(os.path.join(base, word))
        if index > 0 and not os.path.lexists(path):
            anchored.append(word)  # a word, not a file: kept as it is
            continue
        if path == league or path.startswith(league + os.sep):
            inside = os.path.relpath(path, league)
            anchored.append(LEAGUE_MARK if inside == "." else f"{LEAGUE_MARK}/{inside}")
        else:
            anchored.append(path)
    return COMMAND_PREFIX + shlex.join(anchored)


def is_anchored(stored: str) -> bool:
    """Whether a stored command names the league folder (a command stored before anchoring, or
    one naming nothing in the league folder, does not)."""
    try:
        argv = _command_argv(stored)
    except StrategyError:
        return False
    return any(w == LEAGUE_MARK or w.startswith(LEAGUE_MARK + "/") for w in argv)


def concrete_command(stored: str, league_folder: Path) -> str:
    """A stored command with the league folder where it is now in place of the mark; a command
    that holds no mark is returned as it was stored."""
    if not is_anchored(stored):
        return stored
    league = os.path.realpath(league_folder)
    words = []
    for word in _command_argv(stored):
        if word == LEAGUE_MARK:
            words.append(league)
        elif word.startswith(LEAGUE_MARK + "/"):
            words.append(league + word[len(LEAGUE_MARK) :])
        else:
            words.append(word)
    return COMMAND_PREFIX + shlex.join(words)


def stored_copy(play_spec: str, sha: str, entries_folder: Path) -> str:
    """A file entry's play spec with its stored copy found in ``entries_folder`` (the league's
    ``entries`` as it is now): the spec was written with the folder's path at ``add``, and the
    league may have moved since.  A spec that names no stored copy is returned as it is."""
    mark = f"/{entries_folder.name}/{sha[:16]}/"
    at = play_spec.rfind(mark)
    if not sha or at < 0:
        return play_spec
    return str(entries_folder.resolve() / sha[:16]) + "/" + play_spec[at + len(mark) :]


def play_text(kind: str, play_spec: str, sha: str, league_folder: Path, entries_name: str) -> str:
    """What a run plays for an entry of ``kind`` stored with ``play_spec``: its command with
    the league folder put in, its stored copy in ``entries_name`` where the league is now, or
    the spec itself (a module or a built-in)."""
    if kind == "command":
        return concrete_command(play_spec, league_folder)
    if kind == "file":
        return stored_copy(play_spec, sha, Path(league_folder) / entries_name)
    return play_spec


def command_sha(stored: str, league_folder: Path) -> str:
    """A stored command's identity: its stored text and the fingerprint of what it names
    (:func:`arena.tournaments.spec.command_identity`, of the command as it plays now), each
    file keyed by its word as stored, so the same league moved elsewhere keeps its identity.
    A command that holds no mark hashes as entries always did.  Raises StrategyError where a
    program can't be found."""
    from arena.tournaments.spec import command_identity

    concrete = concrete_command(stored, league_folder)
    identity = command_identity(concrete)
    if concrete != stored:
        as_stored = dict(zip(_command_argv(concrete), _command_argv(stored), strict=True))
        identity["argument_sha256"] = {as_stored.get(k, k): v for k, v in identity["argument_sha256"].items()}
        program = _command_argv(stored)[0]
        if program.startswith(LEAGUE_MARK):
            identity["program"] = program
    text = json.dumps(identity, sort_keys=True)
    return hashlib.sha256(f"{stored}\0{text}".encode()).hexdigest()


def relative_words(stored: str) -> bool:
    """Whether a stored command still names a path relative to some folder: an entry added
    before ``add`` anchored its commands names its files relative to the folder it was added
    from, and finds them from there only."""
    try:
        argv = _command_argv(stored)
    except StrategyError:
        return False
    for index, word in enumerate(argv):
        if word.startswith(("/", LEAGUE_MARK)) or not _names_a_path(word, index):
            continue
        if index == 0 or "/" in word or "." in word:
            return True
    return False
