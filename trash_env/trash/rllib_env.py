"""`trash_v0` for Ray RLlib: a multi-agent environment through RLlib's PettingZoo support.

:class:`TrashRLlibEnv` is RLlib's ``PettingZooEnv`` wrapper around
``trash_v0`` (:mod:`trash_env.trash.env`) with two changes RLlib needs:

- each observation is ``{"observations": vector, "action_mask": float32 mask}``,
  the form RLlib's action-masking RLModule reads (its example module,
  ``ActionMaskingTorchRLModule``, adds log(mask) to the logits, so an illegal
  action is never sampled);
- with ``opponents`` (agents: objects with ``act(view, rng)``, such as
  ``agents.registry.make_agent("greedy")``), one learner seat per episode
  (drawn, or ``learner_seat``) is exposed to RLlib and the other seats are
  played inside ``step`` by the opponents; without, every seat is exposed
  (self-play: map them all to one policy).

Forced moves are skipped as in ``trash_v0`` (R13). Rewards are R10's, at the
end of the episode, for the exposed seats only.

Needs the ``rllib`` extra.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from trash_env.trash.env import raw_env
from trash_env.view import SeatView

_MAX_REDEALS = 100


def _masked(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"observations": observation["observation"], "action_mask": observation["action_mask"].astype(np.float32)}


class TrashRLlibEnv(PettingZooEnv):
    """RLlib's PettingZooEnv over ``trash_v0`` (see the module docstring).

    ``env_config``: ``preset`` (default ``standard``), ``num_players``, any rules
    field, ``opponents`` (a list of agents, each with ``act(view, rng)``; None or empty: self-play) and
    ``learner_seat`` (None: drawn per episode), ``seed``.
    """

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        # RLlib passes an EnvContext (a dict that also knows which runner and vector slot it is for).
        where = [getattr(env_config, "worker_index", 0), getattr(env_config, "vector_index", 0)]
        env_config = dict(env_config or {})
        opponents = env_config.pop("opponents", None) or []
        self.learner_seat = env_config.pop("learner_seat", None)
        seed = env_config.pop("seed", None)
        seed = None if seed is None else [int(seed), *where]
        preset = env_config.pop("preset", "standard")
        super().__init__(raw_env(preset, **dict(env_config)))
        raw = self.env
        self._opponents = list(opponents)
        for opponent in self._opponents:
            if not callable(getattr(opponent, "act", None)):
                raise ValueError(
                    f"opponents are agents with act(view, rng), got {opponent!r} "
                    "(by name: agents.registry.make_agent(name))"
                )
            if hasattr(opponent, "check_config"):
                opponent.check_config(raw.config)
        self._rng = np.random.default_rng(seed)
        inner = raw.observation_space(raw.possible_agents[0])["observation"]
        space = gym.spaces.Dict(
            {
                "observations": inner,
                "action_mask": gym.spaces.Box(0.0, 1.0, (raw.action_space(raw.possible_agents[0]).n,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(raw.possible_agents, space)
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.learners: list[str] = list(raw.possible_agents)
        self._seat_agents: dict[str, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        raw = self.env
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for _ in range(_MAX_REDEALS):
            raw.reset(seed=int(self._rng.integers(2**31)), options=options)
            self._seat_agents = {}
            if self._opponents:
                n = raw.config.num_players
                learner = self.learner_seat if self.learner_seat is not None else int(self._rng.integers(n))
                self.learners = [raw.possible_agents[learner]]
                for seat, agent in enumerate(raw.possible_agents):
                    if seat != learner:
                        self._seat_agents[agent] = self._opponents[int(self._rng.integers(len(self._opponents)))]
            else:
                self.learners = list(raw.possible_agents)
            self._play_opponents()
            if not raw.game_state.over:  # else the opponents ended the game before the learner moved: deal another
                agent = raw.agent_selection
                return {agent: _masked(raw.observe(agent))}, {}
        raise RuntimeError(f"no deal in {_MAX_REDEALS} gave the learner a move")

    def _play_opponents(self) -> None:
        """Opponent seats move inside the environment until a learner is to act or the game ends."""
        raw = self.env
        while raw.agents and raw.agent_selection in self._seat_agents:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                raw.step(None)
                continue
            seat = raw.agent_name_mapping[agent]
            view = SeatView(raw.game_state, seat, raw.observer)
            raw.step(self._seat_agents[agent].act(view, self._rng))

    def step(self, action: dict[str, int]):
        raw = self.env
        raw.step(int(action[raw.agent_selection]))
        self._play_opponents()
        obs, rewards, terminated, truncated, infos = {}, {}, {}, {}, {}
        while raw.agents:
            agent = raw.agent_selection
            if agent in self._seat_agents:
                self._play_opponents()
                continue
            observation, reward, term, trunc, info = raw.last()
            obs[agent] = _masked(observation)
            rewards[agent] = float(reward)
            terminated[agent] = term
            truncated[agent] = trunc
            infos[agent] = info
            if term or trunc:
                raw.step(None)
            else:
                break
        done = not raw.agents
        terminated["__all__"] = done and all(terminated.get(a, True) for a in self.learners)
        truncated["__all__"] = done and not terminated["__all__"]
        return obs, rewards, terminated, truncated, infos
