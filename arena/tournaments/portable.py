"""A tournament spec that can travel to another machine, and the checks it needs there.

A strategy loaded from a file in arena's process has a class no other process can import by
name, so it travels as the file's absolute path and is loaded again where it plays.  An
isolated player (``--isolate``, ``cmd:``) is never loaded in arena's processes: it travels as
its spec text, with a file's path made absolute, for the seat processes started where it plays.
"""

from __future__ import annotations

import dataclasses
import shlex
import shutil
from pathlib import Path

from arena.players import PlayerSpec, load_player_spec
from arena.players.loading import split_spec
from arena.sandbox import COMMAND_PREFIX, is_command
from arena.tournaments.spec import TournamentSpec


@dataclasses.dataclass(frozen=True)
class FilePlayer:
    """A strategy from a file, sent as its absolute path: the far side loads the file itself."""

    text: str
    label: str


def absolute_file_spec(text: str) -> str:
    """``some/bot.py:Class:k=v`` with the file's path made absolute (from this process's
    working directory); anything after the ``.py`` is kept."""
    ref, sep, rest = text.partition(".py")
    return str(Path(ref + ".py").resolve()) + rest if sep else str(Path(text).resolve())


def portable_spec(spec: TournamentSpec) -> TournamentSpec:
    """``spec`` with every file strategy as a :class:`FilePlayer` (or, isolated, as an
    absolute path), so it can be pickled and rebuilt on any machine (:func:`rebuilt_spec`)."""
    players: list[PlayerSpec | FilePlayer] = []
    for player in spec.players:
        if player.isolated:
            text = absolute_file_spec(player.text) if player.source == "file" else player.text
            players.append(dataclasses.replace(player, text=text))
        elif player.source == "file":
            players.append(FilePlayer(absolute_file_spec(player.text), player.label))
        else:
            players.append(player)
    portable = object.__new__(TournamentSpec)  # skip validation: the spec was validated already
    for f in dataclasses.fields(TournamentSpec):
        object.__setattr__(portable, f.name, getattr(spec, f.name))
    object.__setattr__(portable, "players", tuple(players))
    return portable


def rebuilt_spec(portable: TournamentSpec) -> TournamentSpec:
    """The spec again, its file strategies loaded here; raises StrategyError with one line."""
    players = []
    for player in portable.players:
        if isinstance(player, FilePlayer):
            loaded = load_player_spec(player.text)
            player = dataclasses.replace(loaded, label=player.label)
        players.append(player)
    return dataclasses.replace(portable, players=tuple(players))


def missing_here(spec: TournamentSpec) -> str | None:
    """Why an isolated player of ``spec`` can't start on this machine, in one line, or None.

    Only what can be checked without running the player's code (its file, or its program):
    the code itself runs in seat processes, where a failure is that player's fault, never a
    reason to stop the run."""
    for player in spec.players:
        if not player.isolated:
            continue
        if is_command(player.text):
            try:
                argv = shlex.split(player.text.strip()[len(COMMAND_PREFIX) :])
            except ValueError:
                continue  # refused when the spec was loaded: can't happen here
            if not argv:
                continue
            program = shutil.which(argv[0]) if "/" not in argv[0] else argv[0]
            if program is None or not Path(program).is_file():
                return f"{player.label}: no program {argv[0]!r} here (not a file, and not on PATH)"
        elif player.source == "file":
            ref = split_spec(player.text)[0]
            path = Path(ref.partition(".py")[0] + ".py")
            if not path.is_file():
                return f"{player.label}: no strategy file {str(path)!r} here"
    return None
