"""The public table of a Trash game drawn as SVG (the ``render`` extra), from the primitives of
:mod:`trash_env.rendering.svg`.

Only public information is drawn (R2, R15): a face-down slot shows a card back, the stock a count.
Every seat's layout (face down, filled, filled by a wild marked ``*``, and dashed outlines for
slots a match has taken away, R9), the held card, the stock and the discard pile with their sizes,
whose turn it is and in which phase, the final round (R6), hands won and layout sizes in a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trash_env.rendering.svg import COLOURS, GAP, LEFT, TOP, document, new_drawing, rect, seat_name, text
from trash_env.trash.config import MAX_LAYOUT
from trash_env.trash.rules import DRAW, FACE_DOWN, OVER, PHASE_NAMES, RANK_NAMES, TrashState

CARD_W, CARD_H = 38, 54
ROW = CARD_H + 26  # one seat's row
WIDTH = LEFT + MAX_LAYOUT * (CARD_W + GAP) + 150
LABELS = 18  # the row of slot labels (A .. 10) above the first seat's layout


def card(drawing: Any, x: float, y: float, rank: int | None, wild: bool = False, revealed: bool = False) -> None:
    """A card at (x, y): face up with its rank (``wild``: a wild card standing in a slot; ``revealed``:
    a face-down card laid open once the hand is over, on the back's colour), or its back when ``rank``
    is None."""
    if rank is None:
        rect(drawing, x, y, CARD_W, CARD_H, rx=4, fill=COLOURS["back"], stroke="#ffffff")
        rect(drawing, x + 4, y + 4, CARD_W - 8, CARD_H - 8, rx=2, fill="none", stroke="#8fa8e8")
        return
    fill = COLOURS["wild"] if wild else COLOURS["face"]
    rect(drawing, x, y, CARD_W, CARD_H, rx=4, fill=fill, stroke="#444444")
    if revealed:
        rect(drawing, x + 2, y + 2, CARD_W - 4, CARD_H - 4, rx=3, fill="none", stroke=COLOURS["back"], stroke_width=3)
    label = RANK_NAMES[rank] + ("*" if wild else "")
    colour = COLOURS["red"] if rank in (1, 3, 5, 7, 9, 11, 13) else COLOURS["ink"]
    text(drawing, label, x + CARD_W / 2, y + CARD_H / 2 + 6, 17, text_anchor="middle", font_weight="bold", fill=colour)


def cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def empty_slot(drawing: Any, x: float, y: float) -> None:
    """A slot no longer in the layout (R9: layouts shrink in a match), or an empty pile."""
    rect(drawing, x, y, CARD_W, CARD_H, rx=4, fill="none", stroke="#9fc9ae", stroke_dasharray="4,3")


def trash_svg(state: TrashState, names: Sequence[str] | None = None, reveal: bool = False) -> str:
    """The public table of a Trash game as an SVG document (a string); ``reveal`` lays every face-down
    card open, framed in the back's colour (once the game is over: never while it is played, R2)."""
    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    top = TOP + LABELS  # the first seat's row, under the slot labels
    height = top + n * ROW + 16
    drawing = new_drawing(WIDTH, height)
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
    text(drawing, header, 14, 24, 16, WIDTH - 28 - (130 if state.final_round else 0), font_weight="bold")
    if state.final_round:
        text(drawing, "FINAL ROUND", WIDTH - 14, 24, 16, font_weight="bold", text_anchor="end")
    # The piles: stock (a back and its count), discard (its top card and count), the held card.
    if state.stock:
        card(drawing, 14, 34, None)
    else:
        empty_slot(drawing, 14, 34)
    text(drawing, "stock", 14 + CARD_W + 6, 58, 13)
    text(drawing, cards(len(state.stock)), 14 + CARD_W + 6, 74, 13)
    x = 150
    if state.discard:
        card(drawing, x, 34, state.discard[-1])
    else:
        empty_slot(drawing, x, 34)
    text(drawing, "discard pile", x + CARD_W + 6, 58, 13)
    text(drawing, cards(len(state.discard)), x + CARD_W + 6, 74, 13)
    x = 300
    if state.phase not in (DRAW, OVER):
        card(drawing, x, 34, state.held)
        text(drawing, f"held by {names[state.current]}", x + CARD_W + 6, 66, 14, WIDTH - 14 - (x + CARD_W + 6))
    for slot in range(MAX_LAYOUT):  # each slot named by the rank whose place it is (R2)
        middle = LEFT + slot * (CARD_W + GAP) + CARD_W / 2
        text(drawing, RANK_NAMES[slot + 1], middle, top - 9, 12, text_anchor="middle", fill=COLOURS["label"])
    for seat in range(n):
        y = top + seat * ROW
        turn = seat == state.current and state.phase != OVER
        seat_name(drawing, names[seat], y + CARD_H / 2, turn)
        if turn:
            w = MAX_LAYOUT * (CARD_W + GAP) + 4
            rect(drawing, LEFT - 5, y - 5, w, CARD_H + 10, rx=6, fill="none", stroke=COLOURS["turn"], stroke_width=3)
        for slot in range(MAX_LAYOUT):
            cx = LEFT + slot * (CARD_W + GAP)
            if slot >= state.sizes[seat]:
                empty_slot(drawing, cx, y)
                continue
            value = state.up[seat][slot]
            if value == FACE_DOWN and reveal:
                card(drawing, cx, y, state.down[seat][slot], revealed=True)
            elif value == FACE_DOWN:
                card(drawing, cx, y, None)
            else:
                card(drawing, cx, y, value, wild=value != slot + 1)
        notes = []
        if config.match:
            notes.append(f"won {state.hands_won[seat]}, layout {state.sizes[seat]}")
        if seat in state.hand_winners:
            notes.append("completed")
        text(drawing, "; ".join(notes), LEFT + MAX_LAYOUT * (CARD_W + GAP) + 8, y + CARD_H / 2 + 5, 12)
    return document(drawing)
