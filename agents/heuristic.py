"""``heuristic``, the best hand-written baseline of Help Your Neighbor (R12, R14), and ``roller``, the
same heuristic without its guard (a held-out evaluation opponent of the benchmark's Help Your
Neighbor tasks); ``random`` is shared with Trash (:mod:`agents.baselines`) and two-player optimal play
is :mod:`agents.optimal`.

The game offers two kinds of choice: after a roll the roller could use (or
nobody could), roll again or end the turn; after a 7 with two or more markers
covered, which one to uncover. Everything else is forced (R14).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent, SeatView
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.rules import END_TURN, NUM_MARKERS, ROLL_DICE, TOTALS, UNCOVER_0, WAYS, NeighborState

_MARKER_WAYS = np.array([WAYS[total] for total in TOTALS])


def _pieces(observations: np.ndarray) -> dict[str, np.ndarray]:
    """The named pieces of a batch of Help Your Neighbor observations (any player count)."""
    observations = np.asarray(observations)
    return NeighborObserver.of_size(observations.shape[1]).view_batch(observations)


class NeighborHeuristic(Agent):
    """Keeps the dice unless rolling could hand an opponent the game; after a 7 uncovers
    the marker easiest to cover again.

    **Roll again or end the turn.** Ending the turn hands the dice to the next
    player, and the player with the dice is the one who makes progress: a total
    they have uncovered covers a marker and they roll on, a total nobody can
    use costs nothing. Measured, rolling again beats every rule that weighs the
    immediate odds one roll ahead (the 7 that uncovers a marker, the totals
    that help a neighbour): see the README's Help Your Neighbor section. The
    one case where it rolls no more is when the totals that would give an
    opponent their *last* marker (through the privilege, R12: the first player
    after the roller who has the total uncovered) are more likely than the
    totals that cover one of its own::

        roll again  <=>  ways(own uncovered totals) >= ways(totals that win the game for an opponent)

    (ways out of 36). That guard gains about 1.3 points of score per deal in
    two-player games (+0.013) and is neutral with four.

    **Which marker to uncover after a 7.** The uncovered marker has to be
    covered again, by a roll of its total (the roller's own, or another
    player's that passes the privilege on). Uncovering the total most likely to
    be rolled (6 or 8: 5 ways in 36) makes that quickest; ties go to the
    higher total. The opposite, uncovering the total *least* likely to be
    rolled, measured far worse (a 2 or 12 once uncovered takes 36 rolls on
    average to come again).
    """

    name = "heuristic"
    games = ("help_your_neighbor",)
    batchable = True

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]  # a forced move (R14), in case it is asked one
        state: NeighborState = view.public_state
        if legal[0] == ROLL_DICE:
            return ROLL_DICE if self.rolls_again(state, view.seat) else END_TURN
        return max(legal, key=lambda action: (WAYS[TOTALS[action - UNCOVER_0]], action))

    @staticmethod
    def rolls_again(state: NeighborState, seat: int) -> bool:
        """Whether the ways to cover an own marker are at least the ways to hand an
        opponent their last one (out of 36)."""
        covered, left, n = state.covered, state.left, state.num_players
        own = gives_game = 0
        for j in range(NUM_MARKERS):
            ways = WAYS[TOTALS[j]]
            if not covered[seat][j]:
                own += ways
                continue
            for step in range(1, n):
                neighbour = (seat + step) % n
                if not covered[neighbour][j]:  # the privilege stops at this player (R12)
                    if left[neighbour] == 1:
                        gives_game += ways
                    break
        return own >= gives_game

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator | None]
    ) -> np.ndarray:
        """:meth:`act` for each row, from the observation alone (seats observer first, R12)."""
        pieces = _pieces(observations)
        covered = pieces["covered"] > 0.5  # [N, seats, markers], the observer first
        left = np.rint(pieces["left"] * NUM_MARKERS).astype(int)
        own = ((~covered[:, 0]) * _MARKER_WAYS).sum(axis=1)
        gives_game = np.zeros(len(covered), dtype=int)
        reached = np.zeros(covered[:, 0].shape, dtype=bool)  # the privilege stopped at someone (R12)
        for neighbour in range(1, covered.shape[1]):
            stops = covered[:, 0] & ~covered[:, neighbour] & ~reached
            gives_game += ((stops & (left[:, neighbour : neighbour + 1] == 1)) * _MARKER_WAYS).sum(axis=1)
            reached |= stops
        masks = np.asarray(masks)
        roll_or_end = np.where(own >= gives_game, ROLL_DICE, END_TURN)
        keys = np.where(masks[:, UNCOVER_0:] > 0, _MARKER_WAYS * 100 + np.arange(NUM_MARKERS), -1)
        uncover = UNCOVER_0 + keys.argmax(axis=1)
        return np.where(masks[:, ROLL_DICE] > 0, roll_or_end, uncover)


class NeighborRoller(NeighborHeuristic):
    """:class:`NeighborHeuristic` without its guard: it always rolls again, even when the totals that
    would hand an opponent their last marker are more likely than its own; after a 7 it uncovers the
    marker most likely to be covered again (6 or 8 first, ties to the higher total), as the heuristic
    does.

    It keeps the dice where the heuristic hands them on, so the benchmark evaluates Help Your
    Neighbor policies against it as a **held-out** opponent (never a training opponent): a policy
    fitted to the heuristic's turn ends meets other positions here. Batchable like the heuristic.
    Measured on 2,000 duplicate deals (``trash-evaluate roller heuristic random --game
    help_your_neighbor``): against the heuristic -0.012 [-0.020, -0.004] per deal with two players
    (the guard's worth) and +0.004 [-0.003, +0.011] with four; against ``random`` +0.79 and +0.44.
    """

    name = "roller"

    @staticmethod
    def rolls_again(state: NeighborState, seat: int) -> bool:
        """Always: the guard of :meth:`NeighborHeuristic.rolls_again` is what this baseline leaves out."""
        return True

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[np.random.Generator | None]
    ) -> np.ndarray:
        """:meth:`act` for each row: roll again wherever rolling is legal, else uncover as the heuristic."""
        masks = np.asarray(masks)
        keys = np.where(masks[:, UNCOVER_0:] > 0, _MARKER_WAYS * 100 + np.arange(NUM_MARKERS), -1)
        uncover = UNCOVER_0 + keys.argmax(axis=1)
        return np.where(masks[:, ROLL_DICE] > 0, ROLL_DICE, uncover)
