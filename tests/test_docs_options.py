"""Every option the README and the docs name on an arena command exists on that command.

A page that says ``arena tournament --plot`` when ``--plot`` is ``arena report``'s sends a reader
to an error (issue 39, point 10).  Each command line a page shows (a ``$ arena ...`` line of a
code block, a line of a shell block, or an inline ```arena ...``` span) is walked down arena's
command tree (``arena league run``: the group ``league``, its command ``run``), and every
``--option`` after it must be one of that command's options (or ``--help``)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from arena.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: Where a shell command ends: what follows is another command (or a file).
ENDS = {"|", "||", "&&", ";", ">", ">>", "2>", "2>&1", "<", "&"}
_INLINE = re.compile(r"``?(arena [^`]+)``?")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(\w*)")


def command_lines(page: Path) -> Iterator[tuple[int, str]]:
    """(line number, command text) of each arena command the page shows."""
    in_block = False
    fence = ""
    pending = ""
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        opening = _FENCE.match(line)
        if opening and (not in_block or line.strip().startswith(fence)):
            in_block, fence = (not in_block), opening.group(1)
            continue
        if in_block:
            text = pending + line.strip()
            pending = ""
            if text.endswith("\\"):
                pending = text[:-1] + " "
                continue
            text = text.removeprefix("$ ")
            if text.startswith("arena "):
                yield number, text
            else:  # `cd x && arena ...`
                for part in re.split(r"&&|;|\|", text)[1:]:
                    if part.strip().startswith("arena "):
                        yield number, part.strip()
        else:
            for found in _INLINE.finditer(line):
                yield number, found.group(1)


def words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:  # an unclosed quote in prose
        return text.split()


def options_of(command: click.Command) -> set[str]:
    names = {"--help"}
    for parameter in command.params:
        names.update(n for n in (*parameter.opts, *parameter.secondary_opts) if n.startswith("--"))
    return names


def unknown_options(text: str) -> tuple[str, list[str]]:
    """The command path a line names, and the options it gives that the command lacks."""
    tokens = words(text)[1:]
    command: click.Command = cli
    path = ["arena"]
    context = click.Context(cli)
    at = 0
    while isinstance(command, click.Group) and at < len(tokens):
        sub = command.get_command(context, tokens[at])
        if sub is None:
            break
        command, at = sub, at + 1
        path.append(command.name or "")
    known = options_of(command)
    unknown = []
    for token in tokens[at:]:
        if token in ENDS or token.startswith((">", "|")):
            break
        if token.startswith("--") and len(token) > 2:
            name = token.split("=", 1)[0]
            if name not in known and not isinstance(command, click.Group):
                unknown.append(name)
    return " ".join(path), unknown


def named_commands() -> list[tuple[str, int, str]]:
    return [(str(page.relative_to(ROOT)), n, text) for page in PAGES for n, text in command_lines(page)]


def test_the_pages_name_many_arena_commands() -> None:
    assert len(named_commands()) > 200


def test_every_option_a_page_names_exists_on_its_command() -> None:
    wrong = []
    for page, number, text in named_commands():
        path, unknown = unknown_options(text)
        if unknown:
            wrong.append(f"{page}:{number}: {path} has no {', '.join(unknown)} ({text!r})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("arena tournament --plot", ("arena tournament", ["--plot"])),
        ("arena report results/x --plot", ("arena report", [])),
        ("arena league run DIR --move-timeout 2 | tail", ("arena league run", [])),
        ("arena play --isolate -p a.py --seed=3", ("arena play", [])),
        ("arena league serve DIR --prot 80", ("arena league serve", ["--prot"])),
    ],
)
def test_a_command_line_is_walked_down_the_command_tree(text: str, expected: tuple[str, list[str]]) -> None:
    assert unknown_options(text) == expected
