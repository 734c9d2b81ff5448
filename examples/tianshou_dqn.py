"""DQN from Tianshou on the single-agent env of either game, with its action masks, measured on duplicate
deals against ``random``.

Tianshou masks a DQN's actions through the observation: a dict whose ``obs`` is the network's input
and whose ``mask`` marks the legal actions (``DiscreteQLearningPolicy.forward``: the greedy action and
the epsilon-greedy draws are both legal). :class:`MaskInObservation` builds that from the env's
observation and its ``info["action_mask"]``. The rest is Tianshou's low-level DQN: vector envs, a
replay buffer, collectors and its off-policy trainer. The trained network is then measured by the
package's duplicate-deal evaluation (``agents.evaluation.evaluate``: any callable ``(view, rng) ->
action``)::

    python examples/tianshou_dqn.py --env-id TrashSingleAgent-v0 --steps 30000

Needs torch and Tianshou (the ``interop`` extra).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import trash_env  # noqa: F401  (registers the env ids)
from agents.evaluation import evaluate

GAMES = {"TrashSingleAgent-v0": "trash", "HelpYourNeighborSingleAgent-v0": "help_your_neighbor"}


class MaskInObservation(gymnasium.Wrapper):
    """The env's observation and its legal actions as Tianshou's masked observation: ``{"obs": the
    observation, "mask": the legal actions as bools}``."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        actions = int(env.action_space.n)
        self.observation_space = gymnasium.spaces.Dict(
            {"obs": env.observation_space, "mask": gymnasium.spaces.MultiBinary(actions)}
        )

    def reset(self, **kwargs: Any) -> tuple[dict, dict]:
        observation, info = self.env.reset(**kwargs)
        return self._masked(observation, info), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self._masked(observation, info), reward, terminated, truncated, info

    @staticmethod
    def _masked(observation: np.ndarray, info: dict) -> dict:
        return {"obs": observation, "mask": info["action_mask"].astype(bool)}


def train(env_id: str, steps: int, seed: int = 0, num_envs: int = 8) -> Net:
    """DQN for about ``steps`` env steps: a 2x128 MLP, epsilon 0.1, Adam 1e-3, double Q with a target
    network copied every 320 updates, batches of 64 from a buffer of 20,000, one update per 8 steps."""
    torch.manual_seed(seed)

    def make() -> gymnasium.Env:
        return MaskInObservation(gymnasium.make(env_id))

    envs = DummyVectorEnv([make for _ in range(num_envs)])
    envs.seed(seed)
    probe = make()
    network = Net(state_shape=probe.observation_space["obs"].shape, action_shape=int(probe.action_space.n),
                  hidden_sizes=[128, 128])  # fmt: skip
    policy = DiscreteQLearningPolicy(model=network, action_space=probe.action_space, eps_training=0.1)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.99, target_update_freq=320)
    collector = Collector(algorithm, envs, VectorReplayBuffer(20_000, num_envs), exploration_noise=True)
    collector.reset()
    collector.collect(n_step=1_000, random=True)  # a first fill of the buffer, legal random moves
    epochs = max(1, steps // 5_000)
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=epochs,
            epoch_num_steps=steps // epochs,
            collection_step_num_env_steps=num_envs,
            update_step_num_gradient_steps_per_sample=1 / num_envs,
            batch_size=64,
            test_in_training=False,
            show_progress=False,
            verbose=False,
        )
    )
    envs.close()
    return network


def as_policy(network: Net):
    """The Q-network as a policy ``(view, rng) -> action``: the legal action of the highest value."""

    def dqn_policy(view, rng):
        with torch.no_grad():
            values, _ = network(view.observation[None])
        return int(values[0].masked_fill(torch.tensor(view.action_mask) == 0, -torch.inf).argmax())

    return dqn_policy


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="TrashSingleAgent-v0", choices=list(GAMES))
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals of the evaluation against random")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    network = train(args.env_id, args.steps, args.seed)
    trained = time.perf_counter() - began
    found = evaluate(as_policy(network), "random", game=GAMES[args.env_id], deals=args.deals, seed=1).score_difference
    print(
        f"{args.env_id}: Tianshou DQN, {args.steps:,} steps in {trained:.0f} s; against random on {args.deals} "
        f"duplicate deals: {found.mean:+.3f} [{found.low:+.3f}, {found.high:+.3f}] per deal"
    )
    return found.low


if __name__ == "__main__":
    main()
