"""The seat protocol, version 2: JSON lines between arena and a seat process.

Every message is one JSON object on one line, ended by ``\\n``, with a ``type``.  arena writes
to the seat's stdin and reads one reply per message from its stdout (``docs/protocol.md`` has
the full description and an example exchange)::

    arena -> seat                                     seat -> arena
    hello      {protocol, protocols, move_timeout,    hello  {protocol, name}
                random_seed}
    game_start {seat, n_players, names, rules,        ready
                strategy_seed}
    turn       {the fields of TurnView but rules}     action {keep, bank}
    turn_end   {the fields of TurnEnd}                ok      (version 2)
    game_end   {the fields of GameResult}             done
    bye                                               (no reply: the seat exits)

Version 2 added ``turn_end``: after every turn of every seat, how it ended.  arena's hello
keeps ``"protocol": 1`` (what a bot written for version 1 checks, so it still loads) and lists
every version it speaks in ``protocols``; a seat answers with the version it speaks.  A seat that
answers 2 gets the turn ends, unless its hello says ``"turn_ends": false``; one that answers 1
plays as before and never gets one.

Instead of any reply, a seat may answer ``error`` (with a ``reason``): it loses the game.
arena's own host for Python strategies also answers ``timeout`` (its watchdog stopped a
decision at the deadline) and ``illegal`` (the strategy returned something that is not an
action), and adds details to its hello.

This module encodes arena's side and decodes the replies (the parent), and the reverse for
arena's host; the turn message is built by hand, since it is sent once per decision.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from arena.engine import Action, GameResult, Ruleset, TurnEnd, TurnView
from arena.engine.scoring import Keep, score_table, why_not_legal
from arena.engine.view import bank_not_bool, not_an_action, short_repr

if TYPE_CHECKING:
    import msgspec

#: The newest version arena speaks.
PROTOCOL_VERSION = 2
#: The versions a seat may answer hello with: 1 (no turn_end messages) or 2.
PROTOCOL_VERSIONS = (1, 2)
#: What arena's hello says in ``protocol``: the first version, which every bot accepts.
HELLO_PROTOCOL = 1
#: The longest line either side accepts (bytes).
MAX_LINE = 1 << 20
#: The deepest a message may nest lists and objects (the deepest message of protocol 1 nests 3).
MAX_DEPTH = 16


class ProtocolError(ValueError):
    """A message that breaks the protocol; the text says how, in one line."""


@cache
def _msgspec() -> tuple[msgspec.json.Encoder, msgspec.json.Decoder]:
    """The JSON encoder and decoder, made on first use: the CLI imports this module for every
    command, and only seat processes and their parents speak the protocol."""
    import msgspec

    return msgspec.json.Encoder(enc_hook=short_repr), msgspec.json.Decoder()  # enc_hook: repr of the rest


@cache
def _turn_decoder() -> msgspec.json.Decoder:
    """A decoder of ``turn`` messages straight into the types arena sends (made on first use,
    as :func:`_msgspec`); unknown fields, such as ``legal_keeps``, are skipped."""
    import msgspec

    ints, flags = tuple[int, ...], tuple[bool, ...]
    fields = msgspec.defstruct(
        "TurnFields",
        [
            ("type", str),
            ("seat", int),
            ("n_players", int),
            ("scores", ints),
            ("roll", ints),
            ("turn_points", int),
            ("bank_minimum", int),
            ("strikes", ints),
            ("farkle_streaks", ints),
            ("entered", flags),
            ("final_round", bool),
            ("turn", int),
            ("roll_number", int),
            ("playoff", bool),
        ],
    )
    return msgspec.json.Decoder(fields)


def _line(message: dict[str, Any]) -> bytes:
    return _msgspec()[0].encode(message) + b"\n"


def _quoted(line: bytes) -> str:
    """The start of a line, quoted with its control characters escaped: at most about 100
    characters, whatever the line holds."""
    text = repr(line[:60].decode(errors="replace").strip())
    return text if len(text) <= 100 else text[:99] + "…"


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (a scalar is 0), counted without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        stack.extend((child, level + 1) for child in item)
    return deepest


def decode(line: bytes) -> dict[str, Any]:
    """One message as a dict with a string ``type``; :class:`ProtocolError` otherwise.

    Whatever the line holds: the decoder's own failures (a line nested so deeply that it runs
    out of stack raises RecursionError, not a decoding error) are protocol errors too, and a
    message nested deeper than :data:`MAX_DEPTH` is refused, so that no later ``str`` or
    ``repr`` of a field it holds can fail."""
    try:
        message = _msgspec()[1].decode(line)
    except Exception as exc:  # msgspec.DecodeError, ValueError, RecursionError, MemoryError...
        if isinstance(exc, RecursionError):
            raise ProtocolError(f"a line nested deeper than {MAX_DEPTH} levels") from None
        raise ProtocolError(f"not a JSON line: {_quoted(line)}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"not a message (a JSON object with a type): {_quoted(line)}")
    # Counting brackets is C-speed; only a line with many of them is walked.
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and _depth(message) > MAX_DEPTH:
        raise ProtocolError(f"a line nested deeper than {MAX_DEPTH} levels")
    return message


# ------------------------------------------------------------------------------- arena's side
def hello(move_timeout: float | None, random_seed: int) -> bytes:
    return _line(
        {
            "type": "hello",
            "protocol": HELLO_PROTOCOL,
            "protocols": list(PROTOCOL_VERSIONS),
            "move_timeout": move_timeout,
            "random_seed": random_seed,
        }
    )


def game_start(rules: Ruleset, seat: int, names: tuple[str, ...], strategy_seed: int) -> bytes:
    return _line(
        {
            "type": "game_start",
            "seat": seat,
            "n_players": len(names),
            "names": list(names),
            "rules": rules.as_dict(),
            "strategy_seed": strategy_seed,
        }
    )


def game_end(result: GameResult) -> bytes:
    return _line(
        {
            "type": "game_end",
            "scores": result.scores,
            "winners": result.winners,
            "win_shares": result.win_shares,
            "ranks": result.ranks,
            "turns": result.turns,
            "farkles": result.farkles,
            "rounds": result.rounds,
            "reason": result.reason,
            "retired": result.retired,
        }
    )


def turn_end(end: TurnEnd) -> bytes:
    """How a turn ended (:class:`~arena.engine.TurnEnd`), every field of it."""
    return _line(
        {
            "type": "turn_end",
            "seat": end.seat,
            "turn": end.turn,
            "how": end.how,
            "points": end.points,
            "struck": end.struck,
            "strikes": end.strikes,
            "penalty": end.penalty,
            "score": end.score,
            "scores": end.scores,
            "playoff": end.playoff,
        }
    )


def wants_turn_ends(hello_reply: dict[str, Any]) -> bool:
    """A seat's hello asks for turn_end messages: protocol 2, unless ``"turn_ends": false``."""
    return hello_reply.get("protocol") == 2 and hello_reply.get("turn_ends") is not False


