#!/usr/bin/env node
// A bot for arena in JavaScript (node, no packages), speaking the seat protocol: one JSON
// object per line on stdin, one reply per line on stdout (docs/protocol.md).
//
// It plays exactly like arena's built-in `greedy`, as greedy_bot.py does: keep as many dice as
// possible (the most points among those), never pass an exact target where a keep avoids it,
// and bank as soon as the rules allow.
//
//     arena tournament -p 'cmd:node strategies/external/greedy_bot.js' -p threshold --games 200
//
// Usage: greedy_bot.js [NAME]; NAME (default `greedy-js`) is the name it plays under.  The dice
// of a game derive from the players' names, so `greedy_bot.js greedy` gives exactly the games
// of the built-in `greedy` (tests/test_external_bots.py checks that).
//
// node needs about 800 MiB of address space to start (V8 reserves it up front): it starts under
// the default --seat-memory of 2048 MiB, not under 700.  Anything written to stderr goes to the
// run's seat-logs/ folder, never to the terminal.
"use strict";

const readline = require("node:readline");

const PROTOCOL = 1;
const name = process.argv[2] || "greedy-js";

// The reply to a `turn` message: which dice to keep, and whether to bank after them.
function decide(turn) {
  const keeps = turn.legal_keeps; // every legal keep, most points first
  // Under an exact target a keep that passes it forfeits the turn: avoid those if possible.
  const fitting = keeps.filter((k) => !k.overshoots);
  const safe = fitting.length > 0 ? fitting : keeps;
  let keep = safe[0];
  for (const k of safe) {
    // the first of the most dice, then the most points
    if (k.dice.length > keep.dice.length || (k.dice.length === keep.dice.length && k.points > keep.points)) {
      keep = k;
    }
  }
  return { type: "action", keep: keep.dice, bank: keep.bank_allowed && !keep.overshoots };
}

// The reply to one message from arena (null for `bye`: time to leave).
function answer(message) {
  switch (message.type) {
    case "hello":
      // arena's hello says protocol 1 (and lists every version it speaks in "protocols"):
      // this bot speaks 1, so it gets no turn_end messages.
      if (message.protocol !== PROTOCOL) {
        return { type: "error", reason: `this bot speaks protocol ${PROTOCOL}` };
      }
      return { type: "hello", protocol: PROTOCOL, name };
    case "game_start":
      return { type: "ready" }; // message.rules has the ruleset, message.seat our seat
    case "turn":
      return decide(message);
    case "game_end":
      return { type: "done" }; // message.scores, .winners, .ranks: how it went
    case "bye":
      return null;
    default:
      return { type: "error", reason: `unknown message type ${JSON.stringify(message.type)}` };
  }
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const reply = answer(JSON.parse(line));
  if (reply === null) {
    lines.close();
    return;
  }
  // Writes to a pipe are synchronous in node on Linux, so each reply leaves at once.
  process.stdout.write(JSON.stringify(reply) + "\n");
});
