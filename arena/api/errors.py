"""The one exception the Python API raises for bad input."""

from __future__ import annotations


class ArenaError(ValueError):
    """Bad input to the Python API (an unknown ruleset, a bad player, an existing ``out`` folder,
    a folder that is not a run): the message is the one line the command line would print after
    ``arena: error:``."""
