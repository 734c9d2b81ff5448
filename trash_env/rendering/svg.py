"""What both games' pictures are drawn with (drawsvg, the ``render`` extra): the colours, the font,
the table, text, rectangles and seat names. Each game draws its own table from these:
:mod:`trash_env.trash.drawing` (Trash) and :mod:`trash_env.neighbor.drawing` (Help Your Neighbor).
The SVG is the one source of every picture: images, videos, replays and the browser page are made
from it (:mod:`trash_env.rendering.image`, :mod:`trash_env.rendering.media`)."""

from __future__ import annotations

import re
from typing import Any

from trash_env.rendering import missing_extra

GAP = 6  # between two cards or markers
LEFT, TOP = 120, 92  # where the seats' rows start: after the names, under the header
FONT = "DejaVu Sans, Verdana, sans-serif"
COLOURS = {
    "table": "#1f6f43",
    "back": "#2b4c9b",
    "face": "#fdfdf8",
    "wild": "#fff1c4",
    "ink": "#1b1b1b",
    "red": "#b3261e",
    "text": "#f4f4ee",
    "turn": "#ffd54a",
    "covered": "#7f93c9",
    "label": "#cfe6d6",  # the slot labels over a layout
}


def svg_library() -> Any:
    """The ``drawsvg`` module, or an ``ImportError`` naming the ``render`` extra (what every drawing
    imports it through, so that a picture asked for without the extra says how to get it)."""
    try:
        import drawsvg
    except ImportError as error:
        raise missing_extra(error) from None
    return drawsvg


def new_drawing(width: float, height: float) -> Any:
    drawsvg = svg_library()
    drawing = drawsvg.Drawing(width, height)
    drawing.append(drawsvg.Rectangle(0, 0, width, height, fill=COLOURS["table"]))
    return drawing


def document(drawing: Any) -> str:
    """The drawing as an SVG element (no XML declaration: it is a whole file as it is, and goes
    straight into an HTML page)."""
    svg = drawing.as_svg()
    return svg[svg.index("<svg") :]


def rect(drawing: Any, x: float, y: float, w: float, h: float, **style: Any) -> None:
    import drawsvg

    drawing.append(drawsvg.Rectangle(x, y, w, h, **style))


ADVANCE = 0.62  # DejaVu Sans: about this many font sizes per character, bold included (a little generous)
NAME_WIDTH = LEFT - 14 - 8  # the names' column, less a margin before the rows


def fits(text: str, size: int, width: float) -> bool:
    """Whether ``text`` in ``size`` is about ``width`` wide or less (no font is read: an estimate)."""
    return len(text) * ADVANCE * size <= width


def text(drawing: Any, text: str, x: float, y: float, size: int = 14, width: float | None = None, **extra: Any) -> None:
    """``text`` at (x, y); with ``width``, a text too wide for it is squeezed to that width
    (``textLength``) rather than run into what is beside it."""
    import drawsvg

    style = {"font_family": FONT, "fill": COLOURS["text"], **extra}
    if width is not None and not fits(text, size, width):
        style.update(textLength=width, lengthAdjust="spacingAndGlyphs")
    drawing.append(drawsvg.Text(text, size, x, y, **style))


def name_lines(agent: str, size: int = 11) -> list[str]:
    """An agent's name on one line, or on two, cut after a ``_ - : / . =`` near its middle, when it
    is too wide for the names' column."""
    cuts = [found.end() for found in re.finditer(r"[_\-:/.=]", agent[:-1])]
    if fits(agent, size, NAME_WIDTH) or not cuts:
        return [agent]
    cut = min(cuts, key=lambda at: max(at, len(agent) - at))
    return [agent[:cut], agent[cut:]]


def seat_name(drawing: Any, name: str, middle: float, turn: bool) -> None:
    """A seat's name left of its row, bold on its turn; ``"player_1 (greedy)"`` on two lines, the
    agent's name under the seat's in smaller type."""
    weight = "bold" if turn else "normal"
    seat, _, agent = name.partition(" (")
    if not agent:
        text(drawing, name, 14, middle + 5, 14, font_weight=weight)
        return
    lines = name_lines(agent.removesuffix(")"))
    top = middle - 2 - 6 * (len(lines) - 1)  # two lines of the agent's name: the three centred on the row
    text(drawing, seat, 14, top, 14, NAME_WIDTH, font_weight=weight)
    for k, line in enumerate(lines):
        text(drawing, line, 14, top + 16 + 12 * k, 11, NAME_WIDTH, font_weight=weight)
