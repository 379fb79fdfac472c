"""The game state machine: seats take turns; one decision per scoring roll.

A turn (all three documents, "Ein Zug" / "Ablauf eines Zugs"): roll all dice; set aside at least
one scoring die or combination; then bank the turn's points or roll the remaining dice.  A roll
that scores nothing is a farkle and the turn's points are lost.  When every die has scored the
player gets all dice back with the points kept ("hot dice": 001/000 "Alle sechs verwertet",
002 "Anschluss").

The machine resolves dice by itself (from the seeded streams of :mod:`arena.engine.dice`) and
stops only where a player must decide: after a roll that scores.  ``Game.apply`` takes that
decision, checks it (raising :class:`IllegalAction` without changing anything) and runs on to the
next decision or the end of the game.

Rule readings where the documents are open are listed in ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.engine import events as ev
from arena.engine.dice import FACE_KEY, derive_seed, next_turn_stream, roll_key, seat_streams
from arena.engine.rules import Ruleset
from arena.engine.scoring import Keep, score_table, why_not_legal
from arena.engine.view import Action, IllegalAction, TurnView

#: A game that has not ended after this many rounds stops; the highest score wins.  A safety
#: valve against strategies that never finish (say, always overshooting an exact target).
DEFAULT_MAX_ROUNDS = 1000
#: Tie-break rounds played under ``ties = "playoff"`` before the tied players share the win.
MAX_PLAYOFF_ROUNDS = 20

Decider = Callable[[TurnView], Action]
Roller = Callable[[int, int, int], int]


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended.  Seats are positions 0..n-1 in playing order."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    win_shares: tuple[float, ...]  # 1 for a sole winner, 1/k each for k who share the win
    ranks: tuple[int, ...]  # 1 for the top score; equal scores share a rank
    turns: tuple[int, ...]  # turns played per seat, playoff turns included
    farkles: tuple[int, ...]
    rounds: int
    reason: str  # "target" or "round_limit"


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
    ) -> None:
        """``roller`` turns (turn stream, roll index, number of dice) into a roll; the default is
        the seeded stream of :mod:`arena.engine.dice`.  Tests and replays pass
        :class:`~arena.engine.dice.ScriptedDice` instead.
        """
        if n_players < 1:
            raise ValueError(f"a game needs at least one player, got {n_players}")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
        table = score_table(rules)
        self.rules = rules
        self.n_players = n_players
        self.max_rounds = max_rounds
        self._keeps = table.keeps
        self._keep_by_key = table.keep_by_key
        self._faces = table.faces
        self._seat_streams = seat_streams(derive_seed(seed), n_players)
        self._emit = on_event
        self._roller = roller
        self._dice = rules.dice
        self._target = rules.target
        self._exact = rules.exact_target
        self._must_roll_hot = rules.must_roll_after_hot_dice

        self._scores = [0] * n_players
        self._entered = [not rules.has_entry()] * n_players
        self._strikes = [0] * n_players
        self._streaks = [0] * n_players
        self._turns = [0] * n_players
        self._farkles = [0] * n_players
        self._refresh_public()
        self._bar = rules.bar_start
        self._final_left: int | None = None  # turns still to play once the target is reached
        self._playoff_queue: list[int] | None = None
        self._playoff_points: dict[int, int] = {}
        self._playoff_rounds = 0
        self._round = -1
        self._seat = -1
        self._result: GameResult | None = None

        # The turn in progress.
        self._turn_points = 0
        self._to_roll = rules.dice
        self._roll = 0
        self._stream = 0
        self._roll_index = 0
        self._minimum = 0
        self._advance()

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
        return self._scores_t

    def view(self) -> TurnView:
        """The situation of the seat to decide, as an immutable value."""
        if self._result is not None:
            raise RuntimeError("the game is over: there is no decision to make")
        roll = self._roll
        return TurnView(
            self.rules,
            self._seat,
            self.n_players,
            self._scores_t,
            self._faces[roll],
            self._turn_points,
            self._minimum,
            self._keeps[roll],
            self._strikes_t,
            self._streaks_t,
            self._final_left is not None,
            self._turns[self._seat] - 1,
            self._roll_index,
            self._playoff_queue is not None,
        )

    def snapshot(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Scores, turns and farkles per seat as they stand (also before the game is over)."""
        return self._scores_t, tuple(self._turns), tuple(self._farkles)

    def result(self) -> GameResult:
        if self._result is None:
            raise RuntimeError("the game is not over yet")
        return self._result

    # ----------------------------------------------------------------- the one decision
    def apply(self, action: Action) -> None:
        """Apply the decision of the seat to move; raise :class:`IllegalAction` if it is illegal.

        An illegal decision changes nothing, so the same situation can be decided again.
        """
        if self._result is not None:
            raise IllegalAction("the game is over")
        try:
            keep_dice, bank = action
            if len(keep_dice) > self._to_roll:
                raise KeyError  # more dice than were rolled (and a face count past 7 would alias)
            key = 0
            for die in keep_dice:
                if type(die) is not int:
                    raise KeyError  # True and 1.0 hash like 1: refuse, don't correct
                key += FACE_KEY[die]
            keep = self._keep_by_key[self._roll][key]
        except Exception:
            raise IllegalAction(self._explain_illegal_keep(action)) from None
        if bank is not True and bank is not False:
            raise IllegalAction(f"bank must be True or False, got {bank!r}")

        turn_points = self._turn_points + keep.points
        seat = self._seat
        playoff = self._playoff_queue is not None
        if self._exact and not playoff and self._scores[seat] + turn_points > self._target:
            self._note_keep(keep, turn_points)
            self._end_turn(banked=None, farkled=False)
            self._advance()
            return
        if bank:
            if keep.hot and self._must_roll_hot:
                raise IllegalAction(
                    "cannot bank right after hot dice: this ruleset requires rolling all dice "
                    "again (must_roll_after_hot_dice)"
                )
            if turn_points < self._minimum:
                raise IllegalAction(
                    f"cannot bank {turn_points}: this turn needs at least {self._minimum} "
                    f"before banking ({self._minimum_reason()})"
                )
        self._note_keep(keep, turn_points)
        if bank:
            self._end_turn(banked=turn_points, farkled=False)
            self._advance()
        elif not self._roll_dice():
            self._advance()

    # ----------------------------------------------------------------- turn mechanics
    def _note_keep(self, keep: Keep, turn_points: int) -> None:
        self._turn_points = turn_points
        self._to_roll = keep.dice_left
        if self._emit is not None:
            self._emit(ev.Kept(self._seat, keep.dice, keep.points, turn_points, keep.dice_left, keep.hot))

    def _roll_dice(self) -> bool:
        """Roll the dice in the cup; True if the roll scores, else end the turn as a farkle."""
        self._roll = self._roller(self._stream, self._roll_index, self._to_roll)
        self._roll_index += 1
        if self._emit is not None:
            self._emit(ev.Rolled(self._seat, self._faces[self._roll]))
        if self._keeps[self._roll]:
            return True
        self._end_turn(banked=None, farkled=True)
        return False

    def _start_turn(self, seat: int) -> bool:
        """Begin ``seat``'s turn with a roll of all dice; True if a decision is pending."""
        self._seat = seat
        self._turn_points = 0
        self._to_roll = self._dice
        self._stream = next_turn_stream(self._seat_streams[seat], self._turns[seat])
        self._turns[seat] += 1
        self._roll_index = 0
        if self._playoff_queue is not None:
            self._minimum = 0
        else:
            rules = self.rules
            entry = 0 if self._entered[seat] else rules.entry_threshold
            self._minimum = max(entry, self._bar) if rules.rising_bar else entry
        if self._emit is not None:
            self._emit(
                ev.TurnStarted(seat, self._scores[seat], self._minimum, self._playoff_queue is not None)
            )
        return self._roll_dice()

    def _end_turn(self, *, banked: int | None, farkled: bool) -> None:
        """Settle a finished turn: ``banked`` points, or a miss (farkle or forfeited overshoot)."""
        seat = self._seat
        rules = self.rules
        emit = self._emit
        lost = self._turn_points
        if farkled:
            self._farkles[seat] += 1
        if self._playoff_queue is not None:
            self._playoff_points[seat] = banked or 0
            if emit is not None:
                emit(
                    ev.Banked(seat, banked, self._scores[seat])
                    if banked is not None
                    else ev.Farkled(seat, lost)
                )
            return
        if banked is not None:
            score = self._scores[seat] + banked
            self._scores[seat] = score
            self._entered[seat] = True
            self._strikes[seat] = 0
            self._streaks[seat] = 0
            self._bar = banked + rules.bar_step
            if emit is not None:
                emit(ev.Banked(seat, banked, score))
            # An exact target can't be passed (overshoots are forfeited), so >= serves both.
            if score >= self._target and self._final_left is None:
                n = self.n_players
                self._final_left = n - 1 if rules.final_round == "everyone_else" else n - 1 - seat
                if emit is not None:
                    emit(ev.FinalRound(seat, score, self._final_left))
        else:
            if emit is not None:
                emit(ev.Farkled(seat, lost) if farkled else ev.Overshot(seat, lost))
            if farkled:
                self._streaks[seat] += 1
                if rules.has_farkle_penalty() and self._streaks[seat] >= rules.farkle_penalty_streak:
                    self._streaks[seat] = 0
                    before = self._scores[seat]
                    after = 0 if rules.farkle_penalty_to_zero else max(0, before - rules.farkle_penalty)
                    self._scores[seat] = after
                    if emit is not None:
                        emit(ev.FarklePenalty(seat, before - after, after))
            else:
                self._streaks[seat] = 0  # a forfeited turn is no farkle and breaks the run
            if rules.rising_bar:
                self._bar = rules.bar_start
                self._strikes[seat] += 1
                if emit is not None:
                    emit(ev.Struck(seat, self._strikes[seat]))
                if self._strikes[seat] >= rules.strikes_to_zero:
                    self._strikes[seat] = 0
                    before = self._scores[seat]
                    self._scores[seat] = 0
                    if emit is not None:
                        emit(ev.StruckOut(seat, before))
        self._refresh_public()

    def _advance(self) -> None:
        """Start turns until one needs a decision or the game ends."""
        while self._result is None:
            if self._playoff_queue is not None:
                if self._playoff_queue:
                    if self._start_turn(self._playoff_queue.pop(0)):
                        return
                    continue
                self._settle_playoff()
                continue
            if self._final_left is not None:
                if self._final_left == 0:
                    self._finish()
                    continue
                self._final_left -= 1
            seat = (self._seat + 1) % self.n_players
            if seat == 0:
                # The limit never cuts the final turns short: they are bounded anyway.
                if self._round + 1 >= self.max_rounds and self._final_left is None:
                    self._finish(reason="round_limit")
                    continue
                self._round += 1
            if self._start_turn(seat):
                return

    def _finish(self, reason: str = "target") -> None:
        top = max(self._scores)
        leaders = tuple(s for s, score in enumerate(self._scores) if score == top)
        if len(leaders) > 1 and self.rules.ties == "playoff" and reason == "target":
            self._start_playoff(leaders)
            return
        self._conclude(leaders, reason)

    def _start_playoff(self, seats: tuple[int, ...]) -> None:
        self._playoff_rounds += 1
        self._playoff_queue = list(seats)
        self._playoff_points = {}
        if self._emit is not None:
            self._emit(ev.PlayoffStarted(seats))

    def _settle_playoff(self) -> None:
        best = max(self._playoff_points.values())
        leaders = tuple(s for s, p in sorted(self._playoff_points.items()) if p == best)
        if len(leaders) > 1 and self._playoff_rounds < MAX_PLAYOFF_ROUNDS:
            self._start_playoff(leaders)
            return
        self._conclude(leaders, "target")

    def _conclude(self, winners: tuple[int, ...], reason: str) -> None:
        scores = tuple(self._scores)
        share = 1.0 / len(winners)
        shares = tuple(share if s in winners else 0.0 for s in range(self.n_players))
        ranks = tuple(1 + sum(other > score for other in scores) for score in scores)
        # Playoff winners rank first among equal scores.
        ranks = tuple(
            r if s in winners or scores[s] != max(scores) else r + len(winners) for s, r in enumerate(ranks)
        )
        self._result = GameResult(
            scores,
            winners,
            shares,
            ranks,
            tuple(self._turns),
            tuple(self._farkles),
            self._round + 1,
            reason,
        )
        self._playoff_queue = None
        if self._emit is not None:
            self._emit(ev.GameOver(scores, winners, reason))

    def _refresh_public(self) -> None:
        self._scores_t = tuple(self._scores)
        self._strikes_t = tuple(self._strikes)
        self._streaks_t = tuple(self._streaks)

    # ----------------------------------------------------------------- explanations
    def _minimum_reason(self) -> str:
        seat = self._seat
        rules = self.rules
        entry = 0 if self._entered[seat] else rules.entry_threshold
        if rules.rising_bar and self._bar >= entry:
            return f"the bar: previous banked turn + {rules.bar_step}, {rules.bar_start} after a miss"
        return f"entry threshold {entry}: a player's first bank must reach it"

    def _explain_illegal_keep(self, action: object) -> str:
        try:
            keep_dice, _bank = action  # type: ignore[misc]
            keep = tuple(keep_dice)
        except Exception:
            return f"a decision must be Action(keep, bank), got {action!r}"
        return why_not_legal(keep, self._faces[self._roll], self.rules)


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
    view = game.view
    apply = game.apply
    while game._result is None:
        apply(deciders[game._seat](view()))
    return game.result()
