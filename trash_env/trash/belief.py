"""Belief sampling: a full hidden state consistent with everything public (R15).

Nobody sees face-down cards or the order of the stock (R2), and no player's
choice can depend on them, so given the public information every arrangement
of the unaccounted-for cards over the hidden places is equally likely. Search
agents use :func:`sample_hidden_state` to draw such arrangements ("determinize").
"""

from __future__ import annotations

import numpy as np

from trash_env.trash.rules import FACE_DOWN, TrashState, clone

HIDDEN = -2  # a card nobody may see, in a public view


def sample_hidden_state(state: TrashState, rng: np.random.Generator) -> TrashState:
    """A copy of ``state`` whose hidden cards (face-down slots and stock order) are
    redrawn uniformly among the arrangements consistent with the public state.

    The unaccounted cards of R15 go to the face-down slots and to the part of
    the stock no reshuffle has shown; the cards a reshuffle put into the stock
    (``known_stock``) stay in it, in a fresh random order.
    """
    new = clone(state)
    unknown = [rank for rank, count in enumerate(state.unaccounted) for _ in range(count)]
    known = [rank for rank, count in enumerate(state.known_stock) for _ in range(count)]
    unknown_in_stock = len(state.stock) - len(known)
    face_down = sum(state.face_down)
    if len(unknown) != face_down + unknown_in_stock:
        raise ValueError(
            f"inconsistent public state: {len(unknown)} unaccounted cards for {face_down} face-down slots "
            f"and {unknown_in_stock} unknown stock cards"
        )
    unknown = [unknown[i] for i in rng.permutation(len(unknown))]
    position = 0
    for seat in range(state.num_players):
        row = new.down[seat]
        for slot, value in enumerate(new.up[seat]):
            if value == FACE_DOWN:
                row[slot] = unknown[position]
                position += 1
    stock = unknown[position:] + known
    new.stock = [stock[i] for i in rng.permutation(len(stock))]
    new.deck = []  # the real deal order would reveal the hidden cards
    return new


def public_view(state: TrashState) -> TrashState:
    """A copy of ``state`` with everything hidden scrubbed (R2, R15): the cards under
    face-down slots, the order and content of the stock and the deal order are
    replaced by ``HIDDEN``. Public fields (counts, face-up cards, piles) are intact,
    so :func:`sample_hidden_state` can fill the hidden part back in."""
    new = clone(state)
    new.down = [[HIDDEN] * len(row) for row in state.down]
    new.stock = [HIDDEN] * len(state.stock)
    new.deck = []
    return new
