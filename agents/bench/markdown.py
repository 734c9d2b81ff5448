"""Markdown for generated pages: tables from rows, and generated text spliced between markers.

A generated part of a Markdown file stands between ``<!-- table:NAME -->`` and
``<!-- /table:NAME -->`` (each marker on its own line), so that no figure is typed by hand:
``trash-bench report --readme FILE`` (:mod:`agents.bench.report`) writes the leaderboard there and
``scripts/readme_tables.py`` every other generated table, both through :func:`splice`.

A name in a table (an algorithm's, a task's) goes through :func:`literal`: a plain name is shown as
code, anything else is escaped, so that no name can split a table's cells, link, format, or put HTML
into the page a renderer makes of it (or a marker into a file spliced later).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

MARKED = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.DOTALL)
MARKER = re.compile(r"<!-- (?P<close>/?)table:(?P<name>[\w-]+) -->")
PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # nothing in it means anything to Markdown or HTML
RUN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*")  # ALGORITHM[/fraction_F]/seed_N
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")  # line breaks and the like: never in a table's row
# The marks that format, link, make HTML or end a table's cell (GitHub's strikethrough and math included).
SPECIAL = frozenset("\\`*_{}[]()#+-.!|~$<>&")


def literal(text: str) -> str:
    """``text`` as it reads, in Markdown: a plain name as code (`` `maskable_ppo` ``); other text with
    each mark of :data:`SPECIAL` as its numeric character reference (``|`` as ``&#124;``: never the end
    of a table's cell, nor ``*`` emphasis, nor ``<`` a tag, in GitHub's rendering or the docs site's,
    where a backslash escape of some marks would keep its backslash) and control characters (a line
    break would end the table's row) as U+FFFD: text, never markup or HTML."""
    if PLAIN.fullmatch(text):
        return f"`{text}`"
    return "".join(f"&#{ord(c)};" if c in SPECIAL else c for c in CONTROL.sub("\ufffd", text))


def run_text(name: str) -> str:
    """A run's name (``maskable_ppo/seed_0``) as it reads: as it is when it is plain names joined by
    ``/`` (nothing in it means anything to Markdown or HTML), else :func:`literal`."""
    return name if RUN.fullmatch(name) else literal(name)


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


def check_markers(text: str) -> None:
    """A ValueError unless every marker of ``text`` is paired: each part opened once, closed once after
    it, no part inside another (a forged or orphaned marker would make a later splice write elsewhere)."""
    open_name = None
    for match in MARKER.finditer(text):
        name, closing = match["name"], bool(match["close"])
        if not closing and open_name is None:
            open_name = name
        elif closing and open_name == name:
            open_name = None
        else:
            raise ValueError(f"the marker {match[0]} is not paired with its part's other marker")
    if open_name is not None:
        raise ValueError(f"the generated part {open_name} is opened but never closed")


def splice(text: str, render: Callable[[str], str | None]) -> tuple[str, list[str]]:
    """``text`` with the part between each NAME's markers replaced by ``render(NAME)`` (None leaves
    that part as it is), and the names of the parts whose text changed. A ValueError if ``text`` has
    a marker that is not paired (:func:`check_markers`) or a rendered part holds a marker."""
    check_markers(text)
    changed: list[str] = []

    def replace(match: re.Match[str]) -> str:
        body = render(match["name"])
        if body is None:
            return match[0]
        if MARKER.search(body):
            raise ValueError(f"the generated part {match['name']} holds a marker of its own: refused")
        if body != match["body"]:
            changed.append(match["name"])
        return match[1] + body + match[4]

    return MARKED.sub(replace, text), changed
