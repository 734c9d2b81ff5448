"""``optimal``: two-player Help Your Neighbor played exactly as its solution says (R12, R14).

The solution is :mod:`trash_env.neighbor.solver` (solved once, then cached); exact evaluation of any
agent against it is :mod:`agents.evaluation.exact`, and the command that solves it ``trash-solve``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.rules import END_TURN, NUM_MARKERS, ROLL_DICE, UNCOVER_0, NeighborState, covered_bits


class TableAgent(Agent):
    """Two-player Help Your Neighbor played from lookup tables over the covered-marker sets ``[me,
    opp]`` (:meth:`tables`: roll again or not; the marker to uncover after a 7): what ``optimal``
    and a learned value table (:class:`agents.value_table.ValueTableAgent`) share."""

    games = ("help_your_neighbor",)
    batchable = True

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def decide(self, me: np.ndarray, opp: np.ndarray, choosing: np.ndarray) -> np.ndarray:
        """The action at each state: ``me``, ``opp`` the covered sets, ``choosing`` True after a roll
        (roll again or end), False after a 7 (uncover)."""
        roll_again, uncover = self.tables()
        return np.where(choosing, np.where(roll_again[me, opp], ROLL_DICE, END_TURN), UNCOVER_0 + uncover[me, opp])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator | None]
    ) -> np.ndarray:
        me, opp = covered_sets(np.asarray(observations), self.name)
        masks = np.asarray(masks) > 0
        forced = masks.sum(axis=1) == 1  # a first move asked though forced (R14): the only legal one
        return np.where(forced, masks.argmax(axis=1), self.decide(me, opp, masks[:, ROLL_DICE]))

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        self.check_config(view.config)
        if len(view.legal_actions) == 1:  # a first move asked though forced (R14)
            return int(view.legal_actions[0])
        state: NeighborState = view.public_state
        bits = [covered_bits(state, seat) for seat in range(2)]
        me, opp = bits[view.seat], bits[1 - view.seat]
        action = int(self.decide(np.array(me), np.array(opp), np.array(ROLL_DICE in view.legal_actions)))
        assert action in view.legal_actions
        return action


class OptimalAgent(TableAgent):
    """Plays two-player Help Your Neighbor optimally: the exact solution of the game
    (:mod:`trash_env.neighbor.solver`; solved once, about 13 s, then cached). Rolls again
    unless ending the turn gives a higher probability of winning (ties: roll again); after a 7
    uncovers the marker that leaves the opponent the lowest probability (ties: the lowest total).
    Asked for any other number of players it is a clear error: only two players are solved.

    Checking a two-player configuration loads the solution, so that a command finds (and solves)
    a missing or damaged cache once, before any game is played, rather than in each worker process
    at its first decision (a damaged cache file is named in one line and solved again: never used)."""

    name = "optimal"

    def __init__(self) -> None:
        self._tables: tuple[np.ndarray, np.ndarray] | None = None

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if config.num_players != 2:
            raise ValueError(
                f"agent 'optimal' is the solved game of two players; it cannot play {config.num_players} "
                "(use heuristic for more players)"
            )
        self.tables()

    def tables(self) -> tuple[np.ndarray, np.ndarray]:
        """[me, opp] bit sets: whether to roll again, and the marker to uncover after a 7."""
        if self._tables is None:
            from trash_env.neighbor.solver import load_solution

            solution = load_solution()
            self._tables = solution.roll_again(), solution.uncover()
        return self._tables

    def __getstate__(self) -> dict[str, Any]:
        return {"_tables": None}  # worker processes load the cached solution themselves


def covered_sets(observations: np.ndarray, name: str = "optimal") -> tuple[np.ndarray, np.ndarray]:
    """The covered markers of the observer and of the other player, as bit sets, for each row of
    two-player observations (agent ``name`` is told, in one line, when they are not two players')."""
    covered = NeighborObserver.of_size(observations.shape[1]).view_batch(observations)["covered"] > 0.5
    if covered.shape[1] != 2:
        raise ValueError(f"agent {name!r} plays two players only")
    bits = (covered * (1 << np.arange(NUM_MARKERS))).sum(axis=2)
    return bits[:, 0], bits[:, 1]
