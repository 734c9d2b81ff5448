"""What a seat observes (R15), encoded as one flat float32 vector of named pieces.

The :class:`Observer` is the only place that knows the layout of the vector.
It is built from a list of named pieces, so no other code writes an offset:
``observer.view(vector)`` splits a vector back into its pieces, and
``observer.describe(vector)`` prints them. Seats are always listed from the
observer's point of view: index 0 is the observer, index 1 the next seat in
turn order, and so on.

Every entry lies in [0, 1]. Only public information goes in (R2, R15): an
observation never depends on the order of the stock or on which card lies
under which face-down slot.
"""

from __future__ import annotations

import numpy as np

from trash_env.config import MAX_LAYOUT, RulesConfig
from trash_env.core import DRAW, FACE_DOWN, NUM_RANKS, PLACE, RANK_NAMES, GameState

OBSERVATION_VERSION = 1  # bump whenever the layout below changes

SLOT_KINDS = ("face_down", "filled", "wild_filled", "not_in_layout")
FACE_DOWN_KIND, FILLED_KIND, WILD_KIND, ABSENT_KIND = range(4)
HANDS_WON_SCALE = MAX_LAYOUT  # a match is won after at most 10 hands won


def observation_pieces(num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
    """The named pieces of the observation, in order: (name, shape, meaning)."""
    p = num_players
    return [
        ("phase", (2,), "one-hot: draw phase, place phase (all 0 once the game is over)"),
        ("held", (NUM_RANKS,), "one-hot rank of the held card (0 = Joker .. 13 = King); all 0 if none"),
        ("discard_top", (NUM_RANKS,), "one-hot rank of the top discard; all 0 if the pile is empty"),
        ("slots", (p, MAX_LAYOUT, 4), "per seat (observer first), per slot: one-hot " + "/".join(SLOT_KINDS)),
        ("current", (p,), "one-hot: the seat to act, observer first"),
        ("completed", (p,), "1 for each seat that completed its layout in this hand (R8)"),
        ("final_round", (1,), "1 while the final round of R8 is under way"),
        # The scalar pieces below are contiguous so that they can be written in one go.
        ("layout_size", (p,), "layout size per seat / 10 (R9 shrinks it in a match)"),
        ("hands_won", (p,), "hands won per seat in this match / 10"),
        ("stock_size", (1,), "cards in the stock / cards in the deck"),
        ("discard_size", (1,), "cards in the discard pile / cards in the deck"),
        (
            "known_in_stock",
            (NUM_RANKS,),
            "per rank: copies known to be in the stock after a reshuffle (R7) / copies in the deck",
        ),
        ("unaccounted", (NUM_RANKS,), "per rank: copies face down or in the stock, place unknown / copies in the deck"),
    ]


_SCALAR_PIECES = ("layout_size", "hands_won", "stock_size", "discard_size", "known_in_stock", "unaccounted")


class Observer:
    """Encodes a :class:`~trash_env.core.GameState` as seen from one seat (R15)."""

    def __init__(self, config: RulesConfig) -> None:
        self.config = config
        self.num_players = config.num_players
        self.pieces = observation_pieces(config.num_players)
        self.offsets: dict[str, int] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        offset = 0
        for name, shape, _ in self.pieces:
            self.offsets[name] = offset
            self.shapes[name] = shape
            offset += int(np.prod(shape))
        self.size = offset
        self._scalar_start = self.offsets[_SCALAR_PIECES[0]]
        self._scalar_stop = self.size
        assert list(self.offsets)[-len(_SCALAR_PIECES) :] == list(_SCALAR_PIECES)
        copies = np.asarray(config.copies_per_rank, dtype=np.float32)
        per_rank = np.divide(1.0, copies, out=np.zeros_like(copies), where=copies > 0)
        p = self.num_players
        self._scale = np.concatenate(
            [
                np.full(p, 1.0 / MAX_LAYOUT),
                np.full(p, 1.0 / HANDS_WON_SCALE),
                [1.0 / config.deck_size, 1.0 / config.deck_size],
                per_rank,
                per_rank,
            ]
        ).astype(np.float32)
        # For relative seat r and slot i, ``self._slot_lut[r][i][value]`` is the index of
        # the one-hot entry for a slot holding ``value`` (FACE_DOWN = -1 reads the last
        # element); ``self._absent[r][size]`` lists the entries of slots beyond ``size``.
        slots = self.offsets["slots"]
        self._slot_lut = []
        self._absent = []
        for r in range(p):
            lut = []
            for i in range(MAX_LAYOUT):
                base = slots + (r * MAX_LAYOUT + i) * 4
                row = [base + (FILLED_KIND if value == i + 1 else WILD_KIND) for value in range(NUM_RANKS)]
                lut.append(row + [base + FACE_DOWN_KIND])
            self._slot_lut.append(lut)
            self._absent.append(
                [
                    [slots + (r * MAX_LAYOUT + i) * 4 + ABSENT_KIND for i in range(size, MAX_LAYOUT)]
                    for size in range(MAX_LAYOUT + 1)
                ]
            )
        assert FACE_DOWN == -1

    def encode(self, state: GameState, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (R15)."""
        off = self.offsets
        p = self.num_players
        hot: list[int] = []
        if state.phase == DRAW:
            hot.append(off["phase"])
        elif state.phase == PLACE:
            hot.append(off["phase"] + 1)
            hot.append(off["held"] + state.held)
        if state.discard:
            hot.append(off["discard_top"] + state.discard[-1])
        up, sizes = state.up, state.sizes
        for r in range(p):
            s = (seat + r) % p
            hot += [row[value] for row, value in zip(self._slot_lut[r], up[s])]
            hot += self._absent[r][sizes[s]]
        if state.phase <= PLACE:
            hot.append(off["current"] + (state.current - seat) % p)
            if state.hand_winners:
                hot.append(off["final_round"])
        completed = off["completed"]
        for s in state.hand_winners:
            hot.append(completed + (s - seat) % p)
        out = np.zeros(self.size, dtype=np.float32)
        out[hot] = 1.0
        won = state.hands_won
        out[self._scalar_start : self._scalar_stop] = (
            sizes[seat:]
            + sizes[:seat]
            + won[seat:]
            + won[:seat]
            + [len(state.stock), len(state.discard)]
            + state.known_stock
            + state.unaccounted
        )
        out[self._scalar_start : self._scalar_stop] *= self._scale
        return out

    def view(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split an observation vector into its named pieces (views, not copies)."""
        return {
            name: vector[self.offsets[name] : self.offsets[name] + int(np.prod(shape))].reshape(shape)
            for name, shape, _ in self.pieces
        }

    def describe(self, vector: np.ndarray) -> str:
        """The observation as readable text, piece by piece."""
        parts = self.view(vector)
        lines = []
        for name, _, meaning in self.pieces:
            value = parts[name]
            if name in ("held", "discard_top"):
                ranks = [RANK_NAMES[i] for i in np.flatnonzero(value)]
                text = ranks[0] if ranks else "-"
            elif name == "slots":
                text = "  ".join(
                    "".join("d" if row[0] else "F" if row[1] else "W" if row[2] else "." for row in seat_rows)
                    for seat_rows in value
                )
            elif name in ("known_in_stock", "unaccounted"):
                counts = np.rint(value * np.asarray(self.config.copies_per_rank)).astype(int)
                text = " ".join(f"{RANK_NAMES[i]}:{c}" for i, c in enumerate(counts) if c)
            else:
                text = np.array2string(value, precision=3, separator=" ")
            lines.append(f"{name:15s} {text}    ({meaning})")
        return "\n".join(lines)
