"""The benchmark's multi-agent built-ins for the two-player self-play tasks (issue 52): ``nfsp``
(:mod:`agents.training.nfsp`) and ``psro`` (:mod:`agents.training.psro`), each on the task's batched
engine through the context's counting vector env; and what the batched trainers share of a run
(:func:`run_of`, :func:`stand_in`). ``fast_ppo``'s presets (``mmd``) are in :mod:`agents.bench.algorithms`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from trash_env.games import get_game

Checkpoint = Any  # (timesteps, policy) -> None, as agents.bench.algorithms names it


def run_of(context: Any, checkpoint: Checkpoint) -> dict[str, Any]:
    """What the batched trainers (``fast_ppo``, ``nfsp``, ``psro``) take of a run: its budget, game,
    rules and seed, the checkpoints at its points, and the context's count of the learner's timesteps."""
    return {
        "budget": context.budget,
        "game": context.task.game,
        "config": context.config,
        "seed": context.seed,
        "points": tuple(context.eval_points),
        "checkpoint": checkpoint,
        "counted": lambda: context.counted_steps,
    }


def stand_in(context: Any) -> Any:
    """A self-play trainer's first opponent, until it seats its first snapshot: a policy of zeros."""
    from agents.linear import LinearAgent

    game = get_game(context.task.game)
    size, actions = game.make_observer(context.config).size, game.num_actions
    return LinearAgent(np.zeros((size, actions)), np.zeros(actions), context.task.game)


def _two_player_self_play(name: str, context: Any) -> None:
    task = context.task
    if not task.self_play or task.num_players != 2:
        raise ValueError(f"{name} learns by self-play in two-player games: {task.name} is not such a task")


@dataclass
class NFSP:
    """``nfsp``: Neural Fictitious Self-Play (:mod:`agents.training.nfsp`) on the task's batched engine,
    two-player self-play tasks only: the opponent seat plays snapshots of the learner's own mixture; the
    policy returned and checkpointed is the average policy."""

    name: str = "nfsp"

    def train(self, context: Any, checkpoint: Checkpoint) -> Any:
        from agents.training.nfsp import NFSPSettings, fitted, train_nfsp

        _two_player_self_play(self.name, context)
        settings = fitted(NFSPSettings(), context.budget)
        venv = context.vec_env(settings.n_envs, opponents=[stand_in(context)], batched=True)
        return train_nfsp(venv, settings=settings, **run_of(context, checkpoint))


@dataclass
class PSRO:
    """``psro``: Policy-Space Response Oracles (:mod:`agents.training.psro`) on the task's batched
    engine, two-player self-play tasks only: a population, a Nash meta-strategy over the payoff matrix
    estimated by play, ``fast_ppo`` as the best-response oracle; the policy returned and checkpointed is
    the meta-strategy's mixture, distilled into one network."""

    name: str = "psro"

    def train(self, context: Any, checkpoint: Checkpoint) -> Any:
        from agents.training.psro import PSROSettings, fitted, train_psro

        _two_player_self_play(self.name, context)
        settings = fitted(PSROSettings(), context.budget)
        venv = context.vec_env(settings.oracle.n_envs, opponents=[stand_in(context)], batched=True)
        return train_psro(venv, settings=settings, **run_of(context, checkpoint))
