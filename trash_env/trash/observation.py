"""What a seat observes (R15), encoded as one flat float32 vector of named pieces.

The :class:`TrashObserver` is the only place that knows the layout of the vector.
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

from trash_env.kernel import PieceLayout, renamed
from trash_env.trash.config import MAX_LAYOUT, TrashConfig
from trash_env.trash.rules import DRAW, FACE_DOWN, NUM_RANKS, PLACE, RANK_NAMES, TrashState, can_place

OBSERVATION_VERSION = 2  # bump whenever the layout below changes (v2: discard_playable)

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
        ("discard_playable", (1,), "1 if the top discard could be placed in the observer's layout now (R4, R5)"),
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


class TrashObserver(PieceLayout):
    """Encodes a :class:`~trash_env.trash.rules.TrashState` as seen from one seat (R15)."""

    def __init__(self, config: TrashConfig) -> None:
        super().__init__(observation_pieces(config.num_players))
        self.config = config
        self.num_players = config.num_players
        self._scalar_start = self.offsets[_SCALAR_PIECES[0]]
        assert list(self.offsets)[-len(_SCALAR_PIECES) :] == list(_SCALAR_PIECES)
        copies = np.asarray(config.copies_per_rank, dtype=np.float32)
        per_rank = np.divide(1.0, copies, out=np.zeros_like(copies), where=copies > 0)
        p = self.num_players
        # encode() writes small integers (one-hot 1s and raw counts) into a byte
        # buffer, then converts once and scales the counts into [0, 1].
        self._scale = np.concatenate(
            [
                np.ones(self._scalar_start),
                np.full(p, 1.0 / MAX_LAYOUT),
                np.full(p, 1.0 / HANDS_WON_SCALE),
                [1.0 / config.deck_size, 1.0 / config.deck_size],
                per_rank,
                per_rank,
            ]
        ).astype(np.float32)
        assert len(self._scale) == self.size and config.deck_size < 256
        self._slot_blocks: dict[tuple[int, ...], bytes] = {}

    def _slot_block(self, layout: list[int]) -> bytes:
        """The one-hot bytes of one seat's slots (10 x 4), cached per layout."""
        key = tuple(layout)
        block = self._slot_blocks.get(key)
        if block is None:
            cells = bytearray(MAX_LAYOUT * 4)
            for i in range(MAX_LAYOUT):
                if i >= len(layout):
                    kind = ABSENT_KIND
                elif layout[i] == FACE_DOWN:
                    kind = FACE_DOWN_KIND
                else:
                    kind = FILLED_KIND if layout[i] == i + 1 else WILD_KIND
                cells[i * 4 + kind] = 1
            if len(self._slot_blocks) >= 100_000:  # bound the cache's memory
                self._slot_blocks.clear()
            block = self._slot_blocks[key] = bytes(cells)
        return block

    def encode(self, state: TrashState, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (R15)."""
        off = self.offsets
        p = self.num_players
        buf = bytearray(self.size)
        phase = state.phase
        if phase == DRAW:
            buf[off["phase"]] = 1
        elif phase == PLACE:
            buf[off["phase"] + 1] = 1
            buf[off["held"] + state.held] = 1
        if state.discard:
            buf[off["discard_top"] + state.discard[-1]] = 1
        up, sizes = state.up, state.sizes
        position = off["slots"]
        for r in range(p):
            buf[position : position + MAX_LAYOUT * 4] = self._slot_block(up[(seat + r) % p])
            position += MAX_LAYOUT * 4
        if phase <= PLACE:
            buf[off["current"] + (state.current - seat) % p] = 1
            if state.hand_winners:
                buf[off["final_round"]] = 1
        for s in state.hand_winners:
            buf[off["completed"] + (s - seat) % p] = 1
        if state.discard and can_place(state, seat, state.discard[-1]):
            buf[off["discard_playable"]] = 1
        won = state.hands_won
        buf[self._scalar_start :] = bytes(
            sizes[seat:]
            + sizes[:seat]
            + won[seat:]
            + won[:seat]
            + [len(state.stock), len(state.discard)]
            + state.known_stock
            + state.unaccounted
        )
        out = np.frombuffer(buf, dtype=np.uint8).astype(np.float32)
        out *= self._scale
        return out

    def piece_text(self, name: str, value: np.ndarray) -> str | None:
        if name in ("held", "discard_top"):
            ranks = [RANK_NAMES[i] for i in np.flatnonzero(value)]
            return ranks[0] if ranks else "-"
        if name == "slots":
            return "  ".join(
                "".join("d" if row[0] else "F" if row[1] else "W" if row[2] else "." for row in seat_rows)
                for seat_rows in value
            )
        if name in ("known_in_stock", "unaccounted"):
            counts = np.rint(value * np.asarray(self.config.copies_per_rank)).astype(int)
            return " ".join(f"{RANK_NAMES[i]}:{c}" for i, c in enumerate(counts) if c)
        return None


class TrashGlobalState(PieceLayout):
    """The global state of a Trash game for centralised critics (PettingZoo's ``env.state()``).

    Unlike an observation it holds hidden cards: seat 0's observation (every public fact, seats
    in absolute order, since seat 0 is first from its own view), then what nobody at the table
    may see (R2): the card under every face-down slot, the stock's composition and its top card
    (the next draw). The order of the stock below its top card is left out: it matters only
    after further draws, and it would add a one-hot per stock card. Every entry lies in [0, 1].
    """

    def __init__(self, config: TrashConfig) -> None:
        self.observer = TrashObserver(config)
        p = config.num_players
        super().__init__(
            [
                ("public", (self.observer.size,), "seat 0's observation (R15): every public fact, seat 0 first"),
                (
                    "face_down_cards",
                    (p, MAX_LAYOUT, NUM_RANKS),
                    "per seat (seat 0 first), per slot: one-hot rank of the face-down card; all 0 if not face down",
                ),
                ("stock_counts", (NUM_RANKS,), "per rank: copies in the stock / copies in the deck"),
                (
                    "stock_top",
                    (NUM_RANKS,),
                    "one-hot rank of the top card of the stock (the next draw); all 0 if empty",
                ),
            ]
        )
        copies = np.asarray(config.copies_per_rank, dtype=np.float32)
        self._per_rank = np.divide(1.0, copies, out=np.zeros_like(copies), where=copies > 0)

    def encode(self, state: TrashState) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        parts = self.view(out)
        parts["public"][:] = self.observer.encode(state, 0)
        for seat, (layout, cards) in enumerate(zip(state.up, state.down)):
            for slot, (value, card) in enumerate(zip(layout, cards)):
                if value == FACE_DOWN:
                    parts["face_down_cards"][seat, slot, card] = 1.0
        if state.stock:
            parts["stock_counts"][:] = np.bincount(state.stock, minlength=NUM_RANKS) * self._per_rank
            parts["stock_top"][state.stock[-1]] = 1.0
        return out


# The names before the game prefix (changelog).
__getattr__ = renamed(__name__, {"Observer": TrashObserver, "GlobalState": TrashGlobalState})
