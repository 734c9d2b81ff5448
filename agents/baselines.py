"""Heuristic baselines, from random to card counting.

Each is a :class:`~agents.base.PolicyAgent`: a policy over the public state,
asked only at real choices (R13). The choices Trash offers are few: take the
discard or draw (R4), where to put a wild (R5, R6), whether to displace a
wild or decline an optional placement (R5).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import PolicyAgent, SeatView
from trash_env.trash.rules import DISCARD, DRAW_STOCK, FACE_DOWN, PLACE_SLOT_0, TAKE_DISCARD, TrashState, can_place


class RandomAgent(PolicyAgent):
    """Uniform over the legal actions: the floor of the ladder (of both games).

    It draws exactly once per real decision (R13, R14), one ``rng.random()`` scaled to the number
    of legal actions: ``legal[int(rng.random() * len(legal))]``, the legal actions in increasing
    order. That is one 64-bit output of the generator per decision, which the batched engine
    reproduces bit for bit from the same counter-based stream (``trash_env.counter_rng``), so
    ``random`` plays inside the engine the very games it plays on the rules core. (The product
    is below ``len(legal)`` for every double below 1, so the index is always in range.)
    """

    name = "random"
    games = None  # every game: its moves are drawn from the legal ones, whatever they are
    batchable = True

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        return self.choose(None, view.legal_actions, rng)  # needs no state

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator]) -> np.ndarray:
        """The same draws as :meth:`act`: one ``rng.random()`` per row from that seat's generator."""
        return np.array([self.choose(None, np.flatnonzero(mask).tolist(), rng) for mask, rng in zip(masks, rngs)])

    def policy_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Uniform over each row's legal actions."""
        legal = np.asarray(masks, dtype=np.float64)
        return legal / legal.sum(axis=1, keepdims=True)

    def choose(self, state: TrashState | None, legal: list[int], rng: np.random.Generator) -> int:
        return legal[int(rng.random() * len(legal))]


def takes_playable_discard(state: TrashState, legal: list[int]) -> bool:
    """Whether the top discard may be taken and placed now (R4, R5)."""
    return TAKE_DISCARD in legal and can_place(state, state.current, state.discard[-1])


class GreedyAgent(PolicyAgent):
    """Always makes progress now: takes a playable discard (a sure placement beats
    an unknown card), always places rather than discards (so it always displaces
    a wild, which then turns up another card), and puts a wild on the lowest
    face-down slot."""

    name = "greedy"

    def choose(self, state: TrashState, legal: list[int], rng: np.random.Generator) -> int:
        if DRAW_STOCK in legal:
            return TAKE_DISCARD if takes_playable_discard(state, legal) else DRAW_STOCK
        return legal[0]  # the lowest slot; DISCARD (12) only when nothing can be placed


class CountingAgent(PolicyAgent):
    """Greedy, but puts a wild where the cards still out make it most needed.

    For each face-down slot it counts the slot's rank's *outs*: the copies that
    may still turn up, i.e. unaccounted for (face down somewhere or in the stock,
    R15) or known to be in the stock after a reshuffle (R7). A wild is placed on
    the slot with the fewest outs: a rank with many outs will probably come by
    itself (and would then only displace the wild), while a rank whose copies are
    all face up or buried in the discard pile may never come. Ties go to the
    higher rank, whose copies are more often dead for other players and so more
    often discarded late. Like greedy it takes a playable discard and always
    displaces a wild (the displaced wild is re-placed by the same count).

    Measured against greedy it is within noise (docs/evaluation.md, the ladder): a wild-filled
    slot still accepts its own rank, which displaces the wild onward, so the
    slot a wild covers changes little about which future cards make progress.
    """

    name = "counter"

    def choose(self, state: TrashState, legal: list[int], rng: np.random.Generator) -> int:
        if DRAW_STOCK in legal:
            return TAKE_DISCARD if takes_playable_discard(state, legal) else DRAW_STOCK
        slots = [a - PLACE_SLOT_0 for a in legal if a != DISCARD]
        if not slots:
            return DISCARD
        up = state.up[state.current]
        if len(slots) == 1 or not state.is_wild[state.held]:
            return PLACE_SLOT_0 + slots[0]  # a pip card's own slot (or the only slot)
        unaccounted, known = state.unaccounted, state.known_stock
        best = min(
            (slot for slot in slots if up[slot] == FACE_DOWN),
            key=lambda slot: (unaccounted[slot + 1] + known[slot + 1], -slot),
        )
        return PLACE_SLOT_0 + best
