"""Neural Fictitious Self-Play on the batched engines (Heinrich & Silver, 2016), for the two-player
self-play tasks (issue 52).

Two networks read the learner's observation:

- a **best response**, a Q-network learned by masked DQN from every transition the learner makes
  (epsilon-greedy over the legal actions, the target the best legal action of the next state under
  a target network);
- an **average policy**, a softmax over the legal actions learned by supervised learning (cross
  entropy) from the best response's own decisions, kept in a reservoir so that it averages over the
  whole run.

At each game's start the learner plays its best response with probability ``anticipatory`` (eta),
else its average policy. Its opponent plays frozen snapshots of the same mixture, refreshed every
``snapshot_every`` timesteps: the average policy (sampled: a mixed strategy, as NFSP's), and the best
response (greedy) an eta share of the games. What NFSP returns is the average policy, as in the
paper and OpenSpiel's implementation (``open_spiel/python/pytorch/nfsp.py``), whose defaults
:class:`NFSPSettings` follows where they apply (its Kuhn poker example: 128 hidden units, reservoir
sampling, learning every 64 steps).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.linear import LinearAgent
from agents.training.fast_ppo import MASKED, Checkpoints, _networks, as_linear_agent


@dataclass(frozen=True)
class NFSPSettings:
    """NFSP's settings (OpenSpiel's names in brackets where they differ)."""

    n_envs: int = 64  # games in lockstep
    hidden: tuple[int, ...] = (128,)  # both networks' hidden layers [hidden_layers_sizes]
    anticipatory: float = 0.1  # eta: the share of games the best response plays [anticipatory_param]
    rl_learning_rate: float = 0.01
    sl_learning_rate: float = 0.01
    batch_size: int = 128
    replay_capacity: int = 200_000  # [replay_buffer_capacity]
    reservoir_capacity: int = 500_000  # [reservoir_buffer_capacity]
    learn_every: int = 64  # learner timesteps between one RL and one SL gradient step
    min_buffer: int = 1_000  # [min_buffer_size_to_learn]
    target_every: int = 300  # gradient steps between target-network copies [update_target_network_every, steps]
    epsilon_start: float = 0.06
    epsilon_end: float = 0.001
    gamma: float = 1.0  # episodic: the only reward comes at the game's end
    snapshot_every: int = 20_000  # timesteps between the opponent's snapshots of the learner's mixture

    def check(self) -> NFSPSettings:
        for name in (
            "n_envs",
            "batch_size",
            "replay_capacity",
            "reservoir_capacity",
            "learn_every",
            "min_buffer",
            "target_every",
            "snapshot_every",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"NFSPSettings.{name} must be a positive integer, got {value!r}")
        for name in ("anticipatory", "epsilon_start", "epsilon_end", "gamma"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"NFSPSettings.{name} must be in [0, 1], got {value!r}")
        for name in ("rl_learning_rate", "sl_learning_rate"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise ValueError(f"NFSPSettings.{name} must be in (0, 1), got {getattr(self, name)!r}")
        if not self.hidden or any(width < 1 for width in self.hidden):
            raise ValueError(f"NFSPSettings.hidden must be positive widths, got {self.hidden!r}")
        return self


class Ring:
    """A replay buffer of fixed capacity over NumPy arrays: the newest transitions replace the oldest."""

    def __init__(self, capacity: int, fields: dict[str, tuple[tuple[int, ...], Any]]) -> None:
        self.capacity, self.size, self.position = capacity, 0, 0
        self.arrays = {name: np.zeros((capacity, *shape), dtype) for name, (shape, dtype) in fields.items()}

    def add(self, **rows: np.ndarray) -> None:
        count = len(next(iter(rows.values())))
        slots = (self.position + np.arange(count)) % self.capacity
        for name, values in rows.items():
            self.arrays[name][slots] = values
        self.position = int((self.position + count) % self.capacity)
        self.size = min(self.capacity, self.size + count)

    def sample(self, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
        picks = rng.integers(0, self.size, count)
        return {name: array[picks] for name, array in self.arrays.items()}


class Reservoir(Ring):
    """Reservoir sampling (Vitter's algorithm R): after ``n`` additions each one is kept with the same
    probability, ``capacity / n``, so a sample is uniform over the whole stream: the average policy's
    training set averages the best response over the run, not its latest play."""

    def __init__(self, capacity: int, fields: dict[str, tuple[tuple[int, ...], Any]], rng: np.random.Generator) -> None:
        super().__init__(capacity, fields)
        self.seen, self.rng = 0, rng

    def add(self, **rows: np.ndarray) -> None:
        count = len(next(iter(rows.values())))
        for row in range(count):
            self.seen += 1
            if self.size < self.capacity:
                slot = self.size
                self.size += 1
            else:
                slot = int(self.rng.integers(0, self.seen))
                if slot >= self.capacity:
                    continue
            for name, values in rows.items():
                self.arrays[name][slot] = values[row]


def train_nfsp(
    venv: Any,
    budget: int,
    game: str,
    config: Any,
    seed: int,
    settings: NFSPSettings = NFSPSettings(),
    points: tuple[int, ...] = (),
    checkpoint: Callable[[int, LinearAgent], None] | None = None,
    counted: Callable[[], int] | None = None,
    policy_of: Callable[..., Any] | None = None,
) -> LinearAgent:
    """Train on ``venv`` (a two-player self-play vector env over a batched engine, with ``step_arrays``,
    ``action_masks`` and ``set_opponents``) for ``budget`` learner timesteps; returns the average
    policy. ``points`` and ``checkpoint`` as :func:`agents.training.fast_ppo.train_fast` (the average
    policy at each point); ``policy_of`` as there (how a network becomes a policy)."""
    import torch

    settings = settings.check()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = venv.num_envs
    observations = venv.reset()
    masks = venv.action_masks().astype(bool)
    size, num_actions = observations.shape[1], masks.shape[1]
    average = _networks(size, num_actions, settings.hidden).policy
    q_net = _networks(size, num_actions, settings.hidden).policy
    target = _networks(size, num_actions, settings.hidden).policy
    target.load_state_dict(q_net.state_dict())
    rl_optimizer = torch.optim.SGD(q_net.parameters(), lr=settings.rl_learning_rate)
    sl_optimizer = torch.optim.SGD(average.parameters(), lr=settings.sl_learning_rate)
    replay = Ring(
        settings.replay_capacity,
        {
            "obs": ((size,), np.float32),
            "action": ((), np.int64),
            "reward": ((), np.float32),
            "done": ((), np.float32),
            "next_obs": ((size,), np.float32),
            "next_mask": ((num_actions,), np.bool_),
        },
    )
    reservoir = Reservoir(
        settings.reservoir_capacity,
        {"obs": ((size,), np.float32), "action": ((), np.int64), "mask": ((num_actions,), np.bool_)},
        rng,
    )
    taken, gradient_steps, since_learn, last_snapshot = 0, 0, 0, 0
    count = counted or (lambda: taken)

    make = policy_of or (lambda net, name, **how: as_linear_agent(net, game, config, name, **how))

    def policy(**how: Any) -> LinearAgent:
        return make(type("Holder", (), {"policy": average})(), "nfsp", **how)

    checkpoints = Checkpoints(points, checkpoint, count)

    def report() -> None:
        checkpoints.report(policy)

    def snapshot() -> None:
        shares = max(1, round(1 / settings.anticipatory) - 1) if settings.anticipatory > 0 else 1
        mixture = [policy(sample=True, seed=seed + taken)] * shares + (
            [make(type("Holder", (), {"policy": q_net})(), "nfsp_br")] if settings.anticipatory else []
        )
        venv.set_opponents(mixture)

    def learn() -> None:
        nonlocal gradient_steps
        if replay.size >= max(settings.min_buffer, settings.batch_size):
            batch = {name: torch.as_tensor(array) for name, array in replay.sample(rng, settings.batch_size).items()}
            with torch.no_grad():
                following = target(batch["next_obs"]).masked_fill(~batch["next_mask"], MASKED).max(dim=1).values
                goal = batch["reward"] + settings.gamma * (1.0 - batch["done"]) * following
            chosen = q_net(batch["obs"]).gather(1, batch["action"][:, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(chosen, goal)
            rl_optimizer.zero_grad(set_to_none=True)
            loss.backward()
            rl_optimizer.step()
            gradient_steps += 1
            if gradient_steps % settings.target_every == 0:
                target.load_state_dict(q_net.state_dict())
        if reservoir.size >= max(settings.min_buffer, settings.batch_size):
            batch = {name: torch.as_tensor(array) for name, array in reservoir.sample(rng, settings.batch_size).items()}
            logits = average(batch["obs"]).masked_fill(~batch["mask"], MASKED)
            loss = torch.nn.functional.cross_entropy(logits, batch["action"])
            sl_optimizer.zero_grad(set_to_none=True)
            loss.backward()
            sl_optimizer.step()

    snapshot()
    observations = venv.reset()
    masks = venv.action_masks().astype(bool)
    br_mode = rng.random(n) < settings.anticipatory
    report()
    while taken < budget:
        epsilon = settings.epsilon_start + (settings.epsilon_end - settings.epsilon_start) * min(1.0, taken / budget)
        with torch.no_grad():
            current = torch.as_tensor(observations)
            legal = torch.as_tensor(masks)
            greedy = q_net(current).masked_fill(~legal, MASKED).argmax(dim=1).numpy()
            logits = average(current).masked_fill(~legal, MASKED)
            sampled = torch.distributions.Categorical(logits=logits).sample().numpy()
        explore = rng.random(n) < epsilon
        uniform = np.array([rng.choice(np.flatnonzero(row)) for row in masks[explore]], dtype=np.int64)
        best = greedy.copy()
        best[explore] = uniform
        actions = np.where(br_mode, best, sampled)
        if br_mode.any():  # the best response's own decisions teach the average policy
            reservoir.add(obs=observations[br_mode], action=best[br_mode], mask=masks[br_mode])
        next_obs, rewards, dones, truncs, final_obs = venv.step_arrays(actions)
        next_masks = venv.action_masks().astype(bool)
        ended = dones.astype(bool)
        following = np.where(ended[:, None], final_obs, next_obs)
        following_masks = np.where(ended[:, None], True, next_masks)  # a finished game's is not used (done)
        terminal = (ended & ~truncs.astype(bool)).astype(np.float32)  # a game cut short bootstraps
        replay.add(
            obs=observations.copy(),
            action=actions,
            reward=rewards.astype(np.float32),
            done=terminal,
            next_obs=following.copy(),
            next_mask=following_masks,
        )
        br_mode[ended] = rng.random(int(ended.sum())) < settings.anticipatory
        observations, masks = next_obs.copy(), next_masks
        taken += n
        since_learn += n
        while since_learn >= settings.learn_every:
            since_learn -= settings.learn_every
            learn()
        report()
        if taken - last_snapshot >= settings.snapshot_every and taken < budget:
            last_snapshot = taken
            snapshot()
    return policy()


def fitted(settings: NFSPSettings, budget: int) -> NFSPSettings:
    """``settings`` for a budget of ``budget`` timesteps: learning starts within its first quarter,
    and the opponent's snapshots come at least four times."""
    return dataclasses.replace(
        settings,
        min_buffer=max(1, min(settings.min_buffer, budget // 4)),
        batch_size=max(1, min(settings.batch_size, budget // 4)),
        snapshot_every=max(1, min(settings.snapshot_every, budget // 4)),
    )
