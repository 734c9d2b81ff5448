"""A readable text view of a Help Your Neighbor table, for ``render_mode="ansi"`` and the terminal (R12)."""

from __future__ import annotations

from collections.abc import Sequence

from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.rules import NeighborState


def render_neighbor(state: NeighborState, names: Sequence[str] | None = None) -> str:
    """A Help Your Neighbor table as text (R12): one line per seat, an uncovered
    marker shows its total, a covered one ``##``."""
    n = state.num_players
    names = list(names) if names is not None else [f"player_{i}" for i in range(n)]
    width = max(len(name) for name in names)
    if state.over:
        header = f"Help Your Neighbor  after {state.turn} turns"
        if state.truncated:
            header += "  -- over: truncated at max_turns, a draw"
        else:
            header += f"  -- over: won by {names[state.winners[0]]}"
    else:
        header = f"Help Your Neighbor  turn {state.turn + 1}/{state.config.max_turns}"
        header += f"  {names[state.current]} to act ({neighbor.PHASE_NAMES[state.phase]})"
    last = last_roll(state, names)
    if last:
        header += "\n" + last
    totals = "  ".join(f"{t:>2d}" for t in neighbor.TOTALS)
    lines = [header, f"{'':{width}s}  {totals}"]
    for seat in range(n):
        cells = "  ".join("##" if c else f"{t:>2d}" for t, c in zip(neighbor.TOTALS, state.covered[seat], strict=True))
        marker = ">" if seat == state.current and not state.over else " "
        lines.append(f"{names[seat]:{width}s}{marker} {cells}  ({state.left[seat]} to cover)")
    return "\n".join(lines)


def last_roll(state: NeighborState, names: Sequence[str]) -> str | None:
    """The last roll, who rolled it and what it did (R12): a 7 uncovers a marker, another total may be
    covered by a neighbour; None before the first roll. The text view and the drawing both show it."""
    if not state.roll:
        return None
    line = f"last roll {state.roll} by {names[state.roller]}"
    if state.roll == neighbor.SEVEN:
        return line + ": a 7 uncovers a marker"
    if state.helper != neighbor.NOBODY:
        return line + f", covered by {names[state.helper]} (help your neighbor)"
    return line
