"""A spec that travels to Dask workers: file strategies as absolute paths, isolated players
never loaded on the way, and what a worker is missing said in one line before any game."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.engine import CLASSIC
from arena.players import PlayerSpec, load_player_spec
from arena.sandbox import SeatLimits
from arena.tournaments import TournamentSpec
from arena.tournaments.portable import FilePlayer, missing_here, portable_spec, rebuilt_spec

REPO = Path(__file__).resolve().parents[1]


def isolated(text: str, source: str) -> PlayerSpec:
    return PlayerSpec(text, text.rsplit("/", 1)[-1], None, {}, source, isolated=True)


def spec_of(*players: PlayerSpec) -> TournamentSpec:
    limits = SeatLimits() if any(p.isolated for p in players) else None
    return TournamentSpec((CLASSIC,), players, games=2, seed=1, seat_limits=limits)


def test_file_strategies_travel_as_absolute_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    spec = spec_of(
        load_player_spec("strategies/bank_at_500.py"),
        isolated("strategies/catch_up.py:CatchUp", "file"),
        isolated(f"cmd:{sys.executable} strategies/external/greedy_bot.py greedy", "command"),
        load_player_spec("greedy"),
    )
    in_process, seat_file, command, builtin = portable_spec(spec).players
    assert in_process == FilePlayer(str(REPO / "strategies" / "bank_at_500.py"), "bank-at-500")
    assert seat_file.text == f"{REPO}/strategies/catch_up.py:CatchUp" and seat_file.isolated
    assert command == spec.players[2]  # a command line is the worker's to read, from the same folder
    assert builtin == spec.players[3]
    rebuilt = rebuilt_spec(portable_spec(spec))
    assert rebuilt.players[0].cls is spec.players[0].cls is not None
    assert (
        rebuilt.players[0].label == "bank-at-500" and rebuilt.players[1:] == portable_spec(spec).players[1:]
    )


def test_what_a_worker_lacks_is_named_without_running_the_player(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    assert missing_here(spec_of(isolated(f"{bot}:Bot", "file"), load_player_spec("greedy"))) == (
        f"bot.py:Bot: no strategy file {str(bot)!r} here"
    )
    program = tmp_path / "bot-program"
    assert missing_here(
        spec_of(isolated(f"cmd:{program} --fast", "command"), load_player_spec("greedy"))
    ) == (f"bot-program --fast: no program {str(program)!r} here (not a file, and not on PATH)")
    assert "no program 'no-such-bot-anywhere'" in (
        missing_here(spec_of(isolated("cmd:no-such-bot-anywhere", "command"), load_player_spec("greedy")))
        or ""
    )
    bot.write_text("")
    program.write_text("")
    assert (
        missing_here(spec_of(isolated(f"{bot}:Bot", "file"), isolated(f"cmd:{program}", "command"))) is None
    )
