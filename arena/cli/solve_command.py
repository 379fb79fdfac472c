"""``arena solve``: what the solvers know, for one turn (``optimal``) or the whole game (``perfect``)."""

from __future__ import annotations

import time

import click

from arena.cli.output import echo_json, fail
from arena.cli.rules_commands import RULES_HELP, resolve_rules
from arena.engine import Ruleset
from arena.engine.rules import POINT_STEP


@click.command("solve")
@click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)
@click.option(
    "--win",
    is_flag=True,
    help="Solve the whole two-player game for the chance of winning (what perfect plays by), "
    "not one turn for points.",
)
@click.option(
    "--at",
    "at_text",
    default=None,
    metavar="SCORES",
    help="With --win: the scores of the table of win chances, comma-separated "
    "[default: 0 and a quarter, half, three quarters and 9/10 of the target].",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def solve_command(rules_name: str, win: bool, at_text: str | None, as_json: bool) -> None:
    """What the optimal-turn solver knows: expected points of one turn under optimal play with no
    minimum to bank, and the turn total at which it banks, by dice left to roll.  With --win: the
    first player's chance of winning under perfect play by both, and a table of win chances."""
    rules = resolve_rules(rules_name)
    if win:
        _solve_win(rules, at_text, as_json)
    else:
        if at_text is not None:
            fail("--at goes with --win")
        _solve_turn(rules, as_json)


def _solve_turn(rules: Ruleset, as_json: bool) -> None:
    from arena.players.solver import solve_turn

    solution = solve_turn(rules)
    # The solver maximises points with no target; a threshold past the target never applies in a
    # game (the turn reaches the target first), so it is not shown: that many dice roll on to it.
    table = {n: solution.bank_threshold(n) for n in range(1, rules.dice + 1)}
    table = {n: None if t is not None and t > rules.target else t for n, t in table.items()}
    if as_json:
        echo_json(
            {
                "rules": rules.name,
                "expected_turn_points": round(solution.expected_turn_points, 4),
                "bank_at": {str(n): t for n, t in table.items()},
            }
        )
        return
    click.echo(f"Optimal play of one turn under {rules.name}, with no minimum to bank")
    click.echo(f"expected points per turn: {solution.expected_turn_points:.2f}")
    click.echo("banks once the turn total reaches, by dice left to roll:")
    for n, t in table.items():
        note = "  (after hot dice)" if n == rules.dice else ""
        shown = f"never below the target of {rules.target:,}" if t is None else f"{t:,}"
        click.echo(f"  {n} {'die ' if n == 1 else 'dice'}  {shown:>7}{note}")


def _scores(rules: Ruleset, at_text: str | None) -> list[int]:
    if at_text is None:
        target = rules.target
        return [0] + [target * k // 20 // POINT_STEP * POINT_STEP for k in (5, 10, 15, 18)]
    scores = []
    for part in at_text.split(","):
        try:
            score = int(part.strip())
        except ValueError:
            fail(f"--at: {part.strip()!r} is not a whole number of points")
        if score < 0 or score >= rules.target or score % POINT_STEP:
            fail(
                f"--at: {score} must be a multiple of {POINT_STEP}, from 0 to below the target {rules.target}"
            )
        if 0 < score < rules.entry_threshold and not rules.has_farkle_penalty():
            # Under a penalty an entered player can fall below it (docs/rules.md, reading 6).
            fail(f"--at: {score} is below the entry threshold {rules.entry_threshold}: no player has it")
        if score in scores:
            fail(f"--at: {score} is given twice")
        scores.append(score)
    return scores


def _position_note(rules: Ruleset) -> str | None:
    """What the table's positions assume beyond the two scores, under a farkle penalty."""
    if not rules.has_farkle_penalty():
        return None
    entry = "; 0 points means not entered yet" if rules.has_entry() else ""
    return f"positions with no farkles in a row{entry}"


def _solve_win(rules: Ruleset, at_text: str | None, as_json: bool) -> None:
    from arena.perfect import stored_table, why_not_perfect
    from arena.perfect.store import PACKAGE_TABLES, win_table

    why = why_not_perfect(rules, 2)
    if why:
        fail(f"perfect {why}")
    scores = _scores(rules, at_text)
    started = time.perf_counter()
    found = stored_table(rules)
    if found is not None:
        table, path = found
        source = "shipped with arena" if path.parent == PACKAGE_TABLES else f"cached in {path}"
    else:
        table = win_table(rules)
        source = "solved now"
    elapsed = time.perf_counter() - started
    note = _position_note(rules)
    seats = table.win.shape[0]
    names = ("the first player (seat 0)", "the second player (seat 1)")
    grids = {
        f"seat_{seat}_to_move": [[table.chance(own, opp, seat) for opp in scores] for own in scores]
        for seat in range(seats)
    }
    if as_json:
        echo_json(
            {
                "rules": rules.name,
                "first_player_win": round(table.first_player_win, 6),
                "convergence_error": table.residual,
                "solve_seconds": round(table.seconds, 3),
                "solved_with": table.solved_with,
                "seconds": round(elapsed, 3),
                "source": source,
                "scores": scores,
                **({"note": note} if note else {}),
                "win_chance": {
                    key: [[round(c, 4) for c in row] for row in grid] for key, grid in grids.items()
                },
            }
        )
        return
    click.echo(f"Perfect play under {rules.name}, two players, both playing perfectly")
    click.echo(f"first player's chance of winning: {100 * table.first_player_win:.2f} %")
    click.echo(
        f"convergence error: {table.residual:.1e} (the most a further iteration would change "
        "any position's chance)"
    )
    click.echo(f"time: {elapsed:.2f} s ({source}; solved in {table.seconds:.1f} s with {table.solved_with})")
    if note:
        click.echo(note)
    for seat, grid in enumerate(grids.values()):
        label = names[seat] if seats == 2 else "the player (either seat)"
        click.echo(f"chance of winning, %, for {label} to move: own score down, the opponent's across")
        click.echo("  " + " " * 7 + "".join(f"{s:>8,}" for s in scores))
        for own, row in zip(scores, grid, strict=True):
            click.echo(f"  {own:>7,}" + "".join(f"{100 * c:>8.1f}" for c in row))
