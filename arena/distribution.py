"""arena's name on the package index, and the install commands for its optional extras.

The import package and the command are ``arena``, but the name ``arena`` on the Python Package
Index belongs to an unrelated package: ``pip install 'arena[plot]'`` would install that one.  So
the distribution is called :data:`DISTRIBUTION`.  Nothing here imports anything: every layer may
use it for its hints.
"""

from __future__ import annotations

#: The distribution name in pyproject.toml (checked free on pypi.org when it was chosen).
DISTRIBUTION = "zehntausend-arena"


def install_hint(extra: str) -> str:
    """The command that installs the optional ``extra`` (``plot``, ``dask``, ``fast``, ``rl``), right both
    for an installed arena and for a source checkout (an editable install of the folder)."""
    return f"pip install '{DISTRIBUTION}[{extra}]' (in a checkout of arena: pip install -e '.[{extra}]')"
