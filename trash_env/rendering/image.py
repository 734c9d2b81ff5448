"""Pictures of a table as ``(H, W, 3)`` uint8 arrays, rasterised from its SVG (:mod:`.svg`).

Needs the ``render`` extra (drawsvg, resvg-py, a self-contained wheel, and Pillow):
``pip install 'trash-rl[render]'``. The text is set in the DejaVu Sans subset shipped in ``fonts/``
and the system's fonts are never read, so a picture is the same on every machine (and needs no
font package installed).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from trash_env.rendering import missing_extra

FONTS = [str(Path(__file__).with_name("fonts") / name) for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")]


def svg_to_png(svg: str) -> bytes:
    """The SVG document rasterised at its own size, as PNG bytes."""
    try:
        import resvg_py
    except ImportError as error:
        raise missing_extra(error) from None
    return bytes(
        resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True, font_files=FONTS, sans_serif_family="DejaVu Sans")
    )


def svg_to_rgb(svg: str) -> np.ndarray:
    """The SVG document rasterised at its own size, as an ``(H, W, 3)`` uint8 array."""
    png = svg_to_png(svg)
    try:
        from PIL import Image
    except ImportError as error:
        raise missing_extra(error) from None
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.uint8)
