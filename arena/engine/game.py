"""The game state machine: seats take turns; one decision per scoring roll.

A turn (all three documents, "Ein Zug" / "Ablauf eines Zugs"): roll all dice; set aside at least
one scoring die or combination; then bank the turn's points or roll the remaining dice.  A roll
that scores nothing is a farkle and the turn's points are lost.  When every die has scored the
player gets all dice back with the points kept ("hot dice": 001/000 "Alle sechs verwertet",
002 "Anschluss").

The machine resolves dice by itself (from the seeded streams of :mod:`arena.engine.dice`) and
stops only where a player must decide: after a roll that scores.  ``Game.apply`` (or
``Game.step``, which also returns the next view) takes that decision, checks it (raising
:class:`IllegalAction` without changing anything) and runs on to the next decision or the end
of the game.

The whole game runs in one generator, :meth:`Game._run`, which reads top to bottom like the
rules: whose turn it is, the turn's rolls and decisions, how the turn is settled.  It keeps the
game's state in local variables between decisions (a tournament makes millions of them, and a
local costs a fraction of an attribute), so it is also the one place where the rules are applied.

A seat can be *retired* (:meth:`Game.retire`, or ``out`` when the game is made): a player that
broke the game (see :mod:`arena.players.match`) is out of it, and the others play on as they
would have with that seat simply skipped.  It takes no more turns, keeps the score it had
banked, can't trigger or take the final round, ranks below every seat still in, and wins
nothing; the last seat still in wins at once.  Each of its turns *passes* (:meth:`Game._pass`)
as the turn of a seat that resigns by rolling on until it farkles would: a farkle in a row and,
under the rising bar, a strike and the bar back at its start, so a fault is worth exactly what
resigning is (``docs/rules.md``, reading 16).  Dice come per seat and turn, so skipping a seat
changes nobody else's dice.  ``docs/faults.md`` has the whole rule.

Rule readings where the documents are open are listed in ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from arena.engine import events as ev
from arena.engine.dice import (
    _GOLDEN,
    _MASK,
    FACE_KEY,
    OUTCOME_KEYS,
    POW6,
    _mix,
    derive_seed,
    roll_key,
    seat_streams,
)
from arena.engine.rules import Ruleset
from arena.engine.scoring import score_table, why_not_legal
from arena.engine.turn_ends import BANKED, FARKLED, FORFEITED, TurnEnd
from arena.engine.view import Action, IllegalAction, TurnView, bank_not_bool, not_an_action

#: A game that has not ended after this many rounds stops; the highest score wins.  A safety
#: valve against strategies that never finish (say, always overshooting an exact target).
DEFAULT_MAX_ROUNDS = 1000
#: Tie-break rounds played under ``ties = "playoff"`` before the tied players share the win.
MAX_PLAYOFF_ROUNDS = 20

Decider = Callable[[TurnView], Action]
Roller = Callable[[int, int, int], int]
#: What :meth:`Game._run` answers an illegal action with: a function that gives the reason (run by
#: the caller, outside the generator: explaining may call the strategy's own ``repr``).
Refusal = Callable[[], str]

_new_view = tuple.__new__  # builds a TurnView from a tuple without the Python-level __new__


class _Retire:
    """Sent into the game in place of an action by :meth:`Game.retire`: ``seat`` is out.  It
    can't be unpacked, so only the (rare) path of a refused action looks for it."""

    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat = seat


