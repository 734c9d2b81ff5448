"""The table drawn as SVG, the one source of every picture (images and videos are rasterised from it).

Only public information is drawn (R2, R15): a face-down slot shows a card back. Work in progress
(issue 15): Trash's table; Help Your Neighbor's comes next.
"""

from __future__ import annotations

from collections.abc import Sequence

import svgwrite

from trash_env.config import MAX_LAYOUT
from trash_env.core import DRAW, FACE_DOWN, OVER, PHASE_NAMES, RANK_NAMES, GameState
from trash_env.neighbor import NeighborState

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
}


def _card(drawing: svgwrite.Drawing, x: float, y: float, rank: int | None, wild: bool = False) -> None:
    """A card at (x, y): face up with its rank (``wild``: a wild card standing in a slot), or its
    back when ``rank`` is None."""
    if rank is None:
        drawing.add(drawing.rect((x, y), (CARD_W, CARD_H), rx=4, fill=COLOURS["back"], stroke="#ffffff"))
        drawing.add(drawing.rect((x + 4, y + 4), (CARD_W - 8, CARD_H - 8), rx=2, fill="none", stroke="#8fa8e8"))
        return
    fill = COLOURS["wild"] if wild else COLOURS["face"]
    drawing.add(drawing.rect((x, y), (CARD_W, CARD_H), rx=4, fill=fill, stroke="#444444"))
    label = RANK_NAMES[rank] + ("*" if wild else "")
    colour = COLOURS["red"] if rank in (1, 3, 5, 7, 9, 11, 13) else COLOURS["ink"]
    drawing.add(
        drawing.text(
            label, insert=(x + CARD_W / 2, y + CARD_H / 2 + 6), text_anchor="middle", font_size=17,
            font_family=FONT, font_weight="bold", fill=colour,
        )
    )  # fmt: skip


def _empty(drawing: svgwrite.Drawing, x: float, y: float) -> None:
    """A slot no longer in the layout (R9: layouts shrink in a match)."""
    drawing.add(drawing.rect((x, y), (CARD_W, CARD_H), rx=4, fill="none", stroke="#9fc9ae", stroke_dasharray="4,3"))


def _text(drawing: svgwrite.Drawing, text: str, x: float, y: float, size: int = 14, **extra: str) -> None:
    drawing.add(drawing.text(text, insert=(x, y), font_size=size, font_family=FONT, fill=COLOURS["text"], **extra))


def trash_svg(state: GameState, names: Sequence[str] | None = None) -> str:
    """The public table of a Trash game as an SVG document (a string)."""
    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    height = TOP + n * ROW + 16
    drawing = svgwrite.Drawing(size=(WIDTH, height), profile="full")
    drawing.add(drawing.rect((0, 0), (WIDTH, height), fill=COLOURS["table"]))
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
        _text(drawing, names[seat], 14, y + CARD_H / 2 + 5, 14, font_weight="bold" if turn else "normal")
        if turn:
            drawing.add(
                drawing.rect((LEFT - 5, y - 5), (MAX_LAYOUT * (CARD_W + GAP) + 4, CARD_H + 10), rx=6,
                             fill="none", stroke=COLOURS["turn"], stroke_width=3)
            )  # fmt: skip
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
    return drawing.tostring()


MARKER = 40


def neighbor_svg(state: NeighborState, names: Sequence[str] | None = None) -> str:
    """A Help Your Neighbor table as an SVG document (R12): per seat its ten markers (a covered marker
    is dark, an uncovered one shows its total), whose turn it is, the last roll and who used it
    through the privilege."""
    from trash_env import neighbor

    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    width = LEFT + neighbor.NUM_MARKERS * (MARKER + GAP) + 130
    height = TOP + n * (MARKER + 22) + 10
    drawing = svgwrite.Drawing(size=(width, height), profile="full")
    drawing.add(drawing.rect((0, 0), (width, height), fill=COLOURS["table"]))
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
            last += " - a 7 uncovers a marker"
        elif state.helper != neighbor.NOBODY:
            last += f" - covered by {names[state.helper]} (help your neighbor)"
        _text(drawing, last, 14, 56, 15)
    for seat in range(n):
        y = TOP + seat * (MARKER + 22)
        turn = seat == state.current and not state.over
        _text(drawing, names[seat], 14, y + MARKER / 2 + 5, 14, font_weight="bold" if turn else "normal")
        if turn:
            drawing.add(
                drawing.rect((LEFT - 5, y - 5), (neighbor.NUM_MARKERS * (MARKER + GAP) + 4, MARKER + 10), rx=6,
                             fill="none", stroke=COLOURS["turn"], stroke_width=3)
            )  # fmt: skip
        for j, (total, covered) in enumerate(zip(neighbor.TOTALS, state.covered[seat], strict=True)):
            cx = LEFT + j * (MARKER + GAP) + MARKER / 2
            fill = COLOURS["back"] if covered else COLOURS["face"]
            drawing.add(drawing.circle((cx, y + MARKER / 2), MARKER / 2, fill=fill, stroke="#ffffff"))
            if not covered:
                drawing.add(
                    drawing.text(str(total), insert=(cx, y + MARKER / 2 + 6), text_anchor="middle", font_size=16,
                                 font_family=FONT, font_weight="bold", fill=COLOURS["ink"])
                )  # fmt: skip
        x = LEFT + neighbor.NUM_MARKERS * (MARKER + GAP) + 8
        _text(drawing, f"{state.left[seat]} to cover", x, y + MARKER / 2 + 5, 12)
    return drawing.tostring()
