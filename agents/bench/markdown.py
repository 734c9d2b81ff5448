"""Markdown for generated pages: tables from rows, and generated text spliced between markers.

A generated part of a Markdown file stands between ``<!-- table:NAME -->`` and
``<!-- /table:NAME -->`` (each marker on its own line), so that no figure is typed by hand:
``trash-bench report --readme FILE`` (:mod:`agents.bench.report`) writes the leaderboard there and
``scripts/readme_tables.py`` every other generated table, both through :func:`splice`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

MARKED = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.DOTALL)


def row(cells: Sequence[str]) -> str:
    """One table row: ``| a | b |``; an empty cell is a single space (``| | b |``)."""
    return "|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table: the header, the separator, a line per row, each ending in a newline."""
    lines = [row(header), "|" + "---|" * len(header), *(row(cells) for cells in rows)]
    return "\n".join(lines) + "\n"


def markers(name: str) -> tuple[str, str]:
    """The opening and the closing marker of the generated part ``name``."""
    return f"<!-- table:{name} -->", f"<!-- /table:{name} -->"


def marked_names(text: str) -> list[str]:
    """The names of the generated parts of ``text``, in order."""
    return [match["name"] for match in MARKED.finditer(text)]


def splice(text: str, render: Callable[[str], str | None]) -> tuple[str, list[str]]:
    """``text`` with the part between each NAME's markers replaced by ``render(NAME)`` (None leaves
    that part as it is), and the names of the parts whose text changed."""
    changed: list[str] = []

    def replace(match: re.Match[str]) -> str:
        body = render(match["name"])
        if body is None:
            return match[0]
        if body != match["body"]:
            changed.append(match["name"])
        return match[1] + body + match[4]

    return MARKED.sub(replace, text), changed
