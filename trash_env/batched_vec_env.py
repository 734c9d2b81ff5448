"""The Stable-Baselines3 face of the vector environments over the two batched engines
(:class:`BatchedVecEnv`): :class:`trash_env.trash.vec_env.TrashVecEnv` and
:class:`trash_env.neighbor.vec_env.NeighborVecEnv`. The engine, the opponent pool and the games are
:class:`trash_env.batched_games.BatchedGames`'; here is SB3's ``VecEnv`` contract: finished games reset
at once, ``terminal_observation``, ``TimeLimit.truncated``, ``action_masks()``.

Needs stable-baselines3 (the ``train`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from trash_env.batched_games import BatchedGames


class BatchedVecEnv(BatchedGames, VecEnv):
    """:class:`~trash_env.batched_games.BatchedGames` as an SB3 ``VecEnv`` (the arguments are its)."""

    def _spaces(self, num_envs: int, observation_space: spaces.Box, action_space: spaces.Discrete) -> None:
        VecEnv.__init__(self, num_envs, observation_space, action_space)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        self._reset_seeds()
        self._reset_options()
        return self.reset_games(seed).copy()

    def step_async(self, actions: np.ndarray) -> None:
        self.take_actions(actions)

    def step_wait(self):
        obs, rewards, dones, truncs, final_obs = self.step_arrays(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones):
            infos[game] = {"terminal_observation": final_obs[game].copy(), "TimeLimit.truncated": bool(truncs[game])}
        # Fresh arrays: SB3 keeps this step's dones as the next step's episode starts (and adds to the rewards)
        return obs.copy(), rewards.copy(), dones.copy(), infos

    def close(self) -> None:
        pass

    # The VecEnv attribute interface, for the one "env" behind every index.
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
