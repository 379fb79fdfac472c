"""``python -m arena.cli``: the same as the ``arena`` command."""

from arena.cli.main import cli

cli(prog_name="arena")
