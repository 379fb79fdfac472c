"""Why a bot failed, as a student sees it (issue 39, point 1): a ``cmd:`` crash keeps its last
words on stderr, `arena play --isolate` prints the entry's own frames, and a league's entrant
and game pages show the entry's traceback (its file and line), escaped, with no organiser path."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from arena.leagues import League
from arena.leagues.pages import entry_page, game_page
from arena.leagues.web import export_site
from arena.sandbox.last_words import STDERR_TAIL, TAIL_LINES, last_words, telling_line
from arena.storage import league_db
from tests.test_league_web import browser, chromium, served

if TYPE_CHECKING:
    from playwright.sync_api import Browser

__all__ = ["chromium"]  # the fixture, shared with test_league_web

ARENA = [sys.executable, "-m", "arena.cli"]
FRANK = Path(__file__).resolve().parent.parent / "docs" / "examples" / "frank.py"

#: What node writes to stderr when a bot reads a property of undefined (node 20), shortened.
NODE_CRASH = b"""/home/teacher/class/bot.js:12
  const x = view.keeps[0].dice;
                          ^

TypeError: Cannot read properties of undefined (reading 'dice')
    at Interface.<anonymous> (/home/teacher/class/bot.js:12:27)
    at Interface.emit (node:events:517:28)
    at Socket.ondata (node:internal/readline/interface:246:23)

Node.js v20.20.2
"""

#: A cmd: bot in Python that answers hello and ready, then crashes at its first turn, writing a
#: report whose last line is not the error (as node's is).
CRASHING_BOT = """\
import json, sys
for line in sys.stdin:
    kind = json.loads(line)["type"]
    if kind == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "crashy"}), flush=True)
    elif kind == "game_start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif kind == "turn":
        sys.stderr.write("warming up\\n" * 100)
        sys.stderr.write("crashy.js:12\\nTypeError: x is not a function\\n    at decide (crashy.js:12:5)\\n")
        sys.stderr.write("\\x1b[2J\\nNode.js v20.20.2\\n")
        sys.exit(1)
"""


def test_the_telling_line_of_a_node_crash_is_its_error_not_its_version_line() -> None:
    assert telling_line(NODE_CRASH) == "TypeError: Cannot read properties of undefined (reading 'dice')"
    words = last_words(NODE_CRASH)
    assert "at Interface.<anonymous> (/home/teacher/class/bot.js:12:27)" in words
    assert words.endswith("Node.js v20.20.2")


def test_last_words_are_bounded_and_visible() -> None:
    noisy = b"".join(b"line %d\n" % k for k in range(5000)) + b"\x1b[2Jbye\n"
    tail = noisy[-STDERR_TAIL:]
    words = last_words(tail).splitlines()
    assert len(words) == TAIL_LINES
    assert words[-1] == "\\x1b[2Jbye"  # the escape written out: it reaches no terminal or page
    assert words[0] == f"line {5000 - TAIL_LINES + 1}"
    assert words[-2] == "line 4999"
    assert telling_line(b"") == "" and last_words(b"") == ""


def test_a_cmd_bot_that_crashes_mid_game_names_its_error_and_keeps_its_last_lines(tmp_path: Path) -> None:
    from arena.sandbox.last_words import STDERR_TAIL as tail_size
    from arena.sandbox.process import STDERR_TAIL as kept

    assert kept == tail_size == 8192
    bot = tmp_path / "crashy.py"
    bot.write_text(CRASHING_BOT)
    done = subprocess.run(
        [*ARENA, "play", "-p", f"cmd:{sys.executable} {bot}", "-p", "greedy", "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.endswith("its last words on stderr: TypeError: x is not a function"), last
    # Its stderr was shown as it came (escaped), and not a second time as a traceback.
    assert done.stderr.count("at decide (crashy.js:12:5)") == 1
    assert "\x1b" not in done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_bot_that_crashes_says_its_type_error_not_its_node_version(tmp_path: Path) -> None:
    bot = tmp_path / "bot.js"
    bot.write_text(
        'const rl = require("readline").createInterface({ input: process.stdin });\n'
        'rl.on("line", (line) => {\n'
        "  const msg = JSON.parse(line);\n"
        "  const say = (m) => console.log(JSON.stringify(m));\n"
        '  if (msg.type === "hello") { say({type: "hello", protocol: 1, name: "nodey"}); }\n'
        '  else if (msg.type === "game_start") { say({type: "ready"}); }\n'
        '  else if (msg.type === "turn") { const keeps = undefined; keeps.dice(); }\n'
        "});\n"
    )
    done = subprocess.run(
        [*ARENA, "play", "-p", "cmd:node bot.js", "-p", "greedy", "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    last = done.stderr.strip().splitlines()[-1]
    assert "its last words on stderr: TypeError: Cannot read properties of undefined" in last, last


def test_arena_play_isolate_prints_the_entrys_own_frames(tmp_path: Path) -> None:
    shutil.copy(FRANK, tmp_path / "frank.py")
    done = subprocess.run(
        [*ARENA, "play", "--isolate", "-p", "frank.py", "-p", "greedy", "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert f'File "{tmp_path / "frank.py"}", line 12, in decide' in done.stderr
    assert "growth = keep.points / view.turn_points" in done.stderr
    assert "ZeroDivisionError: division by zero" in done.stderr
    assert "arena/" not in done.stderr.replace("arena: error", "")  # none of arena's frames


@pytest.fixture(scope="module")
def frank_league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league where frank (docs/examples/frank.py) faults in every game, isolated."""
    root = tmp_path_factory.mktemp("frank")
    shutil.copy(FRANK, root / "frank.py")
    folder = root / "league"
    league = League.create(folder, games=4, seed=7)
    league.add(str(root / "frank.py"))
    league.add("greedy")
    league.run(progress=False)
    league.close()
    return folder


