"""The table drawn as SVG, the one source of every picture (images, videos, replays and the browser
page are made from it), with drawsvg (the ``render`` extra).

Only public information is drawn (R2, R15): a face-down slot shows a card back, the stock a count.
Trash: every seat's layout (face down, filled, filled by a wild marked ``*``, and dashed outlines for
slots a match has taken away, R9), the held card, the stock and the discard pile with their sizes,
whose turn it is and in which phase, the final round (R6), hands won and layout sizes in a match.
Help Your Neighbor (R12): every seat's markers (uncovered: a light disc with its total; covered: a
dark one), how many each still has to cover, the last roll and who covered it through the
privilege of helping a neighbour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trash_env.config import MAX_LAYOUT
from trash_env.core import DRAW, FACE_DOWN, OVER, PHASE_NAMES, RANK_NAMES, GameState
from trash_env.neighbor import NeighborState
from trash_env.rendering import missing_extra

CARD_W, CARD_H, GAP = 38, 54, 6
LEFT, TOP, ROW = 120, 92, CARD_H + 26
WIDTH = LEFT + MAX_LAYOUT * (CARD_W + GAP) + 150
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


def _drawing(width: float, height: float) -> Any:
    try:
        import drawsvg
    except ImportError as error:
        raise missing_extra(error) from None
    drawing = drawsvg.Drawing(width, height)
    drawing.append(drawsvg.Rectangle(0, 0, width, height, fill=COLOURS["table"]))
    return drawing


def _document(drawing: Any) -> str:
    """The drawing as an SVG element (no XML declaration: it is a whole file as it is, and goes
    straight into an HTML page)."""
    svg = drawing.as_svg()
    return svg[svg.index("<svg") :]


def _rect(drawing: Any, x: float, y: float, w: float, h: float, **style: Any) -> None:
    import drawsvg

    drawing.append(drawsvg.Rectangle(x, y, w, h, **style))


def _card(drawing: Any, x: float, y: float, rank: int | None, wild: bool = False) -> None:
    """A card at (x, y): face up with its rank (``wild``: a wild card standing in a slot), or its
    back when ``rank`` is None."""
    if rank is None:
        _rect(drawing, x, y, CARD_W, CARD_H, rx=4, fill=COLOURS["back"], stroke="#ffffff")
        _rect(drawing, x + 4, y + 4, CARD_W - 8, CARD_H - 8, rx=2, fill="none", stroke="#8fa8e8")
        return
    fill = COLOURS["wild"] if wild else COLOURS["face"]
    _rect(drawing, x, y, CARD_W, CARD_H, rx=4, fill=fill, stroke="#444444")
    label = RANK_NAMES[rank] + ("*" if wild else "")
    colour = COLOURS["red"] if rank in (1, 3, 5, 7, 9, 11, 13) else COLOURS["ink"]
    _text(drawing, label, x + CARD_W / 2, y + CARD_H / 2 + 6, 17, text_anchor="middle", font_weight="bold", fill=colour)


def _empty(drawing: Any, x: float, y: float) -> None:
    """A slot no longer in the layout (R9: layouts shrink in a match), or an empty pile."""
    _rect(drawing, x, y, CARD_W, CARD_H, rx=4, fill="none", stroke="#9fc9ae", stroke_dasharray="4,3")


def _text(drawing: Any, text: str, x: float, y: float, size: int = 14, **extra: Any) -> None:
    import drawsvg

    style = {"font_family": FONT, "fill": COLOURS["text"], **extra}
    drawing.append(drawsvg.Text(text, size, x, y, **style))


def _seat_name(drawing: Any, name: str, middle: float, turn: bool) -> None:
    """A seat's name left of its row, bold on its turn; ``"player_1 (greedy)"`` on two lines, the
    agent's name under the seat's in smaller type."""
    weight = "bold" if turn else "normal"
    seat, _, agent = name.partition(" (")
    if not agent:
        _text(drawing, name, 14, middle + 5, 14, font_weight=weight)
        return
    _text(drawing, seat, 14, middle - 2, 14, font_weight=weight)
    _text(drawing, agent.removesuffix(")"), 14, middle + 14, 11, font_weight=weight)


def trash_svg(state: GameState, names: Sequence[str] | None = None) -> str:
    """The public table of a Trash game as an SVG document (a string)."""
    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    height = TOP + n * ROW + 16
    drawing = _drawing(WIDTH, height)
    config = state.config
    if state.phase == OVER:
        if state.truncated:
            header = f"Trash - hand {state.hand + 1} over after {state.turn} turns: a draw (max_turns)"
        elif state.winners:
            header = f"Trash - hand {state.hand + 1} over: won by " + ", ".join(names[s] for s in state.winners)
        else:
            header = f"Trash - hand {state.hand + 1} over: a draw"
    else:
        header = f"Trash - hand {state.hand + 1}, turn {state.turn + 1}: {names[state.current]} to act"
        header += f" ({PHASE_NAMES[state.phase]})"
    _text(drawing, header, 14, 24, 16, font_weight="bold")
    if state.final_round:
        _text(drawing, "FINAL ROUND", WIDTH - 14, 24, 16, font_weight="bold", text_anchor="end")
    # The piles: stock (a back and its count), discard (its top card and count), the held card.
    if state.stock:
        _card(drawing, 14, 34, None)
    else:
        _empty(drawing, 14, 34)
    _text(drawing, f"stock {len(state.stock)}", 14 + CARD_W + 6, 66)
    x = 150
    if state.discard:
        _card(drawing, x, 34, state.discard[-1])
    else:
        _empty(drawing, x, 34)
    _text(drawing, f"discard {len(state.discard)}", x + CARD_W + 6, 66)
    x = 300
    if state.phase not in (DRAW, OVER):
        _card(drawing, x, 34, state.held)
        _text(drawing, f"held by {names[state.current]}", x + CARD_W + 6, 66)
    for seat in range(n):
        y = TOP + seat * ROW
        turn = seat == state.current and state.phase != OVER
        _seat_name(drawing, names[seat], y + CARD_H / 2, turn)
        if turn:
            w = MAX_LAYOUT * (CARD_W + GAP) + 4
            _rect(drawing, LEFT - 5, y - 5, w, CARD_H + 10, rx=6, fill="none", stroke=COLOURS["turn"], stroke_width=3)
        for slot in range(MAX_LAYOUT):
            cx = LEFT + slot * (CARD_W + GAP)
            if slot >= state.sizes[seat]:
                _empty(drawing, cx, y)
                continue
            value = state.up[seat][slot]
            if value == FACE_DOWN:
                _card(drawing, cx, y, None)
            else:
                _card(drawing, cx, y, value, wild=value != slot + 1)
        notes = []
        if config.match:
            notes.append(f"won {state.hands_won[seat]}, layout {state.sizes[seat]}")
        if seat in state.hand_winners:
            notes.append("completed")
        _text(drawing, "; ".join(notes), LEFT + MAX_LAYOUT * (CARD_W + GAP) + 8, y + CARD_H / 2 + 5, 12)
    return _document(drawing)


MARKER = 40


def neighbor_svg(state: NeighborState, names: Sequence[str] | None = None) -> str:
    """A Help Your Neighbor table as an SVG document (R12): per seat its ten markers (a covered marker
    is dark with its total dimmed, an uncovered one light with its total), whose turn it is, the last
    roll and who covered it through the privilege, and who used the privilege last."""
    import drawsvg

    from trash_env import neighbor

    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    width = LEFT + neighbor.NUM_MARKERS * (MARKER + GAP) + 130
    height = TOP + n * (MARKER + 22) + 10
    drawing = _drawing(width, height)
    if state.over:
        header = f"Help Your Neighbor - over after {state.turn} turns: "
        header += "a draw (max_turns)" if state.truncated else f"won by {names[state.winners[0]]}"
    else:
        header = f"Help Your Neighbor - turn {state.turn + 1}: {names[state.current]} to act"
        header += f" ({neighbor.PHASE_NAMES[state.phase]})"
    _text(drawing, header, 14, 24, 16, font_weight="bold")
    if state.roll:
        last = f"last roll: {state.roll} by {names[state.roller]}"
        if state.roll == neighbor.SEVEN:
            last += ", a 7: uncover a marker"
        elif state.helper != neighbor.NOBODY:
            last += f", covered by {names[state.helper]} (helping a neighbour)"
        _text(drawing, last, 14, 50, 14)
    if state.privileged != neighbor.NOBODY:
        _text(drawing, f"the privilege was last used by {names[state.privileged]}", 14, 72, 13)
    for seat in range(n):
        y = TOP + seat * (MARKER + 22)
        turn = seat == state.current and not state.over
        _seat_name(drawing, names[seat], y + MARKER / 2, turn)
        if turn:
            w = neighbor.NUM_MARKERS * (MARKER + GAP) + 4
            _rect(drawing, LEFT - 5, y - 5, w, MARKER + 10, rx=6, fill="none", stroke=COLOURS["turn"], stroke_width=3)
        for j, (total, covered) in enumerate(zip(neighbor.TOTALS, state.covered[seat], strict=True)):
            cx = LEFT + j * (MARKER + GAP) + MARKER / 2
            fill = COLOURS["back"] if covered else COLOURS["face"]
            drawing.append(drawsvg.Circle(cx, y + MARKER / 2, MARKER / 2, fill=fill, stroke="#ffffff"))
            ink = COLOURS["covered"] if covered else COLOURS["ink"]
            _text(drawing, str(total), cx, y + MARKER / 2 + 6, 16, text_anchor="middle", font_weight="bold", fill=ink)
        x = LEFT + neighbor.NUM_MARKERS * (MARKER + GAP) + 8
        _text(drawing, f"{state.left[seat]} to cover", x, y + MARKER / 2 + 5, 12)
    return _document(drawing)
