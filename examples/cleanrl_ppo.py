"""CleanRL-style masked PPO in one file of plain PyTorch, on the Gymnasium vector env of either game.

The envs come from ``gymnasium.make_vec(ENV_ID, num_envs)``, which gives the batched engine as a
Gymnasium ``VectorEnv`` (``trash_env.vector_env``: ``num_envs`` games in lockstep, SAME_STEP autoreset,
each game's legal actions in ``infos["action_mask"]``, int8). The loop is CleanRL's ``ppo.py`` with the
one change a card game needs: the policy's logits of illegal actions are set to a large negative
number before sampling and in the update (invalid-action masking, Huang & Ontañón 2022). The trained
policy is then measured by the package's own duplicate-deal evaluation against ``random``
(``agents.evaluation.evaluate``: any callable ``(view, rng) -> action``)::

    python examples/cleanrl_ppo.py --env-id TrashSingleAgent-v0 --total-timesteps 100000
    python examples/cleanrl_ppo.py --env-id HelpYourNeighborSingleAgent-v0 --total-timesteps 100000

Needs torch (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from torch import nn

import trash_env  # noqa: F401  (registers the env ids, their vector_entry_point the batched engine)
from agents.evaluation import evaluate

GAMES = {"TrashSingleAgent-v0": "trash", "HelpYourNeighborSingleAgent-v0": "help_your_neighbor"}
ILLEGAL = -1e8  # the logit of an illegal action


class Agent(nn.Module):
    """CleanRL's separate actor and critic MLPs (tanh, orthogonal initialisation)."""

    def __init__(self, observations: int, actions: int, hidden: int = 64) -> None:
        super().__init__()

        def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
            linear = nn.Linear(inputs, outputs)
            nn.init.orthogonal_(linear.weight, std)
            nn.init.constant_(linear.bias, 0.0)
            return linear

        self.critic = nn.Sequential(
            layer(observations, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0)
        )
        self.actor = nn.Sequential(
            layer(observations, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, actions, 0.01)
        )

    def distribution(self, observations: torch.Tensor, masks: torch.Tensor) -> torch.distributions.Categorical:
        return torch.distributions.Categorical(logits=self.actor(observations).masked_fill(masks == 0, ILLEGAL))


def train(env_id: str, total_timesteps: int, seed: int = 0, num_envs: int = 64, num_steps: int = 64) -> Agent:
    """Masked PPO for ``total_timesteps`` learner steps against ``random``; CleanRL's defaults otherwise
    (4 epochs of 4 minibatches, clip 0.2, GAE 0.95, gamma 0.99, Adam 2.5e-4 annealed, entropy 0.01)."""
    torch.manual_seed(seed)
    envs = gymnasium.make_vec(env_id, num_envs=num_envs, opponents=["random"])
    agent = Agent(envs.single_observation_space.shape[0], int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=2.5e-4, eps=1e-5)
    size = (num_steps, num_envs)
    observations = torch.zeros(size + envs.single_observation_space.shape)
    masks = torch.zeros(size + (int(envs.single_action_space.n),))
    actions, logprobs, rewards, dones, values = (torch.zeros(size) for _ in range(5))
    next_obs, infos = envs.reset(seed=seed)
    next_obs, next_mask = torch.tensor(next_obs), torch.tensor(infos["action_mask"])
    next_done = torch.zeros(num_envs)
    updates = max(1, total_timesteps // (num_envs * num_steps))
    for update in range(updates):
        optimizer.param_groups[0]["lr"] = 2.5e-4 * (1.0 - update / updates)
        for step in range(num_steps):
            observations[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                distribution = agent.distribution(next_obs, next_mask)
                action = distribution.sample()
                values[step] = agent.critic(next_obs).flatten()
            actions[step], logprobs[step] = action, distribution.log_prob(action)
            next_obs, reward, terminations, truncations, infos = envs.step(action.numpy())
            rewards[step] = torch.tensor(reward, dtype=torch.float32)
            # SAME_STEP: a game that ended is already dealt again; its reward is this step's
            next_obs, next_mask = torch.tensor(next_obs), torch.tensor(infos["action_mask"])
            next_done = torch.tensor(terminations | truncations, dtype=torch.float32)
        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.critic(next_obs).flatten()
            advantages, last = torch.zeros(size), 0.0
            for t in reversed(range(num_steps)):
                later, nonterminal = (
                    (next_value, 1.0 - next_done) if t == num_steps - 1 else (values[t + 1], 1.0 - dones[t + 1])
                )
                delta = rewards[t] + 0.99 * later * nonterminal - values[t]
                advantages[t] = last = delta + 0.99 * 0.95 * nonterminal * last
            returns = advantages + values
        flat = [x.reshape(-1, *x.shape[2:]) for x in (observations, masks, actions, logprobs, advantages, returns)]
        b_obs, b_masks, b_actions, b_logprobs, b_advantages, b_returns = flat
        batch = num_envs * num_steps
        for _ in range(4):
            order = torch.randperm(batch)
            for start in range(0, batch, batch // 4):
                rows = order[start : start + batch // 4]
                distribution = agent.distribution(b_obs[rows], b_masks[rows])
                ratio = (distribution.log_prob(b_actions[rows]) - b_logprobs[rows]).exp()
                advantage = b_advantages[rows]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                policy_loss = torch.max(-advantage * ratio, -advantage * ratio.clamp(0.8, 1.2)).mean()
                value_loss = 0.5 * ((agent.critic(b_obs[rows]).flatten() - b_returns[rows]) ** 2).mean()
                loss = policy_loss - 0.01 * distribution.entropy().mean() + 0.5 * value_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
    envs.close()
    return agent


def as_policy(agent: Agent):
    """The trained actor as a policy ``(view, rng) -> action`` for ``agents.evaluation.evaluate``: the
    most likely legal action on the seat's observation (the env's own array)."""

    def ppo_policy(view, rng):
        with torch.no_grad():
            logits = agent.actor(torch.tensor(view.observation)[None])[0]
        return int(logits.masked_fill(torch.tensor(view.action_mask) == 0, ILLEGAL).argmax())

    return ppo_policy


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-id", default="TrashSingleAgent-v0", choices=list(GAMES))
    parser.add_argument("--total-timesteps", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deals", type=int, default=500, help="duplicate deals of the evaluation against random")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    agent = train(args.env_id, args.total_timesteps, args.seed)
    trained = time.perf_counter() - began
    summary = evaluate(as_policy(agent), "random", game=GAMES[args.env_id], deals=args.deals, seed=1)
    found = summary.score_difference
    print(
        f"{args.env_id}: masked PPO, {args.total_timesteps:,} timesteps in {trained:.0f} s; against random on "
        f"{args.deals} duplicate deals: {found.mean:+.3f} [{found.low:+.3f}, {found.high:+.3f}] per deal"
    )
    return found.low


if __name__ == "__main__":
    main()
