"""The ``arena`` command: entry point registered in pyproject.toml."""

from __future__ import annotations

import sys

import click

from arena.cli.duel_command import duel_command
from arena.cli.league_command import league_group
from arena.cli.player_commands import play_command
from arena.cli.report_commands import compare_command, report_command
from arena.cli.rules_commands import odds_command, rules_group, score_command
from arena.cli.solve_command import solve_command
from arena.cli.strategies_command import strategies_group
from arena.cli.tournament_command import tournament_command
from arena.cli.tune_command import tune_command
from arena.distribution import DISTRIBUTION


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name=DISTRIBUTION, message="arena (%(package)s) %(version)s")
def cli() -> None:
    """Write bots for the dice game 10,000 and pit them against each other."""
    click.get_current_context().call_on_close(_release_folders)


def _release_folders() -> None:
    """Drop the locks of the run folders the command wrote, once it is done (however it
    ended): the process may go on (a test's CliRunner, a script calling the command)."""
    lock = sys.modules.get("arena.tournaments.folder_lock")  # not imported: nothing held
    if lock is not None:
        lock.release_all()


cli.add_command(tournament_command)
cli.add_command(duel_command)
cli.add_command(report_command)
cli.add_command(compare_command)
cli.add_command(rules_group)
cli.add_command(score_command)
cli.add_command(odds_command)
cli.add_command(strategies_group)
cli.add_command(solve_command)
cli.add_command(tune_command)
cli.add_command(play_command)
cli.add_command(league_group)