BYE = b'{"type":"bye"}\n'
#: A keep's own fields in a turn message, by keep (the score table's shared records): made once.
_KEEP_FIELDS: dict[Keep, dict[str, Any]] = {}


def turn(view: TurnView, keeps: bool = True) -> bytes:
    """The view as a ``turn`` message: every field of TurnView but ``rules`` (sent with
    game_start), each legal keep with its ``bank_allowed`` and ``overshoots`` answered.
    Without ``keeps`` (for a seat that said ``"legal_keeps": false`` in its hello, as arena's
    own host does), ``legal_keeps`` is left out.  Sent once per decision: one dict, encoded by
    msgspec (three times faster than building the line by hand, benchmarks/seat_speed.py)."""
    seat = view.seat
    scores = view.scores
    message: dict[str, Any] = {
        "type": "turn",
        "seat": seat,
        "n_players": view.n_players,
        "scores": scores,
        "roll": view.roll,
        "turn_points": view.turn_points,
        "bank_minimum": view.bank_minimum,
    }
    if keeps:
        message["legal_keeps"] = _keep_fields(view)
    message["strikes"] = view.strikes
    message["farkle_streaks"] = view.farkle_streaks
    message["entered"] = view.entered
    message["final_round"] = view.final_round
    message["turn"] = view.turn
    message["roll_number"] = view.roll_number
    message["playoff"] = view.playoff
    return _line(message)