def _pages(folder: Path) -> tuple[str, str, str]:
    """(frank's entrant page, a recorded game's page with its fault, a replay command)."""
    with sqlite3.connect(league_db.database_path(folder)) as connection:
        connection.row_factory = sqlite3.Row
        entry = connection.execute("SELECT id FROM entries WHERE name = 'frank'").fetchone()[0]
        game, replay = connection.execute(
            "SELECT f.game, f.replay FROM faults f JOIN records r ON r.game = f.game ORDER BY f.game LIMIT 1"
        ).fetchone()
        page = entry_page(connection, entry)
        viewer = game_page(connection, game)
    assert page is not None and viewer is not None
    return page, viewer, replay


def test_the_entrant_and_game_pages_show_franks_traceback_without_organiser_paths(frank_league: Path) -> None:
    page, viewer, replay = _pages(frank_league)
    for html_text in (page, viewer):
        assert '<pre class="traceback">' in html_text
        assert re.search(r"File &quot;entries/\w+/frank.py&quot;, line 12, in decide", html_text)
        assert "ZeroDivisionError: division by zero</pre>" in html_text
        assert str(frank_league.parent) not in html_text  # no organiser path
        assert "arena/players/match.py" not in html_text  # no arena frame
    # One traceback shown, the other faults point at it.
    assert page.count('<pre class="traceback">') == 1
    assert "the same traceback as game" in page
    assert "--isolate" in replay


def test_the_replay_command_on_franks_page_prints_frank_line_12(frank_league: Path) -> None:
    _, _, replay = _pages(frank_league)
    argv = replay.split()
    assert argv[:3] == ["arena", "play", "--rules"] and "--isolate" in argv
    done = subprocess.run([*ARENA, *argv[1:]], capture_output=True, text=True, cwd=frank_league)
    assert done.returncode == 1
    assert 'frank.py", line 12, in decide' in done.stderr
    assert "ZeroDivisionError: division by zero" in done.stderr


def test_a_traceback_an_entry_chose_is_text_on_the_page(tmp_path: Path) -> None:
    bot = tmp_path / "sly.py"
    bot.write_text(
        "class Sly:\n"
        "    name = 'sly'\n"
        "    def decide(self, view):\n"
        "        raise ValueError('<script id=\"evil\">alert(1)</script> &amp;')\n"
    )
    folder = tmp_path / "league"
    league = League.create(folder, games=2, seed=1)
    league.add(str(bot))
    league.add("greedy")
    league.run(progress=False)
    league.close()
    site = tmp_path / "site"
    export_site(folder, site)
    texts = [p.read_text() for p in site.glob("*.html")]
    escaped = "ValueError: &lt;script id=&quot;evil&quot;&gt;alert(1)&lt;/script&gt; &amp;amp;"
    assert any(escaped in t for t in texts)
    assert not any('<script id="evil">' in t for t in texts)


