"""What a seat observes in Help Your Neighbor, as one flat float32 vector of named pieces.

The whole game is public (R12): every player's markers, the last roll and
whose turn it is. Seats are listed from the observer's point of view: index 0
is the observer, index 1 the next seat in turn order, and so on. Every entry
lies in [0, 1].
"""

from __future__ import annotations

import numpy as np

from trash_env.kernel import PieceLayout
from trash_env.neighbor.rules import NOBODY, NUM_MARKERS, OVER, TOTALS, NeighborConfig, NeighborState

NEIGHBOR_OBSERVATION_VERSION = 1  # bump whenever the layout below changes
ROLL_TOTALS = tuple(range(2, 13))  # the eleven totals of two dice, 7 included


def neighbor_pieces(num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
    """The named pieces of the observation, in order: (name, shape, meaning)."""
    p = num_players
    return [
        ("phase", (3,), "one-hot: roll (a turn's forced first roll), choose (roll again or end), uncover (after a 7)"),
        ("roll", (len(ROLL_TOTALS),), "one-hot total 2..12 of the last roll in the game; all 0 before the first"),
        ("current", (p,), "one-hot: the seat to act, observer first (all 0 once the game is over)"),
        ("privilege", (p,), "one-hot: the last player who covered another's roll through the privilege (R12)"),
        ("covered", (p, NUM_MARKERS), "per seat (observer first), per total 2,3,4,5,6,8,9,10,11,12: 1 if covered"),
        ("left", (p,), "per seat: markers still uncovered / 10"),
        ("turn", (1,), "turns played / max_turns (the game is a draw at 1)"),
    ]


class NeighborObserver(PieceLayout):
    """Encodes a :class:`~trash_env.neighbor.rules.NeighborState` as seen from one seat."""

    @classmethod
    def of_size(cls, size: int) -> NeighborObserver:
        """The observer whose vectors have ``size`` entries (15 + 13 n for n players)."""
        players, rest = divmod(size - 15, 13)
        if rest or not 2 <= players <= 8:
            raise ValueError(f"{size} entries is not the size of a Help Your Neighbor observation")
        from trash_env.neighbor.rules import make_config

        return cls(make_config(num_players=players))

    def __init__(self, config: NeighborConfig) -> None:
        super().__init__(neighbor_pieces(config.num_players))
        self.config = config
        self.num_players = config.num_players

    def encode(self, state: NeighborState, seat: int) -> np.ndarray:
        """The observation vector of ``seat``."""
        off = self.offsets
        p = self.num_players
        out = np.zeros(self.size, dtype=np.float32)
        if state.phase != OVER:
            out[off["phase"] + state.phase] = 1.0
            out[off["current"] + (state.current - seat) % p] = 1.0
        if state.roll:
            out[off["roll"] + state.roll - 2] = 1.0
        if state.privileged != NOBODY:
            out[off["privilege"] + (state.privileged - seat) % p] = 1.0
        order = [(seat + r) % p for r in range(p)]
        start = off["covered"]
        out[start : start + p * NUM_MARKERS] = [c for s in order for c in state.covered[s]]
        out[off["left"] : off["left"] + p] = [state.left[s] / NUM_MARKERS for s in order]
        out[off["turn"]] = state.turn / state.config.max_turns
        return out

    def piece_text(self, name: str, value: np.ndarray) -> str | None:
        if name == "roll":
            hits = np.flatnonzero(value)
            return str(ROLL_TOTALS[hits[0]]) if len(hits) else "-"
        if name == "covered":
            return "  ".join(" ".join(str(t) if c else "." for t, c in zip(TOTALS, row, strict=True)) for row in value)
        return None


class NeighborGlobalState(PieceLayout):
    """The global state for centralised critics (PettingZoo's ``env.state()``): nothing in Help Your
    Neighbor is hidden (R12), so it is seat 0's observation, seats in absolute order."""

    def __init__(self, config: NeighborConfig) -> None:
        self.observer = NeighborObserver(config)
        super().__init__([("public", (self.observer.size,), "seat 0's observation: the whole game, seat 0 first")])

    def encode(self, state: NeighborState) -> np.ndarray:
        return self.observer.encode(state, 0)
