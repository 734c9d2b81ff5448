"""The Stable-Baselines3 callbacks of a training run: duplicate-deal evaluation on a grid of
timesteps, checkpoints and self-play snapshots, stopping at the next step on a signal, and the
learning curve's plot."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.evaluation.duplicate import run_pairings
from agents.evaluation.stats import pair_summaries
from agents.learned import (
    LearnedAgent,
)
from agents.processes import GracefulStop
from agents.training.sb3.resume import save_checkpoint
from trash_env.files import atomic_path

logger = logging.getLogger(__name__)


def on_grid(timesteps: int, every: int) -> int:
    """The last multiple of ``every`` at or below ``timesteps``: where a resumed run's previous
    periodic event was, so the next comes on the same grid (``timesteps`` itself when never)."""
    return timesteps - timesteps % every if every else timesteps


class StopOnSignal(BaseCallback):
    """Ends training at the next step once a :class:`~agents.processes.GracefulStop` has been
    asked to stop (Ctrl-C, SIGTERM): SB3's ``learn`` returns and the run saves what it has."""

    def __init__(self, stop: GracefulStop) -> None:
        super().__init__()
        self.stop = stop

    def _on_step(self) -> bool:
        return not self.stop.requested


class DuplicateEvalCallback(BaseCallback):
    """Every ``every`` timesteps: the current policy against each baseline on duplicate
    deals; the score difference and its 95% interval go to TensorBoard and the log. A point at or
    past the run's budget (``total``) is left to the final point of the curve, which the run
    evaluates once training has stopped (PPO's last rollout overshoots the budget, and the curve
    had 150,000 and again 151,552)."""

    def __init__(
        self,
        config: Any,
        metadata: dict[str, Any],
        baselines: list[str],
        deals: int,
        every: int,
        seed: int,
        history: list[dict[str, Any]],
        total: int | None = None,
    ) -> None:
        super().__init__()
        self.config, self.metadata, self.baselines = config, metadata, baselines
        self.deals, self.every, self.seed, self.history = deals, every, seed, history
        self.total = total
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = on_grid(self.num_timesteps, self.every)  # a resumed run keeps its spacing
        if self.every and self.num_timesteps == 0:
            self.evaluate()  # the untrained policy: the start of the learning curve

    def _on_step(self) -> bool:
        due = self.every and self.num_timesteps - self.last >= self.every
        if due and (self.total is None or self.num_timesteps < self.total):
            self.last = self.num_timesteps
            self.evaluate()
        return True

    def evaluate(self) -> None:
        agent = LearnedAgent(self.model.policy, self.metadata, name="policy")
        pairs = [("policy", baseline) for baseline in self.baselines]
        results = run_pairings(self.config, pairs, self.deals, seed=self.seed, prebuilt={"policy": agent})
        row: dict[str, Any] = {"timesteps": int(self.model.num_timesteps)}
        for pair in pair_summaries(results):
            diff = pair.score_difference
            row[pair.second] = {"mean": diff.mean, "low": diff.low, "high": diff.high}
            self.logger.record(f"eval/score_vs_{pair.second}", diff.mean)
            self.logger.record(f"eval/score_vs_{pair.second}_low", diff.low)
        self.history.append(row)
        scores = ", ".join(
            f"vs {b}: {row[b]['mean']:+.3f} [{row[b]['low']:+.3f}, {row[b]['high']:+.3f}]" for b in self.baselines
        )
        logger.info(f"[eval @ {self.model.num_timesteps:,} steps, {self.deals} duplicate deals] {scores}")


class PolicyCheckpoint(BaseCallback):
    """Saves the policy with its metadata every ``every`` timesteps (and, for self-play,
    adds the snapshot to the opponent pool of every environment)."""

    def __init__(
        self,
        folder: Path,
        every: int,
        config: Any,
        preset: str,
        pool: list[Any] | None = None,
        base_opponents: list[Any] | None = None,
        pool_size: int = 0,
    ) -> None:
        super().__init__()
        self.folder, self.every, self.config, self.preset = folder, every, config, preset
        self.pool, self.base_opponents, self.pool_size = pool, base_opponents or [], pool_size
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = on_grid(self.num_timesteps, self.every)  # a resumed run keeps its spacing

    def _on_step(self) -> bool:
        if self.every and self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            path = save_checkpoint(self.model, self.folder / f"step_{self.num_timesteps}.zip", self.config, self.preset)
            if self.pool is not None:
                self.pool.append(LearnedAgent.load(path, name=f"snapshot_{self.num_timesteps}"))
                del self.pool[: max(0, len(self.pool) - self.pool_size)]
                self.training_env.env_method("set_opponents", self.base_opponents + self.pool)
        return True


def plot_learning_curve(history: list[dict[str, Any]], baselines: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    steps = [row["timesteps"] for row in history]
    for baseline in baselines:
        mean = np.array([row[baseline]["mean"] for row in history])
        axes.plot(steps, mean, marker="o", label=f"vs {baseline}")
        axes.fill_between(
            steps, [row[baseline]["low"] for row in history], [row[baseline]["high"] for row in history], alpha=0.2
        )
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("timesteps (learner decisions)")
    axes.set_ylabel("score difference per deal (95% CI)")
    axes.set_title(title)
    axes.legend()
    axes.grid(alpha=0.3)
    figure.tight_layout()
    with atomic_path(path) as partial:
        figure.savefig(partial, dpi=120)
    plt.close(figure)
