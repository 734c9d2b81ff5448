"""Pictures of the tables: SVG (:mod:`.svg`), images (:mod:`.image`), replays and GIFs (:mod:`.media`).

Everything here needs the ``render`` extra: ``pip install -e '.[render]'`` (drawsvg, resvg-py, Pillow).
"""

from __future__ import annotations

import importlib.util

EXTRA = ("drawsvg", "resvg_py", "PIL")


def missing_extra(detail: object) -> ImportError:
    """The error for a picture asked for without the ``render`` extra (``detail``: what is missing)."""
    return ImportError(f"pictures need the render extra: pip install -e '.[render]' ({detail})")


def require() -> None:
    """An ``ImportError`` naming the ``render`` extra unless everything pictures need is installed."""
    missing = [name for name in EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise missing_extra(f"missing {', '.join(missing)}")
