"""Masked versions of SB3's DQN, QR-DQN and A2C: learners that act, explore and bootstrap over the
legal actions only, beside sb3-contrib's MaskablePPO (issue 51).

Without a mask these learners pick illegal actions, which end the episode as a loss, and most of
what they learn is which actions are legal (the v2 leaderboard's "no masks" track). Masked:

- :class:`MaskedDQN` and :class:`MaskedQRDQN` act greedily over the legal actions, explore
  uniformly over them (the random steps before learning too), and bootstrap with the best *legal*
  action of the next state: each transition keeps the next state's mask in a
  :class:`MaskedReplayBuffer`. A game cut short by the turn limit (``TimeLimit.truncated``) has no
  mask of its last state from the vector env, so its transition bootstraps over every action.
- :class:`MaskableA2C` is A2C's update (one gradient step over each rollout of ``n_steps`` per
  environment: the policy gradient with advantages from GAE with ``gae_lambda`` 1, the value loss,
  the entropy bonus, RMSprop) on MaskablePPO's masked rollouts and masked distribution.

Where every action is legal each is SB3's algorithm exactly: the same random draws, the same
updates (tested against DQN, QR-DQN and A2C). They read masks as MaskablePPO does, through the
vector env's ``action_masks`` (``sb3_contrib.common.maskable.utils.get_action_masks``), and save
and load as their SB3 counterparts (the same policy classes).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import QRDQN, MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from sb3_contrib.common.utils import quantile_huber_loss
from stable_baselines3 import DQN
from stable_baselines3.common.buffers import ReplayBuffer
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional


class MaskedSamples(NamedTuple):
    """SB3's ``ReplayBufferSamples`` with the legal actions of each next state."""

    observations: th.Tensor
    actions: th.Tensor
    next_observations: th.Tensor
    dones: th.Tensor
    rewards: th.Tensor
    discounts: th.Tensor | None
    next_masks: th.Tensor


class MaskedReplayBuffer(ReplayBuffer):
    """SB3's replay buffer that also keeps each transition's next-state mask (``next_masks``): the
    algorithm sets ``pending_masks`` (a ``[n_envs, actions]`` array) before each :meth:`add`."""

    def __init__(
        self,
        buffer_size: int,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        device: th.device | str = "auto",
        n_envs: int = 1,
        optimize_memory_usage: bool = False,
        handle_timeout_termination: bool = True,
    ) -> None:
        if not isinstance(action_space, spaces.Discrete):
            raise ValueError(f"a masked replay buffer needs a Discrete action space, got {action_space}")
        if optimize_memory_usage:
            raise ValueError("a masked replay buffer keeps its next observations apart: optimize_memory_usage=False")
        super().__init__(
            buffer_size, observation_space, action_space, device, n_envs, False, handle_timeout_termination
        )
        self.next_masks = np.ones((self.buffer_size, self.n_envs, int(action_space.n)), dtype=bool)
        self.pending_masks: np.ndarray | None = None

    def add(self, obs: Any, next_obs: Any, action: Any, reward: Any, done: Any, infos: list[dict[str, Any]]) -> None:
        if self.pending_masks is None:
            raise RuntimeError("MaskedReplayBuffer.add: set pending_masks (the next states' legal actions) first")
        self.next_masks[self.pos] = self.pending_masks
        self.pending_masks = None
        super().add(obs, next_obs, action, reward, done, infos)

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskedSamples:  # type: ignore[override]
        state = np.random.get_state()
        env_indices = np.random.randint(0, high=self.n_envs, size=(len(batch_inds),))
        np.random.set_state(state)  # ReplayBuffer._get_samples draws the same environments next
        samples = super()._get_samples(batch_inds, env)
        return MaskedSamples(*samples, next_masks=self.to_torch(self.next_masks[batch_inds, env_indices]))


