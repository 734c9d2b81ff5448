"""A readable text view of a Trash table, for ``render_mode="ansi"`` and the terminal.

Only public information is shown (R2): face-down cards are ``##``; asked to ``reveal`` (once a hand is
over, as the terminal game shows it), each face-down card in brackets, ``(7)``.
"""

from __future__ import annotations

from collections.abc import Sequence

from trash_env.trash.config import MAX_LAYOUT
from trash_env.trash.rules import DRAW, FACE_DOWN, OVER, PHASE_NAMES, RANK_NAMES, TrashState


def slot_text(value: int, slot: int) -> str:
    """``##`` face down, the rank when filled, the wild rank with ``*`` when wild-filled."""
    if value == FACE_DOWN:
        return "##"
    if value == slot + 1:
        return RANK_NAMES[value]
    return RANK_NAMES[value] + "*"


def render_table(state: TrashState, names: Sequence[str] | None = None, reveal: bool = False) -> str:
    """The whole public table as text, one line per seat; ``reveal`` shows each face-down card in
    brackets (``(7)``: what the end of a hand lays open), never to be used while a hand is played (R2)."""
    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    width = max(len(name) for name in names)
    config = state.config
    if state.phase == OVER:
        header = f"Trash  hand {state.hand + 1}  after {state.turn} turns"
        if state.truncated:
            header += "  -- over: truncated at max_turns, a draw"
        elif state.winners:
            header += "  -- over: won by " + ", ".join(names[s] for s in state.winners)
        else:
            header += "  -- over: a draw"
    else:
        header = f"Trash  hand {state.hand + 1}  turn {state.turn + 1}/{config.max_turns}"
        header += f"  {names[state.current]} to act ({PHASE_NAMES[state.phase]})"
        if state.final_round:
            header += "  FINAL ROUND"
    top = RANK_NAMES[state.discard[-1]] if state.discard else "-"
    held = "-" if state.phase in (DRAW, OVER) else RANK_NAMES[state.held]
    piles = f"stock {len(state.stock)}  discard {len(state.discard)} (top {top})  held {held}"
    cell = 4 if reveal else 3
    ranks = "  ".join(f"{RANK_NAMES[i + 1]:>{cell}s}" for i in range(MAX_LAYOUT))
    lines = [header, piles, f"{'':{width}s}  {ranks}"]
    for seat in range(n):
        cells = [
            f"({RANK_NAMES[state.down[seat][i]]})" if reveal and v == FACE_DOWN else slot_text(v, i)
            for i, v in enumerate(state.up[seat])
        ]
        cells += ["." for _ in range(state.sizes[seat], MAX_LAYOUT)]
        row = "  ".join(f"{c:>{cell}s}" for c in cells)
        marker = ">" if seat == state.current and state.phase != OVER else " "
        notes = []
        if config.match:
            notes.append(f"hands won {state.hands_won[seat]}")
        if seat in state.hand_winners:
            notes.append("completed")
        lines.append(f"{names[seat]:{width}s}{marker} {row}  {'  '.join(notes)}".rstrip())
    return "\n".join(lines)
