"""Not a cheat: the honest opponent of ``cpu_burner.py``.  It plays like ``greedy``, but
thinks before each decision: a busy loop of :data:`THINK` seconds of its own CPU time
(``time.process_time``), so its decision time is what CPU it gets."""

import time

from arena.players.builtin.greedy import GreedyPlayer

#: CPU seconds spent on each decision.
THINK = 0.1


class Thinker(GreedyPlayer):
    name = "thinker"

    def decide(self, view):
        until = time.process_time() + THINK
        while time.process_time() < until:
            pass
        return super().decide(view)
