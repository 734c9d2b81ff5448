"""Pictures of the tables: SVG (:mod:`.svg`), images (:mod:`.image`), replays and GIFs (:mod:`.media`).

Everything here needs the ``render`` extra: ``pip install 'trash-rl[render]'`` (drawsvg, resvg-py, Pillow).
"""

from __future__ import annotations

import importlib.util

from trash_env import extras

EXTRA = ("drawsvg", "resvg_py", "PIL")


def missing_extra(error: ImportError) -> ImportError:
    """The error for a picture asked for without the ``render`` extra (``error``: the failed import)."""
    return extras.missing_extra("pictures", "render", error)


def require() -> None:
    """An ``ImportError`` naming the ``render`` extra unless everything pictures need is installed."""
    missing = [name for name in EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise extras.MissingExtraError(extras.needs_extra("pictures", "render", ", ".join(missing)))
