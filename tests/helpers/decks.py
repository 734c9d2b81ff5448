"""Stacking decks for rule scenarios (R3): name the layouts and the top of the stock."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from trash_env.trash.config import TrashConfig
from trash_env.trash.rules import full_deck


def stacked_deck(
    config: TrashConfig,
    layouts: Sequence[Sequence[int]],
    stock: Sequence[int] = (),
    first: int = 0,
    sizes: Sequence[int] | None = None,
) -> list[int]:
    """A deck order that deals ``layouts[seat][slot]`` face down and puts ``stock``
    on top of the stock, ``stock[0]`` drawn first (R3). The rest of the
    configured cards lie below in rank order. ``first`` is the seat dealt to
    first; ``sizes`` the layout sizes (default: ``config.layout_size`` each).
    """
    n = config.num_players
    sizes = list(sizes) if sizes is not None else [config.layout_size] * n
    assert len(layouts) == n, "one layout per seat"
    for seat, layout in enumerate(layouts):
        assert len(layout) == sizes[seat], f"seat {seat} needs {sizes[seat]} cards"
    dealt = []
    for slot in range(max(sizes)):
        for k in range(n):
            seat = (first + k) % n
            if slot < sizes[seat]:
                dealt.append(layouts[seat][slot])
    wanted = Counter(dealt) + Counter(stock)
    rest = Counter(full_deck(config))
    rest.subtract(wanted)
    missing = {rank: -count for rank, count in rest.items() if count < 0}
    assert not missing, f"the configured deck does not hold these extra cards: {missing}"
    return dealt + list(stock) + sorted(rest.elements())
