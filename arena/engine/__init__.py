"""The rules engine of 10,000: rulesets as data, scoring, dice streams and the game state machine.

Public API::

    from arena.engine import load_ruleset, score, legal_keeps, farkle_probability, Game, play

See ``docs/rules.md`` for every rule, where it comes from, and the readings chosen where the
rule documents are open.
"""

from arena.engine.dice import ScriptedDice, derive_seed
from arena.engine.game import DEFAULT_MAX_ROUNDS, Decider, Game, GameResult, play
from arena.engine.loading import load_ruleset, ruleset_from_mapping
from arena.engine.presets import CLASSIC, PRESETS, SHORT, STANDARD
from arena.engine.rules import Ruleset, RulesetError
from arena.engine.scoring import Keep, farkle_probability, legal_keeps, score, score_table
from arena.engine.turn_ends import TurnEnd
from arena.engine.view import Action, IllegalAction, TurnView

__all__ = [
    "CLASSIC",
    "DEFAULT_MAX_ROUNDS",
    "PRESETS",
    "SHORT",
    "STANDARD",
    "Action",
    "Decider",
    "Game",
    "GameResult",
    "IllegalAction",
    "Keep",
    "Ruleset",
    "RulesetError",
    "ScriptedDice",
    "TurnEnd",
    "TurnView",
    "derive_seed",
    "farkle_probability",
    "legal_keeps",
    "load_ruleset",
    "play",
    "ruleset_from_mapping",
    "score",
    "score_table",
]