def _keep_fields(view: TurnView) -> list[dict[str, Any]]:
    """Each legal keep of the view as the object a turn message lists."""
    rules = view.rules
    points = view.turn_points
    minimum = view.bank_minimum
    must_roll = rules.must_roll_after_hot_dice
    room = rules.target - view.scores[view.seat] - points if rules.exact_target and not view.playoff else None
    known = _KEEP_FIELDS
    listed = []
    for keep in view.legal_keeps:
        fields = known.get(keep)
        if fields is None:
            fields = known[keep] = {
                "dice": keep.dice,
                "points": keep.points,
                "dice_left": keep.dice_left,
                "hot": keep.hot,
            }
        listed.append(
            {
                **fields,
                "bank_allowed": points + keep.points >= minimum and not (keep.hot and must_roll),
                "overshoots": room is not None and keep.points > room,
            }
        )
    return listed


#: Plain action replies seen before, by their line (a few hundred cover nearly every decision).
_KNOWN_ACTIONS: dict[bytes, Action] = {}
#: At most this many are kept, of at most this many bytes each.
KNOWN_ACTIONS_KEPT = 4096
KNOWN_ACTION_LINE = 200


def known_action(line: bytes) -> Action | None:
    """The Action of a reply line that is a plain ``action`` (exactly ``type``, ``keep`` and
    ``bank``; ``keep`` a list of at most six whole numbers, ``bank`` true or false), remembered
    by its bytes; None for any other line, which the caller reads the long way
    (:meth:`~arena.sandbox.process.SeatProcess.decoded`, :func:`action_from`) to the same
    Action or to the fault it stands for."""
    action = _KNOWN_ACTIONS.get(line)
    if action is not None or len(line) > KNOWN_ACTION_LINE or len(_KNOWN_ACTIONS) >= KNOWN_ACTIONS_KEPT:
        return action
    try:
        message = _msgspec()[1].decode(line)
    except Exception:  # the long way says what is wrong with it
        return None
    if type(message) is not dict or message.keys() != {"type", "keep", "bank"} or message["type"] != "action":
        return None
    keep, bank = message["keep"], message["bank"]
    if type(bank) is not bool or type(keep) is not list or len(keep) > 6:
        return None
    if not all(type(die) is int for die in keep):
        return None
    action = _KNOWN_ACTIONS[line] = Action(tuple(keep), bank)
    return action


def action_from(message: dict[str, Any]) -> Action | tuple[Any, Any]:
    """The decision in an ``action`` reply, as the engine will check it: a keep that is a list
    becomes a tuple; anything else is passed on for the engine to explain why it is illegal."""
    keep = message.get("keep")
    bank = message.get("bank")
    if isinstance(keep, list):
        # A bank that is not a bool is passed on as it came: the engine refuses it, naming it.
        return Action(tuple(keep), bank)  # type: ignore[arg-type]
    return keep, bank


# ------------------------------------------------------------------------ the host's side
def ruleset_from(data: Any) -> Ruleset:
    if not isinstance(data, dict):
        raise ProtocolError("game_start: rules must be an object")
    return Ruleset(**data)


