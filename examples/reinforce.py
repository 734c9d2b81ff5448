"""A learner that is not from Stable-Baselines3, benchmarked with ``trash-bench``: REINFORCE in NumPy.

The policy is linear and softmax over the legal actions (illegal logits masked out): ``logits =
obs @ W + b``. Training plays ``num_envs`` games at once through the task's vector env
(``context.vec_env``: the batched engine for Trash), keeps each game's decisions until it ends, and
then moves every decision's log-probability along the episode's return minus a running baseline
(rewards come only at the end, R10, so the return of every decision is the final reward). Adam
in a few lines; no torch. At each of the task's evaluation points (once ``context.counted_steps``,
the steps the context's env counted, reaches it) it hands the runner the greedy (argmax) policy as
an :class:`agents.linear.LinearAgent`: it decides in batches, so the evaluation plays on the batched
engine, and it is saved weights-only (``.npz``) beside the result file, so the final score is
measured on it again in a fresh process.

    trash-bench run --algorithm examples.reinforce:Reinforce --tasks trash-standard-2p trash-pagat-2p-match hyn-2p \\
        --seeds 5 --results runs/bench --workers 2

(run from the repository root: ``module:attribute`` is imported from the working directory). The
whole interface is ``name`` and ``train(context, checkpoint) -> policy``
(``agents.bench.algorithms``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.linear import LinearAgent


class Reinforce:
    """REINFORCE with a running-mean baseline and Adam, for any task of the suite."""

    name = "reinforce_numpy"

    def __init__(self, num_envs: int = 32, learning_rate: float = 0.01, batch_episodes: int = 64) -> None:
        self.num_envs, self.learning_rate, self.batch_episodes = num_envs, learning_rate, batch_episodes

    def train(self, context: Any, checkpoint: Any) -> LinearAgent:
        rng = np.random.default_rng(context.seed)
        env = context.vec_env(self.num_envs)
        size, actions = env.observation_space.shape[0], env.action_space.n
        params = [np.zeros((size, actions)), np.zeros(actions)]
        moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]

        def frozen() -> LinearAgent:  # the greedy policy now (a copy), for the rules of the task
            return LinearAgent(params[0], params[1], context.task.game, config=context.config, name="reinforce")

        pending = sorted(context.eval_points)
        trajectories: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(self.num_envs)]
        finished: list[tuple[list[tuple[np.ndarray, np.ndarray, int]], float]] = []
        baseline, updates = 0.0, 0
        obs = env.reset()
        while True:
            while pending and context.counted_steps >= pending[0]:
                checkpoint(pending.pop(0), frozen())
            if context.counted_steps >= context.budget:
                break
            masks = env.action_masks()
            logits = np.where(masks, obs @ params[0] + params[1], -np.inf)
            probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            chosen = (probabilities.cumsum(axis=1) > rng.random((self.num_envs, 1))).argmax(axis=1)
            for game in range(self.num_envs):
                trajectories[game].append((obs[game].copy(), masks[game], int(chosen[game])))
            obs, rewards, dones, _ = env.step(chosen)
            for game in np.flatnonzero(dones):
                finished.append((trajectories[game], float(rewards[game])))
                trajectories[game] = []
            if len(finished) >= self.batch_episodes:
                updates += 1
                baseline = 0.95 * baseline + 0.05 * np.mean([ret for _, ret in finished])
                gradients = self._gradients(params, finished, baseline)
                for k, (param, gradient) in enumerate(zip(params, gradients)):  # Adam, ascending
                    first, second = moments[k]
                    first[:] = 0.9 * first + 0.1 * gradient
                    second[:] = 0.999 * second + 0.001 * gradient**2
                    step = first / (1 - 0.9**updates) / (np.sqrt(second / (1 - 0.999**updates)) + 1e-8)
                    param += self.learning_rate * step
                finished = []
        env.close()
        return frozen()

    @staticmethod
    def _gradients(params: list[np.ndarray], episodes: list, baseline: float) -> list[np.ndarray]:
        """The mean over decisions of (return - baseline) * grad log pi(action | obs)."""
        obs = np.stack([o for trajectory, _ in episodes for o, _, _ in trajectory])
        masks = np.stack([m for trajectory, _ in episodes for _, m, _ in trajectory])
        chosen = np.array([a for trajectory, _ in episodes for _, _, a in trajectory])
        advantage = np.concatenate([np.full(len(trajectory), ret - baseline) for trajectory, ret in episodes])
        logits = np.where(masks, obs @ params[0] + params[1], -np.inf)
        probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        score = -probabilities
        score[np.arange(len(chosen)), chosen] += 1.0  # d log softmax / d logits
        score *= advantage[:, None] / len(chosen)
        return [obs.T @ score, score.sum(axis=0)]
