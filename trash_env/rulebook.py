"""The rule book, ``RULES.md``, installed inside the package: sections R1 to R15 and the rules notes.

Code, docstrings and tests cite its sections by number ("R5", "(R13)"); ``trash-play --rules``
prints it, ``trash-play --rules R9`` one section::

    >>> section("R12").splitlines()[0]
    '## R12. Help Your Neighbor (dice variant, a separate game)'
"""

from __future__ import annotations

import importlib.resources
import re

FILE = "RULES.md"


def rule_book() -> str:
    """The whole rule book, as Markdown."""
    return (importlib.resources.files("trash_env") / FILE).read_text(encoding="utf-8")


def sections() -> dict[str, str]:
    """Every numbered section by its number (``"R5"``), each from its heading to the next heading of
    its level or above."""
    found = {}
    parts = re.split(r"(?m)^(?=## )", rule_book())
    for part in parts:
        heading = re.match(r"## (R\d+)\. ", part)
        if heading:
            found[heading.group(1)] = part.rstrip() + "\n"
    return found


def section(number: str) -> str:
    """One section (``"R9"``, ``"r9"`` or ``"9"``): a ValueError naming the sections otherwise."""
    key = "R" + number.strip().upper().removeprefix("R")
    found = sections()
    if key not in found:
        raise ValueError(f"the rule book has no section {number!r}: its sections are R1 to R{len(found)}")
    return found[key]
