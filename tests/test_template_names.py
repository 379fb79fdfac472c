"""Issue 39, point 6: `arena strategies new` names the bot of every language after its file, so
two students who start from the same template both enter one league (which refuses a second
entrant of the same name)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.cli.strategies_command import TEMPLATE_FOLDER, TEMPLATE_NAMES, TEMPLATES
from arena.leagues import League

SOURCES = {"python": ".py", "python-cmd": ".py", "node": ".js", "c": ".c"}


def student_bot(folder: Path, student: str, lang: str) -> str:
    """The student's bot, written by `strategies new` from the template of ``lang`` (and built,
    for C): the spec a league adds."""
    source = folder / f"{student}{SOURCES[lang]}"
    made = CliRunner().invoke(cli, ["strategies", "new", str(source), "--lang", lang])
    assert made.exit_code == 0, made.output
    if lang == "python":
        return str(source)
    if lang == "python-cmd":
        return f"cmd:{sys.executable} {source}"
    if lang == "node":
        return f"cmd:node {source}"
    program = folder / student
    subprocess.run(["cc", "-O2", "-o", str(program), str(source)], check=True)
    return f"cmd:{program}"


@pytest.mark.parametrize("lang", sorted(TEMPLATES))
def test_two_students_start_from_one_template_and_both_enter_a_league(tmp_path: Path, lang: str) -> None:
    needed = {"node": "node", "c": "cc"}.get(lang)
    if needed is not None and shutil.which(needed) is None:
        pytest.skip(f"no {needed}")
    league = League.create(tmp_path / "league", games=2, seed=4)
    for student in ("alice_bot", "bob-bot"):
        entry, status = league.add_entry(student_bot(tmp_path, student, lang))
        assert (entry.name, status) == (student, "added")
    assert league.run(trusted=True, progress=False).played == 2
    table = league.table_json()
    assert sorted(e["name"] for e in table["entries"]) == ["alice_bot", "bob-bot"]
    assert all(e["games"] == 2 and e["faults"] == 0 for e in table["entries"])


@pytest.mark.parametrize("lang", sorted(TEMPLATES))
def test_no_trace_of_the_shipped_name_is_left_in_a_cmd_bot(tmp_path: Path, lang: str) -> None:
    """A bot's usage line says the name it plays under, as its code does; a Python strategy
    changes only its name attribute (its comments use "template" as a word)."""
    file, _ = TEMPLATES[lang]
    shipped = TEMPLATE_NAMES[lang]
    assert f'"{shipped}"' in (TEMPLATE_FOLDER / file).read_text(encoding="utf-8")
    written = tmp_path / f"zoë{SOURCES[lang]}"
    assert CliRunner().invoke(cli, ["strategies", "new", str(written), "--lang", lang]).exit_code == 0
    text = written.read_text(encoding="utf-8")
    assert f'"{shipped}"' not in text and '"zoë"' in text
    if lang != "python":
        assert shipped not in text and "(default `zoë`)" in text.replace("``", "`")