class ViewReader:
    """Turns ``turn`` messages back into TurnView objects, with the legal keeps taken from the
    host's own score table (the same shared records the engine hands out)."""

    def __init__(self, rules: Ruleset) -> None:
        table = score_table(rules)
        self.rules = rules
        self.keeps = {faces: table.keeps[key] for key, faces in table.faces.items()}

    def view_of_line(self, line: bytes) -> TurnView | None:
        """The view of a ``turn`` line whose fields all have the types arena sends, decoded
        straight into them (twice as fast as :func:`decode` and :meth:`view`, to the same
        view); None for any other line, which the caller reads the long way."""
        if line.count(b"[") + line.count(b"{") > MAX_DEPTH:
            return None
        try:
            m = _turn_decoder().decode(line)
        except Exception:  # the long way says what is wrong with it
            return None
        keeps = self.keeps.get(m.roll)
        if m.type != "turn" or keeps is None:
            return None
        return TurnView(
            self.rules,
            m.seat,
            m.n_players,
            m.scores,
            m.roll,
            m.turn_points,
            m.bank_minimum,
            keeps,
            m.strikes,
            m.farkle_streaks,
            m.entered,
            m.final_round,
            m.turn,
            m.roll_number,
            m.playoff,
        )

    def view(self, m: dict[str, Any]) -> TurnView:
        roll = tuple(m["roll"])
        return TurnView(
            self.rules,
            m["seat"],
            m["n_players"],
            tuple(m["scores"]),
            roll,
            m["turn_points"],
            m["bank_minimum"],
            self.keeps[roll],
            tuple(m["strikes"]),
            tuple(m["farkle_streaks"]),
            tuple(m["entered"]),
            m["final_round"],
            m["turn"],
            m["roll_number"],
            m["playoff"],
        )


def result_from(m: dict[str, Any]) -> GameResult:
    return GameResult(
        tuple(m["scores"]),
        tuple(m["winners"]),
        tuple(m["win_shares"]),
        tuple(m["ranks"]),
        tuple(m["turns"]),
        tuple(m["farkles"]),
        m["rounds"],
        m["reason"],
        tuple(m.get("retired", ())),
    )


def turn_end_from(m: dict[str, Any]) -> TurnEnd:
    """A ``turn_end`` message as the :class:`~arena.engine.TurnEnd` it was made from."""
    return TurnEnd(
        seat=int(m["seat"]),
        turn=int(m["turn"]),
        how=str(m["how"]),
        points=int(m["points"]),
        struck=bool(m["struck"]),
        strikes=int(m["strikes"]),
        penalty=int(m["penalty"]),
        score=int(m["score"]),
        scores=tuple(int(x) for x in m["scores"]),
        playoff=bool(m["playoff"]),
    )


def action_line(action: Any, view: TurnView) -> bytes:
    """What a Python strategy returned for ``view``, as an ``action`` reply; or ``illegal``, with
    the reason the game itself gives in arena's processes, where JSON would not carry it as it is
    (not a pair of dice and a bank flag; dice that are not plain ints 1 to 6; a flag of another
    type than bool, int, str or None, a numpy bool say).  Everything JSON carries as it is goes
    to arena's game, which refuses it with its own reason.  Runs the strategy's own code
    (iterating its objects, their reprs), so the host calls it inside the timed call."""
    try:
        keep, bank = action
        dice = tuple(keep)
    except Exception:
        return _line({"type": "illegal", "reason": not_an_action(action)})
    if not all(type(d) is int and 1 <= d <= 6 for d in dice):  # the game refuses them first
        return _line({"type": "illegal", "reason": why_not_legal(dice, view.roll, view.rules)})
    if not (type(bank) in (bool, str) or bank is None or (type(bank) is int and -(2**63) <= bank < 2**63)):
        wanted = sorted(dice)
        if not any(sorted(k.dice) == wanted for k in view.legal_keeps):  # the keep is checked first
            return _line({"type": "illegal", "reason": why_not_legal(dice, view.roll, view.rules)})
        return _line({"type": "illegal", "reason": bank_not_bool(bank)})
    return _line({"type": "action", "keep": list(dice), "bank": bank})


def reply(kind: str, **fields: Any) -> bytes:
    return _line({"type": kind, **fields})
