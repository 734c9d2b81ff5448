"""MkDocs hooks: the docstrings' reST roles (``:mod:`x```, ``:class:`~x```) shown as plain code
spans on the API reference (mkdocstrings renders the double backquotes, not the roles)."""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj):(<code>)~?")


def on_page_content(html: str, **_: Any) -> str:
    return ROLE.sub(r"\1", html)
