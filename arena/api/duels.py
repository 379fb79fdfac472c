"""``arena.duel(a, b, ...)``: A against B in game pairs, as ``arena duel`` plays it."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.api.errors import ArenaError
from arena.api.players import PlayerLike, resolve_player
from arena.api.runs import compiled_flag, load_rulesets
from arena.engine import Ruleset
from arena.players import StrategyError
from arena.tournaments.duel import DuelOutcome, Sprt, SprtError, duel_limit, duel_spec, run_spec_duel
from arena.tournaments.run_folder import RunFolder, RunFolderError
from arena.tournaments.run_info import now_text, run_info
from arena.tournaments.runner import RunOutcome
from arena.tournaments.spec import DEFAULT_MOVE_TIMEOUT, TournamentSpec

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, repr=False)
class DuelResult:
    """The verdict of a duel: what ``arena duel`` prints and duel.json holds.

    ``score`` is A's mean pair score, ``score_interval`` its 95% interval from game pairs,
    ``elo`` and ``elo_interval`` the Elo difference it gives (None for an infinite one), ``los``
    the likelihood that A is the stronger, ``pentanomial`` the pairs scoring 0, 1/4, 1/2, 3/4 and
    1 for A, ``verdict`` ``"H1"``, ``"H0"`` or None (no SPRT, or undecided), ``round_limit``
    the games that ended at the round limit, ``seconds_per_decision`` each side's time per
    decision, ``data`` all of duel.json.  ``games`` is the duel's games.csv as a DataFrame;
    ``str(result)`` the text."""

    folder: Path | None  # None when the duel's folder was temporary (out=None)
    outcome: DuelOutcome
    data: dict[str, Any]

    @property
    def a(self) -> str:
        return str(self.data["a"])

    @property
    def b(self) -> str:
        return str(self.data["b"])

    @property
    def score(self) -> float:
        return float(self.data["score"])

    @property
    def score_interval(self) -> tuple[float, float]:
        low, high = self.data["score_interval"]
        return float(low), float(high)

    @property
    def elo(self) -> float | None:
        return self.data["elo"]

    @property
    def elo_interval(self) -> tuple[float | None, float | None]:
        low, high = self.data["elo_interval"]
        return low, high

    @property
    def los(self) -> float:
        return float(self.data["los"])

    @property
    def pentanomial(self) -> tuple[int, ...]:
        return tuple(self.data["pentanomial"])

    @property
    def verdict(self) -> str | None:
        return self.outcome.verdict

    @property
    def complete(self) -> bool:
        return self.outcome.complete

    @property
    def round_limit(self) -> int:
        """Games that ended at the round limit, with nobody at the target."""
        return self.outcome.round_limit

    @property
    def seconds_per_decision(self) -> dict[str, float | None]:
        """A's and B's mean seconds a decision in the games this call played in Python (None
        for a side the compiled kernel played), by name."""
        from arena.tournaments.duel_report import seconds_per_decision

        return dict(zip(self.outcome.labels, seconds_per_decision(self.outcome), strict=True))

    @cached_property
    def games(self) -> pd.DataFrame:
        """games.csv of the duel: one row per player per game."""
        from arena.api.runs import load_run

        if self.folder is None:
            raise ArenaError("this duel kept no folder (out=None) and has nothing more to read")
        return load_run(self.folder).games

    def __repr__(self) -> str:
        low, high = self.score_interval
        verdict = f", {self.verdict} accepted" if self.verdict else ""
        return (
            f"<arena duel {self.a!r} vs {self.b!r}: {self.outcome.tally.games:,} games, score "
            f"{self.score:.3f} [{low:.3f}, {high:.3f}]{verdict}>"
        )

    def __str__(self) -> str:
        from arena.tournaments.duel_report import duel_text

        return duel_text(self.outcome, str(self.data["rules"]), self.folder)


def duel(
    a: PlayerLike,
    b: PlayerLike,
    *,
    rules: str | Path | Ruleset = "standard",
    games: int = 1000,
    sprt: str | Sprt | None = None,
    max_games: int = 20_000,
    seed: int | None = None,
    workers: int | None = None,
    out: str | Path | None = None,
    move_timeout: float = DEFAULT_MOVE_TIMEOUT,
    compiled: str = "auto",
    progress: bool | None = False,
    batch_size: int | None = None,
) -> DuelResult:
    """Play A against B as ``arena duel`` does (each deal in both seat orders, same dice) and
    return the verdict.  ``sprt``: ``"elo0=0,elo1=20"`` (optionally ``alpha``, ``beta``,
    ``model``) to stop as soon as the test decides, after at most ``max_games``; without it,
    ``games`` games (whole pairs).  Players take the forms :func:`arena.tournament` takes.  The
    run folder ``out`` holds games.csv, duel.json and run.json, as on the command line; by
    default the folder is temporary and removed once the duel is over (``folder`` is then None
    and ``games`` was read before).  Bad input raises :class:`ArenaError`."""
    if workers is not None and workers < 1:
        raise ArenaError(f"workers must be at least 1, got {workers}")
    if batch_size is not None and batch_size < 2:
        raise ArenaError(f"batch_size must be at least 2 (one pair), got {batch_size}")
    temporary: Path | None = None
    try:
        test = Sprt.parse(sprt) if isinstance(sprt, str) else sprt
        if not isinstance(rules, str | Path | Ruleset):
            raise ArenaError(
                f"a duel is played on one ruleset (a name, a TOML file or a Ruleset), got {rules!r}"
            )
        (ruleset,) = load_rulesets(rules)
        player_a = resolve_player(a, move_timeout=move_timeout)
        player_b = resolve_player(b, move_timeout=move_timeout)
        limit = duel_limit(max_games if test else games, test)
        if limit < 2:
            raise ArenaError(
                f"{'max_games' if test else 'games'} must be at least 2 (one pair), got "
                f"{max_games if test else games}"
            )
        if seed is None:  # an isolated bot must not be able to guess the seed
            seed = secrets.randbits(64) if player_a.isolated or player_b.isolated else 0
        spec = duel_spec(
            ruleset,
            player_a,
            player_b,
            games=limit,
            seed=seed,
            move_timeout=move_timeout,
            command="arena.duel(...)",
        )
        use_compiled = compiled_flag(compiled, spec)
        if out is None:
            temporary = Path(tempfile.mkdtemp(prefix="arena-duel-"))
            out = temporary / "duel"
        folder = RunFolder.create(
            Path(out),
            spec,
            {"kind": "duel", "sprt": test.as_dict() if test else None},
        )
    except (StrategyError, SprtError, RunFolderError, ValueError) as exc:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        if isinstance(exc, ArenaError):
            raise
        # (the command line's option name, as the argument's)
        raise ArenaError(" ".join(str(exc).split()).replace("--sprt:", "sprt:", 1)) from None
    workers = workers or os.cpu_count() or 1
    started = now_text()
    try:
        outcome = run_spec_duel(
            ruleset,
            spec,
            sprt=test,
            workers=workers,
            progress=progress,
            folder=folder,
            batch_size=batch_size,
            compiled=use_compiled,
        )
        data = write_duel_files(folder, spec, outcome, workers=workers, started=started, resumed_from=0)
    finally:
        folder.release()  # this process may go on (a notebook): let others at the folder
    if outcome.error is not None:
        raise ArenaError(f"{outcome.error}; {outcome.tally.games:,} games kept in {folder.path}")
    result = DuelResult(folder.path, outcome, data)
    if temporary is not None and outcome.complete:
        games = result.games  # read now: the folder goes
        result = DuelResult(None, outcome, {k: v for k, v in data.items() if k != "folder"})
        result.__dict__["games"] = games  # what the cached property would have read
        shutil.rmtree(temporary, ignore_errors=True)
    return result


def _saved_per_decision(path: Path) -> dict[str, Any] | None:
    """The ``seconds_per_decision`` an earlier call wrote into run.json, if it can be read."""
    from arena.safe_files import DamagedFile, read_json_object

    try:
        saved = read_json_object(path).get("seconds_per_decision")
    except DamagedFile:
        return None
    return saved if isinstance(saved, dict) else None


def write_duel_files(
    folder: RunFolder,
    spec: TournamentSpec,
    outcome: DuelOutcome,
    *,
    workers: int,
    started: str,
    resumed_from: int,
) -> dict[str, Any]:
    """duel.json (the verdict) and run.json of a duel that has played; returns duel.json's data."""
    from arena.tournaments.duel_report import duel_json, seconds_per_decision

    data = duel_json(outcome, spec.rulesets[0].name, folder.path)
    folder.write_json("duel.json", data)
    info = run_info(
        spec,
        RunOutcome(
            outcome.tally.games if outcome.complete else outcome.limit,
            outcome.tally.games,
            outcome.games_played,
            outcome.seconds,
            outcome.faults,
            outcome.interrupted,
            outcome.error,
        ),
        workers=workers,
        started=started,
        resumed_from=resumed_from,
    )
    per_decision = dict(zip(outcome.labels, seconds_per_decision(outcome), strict=True))
    if not outcome.games_played:  # a call that played nothing measured nothing: keep what was
        per_decision = _saved_per_decision(folder.path / "run.json") or per_decision
    folder.write_json(
        "run.json",
        {
            **info,
            "kind": "duel",
            "games_limit": outcome.limit,
            "sprt": data.get("sprt"),
            "seconds_per_decision": per_decision,  # this call's games played in Python; else null
        },
    )
    return data
