"""``arena rules list|show``, ``arena score`` and ``arena odds``: the rules engine on the command line."""

from __future__ import annotations

import click

from arena.cli.output import echo_json, fail
from arena.engine import PRESETS, Ruleset, RulesetError, load_ruleset, score_table
from arena.engine.loading import variant_names
from arena.engine.presets import rule_document
from arena.engine.rules import rule_docs
from arena.engine.scoring import explain, non_scoring_dice

RULES_HELP = (
    "A preset (standard, short, classic), a variant (house, exact-target, ...: arena rules list) "
    "or a TOML file that extends a preset."
)


def resolve_rules(name: str) -> Ruleset:
    """The ruleset a user named, or a one-line error."""
    try:
        return load_ruleset(name)
    except RulesetError as exc:
        fail(str(exc))


@click.group("rules")
def rules_group() -> None:
    """List the rulesets and show every rule of one."""


@rules_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def rules_list(as_json: bool) -> None:
    """List the presets (the three rule documents) and the variants of 002 arena ships: each
    plays by its name, with --rules NAME."""
    listed = [("preset", rules) for rules in PRESETS.values()]
    listed += [("variant", load_ruleset(name)) for name in variant_names()]
    if as_json:
        echo_json(
            [
                {"name": r.name, "kind": kind, "document": rule_document(r), "description": r.description}
                for kind, r in listed
            ]
        )
        return
    width = max(len(r.name) for _, r in listed)
    for kind, rules in listed:
        click.echo(f"{rules.name:<{width}}  {kind:<7}  {rules.description}")


@rules_group.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def rules_show(name: str, as_json: bool) -> None:
    """Show every rule value of a preset or a TOML ruleset file."""
    rules = resolve_rules(name)
    values = rules.as_dict()
    if as_json:
        echo_json(values)
        return
    docs = rule_docs()
    click.echo(f"{rules.name}: {rules.description}")
    width = max(len(k) for k in values)
    for key, value in values.items():
        if key in ("name", "description"):
            continue
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        click.echo(f"  {key:<{width}}  {shown:<13}  {docs[key]}")


@click.command("score")
@click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.argument("dice", nargs=-1, required=True, type=int)
def score_command(rules_name: str, as_json: bool, dice: tuple[int, ...]) -> None:
    """Points of keeping exactly DICE from one roll, e.g. `arena score 1 1 1 5`.

    Exits with status 1, saying why, when the selection is not a legal keep.
    """
    rules = resolve_rules(rules_name)
    try:
        reading = explain(dice, rules)
    except ValueError as exc:
        fail(str(exc))
    points = None if reading is None else sum(p for _, p in reading)
    if as_json:
        echo_json(
            {
                "rules": rules.name,
                "dice": list(dice),
                "points": points,
                "legal": points is not None,
                "reading": [{"part": label, "points": p} for label, p in reading or ()],
            }
        )
    elif reading is not None:
        parts = " + ".join(f"{label} {p}" for label, p in reading) if len(reading) > 1 else reading[0][0]
        click.echo(f"{points}  ({parts})")
    if reading is None:
        dead = non_scoring_dice(dice, rules)
        why = dead_dice_text(dice, dead) if dead else "not every die scores"
        if not as_json:
            click.echo(
                f"arena: {' '.join(map(str, dice))} is not a legal keep under {rules.name}: {why}; "
                "every kept die must score",
                err=True,
            )
        raise SystemExit(1)


COUNT_WORDS = ("", "one", "two", "three", "four", "five", "six")


def dead_dice_text(dice: tuple[int, ...], dead: tuple[int, ...]) -> str:
    """``3 scores nothing``, ``3, 4 and 6 score nothing``, ``two 2s score nothing``: the dice of
    the faces in ``dead``, with the verb agreeing with how many dice that is."""
    counts = [dice.count(face) for face in dead]
    parts = [
        str(face) if n == 1 else f"{COUNT_WORDS[n] if n < len(COUNT_WORDS) else n} {face}s"
        for face, n in zip(dead, counts, strict=True)
    ]
    named = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{named} {'scores' if sum(counts) == 1 else 'score'} nothing"


@click.command("odds")
@click.option("--rules", "rules_name", default="standard", show_default=True, help=RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def odds_command(rules_name: str, as_json: bool) -> None:
    """The chance of a farkle for each number of dice in the cup, counted over every roll."""
    rules = resolve_rules(rules_name)
    table = score_table(rules)
    rows = [
        (n, table.farkle_rolls[n], 6**n, float(table.farkle_probability(n))) for n in range(1, rules.dice + 1)
    ]
    if as_json:
        echo_json(
            {
                "rules": rules.name,
                "odds": [{"dice": n, "farkles": f, "rolls": t, "probability": p} for n, f, t, p in rows],
            }
        )
        return
    click.echo(f"Farkle odds under {rules.name} (every roll counted)")
    click.echo("dice   farkles / rolls    chance")
    for n, farkles, total, p in rows:
        click.echo(f"{n:>4}  {farkles:>8,} / {total:<8,} {p * 100:5.1f} %")
