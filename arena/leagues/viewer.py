"""The game viewer: a stored game's record (:mod:`arena.tournaments.event_records`) shown turn
by turn, with buttons to step back and forth.

The steps (a title, the lines of what happened, every seat's score after it) are made here in
Python from the stored events; the page's script only shows one step at a time, and puts every
string in with ``textContent``, never as markup.  The steps travel in a ``<script
type="application/json">`` whose ``<``, ``>`` and ``&`` are escaped, so no string an entry chose
can close that element.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

_REASONS = {"target": "the target was reached", "round_limit": "the round limit", "forfeit": "forfeit"}


def _dice(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


def _line(event: dict[str, Any], names: Sequence[str]) -> str:
    """One event as a line a person reads."""
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event else ""
    if kind == "turn_started":
        need = f", needs {event['bank_minimum']} to bank" if event["bank_minimum"] else ""
        playoff = " (playoff)" if event.get("playoff") else ""
        return f"{who} to play{playoff}: score {event['score']}{need}"
    if kind == "rolled":
        return f"rolled {_dice(event['dice'])}"
    if kind == "kept":
        left = event["dice_left"]
        dice = "die" if left == 1 else "dice"
        hot = "; every die scored: all of them again" if event["hot"] else f"; {left} {dice} to roll"
        return f"kept {_dice(event['dice'])} for {event['points']}: {event['turn_points']} this turn{hot}"
    if kind == "banked":
        return f"banked {event['points']}: score {event['score']}"
    if kind == "farkled":
        return f"no scoring dice: {event['lost']} points lost"
    if kind == "overshot":
        return f"past the exact target: {event['lost']} points lost"
    if kind == "struck":
        return f"missed the bar: strike {event['strikes']}"
    if kind == "struck_out":
        return f"struck out: the score of {event['lost']} goes back to 0"
    if kind == "farkle_penalty":
        return f"farkle penalty of {event['penalty']}: score {event['score']}"
    if kind == "final_round":
        return f"{who} reached {event['score']}: {event['turns_left']} turns left"
    if kind == "playoff_started":
        return "tie: a playoff turn each for " + ", ".join(names[s] for s in event["seats"])
    if kind == "game_over":
        winners = ", ".join(names[s] for s in event["winners"]) or "nobody"
        return f"game over ({_REASONS.get(event['reason'], event['reason'])}): {winners} won"
    if kind == "fault":
        return f"{who} is out: {event['status']}: {event['reason']}"
    return kind


def viewer_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps of a game: one per turn (from its ``turn_started``), one for what came before
    the first turn if anything did (a seat out from the start), and one for the end.  Each is
    ``{"title", "lines", "scores"}``, ``scores`` by seat after the step."""
    names: list[str] = record["players"]
    scores = [0] * len(names)
    playoff = False
    steps: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    turns = 0
    for event in record["events"]:
        kind = event["type"]
        if kind == "turn_started" or kind == "game_over" or current is None:
            if kind == "turn_started":
                turns += 1
                playoff = bool(event.get("playoff"))
                title = f"turn {turns}: {names[event['seat']]}"
            else:
                title = "the end" if kind == "game_over" else "before the first turn"
            current = {"title": title, "lines": [], "scores": scores}
            steps.append(current)
        current["lines"].append(_line(event, names))
        scores = list(scores)
        if kind in ("banked", "farkle_penalty") and not playoff:
            scores[event["seat"]] = event["score"]
        elif kind == "struck_out":
            scores[event["seat"]] = 0
        elif kind == "game_over":
            scores = list(event["scores"])
        current["scores"] = scores
    return steps


def _script_json(value: object) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


_SCRIPT = """
const steps = JSON.parse(document.getElementById("steps").textContent);
let at = 0;
function show() {
  const step = steps[at];
  document.getElementById("step").textContent = `step ${at + 1} of ${steps.length}: ${step.title}`;
  const lines = document.getElementById("lines");
  lines.replaceChildren(...step.lines.map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
  step.scores.forEach((score, seat) => {
    document.getElementById(`score-${seat}`).textContent = score;
  });
  document.getElementById("previous").disabled = at === 0;
  document.getElementById("next").disabled = at === steps.length - 1;
}
document.getElementById("previous").onclick = () => { if (at > 0) { at -= 1; show(); } };
document.getElementById("next").onclick = () => { if (at < steps.length - 1) { at += 1; show(); } };
document.getElementById("first").onclick = () => { at = 0; show(); };
document.getElementById("last").onclick = () => { at = steps.length - 1; show(); };
show();
"""


def viewer_body(record: dict[str, Any], heading: str) -> str:
    """The viewer's HTML body for one game's record."""
    names = record["players"]
    seats = "".join(
        f'<tr><td>{seat}</td><td class="name">{html.escape(name)}</td><td id="score-{seat}">0</td></tr>'
        for seat, name in enumerate(names)
    )
    return (
        f"<h1>{html.escape(heading)}</h1>"
        '<p><button id="first">first</button> <button id="previous">previous turn</button> '
        '<button id="next">next turn</button> <button id="last">last</button></p>'
        '<p id="step"></p><ul id="lines"></ul>'
        f'<table id="scores"><tr><th>seat</th><th>player</th><th>score</th></tr>{seats}</table>'
        f'<script type="application/json" id="steps">{_script_json(viewer_steps(record))}</script>'
        f"<script>{_SCRIPT}</script>"
    )
