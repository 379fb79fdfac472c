"""External bots (``-p 'cmd:PROGRAM ARGS'``): the examples in strategies/external/ play exactly
like the built-ins they copy, and a bot that breaks the seat protocol (docs/protocol.md) loses
the game it breaks, with the status and reason recorded, while the run goes on.

A game's dice derive from the names of the players at the table, so each example bot is given
the built-in's name on its command line: then the two runs play the very same games, and
games.csv must be byte for byte the same (the player column included, no normalising needed).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.engine import PRESETS, Action, Game, TurnEnd, TurnView, load_ruleset, play
from arena.players import PlayerSpec
from arena.players.loading import load_player_spec
from arena.sandbox import SeatLimits, wire
from arena.tournaments.run_folder import RunFolder
from arena.tournaments.runner import SEAT_LOGS, run_tournament
from arena.tournaments.spec import TournamentSpec

REPO = Path(__file__).resolve().parents[1]
EXTERNAL = REPO / "strategies" / "external"
#: Every preset, and ruleset files for the rest of what bank_allowed, overshoots and
#: bank_minimum encode: an exact target (standard, exact-target), an entry (standard, classic,
#: strict-entry), the rising bar (short), no bank after hot dice, a playoff turn.
RULESETS = (
    "standard",
    "short",
    "classic",
    "exact-target",
    "strict-entry",
    "must-roll-after-hot-dice",
    "playoff",
)
GAMES = "60"  # per ruleset: 420 games a run


def arena(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def tournament(
    out: Path,
    *players: str,
    rulesets: tuple[str, ...] = RULESETS,
    games: str = GAMES,
    options: tuple[str, ...] = (),
) -> Path:
    rules = [arg for name in rulesets for arg in ("--rules", name)]
    seated = [arg for p in players for arg in ("-p", p)]
    # A known seed: with a cmd: player and no --seed, a run plays on a secret one.
    seed = ("--seed", "0")
    code, _, err = arena("tournament", *rules, *seated, "--games", games, "--out", str(out), *seed, *options)
    assert code == 0, err
    return out


def assert_same_games(tmp_path: Path, external: str, builtin: str, opponent: str) -> None:
    ours = tournament(tmp_path / "external", external, opponent)
    reference = tournament(tmp_path / "builtin", builtin, opponent)
    games = (ours / "games.csv").read_bytes()
    assert games.count(b"\n") == 1 + 2 * int(GAMES) * len(RULESETS)
    assert b",ok," in games and b",error," not in games and b",illegal," not in games
    assert games == (reference / "games.csv").read_bytes()


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the ruleset files and strategies/ are named from here


def test_the_rulesets_cover_every_preset() -> None:
    assert set(PRESETS) <= set(RULESETS)
    rules = [load_ruleset(name) for name in RULESETS]
    assert any(r.exact_target for r in rules) and any(r.rising_bar for r in rules)
    assert any(r.entry_threshold for r in rules) and any(r.must_roll_after_hot_dice for r in rules)
    assert any(r.ties == "playoff" for r in rules)


def test_the_python_bot_plays_exactly_like_greedy(tmp_path: Path) -> None:
    bot = f"cmd:{sys.executable} strategies/external/greedy_bot.py greedy"
    assert_same_games(tmp_path, bot, "greedy", "threshold")


@pytest.fixture(scope="module")
def threshold_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """strategies/external/threshold_bot.c compiled with the system's C compiler."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler: cc is not on PATH")
    binary = tmp_path_factory.mktemp("c-bot") / "threshold_bot"
    subprocess.run(["cc", "-O2", "-o", str(binary), str(EXTERNAL / "threshold_bot.c")], check=True)
    return binary


def test_the_c_bot_plays_exactly_like_threshold(tmp_path: Path, threshold_bot: Path) -> None:
    # The seat runs as arena's user (as root: without capabilities, so no permission checks
    # are skipped): a binary under pytest's private temporary folder (mode 0700) is still its
    # own to read and run.
    name = load_player_spec("threshold").label  # threshold:bank_at=300,min_dice=3
    assert_same_games(tmp_path, f"cmd:{threshold_bot} 300 3 {name}", "threshold", "greedy")


def test_the_c_bot_takes_its_thresholds_from_its_arguments(tmp_path: Path, threshold_bot: Path) -> None:
    name = load_player_spec("threshold:bank_at=500,min_dice=2").label
    ours = tournament(tmp_path / "a", f"cmd:{threshold_bot} 500 2 {name}", "greedy", rulesets=("standard",))
    reference = tournament(
        tmp_path / "b", "threshold:bank_at=500,min_dice=2", "greedy", rulesets=("standard",)
    )
    default = tournament(tmp_path / "c", "threshold", "greedy", rulesets=("standard",))
    assert (ours / "games.csv").read_bytes() == (reference / "games.csv").read_bytes()
    assert (ours / "summary.csv").read_bytes() != (default / "summary.csv").read_bytes()


