"""A declarative strategy: the whole play as a Policy, so it also runs in the compiled kernel.

Write only the description; ``PolicyPlayer.decide`` interprets it in Python, and with numba
installed (``pip install -e '.[fast]'`` in a checkout) a tournament whose every seat has a policy plays in
the compiled kernel with the same games.  See docs/declarative.md for every option.
"""

from __future__ import annotations

from arena.players import Policy, PolicyPlayer

#: Turn totals at which to bank, by dice left in the cup (002 "Taktik: wann sichern?").
BANK_AT = {1: 250, 2: 300, 3: 400, 4: 800, 5: 1500, 6: 3000}
#: Columns of the table: turn totals 0, 50, ..., 3000 (the last column stands for any more).
COLUMNS = 61


class DiceLeftTable(PolicyPlayer):
    """Keeps the fewest dice and banks by a table of (dice left, turn total), as the guide's tactics advise.

    The table is the guide's rule "bank at a few hundred with one or two dice, roll on with
    four or more" written out cell by cell: ``table[left - 1][total // 50]`` says bank (True)
    or roll on (False).  Any other table works the same way, e.g. one fitted by self-play.
    """

    name = "dice-left-table"
    policy = Policy(
        keep="fewest_dice",
        bank="table",
        table=tuple(tuple(50 * column >= BANK_AT[left] for column in range(COLUMNS)) for left in range(1, 7)),
        bank_on_target=True,
    )
