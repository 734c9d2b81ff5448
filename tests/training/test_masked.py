"""The masked learners (:mod:`agents.training.sb3.masked`): legal actions only, on every game; a
target that never bootstraps from an illegal action; and SB3's own algorithm wherever every action
is legal."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch as th

pytest.importorskip("sb3_contrib")

from sb3_contrib import QRDQN
from stable_baselines3 import A2C, DQN
from stable_baselines3.common.vec_env import DummyVecEnv

from agents.training.sb3.envs import batched_vec_env
from agents.training.sb3.masked import (
    MaskableA2C,
    MaskedDQN,
    MaskedQRDQN,
    MaskedReplayBuffer,
    MaskedSamples,
    legal_greedy,
)

Q_KWARGS = {"learning_starts": 64, "batch_size": 32, "train_freq": 4, "target_update_interval": 100, "buffer_size": 999}
PAIRS = [  # (masked, SB3's, settings, tolerance)
    (MaskedDQN, DQN, Q_KWARGS, 0.0),
    (MaskedQRDQN, QRDQN, {**Q_KWARGS, "policy_kwargs": {"n_quantiles": 5}}, 0.0),
    (MaskableA2C, A2C, {"n_steps": 8}, 1e-6),  # the masked distribution rounds its log-probabilities apart
]


class Walk(gym.Env):
    """A toy game in which every action is legal: a random walk on four cells whose reward depends on
    the action, ending after a random number of steps."""

    observation_space = gym.spaces.Box(0.0, 1.0, (4,), np.float32)
    action_space = gym.spaces.Discrete(3)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.cell = int(self.np_random.integers(4))
        return self._obs(), {}

    def _obs(self) -> np.ndarray:
        return np.eye(4, dtype=np.float32)[self.cell]

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        reward = 1.0 if action == self.cell % 3 else -0.1
        self.cell = int(self.np_random.integers(4))
        return self._obs(), reward, bool(self.np_random.random() < 0.2), False, {}

    def action_masks(self) -> np.ndarray:
        return np.ones(3, dtype=bool)


def _walks(seed: int) -> DummyVecEnv:
    venv = DummyVecEnv([Walk, Walk])
    venv.seed(seed)
    return venv


@pytest.mark.parametrize(("masked", "plain", "kwargs", "tolerance"), PAIRS, ids=["dqn", "qrdqn", "a2c"])
def test_where_every_action_is_legal_the_masked_learner_is_sb3s(
    masked: type, plain: type, kwargs: dict, tolerance: float
) -> None:
    """The same seed on a game whose actions are all legal: the masked learner and SB3's draw the
    same random numbers and make the same updates: DQN's and QR-DQN's weights to the last bit, A2C's
    to float rounding (sb3-contrib's masked distribution computes its log-probabilities in another
    order: 1e-7 apart after 600 steps, the actions sampled the same)."""
    models = []
    for cls in (masked, plain):
        model = cls("MlpPolicy", _walks(3), seed=5, device="cpu", **kwargs)
        model.learn(600)
        models.append(model)
    ours, theirs = (dict(model.policy.state_dict()) for model in models)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert th.allclose(ours[name], theirs[name], rtol=0.0, atol=tolerance), name
    start = models[1].policy.state_dict()
    fresh = plain("MlpPolicy", _walks(3), seed=5, device="cpu", **kwargs).policy.state_dict()
    assert any(not th.equal(start[name], fresh[name]) for name in start)  # they did learn


@pytest.mark.parametrize("game", ["trash", "help_your_neighbor"])
@pytest.mark.parametrize("cls", [MaskedDQN, MaskedQRDQN, MaskableA2C], ids=["dqn", "qrdqn", "a2c"])
def test_the_masked_learners_take_legal_actions_only(cls: type, game: str) -> None:
    """Thousands of steps on each game's batched engine, exploring (high epsilon) and acting greedily:
    every action the learner takes is legal in its state."""
    venv = batched_vec_env(game, 8, "standard", ["random"], 0, {})
    kwargs = {"n_steps": 16} if cls is MaskableA2C else {**Q_KWARGS, "exploration_final_eps": 0.5}
    if cls is MaskedQRDQN:
        kwargs["policy_kwargs"] = {"n_quantiles": 5}
    model = cls("MlpPolicy", venv, seed=1, device="cpu", **kwargs)
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class Checked(VecEnvWrapper):
        steps = 0

        def reset(self) -> Any:
            return self.venv.reset()

        def step_async(self, actions: np.ndarray) -> None:
            masks = self.venv.action_masks()
            legal = masks[np.arange(len(actions)), actions].astype(bool)
            assert legal.all(), f"illegal actions {actions[~legal]}"
            Checked.steps += len(actions)
            self.venv.step_async(actions)

        def step_wait(self) -> Any:
            return self.venv.step_wait()

        def action_masks(self) -> np.ndarray:
            return self.venv.action_masks()

    model.set_env(Checked(venv))
    model.learn(4000)
    assert Checked.steps >= 4000
    greedy, _ = model.predict(venv.reset(), deterministic=True, action_masks=venv.action_masks())
    assert venv.action_masks()[np.arange(8), greedy].all()


class Constant(th.nn.Module):
    """A network whose output is fixed: the target network of the crafted transition."""

    def __init__(self, output: list[float]) -> None:
        super().__init__()
        self.output = th.tensor(output)

    def forward(self, observations: th.Tensor) -> th.Tensor:
        return self.output.expand(len(observations), *self.output.shape)


def _crafted(next_mask: list[bool]) -> MaskedSamples:
    return MaskedSamples(
        observations=th.zeros(1, 4),
        actions=th.zeros(1, 1, dtype=th.long),
        next_observations=th.zeros(1, 4),
        dones=th.zeros(1, 1),
        rewards=th.full((1, 1), 0.25),
        discounts=None,
        next_masks=th.tensor([next_mask]),
    )


def test_an_illegal_action_with_the_highest_value_does_not_enter_the_dqn_target() -> None:
    """Next state: action 1 is illegal and has the highest Q-value (10); the legal ones have 2 and 3.
    The target is the reward plus gamma times 3, the best legal value (SB3's DQN would take 10)."""
    model = MaskedDQN("MlpPolicy", _walks(0), gamma=0.5, device="cpu", **Q_KWARGS)
    model.q_net_target = Constant([2.0, 10.0, 3.0])
    assert model.targets(_crafted([True, False, True])).item() == pytest.approx(0.25 + 0.5 * 3.0)
    assert model.targets(_crafted([True, True, True])).item() == pytest.approx(0.25 + 0.5 * 10.0)


def test_an_illegal_action_with_the_highest_mean_does_not_enter_the_qrdqn_target() -> None:
    """The same with quantiles: the illegal action's quantiles have the highest mean, so the target
    takes the quantiles of the best legal action (by mean)."""
    model = MaskedQRDQN("MlpPolicy", _walks(0), gamma=0.5, device="cpu", policy_kwargs={"n_quantiles": 2}, **Q_KWARGS)
    model.quantile_net_target = Constant([[0.0, 9.0, 2.0], [4.0, 11.0, 3.0]])  # [quantiles, actions]
    target = model.targets(_crafted([True, False, True]))  # legal means: 2 (action 0), 2.5 (action 2)
    np.testing.assert_allclose(target.numpy(), [[0.25 + 0.5 * 2.0, 0.25 + 0.5 * 3.0]])


def test_the_replay_buffer_samples_each_transitions_own_next_mask() -> None:
    """Transitions whose next observation says which mask they kept: every sampled row's mask is
    its own transition's, across slots and environments."""
    space = gym.spaces.Box(0.0, 100.0, (1,), np.float32)
    buffer = MaskedReplayBuffer(50, space, gym.spaces.Discrete(3), device="cpu", n_envs=2)
    with pytest.raises(RuntimeError, match="pending_masks"):
        buffer.add(np.zeros((2, 1)), np.zeros((2, 1)), np.zeros(2), np.zeros(2), np.zeros(2), [{}, {}])
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = rng.random((2, 3)) < 0.5
        code = masks @ np.array([1, 2, 4])
        buffer.pending_masks = masks
        buffer.add(np.zeros((2, 1)), code[:, None].astype(np.float32), np.zeros(2), np.zeros(2), np.zeros(2), [{}, {}])
    samples = buffer.sample(200)
    codes = samples.next_masks.numpy() @ np.array([1, 2, 4])
    np.testing.assert_array_equal(codes, samples.next_observations.numpy()[:, 0])
    assert len(set(codes)) > 4


def test_legal_greedy_picks_the_best_legal_action() -> None:
    values = th.tensor([[1.0, 5.0, 3.0], [-2.0, -1.0, -3.0]])
    masks = th.tensor([[True, False, True], [True, False, True]])
    assert legal_greedy(values, masks).flatten().tolist() == [2, 0]
