"""Cheat: duplicate-deal memory.  Every deal is played in each seat order with the same dice per
seat, and the seat orders of a deal are consecutive games.  A seat process that served two of
them would meet, in the second, dice it has seen: its opponent now rolls what it rolled, and it
rolls what its opponent did.

It plays like ``greedy`` (and says it is greedy), and remembers in module state, which lives as
long as its process, every seat's score after each turn of every game it played.  Against
``greedy``, a seat's score after k turns depends on that seat's dice alone, so when an opponent
now scores, turn by turn, what it scored itself at that seat in an earlier game, the two games
are one deal: it knows the dice and what they give, its own seat's included, turns ahead.  It
then faults on purpose, with a reason that says so and foresees its own score, so a test can
count every deal it saw twice.  Where no process serves two games of a deal it never faults."""

from arena.players.builtin.greedy import GreedyPlayer

#: Per game played in this process: the seat it had, and per seat {turns done: score}.
GAMES: list[tuple[int, dict[int, dict[int, int]]]] = []
#: Turns in common, and of them turns with points, for two games to count as one deal.
SAME_TURNS, WITH_POINTS = 3, 2
#: The start of the reason it faults with.
SEEN = "seen this deal before"


class DealMemory(GreedyPlayer):
    name = "greedy"

    def start_game(self, info):
        self.seat = info.seat
        self.scores = {seat: {} for seat in range(len(info.names))}
        GAMES.append((self.seat, self.scores))

    def decide(self, view):
        if not view.playoff:
            for seat, score in enumerate(view.scores):
                # At its own turn t, the seats before it have taken t + 1 turns, the others t.
                self.scores[seat][view.turn + (seat < self.seat)] = score
            self.recall(view.turn)
        return super().decide(view)

    def recall(self, turn):
        for seat, scores in GAMES[:-1]:
            if seat == self.seat:
                continue  # an opponent sat there: no dice of that seat were its own
            mine, now = scores[seat], self.scores[seat]
            common = [k for k in now if k in mine]
            if len(common) < SAME_TURNS or any(mine[k] != now[k] for k in common):
                continue
            if sum(mine[k] > 0 for k in common) < WITH_POINTS:
                continue
            ahead = sorted((k, v) for k, v in scores[self.seat].items() if k > turn + 1)
            then = f": these dice give me {ahead[-1][1]} after {ahead[-1][0]} turns" if ahead else ""
            raise RuntimeError(f"{SEEN} (seat {seat} rolls the dice I rolled){then}")
