"""Issue 28: ``arena strategies new`` writes a starting point that runs as written, in Python,
JavaScript or C, never over an existing file; ``arena --version`` names the distribution."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.cli.strategies_command import TEMPLATE_FOLDER, TEMPLATES

ROOT = Path(__file__).resolve().parent.parent


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


def test_the_python_template_plays_as_written_under_its_files_name(tmp_path: Path) -> None:
    bot = tmp_path / "steady bot.py"
    made = invoke("strategies", "new", str(bot))
    assert made.exit_code == 0, made.output
    assert f"arena play -p {bot} -p greedy --seed 1" in made.output
    played = invoke(
        "tournament", "-p", f"{bot}:bank_at=500", "-p", "greedy", "--games", "4", "--rules", "standard",
        "--out", str(tmp_path / "run"), "--no-progress",
    )  # fmt: skip
    assert played.exit_code == 0, played.output
    rows = (tmp_path / "run" / "games.csv").read_text()
    assert "steady-bot:bank_at=500" in rows and ",error," not in rows


def test_an_existing_file_is_never_overwritten(tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text("# my own work\n")
    refused = invoke("strategies", "new", str(bot))
    assert refused.exit_code == 2
    message = f"arena: error: {bot} exists: give a new file's name (nothing is overwritten)"
    assert refused.output.strip().splitlines()[-1] == message
    assert bot.read_text() == "# my own work\n"
    assert invoke("strategies", "new", str(tmp_path / "no" / "such" / "folder.py")).exit_code == 2


@pytest.mark.parametrize("lang", ["c", "node", "python-cmd"])
def test_a_bot_in_another_language_speaks_the_protocol_as_written(tmp_path: Path, lang: str) -> None:
    source = tmp_path / {"c": "bot.c", "node": "bot.js", "python-cmd": "bot.py"}[lang]
    made = invoke("strategies", "new", str(source), "--lang", lang)
    assert made.exit_code == 0, made.output
    if lang == "c":
        compiler = shutil.which("cc")
        if compiler is None:
            pytest.skip("no C compiler")
        subprocess.run([compiler, "-O2", "-o", str(tmp_path / "bot"), str(source)], check=True)
        player = f"cmd:{tmp_path / 'bot'}"
    elif lang == "node":
        if shutil.which("node") is None:
            pytest.skip("no node")
        player = f"cmd:node {source}"
    else:
        player = f"cmd:{sys.executable} {source}"
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "-p", player, "-p", "greedy", "--games", "4",
         "--rules", "standard", "--out", str(tmp_path / "run"), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert ",error," not in (tmp_path / "run" / "games.csv").read_text()


def test_the_checkouts_examples_are_the_templates_a_wheel_ships() -> None:
    """strategies/template.py and strategies/external/ are what `strategies new` writes, byte
    for byte (real files: an isolated seat sees an entry's files where they are, not through a
    link), so the checkout's examples and the installed templates can't drift apart."""
    for name, _ in TEMPLATES.values():
        assert (TEMPLATE_FOLDER / name).is_file()
    examples = [ROOT / "strategies" / "template.py", *sorted((ROOT / "strategies" / "external").iterdir())]
    assert {p.name for p in examples} == {p.name for p in TEMPLATE_FOLDER.iterdir()}
    for path in examples:
        assert not path.is_symlink()
        assert path.read_bytes() == (TEMPLATE_FOLDER / path.name).read_bytes(), path


def test_new_says_in_json_how_to_play_what_it_wrote(tmp_path: Path) -> None:
    import json

    result = invoke("strategies", "new", str(tmp_path / "b.js"), "--lang", "node", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output) == {
        "file": str(tmp_path / "b.js"),
        "lang": "node",
        "play": f"arena play -p 'cmd:node {tmp_path / 'b.js'}' -p greedy --seed 1",
    }


def test_the_version_names_the_distribution() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and result.output.startswith("arena (zehntausend-arena) ")
