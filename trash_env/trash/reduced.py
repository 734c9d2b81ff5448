"""Reduced Trash: two-player games small enough to walk whole (R11 with overrides; R2, R7, R15).

Trash's deck cannot be made small (R1: 52 cards per deck), so a game small enough for tabular
methods and exact best responses is made small by the rest: a short layout, no final round (at most
one seat wins, R8, so two players are zero-sum) and a game cut off as a draw after a few turns (R7).
And its shuffles are not drawn: nobody sees a hidden card (R2), so a card turned face up is uniform
among the cards it may be (R15's unaccounted cards, or after a reshuffle the stock's known cards),
and a move that turns one up waits at one chance node for it; the card drawn is swapped into place
among the hidden cards, which until then are placeholders, and the core applies the move. Every
chance outcome is public and nothing is private, so a history is all either player can know.

Used by the OpenSpiel game (:mod:`trash_env.trash.openspiel`, ``python_trash(preset=tiny)``) and the
package's own best-response tree walk (:mod:`agents.evaluation.tree_exploitability`), which need no
OpenSpiel. :func:`reduced_config` makes a preset's rules configuration.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trash_env.trash import rules as trash
from trash_env.trash.config import TrashConfig, make_config

RESHUFFLE = "reshuffle"  # a chance node drawing for a reshuffle (R7)
REVEAL, STOCK = "reveal", "stock"  # a reduced Trash's chance node: the card turned face up, and from where
REDUCED_PRESETS: dict[str, dict[str, Any]] = {
    # The standard game (R11) with overrides, two players, with "reveal" chance nodes: a layout of
    # two slots (one for micro), no final round so that at most one seat wins (R8: a zero-sum game),
    # and a game cut off as a draw after 2 turns, one each (4 for small, two each: R7). micro and
    # tiny (719 and 18,137 histories) are small enough for OpenSpiel's tabular CFR; small (9,395,877
    # histories) for the package's tree walk (about a minute), the largest it walks in about that.
    "micro": {"preset": "standard", "layout_size": 1, "final_turn": False, "max_turns": 2},
    "tiny": {"preset": "standard", "layout_size": 2, "final_turn": False, "max_turns": 2},
    "small": {"preset": "standard", "layout_size": 2, "final_turn": False, "max_turns": 4},
}


class RevealDraws:
    """The generator a reduced Trash's core is handed: a deal (R3, R9) keeps the deck's order (its
    cards are placeholders, drawn when turned face up), and a reshuffle (R7) puts a card of the rank
    the chance node drew on top; anything else is an error naming it."""

    def __init__(self, top: int | None = None) -> None:
        self._top = top

    def permutation(self, n: int) -> np.ndarray:
        return np.arange(n)

    def shuffle(self, cards: list[int]) -> None:
        if self._top is None:
            raise RuntimeError("the rules core reshuffled where trash_env.openspiel drew no card for it")
        cards.append(cards.pop(cards.index(self._top)))  # the top of the stock is the list's end

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"the rules core drew rng.{name}(), which trash_env.openspiel has no chance node for")


class Reveal:
    """A reduced Trash's move waiting for the card it turns face up: the move, where the card comes
    from (:func:`revealed_place`) and the copies per rank it may be. Never changed, so never copied."""

    __slots__ = ("move", "place", "counts")

    def __init__(self, move: int, place: str | int, counts: tuple[int, ...]) -> None:
        self.move, self.place, self.counts = move, place, counts

    def __deepcopy__(self, memo: dict) -> Reveal:
        return self

    def __getstate__(self) -> tuple:
        return self.move, self.place, self.counts

    def __setstate__(self, data: tuple) -> None:
        self.move, self.place, self.counts = data


def revealed_place(state: trash.TrashState, action: int) -> str | int | None:
    """Where ``action`` (legal) turns a hidden card face up: the top of the stock (R4), the top of
    the stock a reshuffle makes (R7), or a face-down slot's index (R5); None if nowhere."""
    if action == trash.DRAW_STOCK:
        if state.stock:
            return STOCK
        return RESHUFFLE if len(state.discard) > 1 else None
    slot = action - trash.PLACE_SLOT_0
    up = state.up[state.current]
    return slot if action != trash.DISCARD and 0 <= slot < len(up) and up[slot] == trash.FACE_DOWN else None


def reveal_counts(state: trash.TrashState, place: str | int) -> tuple[int, ...]:
    """Per rank, the copies the card turned up at ``place`` may be, all equally likely (R2, R15): the
    cards a reshuffle turns into the stock; the stock's known cards after one (the stock is then all
    known, R7); else the unaccounted cards (face down somewhere or in the stock)."""
    if place == RESHUFFLE:
        counts = [0] * trash.NUM_RANKS
        for card in state.discard[:-1]:
            counts[card] += 1
        return tuple(counts)
    if place == STOCK and any(state.known_stock):
        return tuple(state.known_stock)
    return tuple(state.unaccounted)


def bring(state: trash.TrashState, place: str | int, rank: int) -> None:
    """Put a card of ``rank`` at ``place`` (the top of the stock or the mover's face-down slot) by
    swapping it with a hidden card of that rank where it may lie: the hidden cards are
    interchangeable, nobody having seen them (R2). A reshuffle's top is its generator's."""
    if place == RESHUFFLE:
        return
    stock = state.stock
    row, index = (stock, len(stock) - 1) if place == STOCK else (state.down[state.current], place)
    if row[index] == rank:
        return
    known = any(state.known_stock)  # after a reshuffle the stock holds known cards only (R7)
    if place != STOCK or not known:  # the face-down slots, of every seat
        for seat in range(state.num_players):
            down = state.down[seat]
            for slot, value in enumerate(state.up[seat]):
                if value == trash.FACE_DOWN and down[slot] == rank:
                    row[index], down[slot] = rank, row[index]
                    return
    if place == STOCK or not known:  # the stock
        position = stock.index(rank) if rank in stock else -1
        if position >= 0:
            row[index], stock[position] = rank, row[index]
            return
    raise RuntimeError(f"no hidden {trash.RANK_NAMES[rank]} to turn up: the core state disagrees with its counts")


def reduced_config(preset: str) -> TrashConfig:
    """The two-player rules configuration of the reduced preset ``preset``."""
    if preset not in REDUCED_PRESETS:
        raise ValueError(f"{preset!r} is not a reduced Trash preset: one of {sorted(REDUCED_PRESETS)}")
    fields = dict(REDUCED_PRESETS[preset])
    return make_config(fields.pop("preset"), num_players=2, **fields)


def revealing(state: trash.TrashState, action: int) -> tuple[str | int, tuple[int, ...]] | None:
    """Where the legal ``action`` turns a hidden card face up and the copies per rank it may be (the
    chance node's outcomes, in proportion), or None if it turns none up."""
    place = revealed_place(state, action)
    return None if place is None else (place, reveal_counts(state, place))


def apply_revealed(state: trash.TrashState, action: int, place: str | int | None = None, rank: int = -1) -> None:
    """Apply the legal ``action`` to ``state`` in place, the card it turns up at ``place`` (from
    :func:`revealing`) being of ``rank``; ``place`` None for a move that turns none up."""
    if place is None:
        trash.apply_action(state, action, RevealDraws())
        return
    bring(state, place, rank)
    trash.apply_action(state, action, RevealDraws(rank))


def first_table(config: TrashConfig) -> trash.TrashState:
    """A reduced game's first table: the deal of placeholders, nothing turned up yet."""
    return trash.new_game(config, RevealDraws())
