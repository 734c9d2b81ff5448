"""A Stable-Baselines3 vector environment over the batched engine (:mod:`trash_env.batched`).

``TrashVecEnv(num_envs, ...)`` is ``num_envs`` copies of the single-agent game of
:class:`~trash_env.single_agent.TrashSingleAgentEnv` stepped in one compiled call:
one learner seat per game (fixed, or drawn per episode), every other seat played
inside the engine by a vectorised baseline (``random``, ``greedy`` or
``counter``, drawn per seat per episode from ``opponents``). It follows SB3's
``VecEnv`` contract: finished games are reset at once, their last observation is
in ``infos[i]["terminal_observation"]``, a truncation (R7) sets
``infos[i]["TimeLimit.truncated"]``, and ``env_method("action_masks")`` serves
MaskablePPO (sb3-contrib). As in the single-agent env, the learner is asked only
at its real choices (R13), its first move is asked when it would otherwise have
none in the whole game, and a deal on which it would not move at all is
replaced by the next.

Needs stable-baselines3 (the ``train`` extra) and, to be fast, Numba (the
``batched`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from trash_env.batched import TrashBatch
from trash_env.config import make_config


class TrashVecEnv(VecEnv):
    """``num_envs`` single-agent Trash games on the batched engine (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        preset: str = "standard",
        opponents: Sequence[str] = ("random",),
        learner_seat: int | None = None,
        seed: int | None = None,
        parallel: bool | None = None,
        **overrides: Any,
    ) -> None:
        if isinstance(opponents, str):
            raise ValueError(f"opponents must be a list of baseline names, got {opponents!r}")
        self.config = make_config(preset, **overrides)
        self.preset = preset
        self.batch = TrashBatch(
            self.config, num_envs, seed=seed, opponents=list(opponents), learner_seat=learner_seat, parallel=parallel
        )
        self.render_mode = None
        observation_space = spaces.Box(0.0, 1.0, (self.batch.observer.size,), np.float32)
        super().__init__(num_envs, observation_space, spaces.Discrete(self.batch.masks.shape[1]))
        self._actions = np.zeros(num_envs, np.int64)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        if seed is not None:
            self.batch.seed(seed)
        self._reset_seeds()
        self._reset_options()
        obs, _ = self.batch.reset()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(-1)
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        legal = self.batch.masks[np.arange(self.num_envs), actions.clip(0, self.batch.masks.shape[1] - 1)]
        bad = np.flatnonzero((actions < 0) | (actions >= self.batch.masks.shape[1]) | (legal == 0))
        if len(bad):
            game = int(bad[0])
            raise ValueError(
                f"action {actions[game]} is illegal in game {game} (legal: {np.flatnonzero(self.batch.masks[game])}); "
                "the batched env needs masked actions (MaskablePPO)"
            )
        self._actions[:] = actions

    def step_wait(self):
        batch = self.batch
        obs, _, _, dones = batch.step(self._actions)
        rewards = np.where(dones, batch.learner_rewards, 0.0).astype(np.float32)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones):
            infos[game] = {
                "terminal_observation": batch.final_obs[game].copy(),
                "TimeLimit.truncated": bool(batch.truncs[game]),
            }
        return obs.copy(), rewards, dones.copy(), infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions now, [num_envs, 13] bools."""
        return self.batch.masks.astype(bool)

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
