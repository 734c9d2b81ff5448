"""How an algorithm plugs into the suite, and the built-in ones.

An **algorithm** is an object with a ``name`` and ``train(context, checkpoint)``:

- ``context`` (:class:`TaskContext`) holds the task, the seed and the budget, the timesteps at which
  the task wants an evaluation (``eval_points``), the training opponents as agents (empty for a
  self-play task), and factories for the environments: :meth:`TaskContext.single_agent_env`
  (Gymnasium, with action masks), :meth:`TaskContext.pettingzoo_env` (AEC) and
  :meth:`TaskContext.vec_env` (a Stable-Baselines3 vector env, on the batched engine where it can);
- ``checkpoint(timesteps, policy)`` is called by the algorithm as it passes each evaluation point:
  the runner evaluates ``policy`` there (the curve of the result file);
- ``train`` returns the trained policy, evaluated at the end (``final``).

A policy is an agent (:class:`agents.base.Agent`) or a plain callable
``policy(observation, action_mask) -> action``. Register nothing: ``trash-bench run --algorithm
my_module:MyAlgorithm`` imports it (a class is instantiated without arguments).

Built in (:data:`BUILTIN`): ``maskable_ppo``, ``ppo``, ``a2c``, ``dqn``, ``qrdqn`` (the last four
without action masks: an illegal action ends the episode with -1), and ``maskable_ppo_selfplay``
(the task's baselines plus frozen snapshots of the learner), all through :mod:`agents.training.sb3`
with one fixed set of settings per algorithm (:data:`SETTINGS`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agents.base import Agent, SeatView
from agents.bench.tasks import Task
from agents.registry import make_agent

Policy = Any  # an Agent, or a callable (observation, action_mask) -> action
Checkpoint = Callable[[int, Policy], None]


@dataclass
class TaskContext:
    """What an algorithm is given to train on a task (see the module docstring)."""

    task: Task
    seed: int
    budget: int
    eval_points: list[int]
    work_dir: Path  # a folder the algorithm may write to (snapshots, logs)
    opponents: list[Agent] = field(default_factory=list)

    @property
    def config(self) -> Any:
        return self.task.config()

    def single_agent_env(self, opponents: list[Any] | None = None, **kwargs: Any) -> Any:
        """The task's Gymnasium env: one learner seat (drawn per episode) against ``opponents``
        (default: the task's training opponents; a self-play task must give its own)."""
        from trash_env.single_agent import NeighborSingleAgentEnv, TrashSingleAgentEnv

        env_class = TrashSingleAgentEnv if self.task.game == "trash" else NeighborSingleAgentEnv
        pool = opponents if opponents is not None else self.opponents
        if not pool:
            raise ValueError(f"task {self.task.name} trains by self-play: give the opponents (your snapshots)")
        return env_class(self.task.preset, opponents=pool, **self.task.rules, **kwargs)

    def pettingzoo_env(self, **kwargs: Any) -> Any:
        """The task's PettingZoo AEC env (every seat asked: for self-play and multi-agent learners)."""
        from trash_env import help_your_neighbor_v0, trash_v0

        module = trash_v0 if self.task.game == "trash" else help_your_neighbor_v0
        return module.env(self.task.preset, **self.task.rules, **kwargs)

    def vec_env(self, num_envs: int, opponents: list[Any] | None = None) -> Any:
        """A Stable-Baselines3 vector env of ``num_envs`` single-agent games: the batched engine's
        (``TrashVecEnv``) for Trash with in-engine baselines, else ``DummyVecEnv`` over the single-agent env."""
        if self.task.game == "trash" and not self.task.self_play and opponents is None:
            from stable_baselines3.common.vec_env import VecMonitor

            from trash_env.trash.vec_env import TrashVecEnv

            names = list(self.task.opponents)
            return VecMonitor(
                TrashVecEnv(num_envs, self.task.preset, opponents=names, seed=self.seed, **self.task.rules)
            )
        from stable_baselines3.common.env_util import make_vec_env

        return make_vec_env(lambda: self.single_agent_env(opponents), n_envs=num_envs, seed=self.seed)


class Algorithm(Protocol):
    name: str

    def train(self, context: TaskContext, checkpoint: Checkpoint) -> Policy: ...


class CallablePolicy(Agent):
    """A plain callable ``policy(observation, action_mask) -> action`` as an agent."""

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], int], game: str, name: str = "policy") -> None:
        self.policy, self.name, self.games = policy, name, (game,)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        return int(self.policy(view.observation, view.action_mask))


