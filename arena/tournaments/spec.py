"""What a tournament is: rulesets, players, format, games, seed, chunk size.  Everything that
decides the games' results is in the spec; how they are run (workers, batch size) is not.

``chunk_games`` belongs here because it can decide results: each chunk of that many consecutive
games is played in a fresh process, so a strategy's class attributes and module globals are
reset at chunk boundaries (see :mod:`arena.tournaments.supervisor`)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import DEFAULT_MAX_ROUNDS, Ruleset
from arena.engine.rules import MAX_VALUE
from arena.players import PlayerSpec
from arena.players.loading import StrategyError, why_not_seated
from arena.players.names import name_refusal, normal_name, skeleton
from arena.safe_files import SOURCE_FILE_LIMIT, entry_sha256, named_file
from arena.sandbox.limits import LimitError, SeatLimits
from arena.tournaments.keyed_seeds import SeedKey

FORMATS = ("round-robin", "free-for-all", "gauntlet")
DEFAULT_GAMES = 1000
DEFAULT_MOVE_TIMEOUT = 10.0
#: The order games are numbered in (see schedule.py), saved with every run: a folder numbered in
#: another order (runs of arena before the interleaved schedule) can't be resumed by this one.
SCHEDULE_ORDER = "interleaved: deal, ruleset, table, seat order"
#: Games per chunk, the unit of work.  Each chunk's fresh process costs about 10-30 ms of CPU
#: (fork, exit, and copying the pages and re-warming the code it touches), so a chunk must be
#: long against that (benchmarks/tournament_speed.py); small enough to spread a mid-size run
#: over the workers and to re-play quickly after a strategy's process had to be killed.
DEFAULT_CHUNK_GAMES = 1000


def player_from_class(cls: type, label: str | None = None, **params: Any) -> PlayerSpec:
    """A player for the Python API from a class, e.g. one defined in the user's own script.
    Its name (or ``label``) must keep the name rule (:mod:`arena.players.names`): it is stored
    in every row and shown in every table."""
    name = label or str(getattr(cls(**params), "name", cls.__name__))
    refusal = name_refusal(name)
    if refusal is not None:
        raise StrategyError(f"{cls.__module__}:{cls.__qualname__}: {refusal}")
    name = normal_name(name)
    return PlayerSpec(
        text=f"{cls.__module__}:{cls.__qualname__}", label=name, cls=cls, params=params, source="class"
    )


def unique_labels(players: tuple[PlayerSpec, ...]) -> tuple[PlayerSpec, ...]:
    """Players with #2, #3 ... added to labels that would otherwise repeat or look alike (the
    same TR39 skeleton, :func:`arena.players.names.skeleton`: ``optimal`` and ``оptimal``
    with a Cyrillic о become ``optimal`` and ``оptimal#2``), so a person tells every row of a
    table apart.  A number already taken is skipped, so the labels come out unique."""
    taken: set[str] = set()
    result = []
    for player in players:
        label, number = player.label, 1
        while skeleton(label) in taken:
            number += 1
            label = f"{player.label}#{number}"
        taken.add(skeleton(label))
        result.append(player if label == player.label else dataclasses.replace(player, label=label))
    return tuple(result)


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament.  ``games`` counts games per pairing (round-robin, gauntlet) or per ruleset
    (free-for-all), rounded up so that every deal is played in every seat order."""

    rulesets: tuple[Ruleset, ...]
    players: tuple[PlayerSpec, ...]
    format: str = "round-robin"
    games: int = DEFAULT_GAMES
    seed: int = 0
    seats: int | None = None  # free-for-all: seats per game, drawn from the players
    move_timeout: float | None = DEFAULT_MOVE_TIMEOUT
    #: A chess clock: the seconds each seat may spend in all its calls of one game together;
    #: running out is a ``timeout`` fault (docs/faults.md).  None: no game clock.
    game_time: float | None = None
    max_rounds: int = DEFAULT_MAX_ROUNDS
    chunk_games: int = DEFAULT_CHUNK_GAMES
    #: The limits of every seat process; set (to the defaults if not given) when a player is
    #: isolated (``--isolate``, ``cmd:``), None when every player plays in arena's processes.
    seat_limits: SeatLimits | None = None
    command: str = field(default="", compare=False)
    #: Play the games whose every seat has a declarative policy in the compiled kernel
    #: (:mod:`arena.compiled`).  How games are played, not which: the rows are the same either
    #: way, so this is not part of the identity and a run may be resumed with or without it.
    compiled: bool = field(default=False, compare=False)
    #: Keep the whole record (:mod:`arena.tournaments.event_records`) of every game of the deals
    #: below this number, in every seat order, and of every game with a fault; 0 keeps none.
    #: Games the compiled kernel plays have no record.  What is kept, not what is played: not
    #: part of the identity either.
    record_deals: int = field(default=0, compare=False)
    #: Time each player's decisions in the games played in Python (BatchResult.decision_times):
    #: what is measured, not what is played; not part of the identity.
    time_decisions: bool = field(default=False, compare=False)
    #: Keyed game seeds (:mod:`arena.tournaments.keyed_seeds`), for a league whose seeds are
    #: published: each game's seed is then a keyed hash, not a function of ``seed``.  None (a
    #: tournament, a duel): the seeds derive from ``seed``, as they always did.
    seed_key: SeedKey | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", unique_labels(tuple(self.players)))
        if self.seed_key is not None and len(self.seed_key.players) != len(self.players):
            raise ValueError("the seed key must name every player of the spec")
        if any(p.isolated for p in self.players):
            if self.seat_limits is None:
                object.__setattr__(self, "seat_limits", SeatLimits())
        elif self.seat_limits is not None:
            raise ValueError("seat limits go with isolated players (--isolate or cmd:)")
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {self.format!r}")
        if not self.rulesets:
            raise ValueError("a tournament needs at least one ruleset")
        if self.games < 1:
            raise ValueError(f"games must be at least 1, got {self.games}")
        if type(self.chunk_games) is not int or self.chunk_games < 1:
            raise ValueError(f"chunk_games must be a whole number of at least 1, got {self.chunk_games!r}")
        if self.seed < 0:
            raise ValueError(f"seed must be zero or more, got {self.seed}")
        if not 1 <= self.max_rounds <= MAX_VALUE:
            raise ValueError(f"max_rounds must be 1 to {MAX_VALUE:,} (the compiled kernel counts in int64)")
        if self.move_timeout is not None and not (0 < self.move_timeout < math.inf):
            raise ValueError(f"move timeout must be a positive number of seconds, got {self.move_timeout}")
        if self.game_time is not None and not (0 < self.game_time < math.inf):
            raise ValueError(f"game time must be a positive number of seconds, got {self.game_time}")
        names = [r.name for r in self.rulesets]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(
                f"two rulesets are named {repeated[0]!r}: results are grouped by ruleset name, "
                "so give each its own name (the TOML key name)"
            )
        for player in self.players:
            if any(c in player.label for c in "\r\n"):
                raise ValueError(f"player name {player.label!r} has a line break; names must be one line")
        n = len(self.players)
        if self.format == "free-for-all":
            # A game of one has no opponent to rank against: nothing to compare, nothing to rate.
            if n < 2:
                raise ValueError(f"free-for-all needs at least two players, got {n}")
            if self.seats is not None and not 2 <= self.seats <= n:
                raise ValueError(f"seats must be 2 to {n} (the number of players), got {self.seats}")
        else:
            if self.seats is not None:
                raise ValueError(f"--seats goes with free-for-all, not {self.format}")
            if n < 2:
                raise ValueError(f"{self.format} needs at least two players, got {n}")
        seats = (self.seats or n) if self.format == "free-for-all" else 2
        for player in self.players:
            for rules in self.rulesets:
                why = why_not_seated(player, rules, seats)
                if why and len(self.rulesets) > 1:
                    others = " ".join(f"--rules {r.name}" for r in self.rulesets if r != rules)
                    raise ValueError(f"{why}; or leave {rules.name!r} out: {others}")
                if why:
                    raise ValueError(why)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(p.label for p in self.players)

    @property
    def isolated(self) -> bool:
        """True if some player plays in a seat process of its own."""
        return self.seat_limits is not None

    def identity(self) -> dict[str, Any]:
        """Everything that decides the games, as JSON-ready data: a resumed run must match it.
        (A run without isolated players has no ``seat_limits`` entry, so its fingerprint is the
        one arena gave it before seats existed.)"""
        identity = self._identity()
        if self.game_time is not None:  # absent without a game clock: older runs' fingerprints hold
            identity["game_time"] = self.game_time
        if self.seat_limits is not None:
            identity["seat_limits"] = self.seat_limits.as_dict()
        if self.seed_key is not None:
            identity["seed_key"] = self.seed_key.identity()
        return identity

    def _identity(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "games": self.games,
            "seed": self.seed,
            "seats": self.seats,
            "move_timeout": self.move_timeout,
            "max_rounds": self.max_rounds,
            "chunk_games": self.chunk_games,
            "rulesets": [r.as_dict() for r in self.rulesets],
            "players": [_player_identity(p) for p in self.players],
            "schedule": SCHEDULE_ORDER,
        }

    def fingerprint(self) -> str:
        text = json.dumps(self.identity(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


def spec_from_identity(data: dict[str, Any], command: str = "") -> TournamentSpec:
    """Rebuild a spec from the settings saved in a run folder (``spec.json``).

    Every field is checked first (:func:`check_identity`): a hand-edited file is refused with
    one line naming the field, never played with a float seed or zero rounds."""
    from arena.engine import Ruleset
    from arena.sandbox import load_player

    check_identity(data)
    limits = SeatLimits.from_dict(data["seat_limits"]) if data.get("seat_limits") is not None else None
    players = []
    for entry in data["players"]:
        if entry.get("source") == "class":
            raise StrategyError(
                f"player {entry['label']!r} came from a Python class, not a spec: "
                "resume it from Python with the same classes: arena.tournament(resume=FOLDER, players=[...])"
            )
        spec = load_player(
            entry["spec"],
            isolate=bool(entry.get("isolated")),
            limits=limits,
            move_timeout=data["move_timeout"],
        )
        players.append(spec)
    return TournamentSpec(
        rulesets=tuple(Ruleset(**r) for r in data["rulesets"]),
        players=tuple(players),
        format=data["format"],
        games=data["games"],
        seed=data["seed"],
        seats=data["seats"],
        move_timeout=data["move_timeout"],
        game_time=data.get("game_time"),
        max_rounds=data["max_rounds"],
        chunk_games=data.get("chunk_games", DEFAULT_CHUNK_GAMES),
        seat_limits=limits,
        command=command,
    )


class SpecFieldError(ValueError):
    """A saved setting of the wrong type or out of range; the message names the field."""


def _whole(
    data: dict[str, Any], key: str, least: int, *, optional: bool = False, most: int | None = None
) -> None:
    value = data.get(key)
    if optional and value is None:
        return
    # bool is an int to Python, and 2.0 is a float: neither is a count or a seed.
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise SpecFieldError(f"{key} must be a whole number of at least {least}, got {json.dumps(value)}")
    if most is not None and value > most:
        raise SpecFieldError(f"{key} must be at most {most:,}, got {value:,}")


def check_identity(data: Any) -> None:
    """Check the type and range of every setting in a saved spec; raises :class:`SpecFieldError`
    naming the first bad field.  Rulesets are checked by :class:`Ruleset` itself, players by
    loading them."""
    if not isinstance(data, dict):
        raise SpecFieldError(f"the settings must be a JSON object, got {type(data).__name__}")
    missing = [
        k
        for k in ("format", "games", "seed", "seats", "move_timeout", "max_rounds", "rulesets", "players")
        if k not in data
    ]
    if missing:
        raise SpecFieldError(f"{missing[0]} is missing")
    if data["format"] not in FORMATS:
        raise SpecFieldError(f"format must be one of {', '.join(FORMATS)}, got {json.dumps(data['format'])}")
    _whole(data, "games", 1)
    _whole(data, "seed", 0)
    _whole(data, "max_rounds", 1, most=MAX_VALUE)  # like a ruleset's values (MAX_VALUE's argument)
    _whole(data, "seats", 2, optional=True)
    if "chunk_games" in data:  # absent: the default
        _whole(data, "chunk_games", 1)
    timeout = data["move_timeout"]
    if timeout is not None and (
        not isinstance(timeout, int | float) or isinstance(timeout, bool) or not 0 < timeout < math.inf
    ):
        raise SpecFieldError(
            f"move_timeout must be a positive number of seconds or null, got {json.dumps(timeout)}"
        )
    game_time = data.get("game_time")
    if game_time is not None and (
        not isinstance(game_time, int | float) or isinstance(game_time, bool) or not 0 < game_time < math.inf
    ):
        raise SpecFieldError(
            f"game_time must be a positive number of seconds or null, got {json.dumps(game_time)}"
        )
    rulesets = data["rulesets"]
    if not isinstance(rulesets, list) or not rulesets or not all(isinstance(r, dict) for r in rulesets):
        raise SpecFieldError("rulesets must be a non-empty list of rulesets (JSON objects)")
    for number, fields in enumerate(rulesets):
        try:
            Ruleset(**fields)
        except (TypeError, ValueError) as exc:
            raise SpecFieldError(f"rulesets[{number}]: {' '.join(str(exc).split())}") from None
    if data.get("seat_limits") is not None:
        try:
            SeatLimits.from_dict(data["seat_limits"])
        except (TypeError, LimitError) as exc:
            raise SpecFieldError(" ".join(str(exc).split())) from None
    players = data["players"]
    if not isinstance(players, list) or not players:
        raise SpecFieldError("players must be a non-empty list of players (JSON objects)")
    for number, player in enumerate(players):
        if not isinstance(player, dict) or not isinstance(player.get("spec"), str) or not player["spec"]:
            raise SpecFieldError(f"players[{number}] must be an object with a spec (a player spec text)")
        for key in ("label", "source"):
            if not isinstance(player.get(key, ""), str):
                raise SpecFieldError(f"players[{number}].{key} must be text, got {json.dumps(player[key])}")


def _player_identity(player: PlayerSpec) -> dict[str, Any]:
    data: dict[str, Any] = {
        "spec": player.text,
        "label": player.label,
        "params": player.params,
        "source": player.source,
        "description": player.description,
    }
    if player.isolated:
        data["isolated"] = True
    ref = player.text.split(":", 1)[0] if player.source == "file" else ""
    if ref.endswith(".py") and Path(ref).is_file():
        # A changed strategy file makes different games: resuming with it is refused.
        data["file_sha256"] = _source_sha256(player.text, Path(ref))
    if player.source == "command":
        data.update(command_identity(player.text))
    return data


def _source_sha256(text: str, path: Path) -> str:
    """A strategy file's SHA-256, read as arena reads every file an entry names
    (:func:`arena.safe_files.entry_sha256`, at most :data:`~arena.safe_files.SOURCE_FILE_LIMIT`
    bytes); StrategyError with one line if it can't be."""
    try:
        return entry_sha256(path, SOURCE_FILE_LIMIT)
    except OSError as exc:
        raise StrategyError(f"{text}: cannot read {path} to fingerprint it: {exc.strerror}") from None


def entry_files(text: str) -> dict[str, Any]:
    """The fingerprint of the files a player spec text plays with, for runs that save spec
    texts rather than players (a tuning run): a ``.py`` file's SHA-256, or a ``cmd:``
    program's :func:`command_identity`; {} for a built-in or an installed plugin."""
    from arena.sandbox.seats import is_command

    if is_command(text):
        return command_identity(text)
    ref = text.strip().split(":", 1)[0]
    if ref.endswith(".py") and Path(ref).is_file():
        return {"file_sha256": _source_sha256(text, Path(ref))}
    return {}


def command_identity(text: str) -> dict[str, Any]:
    """What a ``cmd:`` player's behaviour depends on, beyond its spec text: the program (its
    resolved path and the SHA-256 of its bytes) and every argument that names an existing file
    (the SHA-256 of each, by the argument as written).  A program or script replaced between
    runs plays different games, so ``--resume`` refuses it as it refuses a changed ``.py``.

    Each file is read as arena reads every file an entry names
    (:func:`arena.safe_files.entry_sha256`): a regular file of at most
    :data:`~arena.safe_files.ENTRY_FILE_LIMIT` bytes.  An argument that names a FIFO, socket or
    device (outside ``/dev``, whose few devices every seat has) is refused too: arena never
    reads one, and an entry has no use for one.  A folder is not read: a seat sees it, but its
    files are not fingerprinted.  A file the program opens by itself (not named on its command
    line) is not seen.  Every refusal, and a program that can't be found any more, raises
    StrategyError with one line."""
    from arena.sandbox.seats import seat_argv

    argv = seat_argv(text)
    program = Path(argv[0])
    files: dict[str, str] = {}
    for argument in argv[1:]:
        try:
            if named_file(argument):
                files[argument] = entry_sha256(Path(argument))
        except OSError as exc:
            why = f"cannot read the file {argument} to fingerprint it: {exc.strerror}"
            raise StrategyError(f"{text}: {why}") from None
    try:
        program_sha256 = entry_sha256(program)
    except OSError as exc:
        why = f"cannot read the program {program} to fingerprint it: {exc.strerror}"
        raise StrategyError(f"{text}: {why}") from None
    return {"program": str(program), "program_sha256": program_sha256, "argument_sha256": files}


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file an entry names, bounded as :func:`arena.safe_files.entry_sha256`
    reads (a FileRefused, an OSError, for a FIFO, device or a file past the cap)."""
    return entry_sha256(path)
