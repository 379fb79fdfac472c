"""``arena strategies list``: every strategy that can play, with the parameters its spec may set."""

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
    """List the strategies that can play."""


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