def as_agent(policy: Policy, task: Task) -> Agent:
    """An algorithm's policy as an agent of the task's game."""
    if isinstance(policy, Agent):
        return policy
    if callable(policy):
        return CallablePolicy(policy, task.game)
    raise ValueError(f"an algorithm must return an agent or a callable (observation, mask) -> action, got {policy!r}")


# Fixed settings of the built-in algorithms, the same on every task (agents.training.sb3.Args fields).
SETTINGS: dict[str, dict[str, Any]] = {
    "maskable_ppo": {
        "algo": "maskable_ppo",
        "n_envs": 8,
        "n_steps": 256,
        "batch_size": 512,
        "learning_rate": 3e-4,
        "ent_coef": 0.0,
    },
    "ppo": {"algo": "ppo", "n_envs": 8, "n_steps": 256, "batch_size": 512, "learning_rate": 3e-4, "ent_coef": 0.0},
    "a2c": {"algo": "a2c", "n_envs": 8, "n_steps": 16, "learning_rate": 7e-4, "ent_coef": 0.0},
    "dqn": {
        "algo": "dqn",
        "n_envs": 4,
        "batch_size": 256,
        "learning_rate": 1e-4,
        "learning_starts": 2_000,
        "target_update_interval": 2_000,
    },
    # 25 quantiles, as the RL Zoo uses on small tasks: sb3-contrib's default of 200 trains ~40x slower on CPU
    "qrdqn": {
        "algo": "qrdqn",
        "n_envs": 4,
        "batch_size": 256,
        "learning_rate": 1e-4,
        "n_quantiles": 25,
        "learning_starts": 2_000,
        "target_update_interval": 2_000,
    },
}
SELF_PLAY_SETTINGS = {"snapshot_every": 20_000, "pool_size": 4}
ON_POLICY = ("maskable_ppo", "ppo", "a2c")
UPDATES_AT_LEAST = 4  # what a budget scaled down for a smoke test still trains: this many updates or more


