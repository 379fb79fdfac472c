"""``arena league tokens FOLDER NAME...``: a submission token per student, printed once
(docs/league.md, "Submissions")."""

from __future__ import annotations

import click

from arena.cli.output import echo_json, fail, say


@click.command("tokens")
@click.argument("folder")
@click.argument("names", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="The tokens as one JSON object, name to token.")
def tokens_command(folder: str, names: tuple[str, ...], as_json: bool) -> None:
    """Issue a token to each NAME for `league serve --submit` (a name's old token stops working).

    Each token is printed once: the league keeps only its hash."""
    from pathlib import Path

    from arena.leagues.tokens import TokenRefused, issue_tokens
    from arena.storage import league_db

    click.get_current_context().meta["arena_league_folder"] = folder  # the group's one line for SQLite
    try:
        connection = league_db.open_league(Path(folder))
    except league_db.LeagueDatabaseError as exc:
        fail(str(exc), 1)
    try:
        issued = issue_tokens(connection, list(names))
    except TokenRefused as exc:
        fail(str(exc), 1)
    finally:
        connection.close()
    if as_json:
        echo_json(dict(issued))
        return
    width = max(len(name) for name, _ in issued)
    for name, token in issued:
        say(f"{name:<{width}}  {token}")
    say(
        "each token is shown only now: hand it to its student (issuing a name again replaces its token)",
        err=True,
    )
