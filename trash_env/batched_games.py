"""What every vector environment over the two batched engines shares (:class:`BatchedGames`): the
engine of ``num_envs`` single-agent games, the opponent pool (in-engine baselines, and agents asked in
batches between the learner's steps), the learner's actions checked against the masks, and the games
that end collected once each. The Stable-Baselines3 face is :class:`trash_env.batched_vec_env.BatchedVecEnv`
(``TrashVecEnv``, ``NeighborVecEnv``), the Gymnasium one :class:`trash_env.vector_env.BatchedVectorEnv`
(``TrashVectorEnv``, ``NeighborVectorEnv``, the single-agent envs' ``vector_entry_point``); each
subclasses this and adds only its library's API.

Needs nothing beyond the core (NumPy, Gymnasium); Numba (the ``batched`` extra) makes the engines fast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from trash_env.engine_host import ASKED_FROM, checked_engine_actions


class BatchedGames:
    """``num_envs`` single-agent games on a batched engine (a :class:`~trash_env.engine_host.BatchHost`:
    ``TrashBatch`` or ``NeighborBatch``) of the configuration ``make_config(preset, **overrides)``; the
    in-engine baselines among ``opponents`` play inside it (its ``POLICY_CODES``), and the codes from
    ``ASKED_FROM`` on mark the seats of opponents asked outside it (``act_batch``). ``engine_options``
    go to the engine as they are. A subclass gives its library's API, and is handed the spaces by
    :meth:`_spaces` once the engine is made."""

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
        self._spaces(num_envs, spaces.Box(0.0, 1.0, (batch.observer.size,), np.float32), spaces.Discrete(actions))
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

    def _spaces(self, num_envs: int, observation_space: spaces.Box, action_space: spaces.Discrete) -> None:
        """The spaces of one game, for the subclass's library (SB3's ``VecEnv.__init__``, Gymnasium's
        batched spaces)."""
        raise NotImplementedError

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

    def reset_games(self, seed: int | None = None) -> np.ndarray:
        """Deal every game anew (``seed``: the engine's generator seeded first) and play the opponents up
        to each learner's first choice; the observations (the engine's own array: copy what you keep)."""
        if seed is not None:
            self.batch.seed(seed)
        obs, _ = self.batch.reset()
        self._learner_moved[:] = False
        self._ask_opponents()
        return obs

    def take_actions(self, actions: Any) -> None:
        """The learners' next actions, one per game, checked against the masks (an illegal or missing one
        is a ValueError naming it: these envs need masked actions)."""
        actions = np.asarray(actions).reshape(-1)
        if len(actions) != len(self._all_games):
            raise ValueError(f"expected {len(self._all_games)} actions, got {len(actions)}")
        try:
            self._actions[:] = checked_engine_actions(actions, self.batch.masks, self._all_games, "the learner")
        except ValueError as error:
            raise type(error)(f"{error}; the batched env needs masked actions (MaskablePPO)") from None

    def step_arrays(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """One step of every game as arrays, for a trainer that reads the engine's arrays rather than a
        library's infos: the learners' ``actions`` (legal: checked by :meth:`take_actions`, here or before), then
        (observations, rewards, dones, truncated, final observations) of every game; a game that ended
        has its learner's last observation in ``final_obs`` (rows of other games are stale) and the
        new game's first in ``observations``. The observation arrays are the env's own: copy what you keep."""
        batch = self.batch
        if actions is not self._actions:
            self.take_actions(actions)
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
            actions = np.full(len(games), -1, np.int64)
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