def test_the_javascript_bot_plays_exactly_like_greedy(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("no JavaScript runtime: node is not on PATH")
    assert_same_games(tmp_path, "cmd:node strategies/external/greedy_bot.js greedy", "greedy", "threshold")


# ----------------------------------------------------------------- what a bot author meets
#: A bot that plays the first legal keep and banks when it may, and misbehaves as argv[1]
#: says in the first turn of each game it plays in seat 1 (so it breaks every other game).
FAULTY_BOT = r"""
import json, sys, time

mode = sys.argv[1]
seat, broken = 0, False
for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        if mode == "silent":
            time.sleep(60)
        reply = {"type": "hello", "protocol": 1, "name": mode}
    elif kind == "game_start":
        seat, broken = m["seat"], False
        if mode == "stderr":
            print(f"note from the bot: seat {seat}", file=sys.stderr, flush=True)
        reply = {"type": "ready"}
    elif kind == "turn":
        keep = m["legal_keeps"][0]
        reply = {"type": "action", "keep": keep["dice"], "bank": keep["bank_allowed"]}
        if seat == 1 and not broken:
            broken = True
            if mode == "garbage":
                print("thinking...", flush=True)  # a debug line on stdout
            elif mode == "exit":
                print("giving up", file=sys.stderr, flush=True)
                sys.exit(3)
            elif mode == "illegal":
                reply = {"type": "action", "keep": [], "bank": False}
            elif mode == "error":
                reply = {"type": "error", "reason": "no idea what to do"}
            elif mode == "slow":
                time.sleep(30)
    elif kind == "game_end":
        reply = {"type": "done"}
    else:
        break
    print(json.dumps(reply), flush=True)
"""


@pytest.fixture
def faulty_bot(tmp_path: Path) -> Path:
    path = tmp_path / "bots" / "faulty_bot.py"
    path.parent.mkdir()
    path.write_text(FAULTY_BOT)
    return path


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as stream:
        return list(csv.DictReader(stream))


def faults_of(folder: Path, player: str) -> dict[int, tuple[str, str]]:
    """game -> (status, reason) of every game ``player`` lost by a fault, from games.csv,
    checked against errors.csv."""
    games = {
        int(r["game"]): (r["status"], r["reason"])
        for r in rows(folder / "games.csv")
        if r["player"] == player
    }
    faults = {g: fault for g, fault in games.items() if fault[0] != "ok"}
    logged = {int(r["game"]): (r["status"], r["reason"]) for r in rows(folder / "errors.csv")}
    assert logged == faults
    assert len(games) == 8  # every game was played and written: the run went on
    return faults


@pytest.mark.parametrize(
    ("mode", "status", "reason"),
    [
        ("garbage", "error", "protocol: not a JSON line: 'thinking...'"),
        ("exit", "error", "the seat's process exited with status 3"),
        ("illegal", "illegal", "keep at least one scoring die; an empty keep is not allowed"),
        ("error", "error", "no idea what to do"),
    ],
)
def test_a_bot_that_breaks_the_protocol_loses_that_game_only(
    tmp_path: Path, faulty_bot: Path, mode: str, status: str, reason: str
) -> None:
    out = tournament(
        tmp_path / "run",
        f"cmd:{sys.executable} {faulty_bot} {mode}",
        "greedy",
        rulesets=("standard",),
        games="8",
    )
    faults = faults_of(out, mode)
    # Games 1, 3, 5 and 7 seat it second; the games after a broken one start well, in a fresh
    # process where the last one had to end (a debug line on stdout puts it out of step).
    assert sorted(faults) == [1, 3, 5, 7]
    assert all(s == status and r.startswith(reason) for s, r in faults.values()), faults
    log = (out / "errors.log").read_text()
    assert "=== fault 1 of 1" in log and "arena/sandbox" not in log  # no arena frames as its traceback


def test_a_bot_past_its_deadline_and_grace_is_killed_and_loses_by_timeout(
    tmp_path: Path, faulty_bot: Path
) -> None:
    started = time.monotonic()
    out = tournament(
        tmp_path / "run",
        f"cmd:{sys.executable} {faulty_bot} slow",
        "greedy",
        rulesets=("standard",),
        games="2",
        options=("--move-timeout", "1"),  # ample for a turn on a busy machine
    )
    games = {
        int(r["game"]): (r["status"], r["reason"]) for r in rows(out / "games.csv") if r["player"] == "slow"
    }
    # Killed 0.5 s (the grace) past the deadline, not 30 s later.
    assert time.monotonic() - started < 20
    assert games == {0: ("ok", ""), 1: ("timeout", "no decision within 1 s")}


def test_a_bot_that_never_says_hello_loses_each_game_at_its_start_deadline(
    tmp_path: Path, faulty_bot: Path
) -> None:
    silent = PlayerSpec(
        f"cmd:{sys.executable} {faulty_bot} silent", "silent", None, source="command", isolated=True
    )
    spec = TournamentSpec(
        (load_ruleset("standard"),),
        (silent, load_player_spec("greedy")),
        games=2,
        seat_limits=SeatLimits(start_seconds=0.5),
    )
    folder = RunFolder.create(tmp_path / "run", spec)
    outcome = run_tournament(spec, folder, progress=False)
    assert outcome.games_written == 2 and not outcome.interrupted
    results = rows(tmp_path / "run" / "games.csv")
    assert [(r["player"], r["status"]) for r in results] == [
        ("silent", "error"),
        ("greedy", "ok"),
        ("greedy", "ok"),
        ("silent", "error"),
    ]
    assert {r["reason"] for r in results if r["player"] == "silent"} == {
        "the seat did not say hello within 0.5 s of starting"
    }


def test_a_bots_stderr_goes_to_its_log_in_the_run_folder(
    tmp_path: Path, faulty_bot: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tournament(
        tmp_path / "run",
        f"cmd:{sys.executable} {faulty_bot} stderr",
        "greedy",
        rulesets=("standard",),
        games="8",
    )
    assert faults_of(out, "stderr") == {}
    log = (out / SEAT_LOGS / "stderr.log").read_text()
    assert log.splitlines() == [f"note from the bot: seat {k % 2}" for k in range(8)]
    assert "note from the bot" not in capfd.readouterr().err  # not on the terminal


def test_a_bot_that_dies_before_hello_is_one_line_with_its_last_words(tmp_path: Path) -> None:
    bot = tmp_path / "crash.py"
    # Like node when it can't reserve its memory: the message, then a frame line of '#'.
    bot.write_text("import sys\nsys.stderr.write('#\\n# Fatal: out of memory\\n#\\n')\nsys.exit(1)\n")
    code, _, err = arena(
        "tournament", "-p", f"cmd:{sys.executable} {bot}", "-p", "greedy", "--out", str(tmp_path / "r")
    )
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("arena: error: cmd:")
    assert "the seat's process exited with status 1; its last words on stderr: # Fatal: out of memory" in err
    assert not (tmp_path / "r").exists()


# ----------------------------------------------------------------- docs/protocol.md
PROTOCOL_DOC = REPO / "docs" / "protocol.md"


def greedy_decide(view: TurnView) -> Action:
    keep = view.legal_keeps[0]
    return Action(keep.dice, view.bank_allowed(keep) and not view.overshoots(keep))


def doc_section(title: str) -> str:
    text = PROTOCOL_DOC.read_text()
    start = text.index(f"\n### {title}\n")
    end = text.find("\n### ", start + 1)
    return text[start:end]


def test_the_protocol_document_has_every_field_arena_sends() -> None:
    rules = load_ruleset("short")
    game = Game(rules, 2, 7)
    result = play(rules, [greedy_decide, greedy_decide], 7)
    sent = {
        "hello": wire.decode(wire.hello(10.0, 1)),
        "game_start": wire.decode(wire.game_start(rules, 0, ("a", "b"), 1)),
        "turn": wire.decode(wire.turn(game.view())),
        "game_end": wire.decode(wire.game_end(result)),
        "turn_end": wire.decode(wire.turn_end(TurnEnd(0, 0, "banked", 350, False, 0, 0, 350, (350, 0)))),
    }
    sent["turn"].update(sent["turn"]["legal_keeps"][0])  # the keep's fields are in turn's section
    sent["game_start"].update(sent["game_start"]["rules"])  # and the rules' in game_start's
    for kind, message in sent.items():
        section = doc_section(kind)
        missing = [key for key in message if key != "type" and f"| `{key}` |" not in section]
        assert not missing, (kind, missing)


def test_the_example_exchange_in_the_protocol_document_is_what_arena_sends(tmp_path: Path) -> None:
    text = PROTOCOL_DOC.read_text()
    wrapper = text.split("```python\n", 1)[1].split("```", 1)[0]
    exchange = text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    (tmp_path / "tee_bot.py").write_text(wrapper)
    bot = f"cmd:{sys.executable} {tmp_path / 'tee_bot.py'} {sys.executable} strategies/external/greedy_bot.py"
    out = tournament(
        tmp_path / "run", bot, "greedy", rulesets=("standard",), games="2", options=("--workers", "1")
    )
    recorded = (out / SEAT_LOGS / "greedy-bot.log").read_text().splitlines()
    shown = [line for line in exchange if not line.startswith("[…")]
    assert len(shown) > 30 and shown[0].startswith("arena> ") and shown[-1] == 'arena> {"type":"bye"}'
    # Every line shown is the recorded line at its place; each "[… N more turns …]" left out
    # exactly N exchanges (2 N lines), and nothing was left out after the last line shown.
    position, gap = -1, 0
    for line in exchange:
        if line.startswith("[…"):
            gap = int(line.split()[1])
            continue
        position += 1 + 2 * gap
        assert recorded[position] == line, position
        gap = 0
    assert position == len(recorded) - 1
