"""MkDocs hooks for the docs site (mkdocs.yml, ``hooks:``).

arena's docstrings name other objects with Sphinx roles (``:class:`Run```), which
mkdocstrings renders as the role's text followed by the code span.  Keep the code span.

mkdocs-click shows click's marker for "no default" (click 8.2 and later) as the default of
options that have none, ``Sentinel.UNSET``; leave that cell empty, as ``--help`` does.
"""

import re

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):(?=<code>)")


UNSET = "<code>Sentinel.UNSET</code>"


def on_page_content(html: str, **kwargs: object) -> str:
    return ROLE.sub("", html).replace(UNSET, "")
