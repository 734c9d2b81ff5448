"""The JSON files the package reads (game records, the benchmark's result, exploitability and cross-play
files) as pydantic models, and their refusals as one line.

Every file is parsed by ``json`` first (bounded, NaN and infinity refused: :mod:`trash_env.files`), then
validated by pydantic against the types here: JSON's own types only (an integer is not a string, a
boolean or a float, and ``true`` is not 1; a float may be written as an integer), every number finite.
What pydantic finds wrong is said as the file's readers always said it: the dotted field and what is
wrong with its value (:func:`first_problem`), one line, naming the file where the reader knows it.
"""

from __future__ import annotations

import re
import reprlib
from typing import Annotated, Any, NamedTuple

from pydantic import Field, ValidationError

Integer = Annotated[int, Field(strict=True)]
Number = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Flag = Annotated[bool, Field(strict=True)]
Text = Annotated[str, Field(strict=True)]


class Problem(NamedTuple):
    """The first thing pydantic found wrong: the field (``curve[0].score``; ``""`` for the whole
    object), pydantic's kind of error, the value found there, and what is wrong in pydantic's words."""

    field: str
    kind: str
    value: Any
    message: str

    @property
    def missing(self) -> bool:
        return self.kind in ("missing", "missing_argument", "missing_keyword_only_argument")

    @property
    def unknown(self) -> bool:
        """A field the model does not know."""
        return self.kind in ("extra_forbidden", "unexpected_keyword_argument")


def first_problem(error: ValidationError) -> Problem:
    """The first of pydantic's errors, its location as a dotted field name (a mapping's bad key: the
    mapping's field, the key as the value)."""
    found = error.errors(include_url=False)[0]
    loc = tuple(found["loc"])
    if loc[-1:] == ("[key]",):
        loc = loc[:-2]
    return Problem("".join(map(_step, loc)).lstrip("."), found["type"], found.get("input"), found["msg"])


def _step(part: str | int) -> str:
    """One step of a field's dotted name: ``[i]`` of a list, ``.name`` (quoted unless plain) of an object."""
    if isinstance(part, int):
        return f"[{part}]"
    return f".{part}" if re.fullmatch(r"\w{1,40}", part) else f".{short(part)}"


def short(value: Any) -> str:
    """A value for a one-line message, cut short if long."""
    return reprlib.repr(value)
