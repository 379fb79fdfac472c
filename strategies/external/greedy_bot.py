#!/usr/bin/env python3
"""A bot for arena in plain Python 3 (standard library only), speaking the seat protocol:
one JSON object per line on stdin, one reply per line on stdout (docs/protocol.md).

It plays exactly like arena's built-in ``greedy``: keep as many dice as possible (the most
points among those), never pass an exact target where a keep avoids it, and bank as soon as
the rules allow.  Copy it and change ``decide`` to write your own bot:

    arena tournament -p 'cmd:python3 strategies/external/greedy_bot.py' -p threshold --games 200

Usage: greedy_bot.py [NAME]; NAME (default ``greedy-bot``) is the name it plays under.  The
dice of a game derive from the players' names, so running it as ``greedy_bot.py greedy``
gives exactly the games of the built-in ``greedy`` (tests/test_external_bots.py checks that).

Anything written to stderr goes to the run's ``seat-logs/`` folder, never to the terminal.
"""

from __future__ import annotations

import json
import sys

PROTOCOL = 2  # 2: arena also says how every turn ended (turn_end)


def decide(turn: dict) -> dict:
    """The reply to a ``turn`` message: which dice to keep, and whether to bank after them."""
    keeps = turn["legal_keeps"]  # every legal keep, most points first
    # Under an exact target a keep that passes it forfeits the turn: avoid those if possible.
    safe = [k for k in keeps if not k["overshoots"]] or keeps
    keep = max(safe, key=lambda k: (len(k["dice"]), k["points"]))  # the first of the best
    bank = keep["bank_allowed"] and not keep["overshoots"]
    return {"type": "action", "keep": keep["dice"], "bank": bank}


def answer(message: dict, name: str) -> dict | None:
    """The reply to one message from arena (None for ``bye``: time to leave)."""
    kind = message["type"]
    if kind == "hello":
        # arena lists every version it speaks; its "protocol" stays 1 for bots of version 1.
        if PROTOCOL not in message.get("protocols", [message["protocol"]]):
            return {"type": "error", "reason": f"this bot speaks protocol {PROTOCOL}"}
        return {"type": "hello", "protocol": PROTOCOL, "name": name}
    if kind == "game_start":
        return {"type": "ready"}  # message["rules"] has the ruleset, message["seat"] our seat
    if kind == "turn":
        return decide(message)
    if kind == "turn_end":
        # Every seat's turns, ours too: message["how"] is banked, farkled or forfeited, with its
        # "points" and the "scores" after it.  A bot that keeps a history keeps it here.
        return {"type": "ok"}
    if kind == "game_end":
        return {"type": "done"}  # message["scores"], ["winners"], ["ranks"]: how it went
    if kind == "bye":
        return None
    return {"type": "error", "reason": f"unknown message type {kind!r}"}


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "greedy-bot"
    for line in sys.stdin:
        reply = answer(json.loads(line), name)
        if reply is None:
            break
        print(json.dumps(reply), flush=True)  # flush: arena waits for each reply


if __name__ == "__main__":
    main()
