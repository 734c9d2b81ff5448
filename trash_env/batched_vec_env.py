"""What the vector environments over the two batched engines share (:class:`BatchedVecEnv`):
:class:`trash_env.trash.vec_env.TrashVecEnv` and :class:`trash_env.neighbor.vec_env.NeighborVecEnv`
differ only in the engine they step; the opponent pool, the SB3 ``VecEnv`` contract (finished games
reset at once, ``terminal_observation``, ``TimeLimit.truncated``, ``action_masks()``) and the
snapshots asked in batches between the learner's steps are written once, here.

Needs stable-baselines3 (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from trash_env.engine_host import ASKED_FROM, checked_engine_actions


class BatchedVecEnv(VecEnv):
    """``num_envs`` single-agent games on a batched engine (a :class:`~trash_env.engine_host.BatchHost`:
    ``TrashBatch`` or ``NeighborBatch``) of the configuration ``make_config(preset, **overrides)``; the
    in-engine baselines among ``opponents`` play inside it (its ``POLICY_CODES``), and the codes from
    ``ASKED_FROM`` on mark the seats of opponents asked outside it (``act_batch``). ``engine_options``
    go to the engine as they are."""

    def __init__(
        self,
        batch_type: Any,
        make_config: Any,
        num_envs: int,
        preset: str,
        opponents: Sequence[Any],
        learner_seat: int | None,
        seed: int | None,
        parallel: bool | None,
        overrides: Mapping[str, Any],
        **engine_options: Any,
    ) -> None:
        config = make_config(preset, **overrides)
        batch = batch_type(
            config,
            num_envs,
            seed=seed,
            opponents=self.engine_baselines(opponents),
            learner_seat=learner_seat,
            parallel=parallel,
            **engine_options,
        )
        self.config, self.preset, self.batch = config, preset, batch
        self.policy_codes, self.asked_from = batch_type.POLICY_CODES, ASKED_FROM
        self._built(batch)
        self.render_mode = None
        num_envs, actions = batch.masks.shape
        observation_space = spaces.Box(0.0, 1.0, (batch.observer.size,), np.float32)
        super().__init__(num_envs, observation_space, spaces.Discrete(actions))
        self._actions = np.zeros(num_envs, np.int64)
        self._all_games = np.arange(num_envs)
        self._dones = np.zeros(num_envs, np.bool_)
        self._rewards = np.zeros(num_envs, np.float32)
        self._truncs = np.zeros(num_envs, np.bool_)
        self._final_obs = np.zeros((num_envs, batch.observer.size), np.float32)
        self._asked: dict[int, Any] = {}  # engine code (asked_from + k) -> the agent asked for those seats
        self._next_code = ASKED_FROM
        self._learner_moved = np.zeros(num_envs, np.bool_)
        self.set_opponents(list(opponents))

    def _built(self, batch: Any) -> None:
        """After the engine is made, before the opponents are set: what a game's vector env keeps of it."""

    @staticmethod
    def engine_baselines(opponents: Sequence[Any]) -> list[str]:
        """The in-engine baselines among ``opponents`` (what the engine is built with: ``random``
        when there are none); a single string is refused, being no list."""
        if isinstance(opponents, str):
            raise ValueError(f"opponents must be a list of baseline names or agents, got {opponents!r}")
        return [o for o in opponents if isinstance(o, str)] or ["random"]

    def set_opponents(self, opponents: Sequence[Any]) -> None:
        """Replace the opponent pool (baseline names and batch-deciding agents); games dealt from now
        on draw from it. An agent is checked against the rules first (a policy for other rules, or an
        agent of the other game, is a ValueError naming what differs)."""
        if isinstance(opponents, str) or not len(opponents):
            raise ValueError(f"opponents must be a non-empty list of baseline names or agents, got {opponents!r}")
        codes = []
        keep = {code: agent for code, agent in self._asked.items() if (self.batch.policies == code).any()}
        for opponent in opponents:
            if isinstance(opponent, str):
                if opponent not in self.policy_codes:
                    raise ValueError(
                        f"opponents: {opponent!r} is not an in-engine baseline ({sorted(self.policy_codes)})"
                    )
                codes.append(self.policy_codes[opponent])
                continue
            if not getattr(opponent, "batchable", False):
                raise ValueError(f"opponent {opponent!r} cannot play in the batched engine: it has no act_batch")
            opponent.check_config(self.config)
            code = next((c for c, agent in keep.items() if agent is opponent), None)
            if code is None:
                code, self._next_code = self._next_code, self._next_code + 1
            keep[code] = opponent
            codes.append(code)
        self.batch.set_pool(codes)  # checked first (optimal needs two players): nothing changes on an error
        self._asked = keep

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        if seed is not None:
            self.batch.seed(seed)
        self._reset_seeds()
        self._reset_options()
        obs, _ = self.batch.reset()
        self._learner_moved[:] = False
        self._ask_opponents()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(-1)
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        try:
            self._actions[:] = checked_engine_actions(actions, self.batch.masks, self._all_games, "the learner")
        except ValueError as error:
            raise type(error)(f"{error}; the batched env needs masked actions (MaskablePPO)") from None

    def step_wait(self):
        obs, rewards, dones, truncs, final_obs = self.step_arrays(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game in np.flatnonzero(dones):
            infos[game] = {"terminal_observation": final_obs[game].copy(), "TimeLimit.truncated": bool(truncs[game])}
        # Fresh arrays: SB3 keeps this step's dones as the next step's episode starts (and adds to the rewards)
        return obs.copy(), rewards.copy(), dones.copy(), infos

    def step_arrays(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """:meth:`step` as arrays, for a trainer that reads the engine's arrays rather than SB3's infos:
        the learners' ``actions`` (legal: checked by :meth:`step_async`'s caller, or here), then
        (observations, rewards, dones, truncated, final observations) of every game; a game that ended
        has its learner's last observation in ``final_obs`` (rows of other games are stale) and the
        new game's first in ``observations``. The observation arrays are the env's own: copy what you keep."""
        batch = self.batch
        if actions is not self._actions:
            self.step_async(actions)
        batch.step(self._actions)
        self._learner_moved[:] = True
        self._dones[:] = False
        self._rewards[:] = 0.0
        self._collect_ended()
        self._ask_opponents(collect=True)
        return batch.obs, self._rewards, self._dones, self._truncs, self._final_obs

    def _collect_ended(self) -> None:
        """Collect the games the last engine step finished (their learner's reward, last observation
        and truncation), once per game: a game may end while its opponents are asked, and the engine
        deals it again at once."""
        batch = self.batch
        for game in np.flatnonzero(batch.dones & self._learner_moved):
            # (R13, R14) a game in which the learner never moved is not an episode: the next one is
            self._dones[game] = True
            self._rewards[game] = batch.learner_rewards[game]
            self._truncs[game] = batch.truncs[game]
            self._final_obs[game] = batch.final_obs[game]
            self._learner_moved[game] = False

    def _ask_opponents(self, collect: bool = False) -> None:
        """Step the games whose acting seat is an opponent asked outside the engine (a snapshot), with
        every such opponent deciding for all its waiting games at once, until every game waits on its
        learner again (``collect``: the games that end meanwhile are collected as the step's)."""
        batch = self.batch
        games = self._all_games
        while True:
            codes = batch.policies[games, batch.seats]
            waiting = np.flatnonzero((codes >= self.asked_from) & (batch.status > 0))
            if not len(waiting):
                return
            actions = np.full(self.num_envs, -1, np.int64)
            for code in np.unique(codes[waiting]):
                rows = waiting[codes[waiting] == code]
                agent = self._asked[int(code)]
                chosen = agent.act_batch(batch.obs[rows], batch.masks[rows], [None] * len(rows))
                actions[rows] = checked_engine_actions(chosen, batch.masks, rows, f"opponent {agent.name}")
            batch.step(actions)
            if collect:
                self._collect_ended()

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions now, [num_envs, actions] bools."""
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
