"""Cheat: CPU starvation.  Plays like ``greedy``, but at its first game it forks 60 children
that spin for as long as the seat lives, inside every limit (the default ``--seat-processes`` is
64).  Without a CPU wall per seat they take the machine's cores from the opponent's seat, which
then overruns its move timeout and loses by ``timeout``; with it, all the processes of the seat
together get one seat's share."""

import os
import time

from arena.players.builtin.greedy import GreedyPlayer

#: Children that spin: the seat itself and these stay under the default of 64 processes.
CHILDREN = 60


def spin():
    time.sleep(0.5)  # once all are forked: a fork among 60 spinning children would be slow
    while True:
        pass


class CpuBurner(GreedyPlayer):
    name = "cpu-burner"
    spinning = False

    def start_game(self, info):
        if not CpuBurner.spinning:
            CpuBurner.spinning = True
            for _ in range(CHILDREN):
                if os.fork() == 0:
                    spin()