class _SeatRetired(Exception):
    """Raised inside :meth:`Game._run` to abandon the turn in progress: its seat is out, or at
    most one seat is left in."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended.  Seats are positions 0..n-1 in playing order."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    win_shares: tuple[float, ...]  # 1 for a sole winner, 1/k each for k who share the win
    ranks: tuple[int, ...]  # 1 for the top score; equal scores share a rank; retired seats last
    turns: tuple[int, ...]  # turns played per seat, playoff turns included
    farkles: tuple[int, ...]
    rounds: int
    reason: str  # "target", "round_limit", or "forfeit" (at most one seat was left in)
    #: Seats retired (out after a fault), in the order they went out.  They rank last, sharing
    #: the last rank, and win nothing.
    retired: tuple[int, ...] = ()


class Game:
    """One game of 10,000 between ``n_players`` seats under ``rules``, fixed by ``seed``."""

    def __init__(
        self,
        rules: Ruleset,
        n_players: int,
        seed: int,
        *,
        on_event: Callable[[ev.Event], None] | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        roller: Roller = roll_key,
        out: Iterable[int] = (),
        on_turn_end: Callable[[TurnEnd], None] | None = None,
    ) -> None:
        """``roller`` turns (turn stream, roll index, number of dice) into a roll; the default is
        the seeded stream of :mod:`arena.engine.dice`.  Tests and replays pass
        :class:`~arena.engine.dice.ScriptedDice` instead.  ``out``: seats retired before the
        first turn (a player that failed before the game began); they take no turn at all.
        ``on_turn_end`` is given each turn, once it has settled, as a :class:`TurnEnd` (a turn
        cut short because its seat was retired has none).
        """
        if n_players < 1:
            raise ValueError(f"a game needs at least one player, got {n_players}")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
        self.rules = rules
        self.n_players = n_players
        self.max_rounds = max_rounds
        self._table = score_table(rules)
        self._seat_streams = seat_streams(derive_seed(seed), n_players)
        self._emit = on_event
        self._told = on_turn_end
        self._roller = roller
        # Per seat; the generator changes these lists in place, so they are always current.
        self._scores = [0] * n_players
        self._entered = [not rules.has_entry()] * n_players
        self._strikes = [0] * n_players
        self._streaks = [0] * n_players
        self._turns = [0] * n_players
        self._farkles = [0] * n_players
        self._out = [False] * n_players
        self._retired: list[int] = []
        for seat in out:
            if not 0 <= seat < n_players:
                raise ValueError(f"seat {seat} is not a seat of a {n_players}-player game")
            if not self._out[seat]:
                self._out[seat] = True
                self._retired.append(seat)
        self._seat = -1
        self._rounds_seen = -1  # rounds started, as the game loop last counted them
        self._result: GameResult | None = None
        self._view: TurnView | None = None  # the decision pending; None once the game is over
        self._steps: Generator[TurnView | Refusal | None, object, None] | None = self._run()
        self._send = self._steps.send
        if next(self._steps) is None:  # the game can end before anyone decides
            self._steps = self._send = None  # type: ignore[assignment]

    # ----------------------------------------------------------------- what players may see
    @property
    def over(self) -> bool:
        return self._result is not None

    @property
    def seat(self) -> int:
        """The seat to decide next."""
        return self._seat

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    def view(self) -> TurnView:
        """The situation of the seat to decide, as an immutable value."""
        if self._view is None:
            raise RuntimeError("the game is over: there is no decision to make")
        return self._view

    def snapshot(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Scores, turns and farkles per seat as they stand (also before the game is over)."""
        return tuple(self._scores), tuple(self._turns), tuple(self._farkles)

    def result(self) -> GameResult:
        if self._result is None:
            raise RuntimeError("the game is not over yet")
        return self._result

    # ----------------------------------------------------------------- the one decision
    def apply(self, action: Action) -> None:
        """Apply the decision of the seat to move; raise :class:`IllegalAction` if it is illegal.

        An illegal decision changes nothing, so the same situation can be decided again.
        """
        self.step(action)

    def step(self, action: Action) -> TurnView | None:
        """:meth:`apply`, then the view of the next decision, or None once the game is over."""
        if self._steps is None:
            raise IllegalAction("the game is over")
        try:
            reply = self._send(action)
        except StopIteration:
            raise RuntimeError("the game was stopped by an exception earlier and can't go on") from None
        if type(reply) is TurnView:
            return reply
        return self.answer(reply)

    def sender(self) -> Callable[[object], TurnView | Refusal | None]:
        """The fast form of :meth:`step`, for a loop that makes every decision of a game (a
        tournament's guard): a call that applies an action and returns the next view, as
        ``step`` does, but answers an illegal action (or the end of the game) with what must be
        passed to :meth:`answer`.  One Python call less per decision.  Use it only while the
        game is not over."""
        assert self._send is not None, "the game is over"
        return self._send

    def answer(self, reply: TurnView | Refusal | None) -> TurnView | None:
        """What :meth:`step` makes of a reply of :meth:`sender`: a view as it is; None at the end
        of the game; for an illegal action, :class:`IllegalAction` with the reason (worked out
        here, outside the game loop: explaining may call the strategy's own ``repr``)."""
        if type(reply) is TurnView:
            return reply
        if reply is None:
            self._steps = self._send = None  # type: ignore[assignment]  # the generator is done
            return None
        raise IllegalAction(reply())  # type: ignore[operator]

    def retire(self, seat: int) -> TurnView | None:
        """Put ``seat`` out of the game (its player broke it) and play on: the next decision's
        view, or None if the game is over.

        If it is the seat to move, its turn in progress is lost (its points, not its banked
        score) and ends as a pass (a farkle: under the rising bar a strike, and the next seat's
        bar back at ``bar_start``), and play passes to the next seat still in; so does each of
        its later turns.  Any
        other seat (a decision found late only after it was played) is skipped from now on.  A
        retired seat takes no more turns, no final turn, and ranks last.  With at most one seat
        left in, the game ends: that seat wins.  Seats that fail before the game begins are
        given as ``out`` when it is made.
        """
        if self._result is not None:
            raise RuntimeError("the game is over: there is no seat to retire")
        if not 0 <= seat < self.n_players or self._out[seat]:
            raise ValueError(f"seat {seat} is not a seat still in the game")
        try:
            reply = self._send(_Retire(seat))
        except StopIteration:
            # The game loop was stopped from outside (a move timeout's signal arrived in the
            # engine's own code): it can't go on, so the game ends as it stands.
            self._out[seat] = True
            self._retired.append(seat)
            self._end_now()
            return None
        return self.answer(reply)

    def _end_now(self) -> None:
        """End a game whose loop can't go on: the seats still in, by their scores now."""
        self._steps = self._send = None  # type: ignore[assignment]
        self._view = None
        live = [s for s in range(self.n_players) if not self._out[s]]
        top = max((self._scores[s] for s in live), default=0)
        self._conclude(tuple(s for s in live if self._scores[s] == top), "forfeit", self._rounds_seen)

    # ----------------------------------------------------------------- the game
    def _run(self) -> Generator[TurnView | Refusal | None, object, None]:
        """The game, from the first roll to the end.

        Yields the view of each decision and receives the action; answers an illegal action
        with a :data:`Refusal` (changing nothing) until it gets a legal one.  Yields None at the
        end, with the result set.  Events are reported as they happen.
        """
        rules = self.rules
        n = self.n_players
        max_rounds = self.max_rounds
        emit = self._emit
        told = self._told
        roller = self._roller
        # The seeded dice, roll_key and next_turn_stream written out below: two calls fewer per roll.
        seeded = roller is roll_key
        table = self._table
        keeps_of, faces_of, ids_of, keep_by_key = table.keeps, table.faces, table.keep_ids, table.keep_by_key
        dice, target, exact = rules.dice, rules.target, rules.exact_target
        entry_threshold, rising_bar, bar_step = rules.entry_threshold, rules.rising_bar, rules.bar_step
        must_roll_hot = rules.must_roll_after_hot_dice
        farkle_penalty = rules.has_farkle_penalty()
        everyone_else = rules.final_round == "everyone_else"
        bases = self._seat_streams
        scores, entered, strikes, streaks = self._scores, self._entered, self._strikes, self._streaks
        turns, farkles = self._turns, self._farkles
        out = self._out  # retired seats: skipped
        live = n - len(self._retired)  # seats still in
        scores_t, strikes_t, streaks_t = tuple(scores), tuple(strikes), tuple(streaks)
        entered_t = tuple(entered)
        # Each action's parts, as the player sent them: anything, checked below (annotations only).
        keep_dice: Any
        bank: object

        bar = rules.bar_start
        final_left: int | None = None  # turns still to play once the target is reached
        playoff: list[int] | None = None  # seats still to play this playoff round
        playoff_points: dict[int, int] = {}
        playoff_rounds = 0
        rounds = -1  # rounds started, from 0
        played = -1  # the last round a seat still in started a turn in: what the result counts
        seat = -1
        if live <= 1 and live < n:  # the others failed before the game began
            self._conclude(tuple(s for s in range(n) if not out[s]), "forfeit", played)
            self._view = None
            yield None
            return
        while True:
            # ---------------------------------------------------- whose turn, or the end
            if playoff is not None:
                if not playoff:  # everyone in the playoff has had a turn
                    if not playoff_points:  # every seat of the playoff was retired
                        playoff_points = {s: scores[s] for s in range(n) if not out[s]}
                    best = max(playoff_points.values())
                    leaders = tuple(s for s, p in sorted(playoff_points.items()) if p == best)
                    if len(leaders) > 1 and playoff_rounds < MAX_PLAYOFF_ROUNDS:
                        playoff_rounds += 1
                        playoff, playoff_points = self._start_playoff(leaders), {}
                        continue
                    self._conclude(leaders, "target", played)
                    break
                seat = playoff.pop(0)
            else:
                if final_left == 0:
                    leaders = _leaders(scores, out)
                    if len(leaders) > 1 and rules.ties == "playoff":
                        playoff_rounds += 1
                        playoff = self._start_playoff(leaders)
                        continue
                    self._conclude(leaders, "target", played)
                    break
                seat = (seat + 1) % n
                if seat == 0:
                    # The limit never cuts the final turns short: they are bounded anyway.
                    if rounds + 1 >= max_rounds and final_left is None:
                        self._conclude(_leaders(scores, out), "round_limit", played)
                        break
                    rounds += 1
                if final_left is not None:
                    final_left -= 1
                if out[seat]:  # a retired seat takes no turn (also none of the final ones) ...
                    if self._pass(seat):  # ... but passes it, as a seat that resigns would
                        bar = rules.bar_start
                    scores_t, strikes_t, streaks_t = tuple(scores), tuple(strikes), tuple(streaks)
                    continue

            # ---------------------------------------------------- the turn
            if rounds != played:  # a round counts once a seat still in starts a turn in it
                played = self._rounds_seen = rounds
            self._seat = seat
            in_playoff = playoff is not None
            score = scores[seat]
            turn = turns[seat]
            stream = _mix((bases[seat] + _GOLDEN + turn) & _MASK)  # next_turn_stream(bases[seat], turn)
            turns[seat] = turn + 1
            if in_playoff:
                minimum = 0
            else:
                entry = 0 if entered[seat] else entry_threshold
                minimum = max(entry, bar) if rising_bar else entry
            if emit is not None:
                emit(ev.TurnStarted(seat, score, minimum, in_playoff))
            turn_points = 0
            to_roll = dice
            roll_index = 0
            banked: int | None = None
            farkled = False
            try:
                while True:  # the turn's rolls
                    if seeded:  # roll_key(stream, roll_index, to_roll)
                        draw = _mix((stream + (roll_index + 1) * _GOLDEN) & _MASK)
                        roll = OUTCOME_KEYS[to_roll][draw % POW6[to_roll]]
                    else:
                        roll = roller(stream, roll_index, to_roll)
                    roll_index += 1
                    if emit is not None:
                        emit(ev.Rolled(seat, faces_of[roll]))
                    keeps = keeps_of[roll]
                    if not keeps:
                        farkled = True
                        break
                    self._view = view = _new_view(
                        TurnView,
                        (
                            rules,
                            seat,
                            n,
                            scores_t,
                            faces_of[roll],
                            turn_points,
                            minimum,
                            keeps,
                            strikes_t,
                            streaks_t,
                            entered_t,
                            final_left is not None,
                            turn,
                            roll_index,
                            in_playoff,
                        ),
                    )
                    action = yield view
                    while True:  # until the action is legal
                        try:
                            keep_dice, bank = action  # type: ignore[misc]  # any object: see except
                            # The dice of one of this roll's keeps, returned as they are (the common
                            # case): known by identity, no key to compute (both objects are alive,
                            # so equal ids are the same tuple).
                            keep = ids_of[roll].get(id(keep_dice))
                            if keep is None:
                                if len(keep_dice) > to_roll:
                                    # More dice than were rolled (and a face count past 7 would alias).
                                    raise KeyError
                                key = 0
                                for die in keep_dice:
                                    if type(die) is not int:
                                        raise KeyError  # True and 1.0 hash like 1: refuse, don't correct
                                    key += FACE_KEY[die]
                                keep = keep_by_key[roll][key]
                        except Exception:
                            if type(action) is _Retire:
                                gone = action.seat
                                live = self._put_out(gone, playoff, playoff_points)
                                if gone == seat or live <= 1:
                                    raise _SeatRetired from None
                                action = yield view  # another seat is out: this decision stands
                                continue
                            action = yield partial(self._explain_illegal_keep, action)
                            continue
                        except BaseException as exc:  # raised by the action's own code: its seat's
                            # fault, passed on by the caller (answer) while the game stays alive
                            action = yield partial(_raise, exc)
                            continue
                        if bank is not True and bank is not False:
                            action = yield partial(bank_not_bool, bank)
                            continue
                        total = turn_points + keep.points
                        overshot = exact and not in_playoff and score + total > target
                        if overshot or not bank:
                            break
                        if keep.hot and must_roll_hot:
                            action = yield _no_bank_after_hot_dice
                        elif total < minimum:
                            action = yield partial(self._explain_minimum, total, minimum, seat, bar)
                        else:
                            break
                    turn_points = total
                    to_roll = keep.dice_left
                    if emit is not None:
                        emit(ev.Kept(seat, keep.dice, keep.points, total, keep.dice_left, keep.hot))
                    if overshot:
                        break  # the keep passes the exact target: the turn is forfeited (001)
                    if bank:
                        banked = total
                        break
            except _SeatRetired:  # Game.retire: the turn is lost
                if live <= 1:
                    self._conclude(tuple(s for s in range(n) if not out[s]), "forfeit", played)
                    break
                if not in_playoff:  # the seat to move is out: its turn ends as a pass would
                    if self._pass(seat):
                        bar = rules.bar_start
                    scores_t, strikes_t, streaks_t = tuple(scores), tuple(strikes), tuple(streaks)
                continue  # with the next seat still in

            # ---------------------------------------------------- the turn settled
            if farkled:
                farkles[seat] += 1
            if in_playoff:
                playoff_points[seat] = banked or 0
                if emit is not None:
                    emit(
                        ev.Banked(seat, banked, score)
                        if banked is not None
                        else ev.Farkled(seat, turn_points)
                    )
                if told is not None:
                    how, points = (BANKED, banked) if banked is not None else (FARKLED, turn_points)
                    told(TurnEnd(seat, turn, how, points, False, strikes[seat], 0, score, scores_t, True))
                continue
            # The per-seat tuples the views show are built again only where a value changed.
            if banked is not None:
                score += banked
                scores[seat] = score
                scores_t = tuple(scores)
                if not entered[seat]:
                    entered[seat] = True
                    entered_t = tuple(entered)
                if strikes[seat]:
                    strikes[seat] = 0
                    strikes_t = tuple(strikes)
                if streaks[seat]:
                    streaks[seat] = 0
                    streaks_t = tuple(streaks)
                bar = banked + bar_step
                if emit is not None:
                    emit(ev.Banked(seat, banked, score))
                # An exact target can't be passed (overshoots are forfeited), so >= serves both.
                if score >= target and final_left is None:
                    # Seat positions still to come (retired ones pass without a turn).
                    final_left = n - 1 if everyone_else else n - 1 - seat
                    if emit is not None:
                        emit(ev.FinalRound(seat, score, self._final_turns(seat, everyone_else)))
            else:
                if emit is not None:
                    emit(ev.Farkled(seat, turn_points) if farkled else ev.Overshot(seat, turn_points))
                if farkled:
                    streaks[seat] += 1
                    if farkle_penalty and streaks[seat] >= rules.farkle_penalty_streak:
                        self._farkle_penalty(seat)
                else:
                    streaks[seat] = 0  # a forfeited turn is no farkle and breaks the run
                if rising_bar:
                    bar = rules.bar_start
                    self._strike(seat)
                scores_t, strikes_t, streaks_t = tuple(scores), tuple(strikes), tuple(streaks)
            if told is not None:
                if banked is not None:
                    how, points, penalty = BANKED, banked, 0
                else:
                    how = FARKLED if farkled else FORFEITED
                    points, penalty = turn_points, score - scores[seat]  # the penalty or strike-out
                struck = rising_bar and banked is None
                told(TurnEnd(seat, turn, how, points, struck, strikes[seat], penalty, scores[seat], scores_t))
        self._view = None
        yield None

    # ----------------------------------------------------------------- rarer turns of the game
    def _farkle_penalty(self, seat: int) -> None:
        """Farkles in a row cost points (002 variant), never below zero, and start a new run."""
        rules = self.rules
        self._streaks[seat] = 0
        before = self._scores[seat]
        after = 0 if rules.farkle_penalty_to_zero else max(0, before - rules.farkle_penalty)
        self._scores[seat] = after
        if self._emit is not None:
            self._emit(ev.FarklePenalty(seat, before - after, after))

    def _strike(self, seat: int) -> None:
        """A missed bar is a strike; strikes in a row set the score to zero (000)."""
        self._strikes[seat] += 1
        if self._emit is not None:
            self._emit(ev.Struck(seat, self._strikes[seat]))
        if self._strikes[seat] >= self.rules.strikes_to_zero:
            self._strikes[seat] = 0
            before = self._scores[seat]
            self._scores[seat] = 0
            if self._emit is not None:
                self._emit(ev.StruckOut(seat, before))

    def _pass(self, seat: int) -> bool:
        """The turn of a retired seat: it passes, exactly as a seat that resigns by rolling on
        and never banking, whose every turn ends in a farkle (docs/faults.md).  So the turn acts
        on everything one seat's turn shares with the others: it is a farkle in a row (002's
        farkle penalty may follow), and under the rising bar a missed bar (000: "Ein Farkle
        zählt dabei wie eine verfehlte Latte"): a strike (strikes may set the score to zero),
        and the next seat's bar is back at ``bar_start``, which the caller sets when this
        returns True.  It is no turn played: ``turns`` and ``farkles`` stay as they were."""
        rules = self.rules
        self._streaks[seat] += 1
        if rules.has_farkle_penalty() and self._streaks[seat] >= rules.farkle_penalty_streak:
            self._farkle_penalty(seat)
        if rules.rising_bar:
            self._strike(seat)
        return rules.rising_bar

    def _put_out(self, seat: int, playoff: list[int] | None, playoff_points: dict[int, int]) -> int:
        """Mark ``seat`` retired (also out of a playoff in progress); the seats still in."""
        self._out[seat] = True
        self._retired.append(seat)
        if playoff is not None:
            playoff_points.pop(seat, None)
            if seat in playoff:
                playoff.remove(seat)
        return self.n_players - len(self._retired)

    def _final_turns(self, seat: int, everyone_else: bool) -> int:
        """The final turns after ``seat`` reached the target: those of the seats still in."""
        later = range(self.n_players) if everyone_else else range(seat + 1, self.n_players)
        return sum(1 for s in later if s != seat and not self._out[s])

    def _start_playoff(self, seats: tuple[int, ...]) -> list[int]:
        """Equal top scores under ``ties = "playoff"``: the seats that play a decider turn each."""
        if self._emit is not None:
            self._emit(ev.PlayoffStarted(seats))
        return list(seats)

    def _conclude(self, winners: tuple[int, ...], reason: str, rounds: int) -> None:
        """Set the result: ``winners`` share the win; the seats still in rank by their scores,
        and the retired seats share the rank below all of them."""
        scores = tuple(self._scores)
        out = self._out
        share = 1.0 / len(winners) if winners else 0.0
        shares = tuple(share if s in winners else 0.0 for s in range(self.n_players))
        live = [score for score, gone in zip(scores, out, strict=True) if not gone]
        top = max(live, default=0)
        ranks = tuple(1 + sum(other > score for other in live) for score in scores)
        # Playoff winners rank first among equal scores; retired seats below every seat still in.
        ranks = tuple(
            len(live) + 1 if out[s] else r if s in winners or scores[s] != top else r + len(winners)
            for s, r in enumerate(ranks)
        )
        self._result = GameResult(
            scores,
            winners,
            shares,
            ranks,
            tuple(self._turns),
            tuple(self._farkles),
            rounds + 1,
            reason,
            tuple(self._retired),
        )
        if self._emit is not None:
            self._emit(ev.GameOver(scores, winners, reason))

    # ----------------------------------------------------------------- explanations
    def _explain_minimum(self, total: int, minimum: int, seat: int, bar: int) -> str:
        rules = self.rules
        entry = 0 if self._entered[seat] else rules.entry_threshold
        if rules.rising_bar and bar >= entry:
            why = f"the bar: previous banked turn + {rules.bar_step}, {rules.bar_start} after a miss"
        else:
            why = f"entry threshold {entry}: a player's first bank must reach it"
        return f"cannot bank {total}: this turn needs at least {minimum} before banking ({why})"

    def _explain_illegal_keep(self, action: object) -> str:
        keep_dice: Any
        try:
            keep_dice, _bank = action  # type: ignore[misc]  # any object: one that can't unpack is caught
            keep = tuple(keep_dice)
        except Exception:
            return not_an_action(action)
        assert self._view is not None
        return why_not_legal(keep, self._view.roll, self.rules)


def _leaders(scores: list[int], out: list[bool]) -> tuple[int, ...]:
    """The seats still in with the top score among them."""
    top = max((score for score, gone in zip(scores, out, strict=True) if not gone), default=0)
    return tuple(s for s, score in enumerate(scores) if score == top and not out[s])


def _raise(exc: BaseException) -> str:
    """A refusal that raises again what the action's own code raised inside the game loop."""
    raise exc


def _no_bank_after_hot_dice() -> str:
    return (
        "cannot bank right after hot dice: this ruleset requires rolling all dice "
        "again (must_roll_after_hot_dice)"
    )


def play(
    rules: Ruleset,
    deciders: Sequence[Decider],
    seed: int,
    *,
    on_event: Callable[[ev.Event], None] | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    roller: Roller = roll_key,
) -> GameResult:
    """Play one game to the end; ``deciders[i]`` decides for seat i."""
    game = Game(rules, len(deciders), seed, on_event=on_event, max_rounds=max_rounds, roller=roller)
    view = game._view
    step = game.step
    while view is not None:
        view = step(deciders[view.seat](view))
    return game.result()
