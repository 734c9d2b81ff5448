"""The Gymnasium face of the vector environments over the two batched engines (:class:`BatchedVectorEnv`):
``num_envs`` single-agent games in lockstep as a ``gymnasium.vector.VectorEnv``, the
``vector_entry_point`` of ``TrashSingleAgent-v0`` and ``HelpYourNeighborSingleAgent-v0``::

    envs = gymnasium.make_vec("TrashSingleAgent-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                              opponents=["greedy"])
    observations, infos = envs.reset(seed=0)
    actions = ...  # one legal action per game: infos["action_mask"][i] is game i's mask (int8)
    observations, rewards, terminations, truncations, infos = envs.step(actions)

What it follows (Gymnasium's ``VectorEnv`` contract):

- **Spaces**: ``single_observation_space`` and ``single_action_space`` are the single-agent env's
  (``Box`` and ``Discrete``), ``observation_space`` and ``action_space`` their batches
  (``gymnasium.vector.utils.batch_space``).
- **Autoreset: SAME_STEP** (``metadata["autoreset_mode"]``), as the engine deals a finished game again
  at once: the step that ends game *i* returns the new game's first observation in
  ``observations[i]``, and the finished game's last one in ``infos["final_obs"][i]`` (an object array,
  ``infos["_final_obs"]`` marking the games that ended), with ``infos["final_info"]`` beside it, as
  ``SyncVectorEnv`` does in that mode. The step's reward, termination and truncation are the
  finished game's.
- **Masks in ``infos["action_mask"]``**: ``[num_envs, actions]`` int8 (what ``Discrete.sample(mask=...)``
  takes), always the games' next decisions; ``action_masks()`` gives them as bools (sb3-contrib's API).
- **Legal actions only**: an illegal action is a ValueError naming the game (the engine cannot play
  it); a learner that ignores masks belongs on the single-agent env, which ends the episode instead.
- **Rewards** float64, ``terminations`` and ``truncations`` bool arrays, a truncation being the turn
  limit (R7, R12); the learner's seat and its opponents as in the single-agent env (R13, R14: it is
  asked only at its real choices).

The engine, the opponent pool and the games are :class:`trash_env.batched_games.BatchedGames`'.
Numba (the ``batched`` extra) makes it fast; without it the engine runs as plain Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from trash_env.batched_games import BatchedGames


class BatchedVectorEnv(BatchedGames, VectorEnv):
    """:class:`~trash_env.batched_games.BatchedGames` as a Gymnasium ``VectorEnv`` (the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def _spaces(self, num_envs: int, observation_space: spaces.Box, action_space: spaces.Discrete) -> None:
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = observation_space, action_space
        self.observation_space = batch_space(observation_space, num_envs)
        self.action_space = batch_space(action_space, num_envs)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal every game anew (``seed``: the engine's generator seeded first, so the same seed gives the
        same games); ``options`` are not taken (a non-empty one is a ValueError)."""
        if options:
            raise ValueError(f"reset takes no options, got {sorted(options)}")
        if seed is not None:
            self._np_random, self._np_random_seed = np.random.default_rng(seed), seed
        observations = self.reset_games(seed).copy()
        return observations, {"action_mask": self.batch.masks.astype(np.int8), "_action_mask": self._everyone()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        observations, rewards, dones, truncs, final_obs = self.step_arrays(np.asarray(actions))
        infos: dict[str, Any] = {"action_mask": self.batch.masks.astype(np.int8), "_action_mask": self._everyone()}
        if dones.any():
            ended = dones.copy()
            last = np.full(self.num_envs, None, dtype=object)
            for game in np.flatnonzero(ended):
                last[game] = final_obs[game].copy()
            # as SyncVectorEnv batches a finished game's info: a dict (empty: the engine keeps none), and its mask
            infos.update(final_obs=last, _final_obs=ended, final_info={}, _final_info=ended.copy())
        terminations = dones & ~truncs
        return observations.copy(), rewards.astype(np.float64), terminations, (dones & truncs), infos

    def _everyone(self) -> np.ndarray:
        return np.ones(self.num_envs, np.bool_)

    def close_extras(self, **kwargs: Any) -> None:
        pass