def legal_greedy(values: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """The index of the highest value among the legal actions of each row, ``[rows, 1]`` (a row with no
    legal action, which no state has, gives its first action)."""
    return values.masked_fill(~masks.bool(), -th.inf).argmax(dim=1, keepdim=True)


class _MaskedQ:
    """What DQN and QR-DQN share once masked: acting and exploring over the legal actions, and the
    masks each transition keeps. ``_q_values`` is each algorithm's (QR-DQN: the quantiles' mean)."""

    _masks: np.ndarray | None = None  # the legal actions of the env's current observations

    def _q_values(self, observations: th.Tensor) -> th.Tensor:
        raise NotImplementedError

    def _legal_now(self) -> np.ndarray:
        if self._masks is None:
            self._masks = np.asarray(get_action_masks(self.env), dtype=bool)
        return self._masks

    def _explore(self, mask: np.ndarray) -> Any:
        """A uniformly random legal action (the space's own draw where every action is legal, as SB3)."""
        return self.action_space.sample() if mask.all() else self.action_space.sample(mask=mask.astype(np.int8))

    def predict(
        self,
        observation: np.ndarray,
        state: tuple[np.ndarray, ...] | None = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[np.ndarray, tuple[np.ndarray, ...] | None]:
        """DQN's epsilon-greedy ``predict`` over the legal actions of ``action_masks`` (one row per
        observation); without masks, the unmasked one."""
        if action_masks is None:
            return super().predict(observation, state, episode_start, deterministic)  # type: ignore[misc]
        masks = np.asarray(action_masks, dtype=bool).reshape(-1, self.action_space.n)
        if not deterministic and np.random.rand() < self.exploration_rate:
            return np.array([self._explore(mask) for mask in masks]), state
        self.policy.set_training_mode(False)
        tensor, vectorized = self.policy.obs_to_tensor(observation)
        with th.no_grad():
            actions = legal_greedy(self._q_values(tensor), th.as_tensor(masks, device=self.device)).flatten()
        actions = actions.cpu().numpy()
        return (actions if vectorized else actions[0]), state

    def _sample_action(self, learning_starts: int, action_noise: Any = None, n_envs: int = 1) -> tuple[Any, Any]:
        masks = self._legal_now()
        if self.num_timesteps < learning_starts:  # the random steps before learning: legal ones
            action = np.array([self._explore(mask) for mask in masks])
        else:
            action, _ = self.predict(self._last_obs, deterministic=False, action_masks=masks)
        return action, action

    def _store_transition(
        self, replay_buffer: Any, buffer_action: Any, new_obs: Any, reward: Any, dones: Any, infos: Any
    ) -> None:
        masks = np.asarray(get_action_masks(self.env), dtype=bool)  # of new_obs: a new game's where one ended
        kept = masks.copy()
        for game, info in enumerate(infos):
            if dones[game] and info.get("TimeLimit.truncated", False):
                kept[game] = True  # the truncated game's last state: no mask of it, so bootstrap over every action
        replay_buffer.pending_masks = kept
        super()._store_transition(replay_buffer, buffer_action, new_obs, reward, dones, infos)  # type: ignore[misc]
        self._masks = masks

    def _setup_learn(self, *args: Any, **kwargs: Any) -> Any:
        result = super()._setup_learn(*args, **kwargs)  # type: ignore[misc]
        self._masks = None  # the env may have been reset
        return result

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "_masks"]  # type: ignore[misc]

    def loss(self, replay_data: MaskedSamples) -> th.Tensor:
        raise NotImplementedError

    def train(self, gradient_steps: int, batch_size: int = 100) -> None:
        """SB3's DQN and QR-DQN update loop, each gradient step on the algorithm's :meth:`loss` (whose
        target bootstraps from the next state's best legal action)."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        losses = []
        for _ in range(gradient_steps):
            loss = self.loss(self.replay_buffer.sample(batch_size, env=self._vec_normalize_env))
            losses.append(loss.item())
            self.policy.optimizer.zero_grad()
            loss.backward()
            if self.max_grad_norm is not None:  # DQN always clips; QR-DQN clips unless told not to
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/loss", np.mean(losses))


def _replay_buffer(kwargs: dict[str, Any]) -> dict[str, Any]:
    given = kwargs.setdefault("replay_buffer_class", MaskedReplayBuffer)
    if not (isinstance(given, type) and issubclass(given, MaskedReplayBuffer)):
        raise ValueError(f"a masked learner keeps its masks in a MaskedReplayBuffer, got replay_buffer_class={given}")
    return kwargs


class MaskedDQN(_MaskedQ, DQN):
    """DQN over the legal actions (the module docstring); DQN's arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_replay_buffer(kwargs))

    def _q_values(self, observations: th.Tensor) -> th.Tensor:
        return self.q_net(observations)

    def targets(self, replay_data: MaskedSamples) -> th.Tensor:
        """The 1-step TD targets ``[rows, 1]``: the reward plus the discounted value of the next
        state's best *legal* action under the target network (nothing after the game's end)."""
        discounts = replay_data.discounts if replay_data.discounts is not None else self.gamma
        with th.no_grad():
            next_q_values = self.q_net_target(replay_data.next_observations)
            next_q_values = next_q_values.gather(1, legal_greedy(next_q_values, replay_data.next_masks))
            return replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values

    def loss(self, replay_data: MaskedSamples) -> th.Tensor:
        """DQN's Huber loss between the taken actions' Q-values and :meth:`targets`."""
        target_q_values = self.targets(replay_data)
        current_q_values = th.gather(self.q_net(replay_data.observations), dim=1, index=replay_data.actions.long())
        return functional.smooth_l1_loss(current_q_values, target_q_values)


class MaskedQRDQN(_MaskedQ, QRDQN):
    """QR-DQN over the legal actions (the module docstring); QR-DQN's arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **_replay_buffer(kwargs))

    def _q_values(self, observations: th.Tensor) -> th.Tensor:
        return self.quantile_net(observations).mean(dim=1)

    def targets(self, replay_data: MaskedSamples) -> th.Tensor:
        """The target quantiles ``[rows, n_quantiles]``: the reward plus the discounted quantiles of the
        next state's best *legal* action (by the quantiles' mean) under the target network."""
        discounts = replay_data.discounts if replay_data.discounts is not None else self.gamma
        with th.no_grad():
            next_quantiles = self.quantile_net_target(replay_data.next_observations)
            greedy = legal_greedy(next_quantiles.mean(dim=1), replay_data.next_masks)
            greedy = greedy[:, None, :].expand(-1, self.n_quantiles, 1)
            next_quantiles = next_quantiles.gather(dim=2, index=greedy).squeeze(dim=2)
            return replay_data.rewards + (1 - replay_data.dones) * discounts * next_quantiles

    def loss(self, replay_data: MaskedSamples) -> th.Tensor:
        """QR-DQN's quantile Huber loss between the taken actions' quantiles and :meth:`targets`."""
        target_quantiles = self.targets(replay_data)
        current_quantiles = self.quantile_net(replay_data.observations)
        actions = replay_data.actions[..., None].long().expand(-1, self.n_quantiles, 1)
        current_quantiles = th.gather(current_quantiles, dim=2, index=actions).squeeze(dim=2)
        return quantile_huber_loss(current_quantiles, target_quantiles, sum_over_quantiles=True)


class MaskableA2C(MaskablePPO):
    """A2C's update on MaskablePPO's masked rollouts (the module docstring). A2C's arguments and
    defaults: ``n_steps`` 5, ``gae_lambda`` 1, RMSprop (``use_rms_prop``, ``rms_prop_eps``), no
    advantage normalisation."""

    def __init__(
        self,
        policy: Any,
        env: Any,
        learning_rate: float | Any = 7e-4,
        n_steps: int = 5,
        gamma: float = 0.99,
        gae_lambda: float = 1.0,
        ent_coef: float = 0.0,
        vf_coef: float = 0.5,
        max_grad_norm: float = 0.5,
        rms_prop_eps: float = 1e-5,
        use_rms_prop: bool = True,
        normalize_advantage: bool = False,
        stats_window_size: int = 100,
        tensorboard_log: str | None = None,
        policy_kwargs: dict[str, Any] | None = None,
        verbose: int = 0,
        seed: int | None = None,
        device: th.device | str = "auto",
        _init_setup_model: bool = True,
    ) -> None:
        super().__init__(
            policy,
            env,
            learning_rate=learning_rate,
            n_steps=n_steps,
            batch_size=None,
            n_epochs=1,
            gamma=gamma,
            gae_lambda=gae_lambda,
            normalize_advantage=normalize_advantage,
            ent_coef=ent_coef,
            vf_coef=vf_coef,
            max_grad_norm=max_grad_norm,
            stats_window_size=stats_window_size,
            tensorboard_log=tensorboard_log,
            policy_kwargs=policy_kwargs,
            verbose=verbose,
            seed=seed,
            device=device,
            _init_setup_model=False,
        )
        if use_rms_prop and "optimizer_class" not in self.policy_kwargs:  # as A2C: the original's optimizer
            self.policy_kwargs["optimizer_class"] = th.optim.RMSprop
            self.policy_kwargs["optimizer_kwargs"] = {"alpha": 0.99, "eps": rms_prop_eps, "weight_decay": 0}
        if _init_setup_model:
            self._setup_model()

    def train(self) -> None:
        """A2C's update (one gradient step over the whole rollout), the actions' log-probabilities and
        entropy from the masked distribution."""
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        for rollout_data in self.rollout_buffer.get(batch_size=None):
            actions = rollout_data.actions.long().flatten()
            values, log_prob, entropy = self.policy.evaluate_actions(
                rollout_data.observations, actions, action_masks=rollout_data.action_masks
            )
            values = values.flatten()
            advantages = rollout_data.advantages
            if self.normalize_advantage:
                advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            policy_loss = -(advantages * log_prob).mean()
            value_loss = functional.mse_loss(rollout_data.returns, values)
            entropy_loss = -th.mean(-log_prob) if entropy is None else -th.mean(entropy)
            loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
            self.policy.optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
            self.policy.optimizer.step()
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())
        self._n_updates += 1
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/entropy_loss", entropy_loss.item())
        self.logger.record("train/policy_loss", policy_loss.item())
        self.logger.record("train/value_loss", value_loss.item())


MASKED_ALGORITHMS = {"MaskedDQN": MaskedDQN, "MaskedQRDQN": MaskedQRDQN, "MaskableA2C": MaskableA2C}
