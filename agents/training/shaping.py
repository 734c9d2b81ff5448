"""Potential-based reward shaping for Trash training: progress within a hand and within a match.

A four-player ``pagat`` match (R9) pays its one reward after hundreds of the learner's decisions,
and a learner that is level with ``greedy`` hand by hand still loses matches: R9 turns each small
leak into a larger one. :class:`ProgressShaping` gives the learner signal on the way, as a
potential ``phi`` of what its observation shows (R15, public information only):

    phi = hands * (own hands won - the mean of the other seats' hands won)            (R9)
        + progress * (own layout fraction filled - the mean of the other seats')  (R4, R5, R8)

where a layout's fraction filled counts the slots filled by their own rank or by a wild card
over the slots in the layout (R9 shrinks a winner's layout, so the fraction, not the count, is
compared). Each step adds ``phi(after) - phi(before)`` to the reward, so a hand's progress pays
when it happens and the shaping over a whole match adds up to ``phi`` at its end less ``phi``
at its start (Ng, Harada and Russell 1999, with the discount taken as 1). That end term keeps a
small bonus for the hands won in the match, so the shaped objective is not exactly the task's: a
recipe using it is judged, like every run, on the unshaped score against its opponents.

The wrapper is a Stable-Baselines3 ``VecEnvWrapper`` over a Trash training vector env (the
observer's seat first, :func:`trash_env.trash.observation.observation_pieces`); it reads the
observation only, so it shapes the batched engine's ``TrashVecEnv`` and the single-agent envs alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trash_env.kernel import PieceLayout
from trash_env.trash.config import MAX_LAYOUT
from trash_env.trash.observation import ABSENT_KIND, FILLED_KIND, HANDS_WON_SCALE, WILD_KIND, observation_pieces


class ProgressPotential:
    """``phi`` of a batch of Trash observations (the module docstring), for ``num_players`` seats."""

    def __init__(self, num_players: int, hands: float, progress: float) -> None:
        for name, weight in (("hands", hands), ("progress", progress)):
            if not (np.isfinite(weight) and weight >= 0):
                raise ValueError(f"shaping weight {name} must be a finite number >= 0, got {weight!r}")
        self.layout = PieceLayout(observation_pieces(num_players))
        self.num_players = num_players
        self.hands = float(hands)
        self.progress = float(progress)

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations, dtype=np.float64)
        if observations.shape[-1] != self.layout.size:
            raise ValueError(
                f"a {self.num_players}-player Trash observation has {self.layout.size} entries, "
                f"got {observations.shape[-1]}"
            )
        phi = np.zeros(observations.shape[:-1])
        if self.hands:
            won = np.rint(self._piece(observations, "hands_won") * HANDS_WON_SCALE)  # counts, stored scaled
            phi += self.hands * (won[..., 0] - won[..., 1:].mean(axis=-1))
        if self.progress:
            slots = self._piece(observations, "slots")  # (..., seats, MAX_LAYOUT, kinds)
            filled = slots[..., FILLED_KIND].sum(-1) + slots[..., WILD_KIND].sum(-1)
            size = MAX_LAYOUT - slots[..., ABSENT_KIND].sum(-1)
            fraction = filled / np.maximum(size, 1)
            phi += self.progress * (fraction[..., 0] - fraction[..., 1:].mean(axis=-1))
        return phi

    def _piece(self, observations: np.ndarray, name: str) -> np.ndarray:
        start = self.layout.offsets[name]
        shape = self.layout.shapes[name]
        flat = observations[..., start : start + int(np.prod(shape))]
        return flat.reshape(*observations.shape[:-1], *shape)


def progress_shaping(venv: Any, num_players: int, hands: float, progress: float) -> Any:
    """``venv`` with :class:`ProgressPotential`'s shaping added to its rewards (an SB3 VecEnvWrapper)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    potential = ProgressPotential(num_players, hands, progress)

    class ProgressShaping(VecEnvWrapper):
        """Adds ``phi(after) - phi(before)`` to each step's reward; on an episode's last step,
        ``after`` is the episode's terminal observation (SB3's ``terminal_observation``), not the
        next episode's first."""

        def __init__(self) -> None:
            super().__init__(venv)
            self.potential = potential
            self.previous: np.ndarray | None = None

        def reset(self) -> Any:
            observations = self.venv.reset()
            self.previous = potential(observations)
            return observations

        def step_wait(self) -> Any:
            observations, rewards, dones, infos = self.venv.step_wait()
            now = potential(observations)
            after = now.copy()
            for index in np.flatnonzero(dones):
                after[index] = potential(infos[index]["terminal_observation"])
            shaped = np.asarray(rewards, dtype=np.float64) + after - self.previous
            self.previous = now
            return observations, shaped.astype(np.float32), dones, infos

    return ProgressShaping()
