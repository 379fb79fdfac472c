"""``arena strategies list``: every strategy that can play, with the parameters its spec may set;
``arena strategies new``: a starting point to write one."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli.output import fail, json_text, say, stdout_for_json
from arena.players import available_strategies

PARAMETERS_NOTE = (
    "Set parameters after the spec, NAME=VALUE separated by commas: -p threshold:bank_at=400,min_dice=2, "
    "-p mybots/steady.py:bank_at=500 (a file's parameters are its class's __init__ arguments)."
)


@click.group("strategies")
def strategies_group() -> None:
    """List the strategies that can play, or start a new one."""


@strategies_group.command("list")
@click.option(
    "--path",
    "paths",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FOLDER",
    help="Also list the Player classes in this folder's *.py files; repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def strategies_list(paths: tuple[Path, ...], as_json: bool) -> None:
    """Built-in strategies, installed plugins, and the Player classes in ./strategies/ and in each
    --path folder, each with the parameters its spec may set: their types and defaults.

    A file's strategy is listed as path/to/file.py:Class; use that (or the path alone, for a file
    with one Player class) after -p.
    """
    for path in paths:
        if not path.is_dir():
            fail(f"--path {path}: {'not a folder' if path.exists() else 'no such folder'}")
    if as_json:
        # Listing imports the files: what one prints at import goes to stderr, not into the JSON.
        with stdout_for_json() as out:
            found = available_strategies(extra=paths)
            listed = [
                {
                    "spec": a.spec,
                    "source": a.source,
                    "description": a.description,
                    "parameters": [p.as_json() for p in a.parameters],
                }
                for a in found
            ]
            print(json_text(listed), file=out)
        return
    found = available_strategies(extra=paths)
    width = max(len(a.spec) for a in found)
    for a in found:
        say(f"{a.spec:<{width}}  {a.source:<8}  {a.description}")
        if a.parameters:
            say(f"{'':<{width}}  {'':<8}  parameters: " + ", ".join(p.shown() for p in a.parameters))
    say(f"\n{PARAMETERS_NOTE}")


#: What ``arena strategies new`` writes for each language: the template in
#: arena/players/templates/ and how to play the new file.
TEMPLATES = {
    "python": ("template.py", "arena play -p {file} -p greedy --seed 1"),
    "python-cmd": ("greedy_bot.py", "arena play -p 'cmd:python3 {file}' -p greedy --seed 1"),
    "node": ("greedy_bot.js", "arena play -p 'cmd:node {file}' -p greedy --seed 1"),
    "c": ("threshold_bot.c", "cc -O2 -o {stem} {file} && arena play -p 'cmd:./{stem}' -p greedy --seed 1"),
}
TEMPLATE_FOLDER = Path(__file__).resolve().parent.parent / "players" / "templates"
#: The name each template plays under as shipped.  ``strategies new`` replaces it with one made
#: from the new file's name, so that two bots started from one template can enter one league
#: (which refuses a second entrant of the same name) and results show which bot played.
TEMPLATE_NAMES = {"python": "template", "python-cmd": "greedy-bot", "node": "greedy-js", "c": "threshold-bot"}


@strategies_group.command("new")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--lang",
    type=click.Choice(sorted(TEMPLATES)),
    default="python",
    show_default=True,
    help="python: a strategy class with parameters, every field of the view explained; python-cmd, "
    "node or c: a cmd: bot speaking the seat protocol (docs/protocol.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the file, its language, how to play it).")
def strategies_new(file: Path, lang: str, as_json: bool) -> None:
    """Write a commented starting point to FILE that runs as written (FILE must not exist)."""
    name, play = TEMPLATES[lang]
    text = named_template((TEMPLATE_FOLDER / name).read_text(encoding="utf-8"), lang, _strategy_name(file))
    try:
        with open(file, "x", encoding="utf-8") as out:  # "x": never over an existing file
            out.write(text)
    except FileExistsError:
        fail(f"{file} exists: give a new file's name (nothing is overwritten)")
    except OSError as exc:
        fail(f"cannot write {file}: {exc.strerror or exc}")
    command = play.format(file=file, stem=file.with_suffix(""))
    if as_json:
        say(json_text({"file": str(file), "lang": lang, "play": command}))
        return
    say(f"wrote {file} ({lang}); try it:\n  {command}")


def named_template(text: str, lang: str, name: str) -> str:
    """The template ``text`` of ``lang`` playing under ``name`` instead of its shipped name
    (:data:`TEMPLATE_NAMES`): a Python strategy's ``name`` attribute; a ``cmd:`` bot's default
    name, where its code sets it and where its usage line names it (a name given on its command
    line still wins).  ``name`` holds letters, digits, - and _ only, so it needs no escaping in
    a string of any of the languages."""
    shipped = TEMPLATE_NAMES[lang]
    if lang == "python":  # "template" is a word of its comments too: only the attribute changes
        return text.replace(f'    name = "{shipped}"\n', f'    name = "{name}"\n', 1)
    return text.replace(shipped, name)


def _strategy_name(file: Path) -> str:
    """A name for the new strategy from its file's name: letters, digits, - and _ only."""
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in file.stem).strip("-_")
    return name or "my-strategy"
