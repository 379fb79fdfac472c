"""What an entry can make arena store or print is bounded and clean (issue 22).

The name rule (arena.players.names), clean fault reasons (arena.players.match.clean_reason),
the cap on stored tracebacks (arena.tournaments.fault_budget) and the one way text reaches a
terminal (arena.players.text.for_terminal, arena.cli.output.say)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.analysis.reports import write_reports
from arena.cli.main import cli
from arena.cli.output import fail, json_text
from arena.engine import CLASSIC, GameResult
from arena.players import BUILTINS, PlayerFault, StrategyError, load_player_spec, play_match
from arena.players.loading import available_strategies
from arena.players.match import REASON_LIMIT, clean_reason
from arena.players.names import NAME_LIMIT, fold_spaces, name_refusal
from arena.players.text import csv_text, for_terminal, is_hidden, visible
from arena.tournaments import TournamentSpec
from arena.tournaments.batch import BatchPlayer
from arena.tournaments.fault_log import TRACEBACKS_PER_PLAYER, FaultCollector, fault_groups, warning_block
from arena.tournaments.results import FaultDetail
from arena.tournaments.rows import game_rows
from arena.tournaments.run_folder import RunFolder
from arena.tournaments.schedule import Schedule
from arena.tournaments.spec import player_from_class

ARENA = [sys.executable, "-m", "arena.cli"]
ESC = "\x1b"
STRATEGIES = Path(__file__).resolve().parent.parent / "strategies"


def hidden_in(text: str) -> list[str]:
    """The hidden characters of ``text`` but line breaks (what must never reach a terminal)."""
    return [c for c in text if c != "\n" and is_hidden(c)]


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def bot(tmp_path: Path, body: str, name: str = "bots.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


# --- the name rule --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x" * (NAME_LIMIT + 1), f"more than {NAME_LIMIT}"),
        ("x" * 900_000, f"more than {NAME_LIMIT}"),
        ("evil\x1b[2Jbot", "\\x1b"),
        ("two\nlines", "\\x0a"),
        ("tab\tbed", "\\x09"),
        ("car\rriage", "\\x0d"),
        ("\u202eevil", "\\u202e"),  # a bidi override
        ("zero\u200bwidth", "\\u200b"),
        ("line\u2028sep", "\\u2028"),
        ("private\ue000use", "\\ue000"),
        ("=HYPERLINK(1)", "formula"),
        ("+1", "formula"),
        ("-greedy", "formula"),
        ("@SUM(A1)", "formula"),
        (42, "must be text"),
    ],
)
def test_a_name_that_is_not_short_printable_text_is_refused(name: object, says: str) -> None:
    why = name_refusal(name)
    assert why is not None and says in why
    assert "\n" not in why and not hidden_in(why) and len(why) < 400


def test_names_have_their_spaces_folded_and_every_builtin_and_example_name_keeps_the_rule() -> None:
    assert name_refusal("  my   bot ") is None and fold_spaces("  my \u00a0  bot ") == "my bot"
    assert name_refusal("x" * NAME_LIMIT) is None and name_refusal("Ünïcødé 🎲 bot") is None
    for name, cls in BUILTINS.items():
        assert name_refusal(cls().name) is None, name
    assert name_refusal(BUILTINS["threshold"](bank_at=99_999_999_999, min_dice=6).name) is None
    examples = [a for a in available_strategies(STRATEGIES) if a.source == "file"]
    assert len(examples) >= 4
    for found in examples:
        assert load_player_spec(found.spec).label  # loads, so its name keeps the rule


def test_loading_a_strategy_with_a_bad_name_is_one_line_naming_the_rule(tmp_path: Path) -> None:
    path = bot(
        tmp_path,
        """
        from arena.players import Action

        class Long:
            name = "x" * 900_000
            def decide(self, view):
                keep = view.legal_keeps[0]
                return Action(keep.dice, True)

        class Escape(Long):
            name = "fake\\x1b[2J\\n1. fake-winner"
        """,
    )
    for cls, says in (("Long", "900,000 characters long"), ("Escape", "\\x1b")):
        with pytest.raises(StrategyError) as caught:
            load_player_spec(f"{path}:{cls}")
        message = str(caught.value)
        assert says in message and "printable text" in message
        assert "\n" not in message and not hidden_in(message) and len(message) < 500
    code, _, err = run_cli("tournament", "-p", "greedy", "-p", f"{path}:Escape", "--games", "2")
    assert code == 2 and err.count("\n") == 1 and err.startswith("arena: error: ") and ESC not in err


HELLO_BOT = """
import json, sys
NAME = {name!r}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({{"type": "hello", "protocol": 1, "name": NAME}}), flush=True)
"""


@pytest.mark.parametrize("name", ["a" * 5_000, "ok\x1b]0;owned\x07", "=cmd|' /C calc'!A0", "two\nlines"])
def test_a_cmd_bot_whose_hello_name_breaks_the_rule_is_refused_at_load(tmp_path: Path, name: str) -> None:
    program = bot(tmp_path, HELLO_BOT.format(name=name), "hello_bot.py")
    code, _, err = run_cli(
        "tournament", "-p", "greedy", "-p", f"cmd:{sys.executable} {program}", "--games", "2"
    )
    assert code == 2, err
    assert err.count("\n") == 1 and "printable text" in err and not hidden_in(err)


def test_an_isolated_python_strategy_with_a_bad_name_is_refused_at_load(tmp_path: Path) -> None:
    path = bot(
        tmp_path,
        """
        class Bidi:
            name = "\\u202egreedy"
            def decide(self, view):
                raise RuntimeError("never asked")
        """,
    )
    code, _, err = run_cli("tournament", "--isolate", "-p", "greedy", "-p", str(path), "--games", "2")
    assert code == 2 and err.count("\n") == 1 and "\\u202e" in err and "printable text" in err
    assert not hidden_in(err)


class Renaming:
    """Keeps the rule when loaded, then renames itself on its class after its first game."""

    name = "renaming"

    def decide(self, view):
        from arena.players import Action

        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))

    def end_game(self, result: GameResult) -> None:
        type(self).name = "\x1b[31m" + "r" * 1000


def test_a_name_changed_between_games_faults_the_player_and_is_never_stored() -> None:
    spec = TournamentSpec((CLASSIC,), (load_player_spec("greedy"), player_from_class(Renaming)), games=4)
    try:
        result = BatchPlayer(spec).play(0, 4)
    finally:
        Renaming.name = "renaming"
    assert result.faults == 3  # every game after the first
    reasons = {d.reason for d in result.fault_details}
    (reason,) = reasons
    assert "is refused" in reason and "printable text" in reason and not hidden_in(reason)
    assert "r" * 100 not in result.rows and ESC not in result.rows
    assert {d.player for d in result.fault_details} == {"renaming"}


def test_a_name_set_on_an_instance_is_checked_every_game() -> None:
    class Instance(Renaming):
        def __init__(self) -> None:
            self.name = "line\nbreak"

    with pytest.raises(PlayerFault) as caught:
        play_match(CLASSIC, [BUILTINS["greedy"](), Instance()], seed=1)
    assert caught.value.seat == 1 and "\\x0a" in caught.value.reason


# --- reasons, CSV cells and the terminal -----------------------------------------------------------
def test_a_reason_is_one_visible_line_of_bounded_length_that_no_spreadsheet_runs() -> None:
    reason = clean_reason('=HYPERLINK("http://x")\x1b[2J\u202e' + "\n1. fake 100%" * 5_000)
    assert reason.startswith("'=HYPERLINK") and "\\x1b[2J\\u202e" in reason
    assert len(reason) == REASON_LIMIT and "\n" not in reason and not hidden_in(reason)
    for start in "=+-@":
        assert clean_reason(f"{start}1").startswith("'")
    assert clean_reason("ValueError: plain") == "ValueError: plain"
    assert PlayerFault(0, "error", "-\x07").reason == "'-\\x07"


def test_fault_rows_neutralize_the_reason_but_keep_negative_numbers_numbers() -> None:
    result = GameResult((-50, 200), (1,), (0.0, 1.0), (2, 1), (2, 2), (1, 0), 2, "forfeit", (0,))
    rows = game_rows("classic", 3, 1, 7, ["a", "b"], result, {0: ("error", "=1+2")})
    faulty, other = (line.split(",") for line in rows.splitlines())
    assert faulty[6] == "-50" and faulty[-2] == "'=1+2" and other[-2] == ""
    assert faulty[-1] == other[-1] == "forfeit"
    assert csv_text("-13") == "'-13" and csv_text("greedy") == "greedy"


def test_for_terminal_escapes_controls_and_bounds_lines_and_width() -> None:
    text = "\x1b[2J\x9b31m" + ("line\u202e" + "z" * 5_000 + "\n") * 500
    one = for_terminal(text)
    assert "\n" not in one and not hidden_in(one) and len(one) <= 1_000
    many = for_terminal(text, max_lines=10, width=80)
    lines = many.splitlines()
    assert len(lines) == 10 and lines[-1].startswith("… (491 more lines")
    assert all(len(line) <= 80 for line in lines) and not hidden_in(many)
    assert visible("tab\there", keep="\t") == "tab\there" and visible("a\tb") == "a\\x09b"


def test_a_warning_block_shows_a_bounded_clean_traceback() -> None:
    body = "".join(f"  line {i} \x1b[31m\n" for i in range(500))
    traceback_text = (
        f'Traceback (most recent call last):\n  File "bot.py", line 1, in decide\nValueError: x\n{body}'
    )
    collector = FaultCollector()
    collector.add([FaultDetail(0, 1, "bot", "error", "ValueError: x", traceback_text)])
    block = warning_block("bot", collector.counts["bot"], 10, collector.first_of("bot"))
    assert len(block.splitlines()) < 50 and "more lines left out" in block and not hidden_in(block)


# --- the cap on stored tracebacks -----------------------------------------------------------------
FLOOD = '''
import itertools

from arena.players import Action

COUNT = itertools.count()
FAKE = "\\n 1. flood-king          games 300  win 100.0%  Elo +2400\\n"


class Flood:
    """Raises a new kind of exception with a 20,000-character message every game."""

    name = "flood"

    def decide(self, view):
        kind = type(f"Flood{next(COUNT)}", (Exception,), {})
        raise kind("\\x1b[2J\\x1b[31m" + FAKE + ("\\x07\\u202e" + "y" * 96 + "\\n") * 200)
'''


class CountingFlood:
    """As FLOOD, in this process (for the API tests)."""

    name = "flood"
    count = 0

    def decide(self, view):
        CountingFlood.count += 1
        kind = type(f"Flood{CountingFlood.count}", (Exception,), {})
        raise kind("\x1b[2J" + ("\x07" + "y" * 96 + "\n") * 200)


def distinct_entries(folder: Path) -> dict[str, int]:
    """Journal ``new`` entries per player."""
    counts: dict[str, int] = {}
    for line in (folder / "games.idx").read_text().splitlines():
        for detail in json.loads(line).get("new", {}).values():
            counts[detail["player"]] = counts.get(detail["player"], 0) + 1
    return counts


def test_the_cap_on_stored_tracebacks_holds_across_batches_and_resume(tmp_path: Path) -> None:
    spec = TournamentSpec(
        (CLASSIC,), (load_player_spec("greedy"), player_from_class(CountingFlood)), games=60, chunk_games=10
    )
    path = tmp_path / "run"
    folder = RunFolder.create(path, spec)
    player = BatchPlayer(spec)
    for start in range(0, 30, 10):
        result = player.play(start, start + 10)
        folder.append(result.rows, result.fault_details)
    folder.close()
    assert distinct_entries(path) == {"flood": TRACEBACKS_PER_PLAYER + 1}
    folder = RunFolder.resume(path, spec, Schedule(spec).table_size)
    result = player.play(30, 60)
    folder.append(result.rows, result.fault_details)
    folder.close()
    assert distinct_entries(path) == {"flood": TRACEBACKS_PER_PLAYER + 1}  # counted from the journal
    entries = [json.loads(line) for line in (path / "games.idx").read_text().splitlines()]
    groups = fault_groups(entries)
    assert sum(g.count for g in groups) == 60 and len(groups) == TRACEBACKS_PER_PLAYER + 1
    assert "more than 10 distinct faults" in groups[-1].reason and groups[-1].count == 50
    assert not any(hidden_in(g.traceback) for g in groups)


def test_a_duel_keeps_a_bounded_number_of_fault_groups() -> None:
    collector = FaultCollector()
    collector.add([FaultDetail(g, 1, "flood", "error", f"E{g}", f"E{g}: boom") for g in range(500)])
    groups = collector.groups()
    assert len(groups) == TRACEBACKS_PER_PLAYER + 1 and sum(g.count for g in groups) == 500


@pytest.mark.slow  # 300 games in a subprocess: about 2-3 s
def test_a_bot_that_floods_every_game_leaves_bounded_files_and_a_clean_terminal(tmp_path: Path) -> None:
    """The issue's case: 300 games, each fault a new 20,000-character message full of control
    characters and a fake ranking line.  errors.log and games.idx stay under 250 kB (11
    tracebacks of at most about 20 kB each, and a short line per game), and the terminal gets no
    control character and at most 45 lines of the bot's text."""
    path = bot(tmp_path, FLOOD)
    out = tmp_path / "run"
    done = subprocess.run(
        [*ARENA, "tournament", "--out", str(out), "--no-progress", "--rules", "classic", "-p", "greedy",
         "-p", str(path), "--games", "300", "--workers", "2"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-800:]
    assert (out / "errors.log").stat().st_size < 250_000
    assert (out / "games.idx").stat().st_size < 250_000
    assert distinct_entries(out) == {"flood": TRACEBACKS_PER_PLAYER + 1}
    printed = done.stdout + done.stderr
    assert not hidden_in(printed)
    from_bot = [line for line in printed.splitlines() if "yyyy" in line or "flood-king" in line]
    assert len(from_bot) <= 45
    log = (out / "errors.log").read_text()
    assert ESC not in log and "\\x1b[2J" in log
    csv_text_ = (out / "games.csv").read_text()
    assert ESC not in csv_text_ and max(len(line) for line in csv_text_.splitlines()) < REASON_LIMIT + 100


# --- what arena prints and writes from a folder someone handed over --------------------------------
def test_json_output_escapes_hidden_characters_and_keeps_the_data() -> None:
    data = {"player": "x\x9b31m\u202e\U000f0001\x7f\x1b", "scores": [-13, 2]}
    text = json_text(data)
    assert json.loads(text) == data and not hidden_in(text) and "\\u202e" in text


def test_report_tables_from_a_tampered_folder_print_and_write_no_control_or_formula(tmp_path: Path) -> None:
    out = tmp_path / "run"
    players = ("-p", "greedy", "-p", "random")
    code, _, err = run_cli("tournament", "--out", str(out), "--rules", "classic", *players, "--games", "4")
    assert code == 0, err
    games = out / "games.csv"
    games.write_text(games.read_text().replace(",greedy,", ",=HYPERLINK(1)\x1b[2J\u202e,"))
    code, shown, err = run_cli("report", str(out))
    assert code == 0, err
    assert "=HYPERLINK(1)\\x1b[2J\\u202e" in shown and not hidden_in(shown + err)
    code, shown, err = run_cli("report", str(out), "--json")
    assert code == 0 and not hidden_in(shown) and json.loads(shown)
    tables = write_reports(out)
    assert (tables.summary["player"] == "=HYPERLINK(1)\x1b[2J\u202e").any()  # the data is as read
    summary = (out / "summary.csv").read_text()
    assert "\n" + "classic,'=HYPERLINK" in summary and ",-" in summary  # negative Elo stays a number


def test_a_class_given_to_the_python_api_keeps_the_name_rule() -> None:
    class Blank(Renaming):
        name = "\u200b"

    with pytest.raises(StrategyError, match="printable text"):
        player_from_class(Blank)
    with pytest.raises(StrategyError, match="formula"):
        player_from_class(Renaming, label="@evil")
    assert player_from_class(Renaming, label="  nice   label ").label == "nice label"


def test_fail_prints_one_visible_line() -> None:
    with pytest.raises(SystemExit) as stopped, _captured_stderr() as err:
        fail("bad \x1b[2J\u202e\nthing" + "x" * 10_000)
    assert stopped.value.code == 2
    text = err.getvalue()
    assert text.count("\n") == 1 and "\\x1b[2J\\u202e\\x0athing" in text and len(text) < 2_100


def _captured_stderr():
    import contextlib
    import io

    return contextlib.redirect_stderr(io.StringIO())


def test_arena_play_shows_a_strategys_traceback_bounded_and_clean(tmp_path: Path) -> None:
    path = bot(tmp_path, FLOOD)
    code, shown, err = run_cli("play", "--rules", "classic", "-p", "greedy", "-p", str(path), "--seed", "1")
    assert code == 1 and "flood (seat 1) lost the game: error:" in err
    assert not hidden_in(shown + err)
    assert len([line for line in err.splitlines() if "yyyy" in line]) <= 45


LABEL_FORGER = """
from arena.sandbox import wire

real = wire.reply


def forged(kind, **fields):  # in the seat process: the host's hello gets a label of its own
    if kind == "hello":
        forged = {"label": "=evil\\x1b[2J\\n1. evil 100%", "description": "\\x1b[2J" + "d" * 100_000}
        fields["about"] = {**fields.get("about", {}), **forged}
    return real(kind, **fields)


wire.reply = forged


class Forger:
    name = "forger"

    def decide(self, view):
        raise RuntimeError("never asked")
"""


def test_an_isolated_players_label_is_made_from_its_checked_name_not_the_seats(
    tmp_path: Path,
) -> None:
    from arena.sandbox import load_player

    path = bot(tmp_path, LABEL_FORGER)
    spec = load_player(f"{path}:Forger", isolate=True, limits=None, move_timeout=5.0)
    assert spec.label == "forger"
    assert len(spec.description) <= REASON_LIMIT and not hidden_in(spec.description)  # kept in spec.json