@browser
def test_chromium_shows_franks_traceback_on_his_page_and_on_the_game_viewer(
    frank_league: Path, tmp_path: Path, chromium: Browser
) -> None:
    """What a student's browser shows: the traceback's text, with frank.py's line 12."""
    with sqlite3.connect(league_db.database_path(frank_league)) as connection:
        entry = connection.execute("SELECT id FROM entries WHERE name = 'frank'").fetchone()[0]
        recorded = "SELECT MIN(f.game) FROM faults f JOIN records r ON r.game = f.game"
        game = connection.execute(recorded).fetchone()[0]
    site = tmp_path / "site"
    export_site(frank_league, site)
    with served(frank_league) as base:
        for url in (
            (site / f"entry-{entry}.html").as_uri(),
            f"{base}/entry-{entry}.html",
            (site / f"game-{game}.html").as_uri(),
            f"{base}/game-{game}.html",
        ):
            page = chromium.new_page()
            try:
                page.goto(url)
                shown = page.locator("pre.traceback").first.inner_text()
                assert re.search(r'File "entries/\w+/frank.py", line 12, in decide', shown), shown
                assert "growth = keep.points / view.turn_points" in shown
                assert shown.rstrip().endswith("ZeroDivisionError: division by zero")
                assert "match.py" not in shown and str(frank_league.parent) not in page.content()
                assert "--isolate" in page.locator("code.replay").first.inner_text()
            finally:
                page.close()


def test_a_programs_faults_are_told_apart_by_the_error_its_reason_quotes() -> None:
    """errors.log groups faults by their traceback's shape; a program's last words have no Python
    frames, so its faults are grouped by their reason, as before they had a traceback."""
    from arena.tournaments.fault_log import fault_key

    def crash(error: str, line: int) -> tuple[str, str]:
        words = f"bot.js:{line}\n{error}\n    at decide (bot.js:{line}:5)\nNode.js v20.20.2"
        return f"the seat's process exited with status 1; its last words on stderr: {error}", words

    type_12 = crash("TypeError: x is not a function", 12)
    type_40 = crash("TypeError: x is not a function", 40)
    reference = crash("ReferenceError: y is not defined", 12)
    assert fault_key("bot", "error", *type_12) == fault_key("bot", "error", *type_40)
    assert fault_key("bot", "error", *type_12) != fault_key("bot", "error", *reference)
    # Python tracebacks and faults without one keep their keys.
    assert fault_key("bot", "illegal", "keep (2,) from (2, 3)", "") == fault_key(
        "bot", "illegal", "keep (4,) from (4, 3)", ""
    )


def test_a_tournaments_errors_log_keeps_a_crashed_programs_last_words(tmp_path: Path) -> None:
    bot = tmp_path / "crashy.py"
    bot.write_text(CRASHING_BOT)
    out = tmp_path / "run"
    players = ["-p", f"cmd:{sys.executable} {bot}", "-p", "greedy"]
    done = subprocess.run(
        [*ARENA, "tournament", *players, "--games", "2", "--rules", "standard", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    log = (out / "errors.log").read_text()
    assert "reason: the seat's process exited with status 1; its last words on stderr: TypeError: x is" in log
    assert "    at decide (crashy.js:12:5)\n\\x1b[2J\nNode.js v20.20.2\n" in log
    assert "(no traceback" not in log


def test_a_students_status_page_shows_their_own_frames_only(frank_league: Path) -> None:
    from arena.leagues.submit_pages import status_page

    with sqlite3.connect(league_db.database_path(frank_league)) as connection:
        connection.row_factory = sqlite3.Row
        page = status_page(connection, "frank")
    assert re.search(r"File &quot;entries/\w+/frank.py&quot;, line 12, in decide", page)
    assert "match.py" not in page and "host.py" not in page  # none of arena's frames
    assert str(frank_league.parent) not in page
