"""Pictures of a table as ``(H, W, 3)`` uint8 arrays, rasterised from its SVG (:mod:`.svg`).

Needs the ``render`` extra (resvg-py, a self-contained wheel, and Pillow): ``pip install -e '.[render]'``.
"""

from __future__ import annotations

import io

import numpy as np


def svg_to_rgb(svg: str) -> np.ndarray:
    """The SVG document rasterised at its own size, as an ``(H, W, 3)`` uint8 array."""
    try:
        import resvg_py
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            f"drawing tables as images needs the render extra: pip install -e '.[render]' ({error})"
        ) from None
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg))
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.uint8)
