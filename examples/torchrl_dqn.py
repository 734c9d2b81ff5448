"""DQN from TorchRL on the single-agent env of either game, with its action masks, measured on duplicate
deals against ``random``.

TorchRL makes the env from its Gymnasium id (``GymEnv``), reads the legal actions from each step's
``info["action_mask"]`` (``set_info_dict_reader``) and hands them to its ``ActionMask`` transform, to
the Q-value actor (``action_mask_key``: the greedy action is a legal one) and to the epsilon-greedy
exploration (random actions are legal ones). The rest is TorchRL's DQN recipe: a collector, a replay
buffer, ``DQNLoss`` with a soft-updated target network. The trained network is then measured by the
package's duplicate-deal evaluation (``agents.evaluation.evaluate``: any callable ``(view, rng) ->
action``)::

    python examples/torchrl_dqn.py --env-id TrashSingleAgent-v0 --frames 30000

Needs torch and torchrl (the ``interop`` extra).
"""

from __future__ import annotations

import argparse
import time

import torch
from tensordict.nn import TensorDictSequential
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer
from torchrl.data.tensor_specs import Binary
from torchrl.envs import GymEnv, TransformedEnv
from torchrl.envs.libs.gym import default_info_dict_reader
from torchrl.envs.transforms import ActionMask, Compose, DTypeCastTransform
from torchrl.modules import MLP, EGreedyModule, QValueActor
from torchrl.objectives import DQNLoss, SoftUpdate

import trash_env  # noqa: F401  (registers the env ids)
from agents.evaluation import evaluate

GAMES = {"TrashSingleAgent-v0": "trash", "HelpYourNeighborSingleAgent-v0": "help_your_neighbor"}


def make_env(env_id: str) -> TransformedEnv:
    """The single-agent env (``random`` the opponent) as TorchRL sees it, its mask read from the info."""
    env = GymEnv(env_id, categorical_action_encoding=True)
    actions = env.action_spec.space.n
    env.set_info_dict_reader(
        default_info_dict_reader(["action_mask"], spec={"action_mask": Binary(actions, dtype=torch.int8)})
    )
    as_bools = DTypeCastTransform(torch.int8, torch.bool, in_keys=["action_mask"])  # the env's int8, TorchRL's bools
    return TransformedEnv(env, Compose(as_bools, ActionMask()))


def train(env_id: str, frames: int, seed: int = 0) -> torch.nn.Module:
    """DQN for ``frames`` learner steps: a 2x128 MLP, epsilon from 1 to 0.05 over half the frames,
    Adam 1e-3, batches of 128 from a buffer of 50,000, 8 gradient steps per 256 frames, target 0.99."""
    torch.manual_seed(seed)
    env = make_env(env_id)
    env.set_seed(seed)
    network = MLP(out_features=env.action_spec.space.n, num_cells=[128, 128])
    actor = QValueActor(network, in_keys=["observation"], spec=env.action_spec, action_mask_key="action_mask")
    actor(env.reset())  # the lazy layers take their sizes
    explore = EGreedyModule(env.action_spec, eps_init=1.0, eps_end=0.05, annealing_num_steps=frames // 2,
                            action_mask_key="action_mask")  # fmt: skip
    policy = TensorDictSequential(actor, explore)
    collector = Collector(
        lambda: make_env(env_id),
        policy,
        frames_per_batch=256,
        total_frames=frames,
        auto_register_policy_transforms=False,
    )
    buffer = ReplayBuffer(storage=LazyTensorStorage(50_000), batch_size=128)
    loss = DQNLoss(actor, action_space=env.action_spec, delay_value=True)
    loss.make_value_estimator(gamma=0.99)
    target = SoftUpdate(loss, eps=0.99)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    for batch in collector:
        buffer.extend(batch.reshape(-1))
        explore.step(batch.numel())
        if len(buffer) < 1000:
            continue
        for _ in range(8):
            value = loss(buffer.sample())["loss"]
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            target.step()
    collector.shutdown()
    return network


def as_policy(network: torch.nn.Module):
    """The Q-network as a policy ``(view, rng) -> action``: the legal action of the highest value."""

    def dqn_policy(view, rng):
        with torch.no_grad():
            values = network(torch.tensor(view.observation)[None])[0]
        return int(values.masked_fill(torch.tensor(view.action_mask) == 0, -torch.inf).argmax())

    return dqn_policy


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="TrashSingleAgent-v0", choices=list(GAMES))
    parser.add_argument("--frames", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals of the evaluation against random")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    network = train(args.env_id, args.frames, args.seed)
    trained = time.perf_counter() - began
    found = evaluate(as_policy(network), "random", game=GAMES[args.env_id], deals=args.deals, seed=1).score_difference
    print(
        f"{args.env_id}: TorchRL DQN, {args.frames:,} frames in {trained:.0f} s; against random on {args.deals} "
        f"duplicate deals: {found.mean:+.3f} [{found.low:+.3f}, {found.high:+.3f}] per deal"
    )
    return found.low


if __name__ == "__main__":
    main()