def fit_to_budget(settings: dict[str, Any], budget: int) -> dict[str, Any]:
    """``settings`` (:data:`SETTINGS`, with :data:`SELF_PLAY_SETTINGS` where they apply) for a
    budget of ``budget`` timesteps: unchanged at every task's full budget, and scaled down where a
    small ``--budget-fraction`` would leave nothing to learn (at 1% PPO's 8 x 256 rollout is longer
    than the 1,000-step budget, so no update happened and every curve point was the untrained
    policy). Then a rollout (on-policy), the random steps before learning and the target network's
    period (DQN, QR-DQN), and the self-play snapshots fit :data:`UPDATES_AT_LEAST` times in the
    budget; the minibatch is at most a rollout."""
    fitted = dict(settings)
    if fitted["algo"] in ON_POLICY:
        most = max(1, budget // (UPDATES_AT_LEAST * fitted["n_envs"]))
        fitted["n_steps"] = min(fitted["n_steps"], most)
        if "batch_size" in fitted:  # PPO's minibatch: at most a rollout, and at least 2 (SB3)
            fitted["batch_size"] = max(2, min(fitted["batch_size"], fitted["n_envs"] * fitted["n_steps"]))
    else:
        fitted["learning_starts"] = min(fitted["learning_starts"], budget // UPDATES_AT_LEAST)
        fitted["target_update_interval"] = max(1, min(fitted["target_update_interval"], budget // UPDATES_AT_LEAST))
    if "snapshot_every" in fitted:
        fitted["snapshot_every"] = max(1, min(fitted["snapshot_every"], budget // UPDATES_AT_LEAST))
    return fitted


@dataclass
class SB3Algorithm:
    """A Stable-Baselines3 (or sb3-contrib) algorithm trained with :mod:`agents.training.sb3`'s machinery."""

    name: str
    settings: dict[str, Any]
    add_self_play: bool = False  # baselines plus snapshots of the learner (on a baseline task)

    def train(self, context: TaskContext, checkpoint: Checkpoint) -> Policy:
        from agents.training import sb3 as training

        task = context.task
        self_play = task.self_play or self.add_self_play
        batched = task.game == "trash" and self.settings["algo"] == "maskable_ppo"
        args = training.Args(
            out_dir=context.work_dir,
            run_name="run",
            overwrite=True,
            game=task.game,
            preset=task.preset,
            num_players=task.num_players,
            match=bool(task.rules.get("match", False)),
            rules={key: value for key, value in task.rules.items() if key not in ("num_players", "match")},
            total_timesteps=context.budget,
            seed=context.seed,
            opponents=[] if task.self_play else list(task.opponents),
            self_play=self_play,
            self_play_only=task.self_play,
            batched=batched,
            eval_every=0,
            final_eval_deals=0,
            checkpoint_every=0,
            progress_bar=False,
            tensorboard=False,
            **fit_to_budget({**self.settings, **(SELF_PLAY_SETTINGS if self_play else {})}, context.budget),
        )
        points = PointCallback(context.eval_points, checkpoint, context.config, task.preset)
        result = training.train(args, callbacks=[points])  # logs its progress, prints nothing: the runner reports
        if result.exit_status:  # stopped by Ctrl-C or SIGTERM: not a finished run, and the sweep stops
            raise KeyboardInterrupt
        return result.agent


class PointCallback:
    """Calls ``checkpoint(timesteps, agent)`` as training passes each evaluation point (an SB3 callback,
    made lazily so this module imports without Stable-Baselines3)."""

    def __new__(cls, points: list[int], checkpoint: Checkpoint, config: Any, preset: str) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        from agents.learned import LearnedAgent, policy_metadata

        class _Points(BaseCallback):
            def __init__(self) -> None:
                super().__init__()
                self.pending = sorted(points)

            def _on_training_start(self) -> None:
                self._due()

            def _on_step(self) -> bool:
                self._due()
                return True

            def _due(self) -> None:
                while self.pending and self.num_timesteps >= self.pending[0]:
                    self.pending.pop(0)
                    metadata = policy_metadata(self.model, config, preset)
                    checkpoint(int(self.num_timesteps), LearnedAgent(self.model.policy, metadata, name="policy"))

        return _Points()


BUILTIN: dict[str, Callable[[], Any]] = {
    **{name: (lambda name=name: SB3Algorithm(name, SETTINGS[name])) for name in SETTINGS},
    "maskable_ppo_selfplay": lambda: SB3Algorithm(
        "maskable_ppo_selfplay", SETTINGS["maskable_ppo"], add_self_play=True
    ),
}


def load_algorithm(spec: str) -> Any:
    """A built-in algorithm by name, or ``module:attribute`` (a class is instantiated)."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    module_name, sep, attribute = spec.partition(":")
    if not sep:
        raise ValueError(f"unknown algorithm {spec!r}: built in are {sorted(BUILTIN)}, or give module:attribute")
    if os.getcwd() not in sys.path:  # as ``python -m`` does: the user's own modules, from where they run
        sys.path.insert(0, os.getcwd())
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"algorithm {spec!r} could not be imported: {error}") from None
    algorithm = target() if isinstance(target, type) else target
    if not callable(getattr(algorithm, "train", None)):
        raise ValueError(f"algorithm {spec!r} has no train(context, checkpoint) method")
    algorithm.name = getattr(algorithm, "name", attribute)
    return algorithm


def make_opponents(task: Task) -> list[Agent]:
    return [] if task.self_play else [make_agent(spec, task.game) for spec in task.opponents]
