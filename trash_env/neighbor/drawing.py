"""A Help Your Neighbor table drawn as SVG (the ``render`` extra), from the primitives of
:mod:`trash_env.rendering.svg`: every seat's markers (uncovered: a light disc with its total; covered:
a dark one), how many each still has to cover, the last roll and who covered it through the
privilege of helping a neighbour (R12).
"""

from __future__ import annotations

from collections.abc import Sequence

from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.rules import NeighborState
from trash_env.neighbor.text import last_roll
from trash_env.rendering.svg import COLOURS, GAP, LEFT, TOP, document, new_drawing, rect, seat_name, svg_library, text

MARKER = 40


def neighbor_svg(state: NeighborState, names: Sequence[str] | None = None, reveal: bool = False) -> str:
    """A Help Your Neighbor table as an SVG document (R12): per seat its ten markers (a covered marker
    is dark with its total dimmed, an uncovered one light with its total), whose turn it is, the last
    roll and who covered it through the privilege, and who used the privilege last. Nothing is hidden
    (R12): ``reveal`` is accepted, as the Trash drawing takes it, and changes nothing."""
    drawsvg = svg_library()

    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    width = LEFT + neighbor.NUM_MARKERS * (MARKER + GAP) + 130
    height = TOP + n * (MARKER + 22) + 10
    drawing = new_drawing(width, height)
    if state.over:
        header = f"Help Your Neighbor - over after {state.turn} turns: "
        header += "a draw (max_turns)" if state.truncated else f"won by {names[state.winners[0]]}"
    else:
        header = f"Help Your Neighbor - turn {state.turn + 1}: {names[state.current]} to act"
        header += f" ({neighbor.PHASE_NAMES[state.phase]})"
    text(drawing, header, 14, 24, 16, width - 28, font_weight="bold")
    last = last_roll(state, names)
    if last:
        text(drawing, last, 14, 50, 14, width - 28)
    if state.privileged != neighbor.NOBODY:
        text(drawing, f"the privilege was last used by {names[state.privileged]}", 14, 72, 13, width - 28)
    for seat in range(n):
        y = TOP + seat * (MARKER + 22)
        turn = seat == state.current and not state.over
        seat_name(drawing, names[seat], y + MARKER / 2, turn)
        if turn:
            w = neighbor.NUM_MARKERS * (MARKER + GAP) + 4
            rect(drawing, LEFT - 5, y - 5, w, MARKER + 10, rx=6, fill="none", stroke=COLOURS["turn"], stroke_width=3)
        for j, (total, covered) in enumerate(zip(neighbor.TOTALS, state.covered[seat], strict=True)):
            cx = LEFT + j * (MARKER + GAP) + MARKER / 2
            fill = COLOURS["back"] if covered else COLOURS["face"]
            drawing.append(drawsvg.Circle(cx, y + MARKER / 2, MARKER / 2, fill=fill, stroke="#ffffff"))
            ink = COLOURS["covered"] if covered else COLOURS["ink"]
            text(drawing, str(total), cx, y + MARKER / 2 + 6, 16, text_anchor="middle", font_weight="bold", fill=ink)
        x = LEFT + neighbor.NUM_MARKERS * (MARKER + GAP) + 8
        text(drawing, f"{state.left[seat]} to cover", x, y + MARKER / 2 + 5, 12)
    return document(drawing)
