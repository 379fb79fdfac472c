"""MkDocs hooks for the docs site (mkdocs.yml, ``hooks:``).

arena's docstrings name other objects with Sphinx roles (``:class:`Run```), which
mkdocstrings renders as the role's text followed by the code span.  Keep the code span.
"""

import re

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):(?=<code>)")


def on_page_content(html: str, **kwargs: object) -> str:
    return ROLE.sub("", html)
