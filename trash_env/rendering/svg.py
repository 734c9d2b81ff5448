"""What both games' pictures are drawn with (drawsvg, the ``render`` extra): the colours, the font,
the table, text, rectangles and seat names. Each game draws its own table from these:
:mod:`trash_env.trash.drawing` (Trash) and :mod:`trash_env.neighbor.drawing` (Help Your Neighbor).
The SVG is the one source of every picture: images, videos, replays and the browser page are made
from it (:mod:`trash_env.rendering.image`, :mod:`trash_env.rendering.media`)."""

from __future__ import annotations

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
}


def new_drawing(width: float, height: float) -> Any:
    try:
        import drawsvg
    except ImportError as error:
        raise missing_extra(error) from None
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


def text(drawing: Any, text: str, x: float, y: float, size: int = 14, **extra: Any) -> None:
    import drawsvg

    style = {"font_family": FONT, "fill": COLOURS["text"], **extra}
    drawing.append(drawsvg.Text(text, size, x, y, **style))


def seat_name(drawing: Any, name: str, middle: float, turn: bool) -> None:
    """A seat's name left of its row, bold on its turn; ``"player_1 (greedy)"`` on two lines, the
    agent's name under the seat's in smaller type."""
    weight = "bold" if turn else "normal"
    seat, _, agent = name.partition(" (")
    if not agent:
        text(drawing, name, 14, middle + 5, 14, font_weight=weight)
        return
    text(drawing, seat, 14, middle - 2, 14, font_weight=weight)
    text(drawing, agent.removesuffix(")"), 14, middle + 14, 11, font_weight=weight)
