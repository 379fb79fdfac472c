"""Play a range of scheduled games and return their rows: the work one task does.

Runs in worker processes (or in the main process with one worker).  Each game gets fresh
player objects, so no strategy carries anything from one game into another, and a faulty
strategy loses only the game it broke.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.players import PlayerFault, match, play_match
from arena.players.match import one_line
from arena.tournament.rows import csv_field, fault_rows, fault_shares, game_rows
from arena.tournament.schedule import Schedule
from arena.tournament.spec import TournamentSpec


@dataclass(frozen=True)
class FaultDetail:
    """One fault, with what is needed to debug it (games.csv keeps only the one-line reason)."""

    game: int
    seat: int
    player: str  # the player's label
    status: str  # error, illegal or timeout
    reason: str  # the one-line reason, as in games.csv
    traceback: str  # the full traceback where the strategy raised; "" otherwise


@dataclass(frozen=True)
class BatchResult:
    start: int
    stop: int
    rows: str  # CSV text of the games start..stop-1, in order
    faults: int
    shares: tuple[tuple[float, ...], ...]  # per game, each seat's win share
    fault_details: tuple[FaultDetail, ...] = ()  # one per fault, in game order


class BatchPlayer:
    """Plays batches of one tournament; built once per worker process."""

    def __init__(self, spec: TournamentSpec) -> None:
        self.spec = spec
        self.schedule = Schedule(spec)
        self._ruleset_fields = [csv_field(r.name) for r in spec.rulesets]
        self._player_fields = [csv_field(label) for label in spec.labels]

    def play(self, start: int, stop: int) -> BatchResult:
        spec = self.spec
        slot_of = self.schedule.slot
        rulesets = spec.rulesets
        timeout = spec.move_timeout
        max_rounds = spec.max_rounds
        parts: list[str] = []
        shares: list[tuple[float, ...]] = []
        faults = 0
        details: list[FaultDetail] = []
        for game in range(start, stop):
            slot = slot_of(game)
            names = [self._player_fields[i] for i in slot.seats]
            ruleset = self._ruleset_fields[slot.ruleset]
            try:
                seated = self._seat_players(slot.seats)
            except PlayerFault as fault:  # a constructor failed: that player loses the game
                faults += 1
                details.append(self._detail(game, slot.seats, fault))
                parts.append(self._fault(ruleset, slot.game, slot.deal, slot.seed, names, fault))
                shares.append(fault_shares(len(names), fault.seat))
                continue
            try:
                result = play_match(
                    rulesets[slot.ruleset], seated, slot.seed, max_rounds=max_rounds, move_timeout=timeout
                )
            except PlayerFault as fault:
                faults += 1
                details.append(self._detail(game, slot.seats, fault))
                parts.append(self._fault(ruleset, slot.game, slot.deal, slot.seed, names, fault))
                shares.append(fault_shares(len(names), fault.seat))
                continue
            parts.append(game_rows(ruleset, game, slot.deal, slot.seed, names, result))
            shares.append(result.win_shares)
        return BatchResult(start, stop, "".join(parts), faults, tuple(shares), tuple(details))

    def _detail(self, game: int, seats: tuple[int, ...], fault: PlayerFault) -> FaultDetail:
        label = self.spec.labels[seats[fault.seat]]
        return FaultDetail(game, fault.seat, label, fault.status, fault.reason, fault.traceback_text)

    def _seat_players(self, seats: tuple[int, ...]) -> list:
        """Fresh player objects for one game, one at a time, so a failing constructor is known."""
        seated = []
        for seat, index in enumerate(seats):
            try:
                seated.append(self.spec.players[index].create())
            except KeyboardInterrupt:
                if not match.strategy_interrupts_are_faults:
                    raise
                raise PlayerFault(seat, "error", "creating the player was interrupted") from None
            except BaseException as exc:
                raise PlayerFault(seat, "error", f"creating the player failed: {one_line(exc)}") from exc
        return seated

    @staticmethod
    def _fault(ruleset: str, game: int, deal: int, seed: int, names: list[str], fault: PlayerFault) -> str:
        n = len(names)
        state = fault.game.snapshot() if fault.game is not None else None
        scores, turns, farkles = state if state is not None else ((0,) * n, (0,) * n, (0,) * n)
        return fault_rows(
            ruleset, game, deal, seed, names, scores, turns, farkles, fault.seat, fault.status, fault.reason
        )
