"""How an algorithm plugs into the suite (protocol v2), and the built-in algorithms.

**The interface.** An algorithm is an object with a ``name`` (its results are filed under it) and
``train(context, checkpoint) -> policy``. ``trash-bench run --algorithm my_module:MyAlgorithm``
imports it from the working directory (a class is instantiated without arguments); nothing is
registered. ``context`` is a :class:`TaskContext`:

- ``context.task`` (:class:`agents.bench.tasks.Task`: game, rules, reference, budget),
  ``context.config`` (its rules), ``context.seed``, ``context.budget`` (timesteps: learner
  decisions), ``context.eval_points`` (timesteps), ``context.work_dir`` (a folder to write to,
  removed after the run), ``context.opponents`` (the training opponents, as agents; empty on a
  self-play task);
- the env factories, each counting the learner's steps (below): :meth:`~TaskContext.single_agent_env`
  (Gymnasium), :meth:`~TaskContext.vec_env` (a Stable-Baselines3 ``VecEnv``),
  :meth:`~TaskContext.pettingzoo_env` (PettingZoo AEC, every seat asked);
- :meth:`~TaskContext.validate` (score a policy on validation deals, for model selection),
  :meth:`~TaskContext.make_opponent` (a policy as an opponent), :attr:`~TaskContext.counted_steps`.

**Spaces.** Read them from an env: ``context.single_agent_env().observation_space`` (``Box(0, 1,
(size,), float32)``) and ``.action_space`` (``Discrete(n)``); ``context.vec_env(k)`` has the same,
and the AEC env's are ``env.observation_space(agent)["observation"]`` and
``env.action_space(agent)``. Per game (the observer first, seats relative to it; the pieces are named
by ``trash_env.trash.observation.TrashObserver`` and ``trash_env.neighbor.observation.NeighborObserver``):

=================================================================  ================  ================
tasks                                                              observation size  actions
=================================================================  ================  ================
Trash, n players (R13, R15)                                        62 + 44 n         ``Discrete(13)``
``trash-standard-2p``, ``trash-pagat-2p``,                         150 (2 players)
``trash-standard-2p-match``, ``trash-pagat-2p-match``,
``trash-standard-2p-selfplay``
``trash-jokers-3p``                                                194 (3 players)
``trash-standard-4p``, ``trash-pagat-4p-match``                    238 (4 players)
``trash-standard-6p``                                              326 (6 players)
Help Your Neighbor, n players (R12, R14)                           15 + 13 n         ``Discrete(12)``
``hyn-2p``, ``hyn-2p-selfplay``                                    41 (2 players)
``hyn-4p``                                                         67 (4 players)
=================================================================  ================  ================

Trash actions: 0 draw, 1 take the discard, 2 + i place in slot i, 12 discard. Help Your Neighbor:
0 roll, 1 end the turn, 2 + j uncover the j-th marker. The learner is asked only at real choices
(two or more legal actions, R13, R14): forced moves are played for it.

**Masks, from every factory.** The single-agent env: ``env.action_masks()`` and
``info["action_mask"]``. Every vector env of the context has ``env.action_masks()``
(``[num_envs, actions]`` bool) for both games, and ``env.env_method("action_masks")`` as
MaskablePPO reads it. The AEC env: ``observation["action_mask"]`` (int8). An illegal action ends a
single-agent episode with reward -1 (``info["illegal_action"]``); the batched engine refuses one.

**Rewards** (R10, R12): at the end of the episode (a hand, or a match on ``-match`` tasks) +1 to
the winner, -1 to every other seat, 0 to all on a draw; 0 on every step before. The single-agent
and vector envs give the learner's reward only; episodes end with ``terminated`` (or ``truncated``
at the rules' turn limit, R7).

**Opponents** are agents (:class:`agents.base.Agent`: ``act(view, rng) -> action``, ``view`` a
:class:`~trash_env.view.SeatView`), never plain callables: the factories refuse them in one line.
Wrap a policy, an agent or an ``(observation, mask) -> action`` callable, with
``context.make_opponent(policy)`` (what :func:`as_agent` does). Each opponent seat draws one of the
opponents given per episode. A self-play task has no ``context.opponents``: give your snapshots
(``context.single_agent_env(opponents=[context.make_opponent(snapshot)])``, ``vec_env(k,
opponents=...)``) or learn on ``pettingzoo_env()``.

**Policies.** ``train`` returns, and ``checkpoint`` takes, an agent or an ``(observation, mask) ->
action`` callable. The runner keeps the final one beside the result (:mod:`agents.bench.artifacts`)
and evaluates it in another process, so it must be savable: a
:class:`~agents.learned.LearnedAgent` with a policy file (the built-ins), an
:class:`agents.linear.LinearAgent`, or a baseline of the registry (kept by name: a run whose policy is a
built-in agent, a baseline or the solution, is invalid with that reason unless its algorithm declares
itself a baseline, ``baseline = True``). An agent that decides many
positions at once sets ``batchable = True`` and implements ``act_batch(observations, masks,
rngs)``: ``observations`` float32 ``[N, size]``, ``masks`` ``[N, actions]`` (nonzero = legal),
``rngs`` N numpy Generators (or Nones, where the batched engine asks a snapshot), returning N legal
actions, each what ``act`` would return for that row; Trash evaluation then plays it on the batched
engine (the same games, faster).

**Counted budget.** Every env the context makes counts the learner's timesteps in
``context.counter`` (:class:`StepCounter`; ``context.counted_steps``): a single-agent ``step``
is 1, a vector env's ``step`` is ``num_envs``, an AEC ``step`` with an action (not a dead agent's
``None``) is 1 (every seat is the learner there). The result records the count. A run is invalid
(kept out of reports, with the reason) if it counts more than ``budget`` plus a slack of
``max(budget // 20, 256 x the largest num_envs built)`` (``counter.largest_batch``: one rollout of
the widest vector env), if it counts nothing, or if a checkpoint claims more timesteps than were
counted when it was called. **Checkpoints**: call ``checkpoint(timesteps, policy)`` once for each of
``context.eval_points``, as soon as ``context.counted_steps >= point``, with ``timesteps`` the
point or the count reached (never more than ``context.counted_steps``); the runner scores the
policy there on validation deals (the curve).

**Budget scaling.** ``--budget-fraction F`` scales the budget (``round(budget x F)``), the
evaluation points (the same fractions of the scaled budget) and the deals of every evaluation (at
least 10 validation deals per point and 50 test deals at the end); a task refuses fractions below
its smallest allowed one. Fit your rollouts to
``context.budget`` (the built-ins do: :func:`fit_to_budget`).

**Seeding.** ``context.seed`` is the training seed (0 .. 999,999): seed your learner from it.
``vec_env`` seeds its games from it (the batched engine with ``seed``, ``DummyVecEnv``'s env ``i``
with ``seed + i``); ``single_agent_env`` and ``pettingzoo_env`` are seeded by your first
``reset(seed=context.seed)``. The same seed repeats a run exactly on the same machine and versions.

**Evaluation.** Curve points and :meth:`~TaskContext.validate` play the first deals of the
validation seed (``agents.bench.tasks``); the final score plays **test deals** from a seed drawn
after training, in a fresh process that loads the saved policy. Each is the policy's score
difference per deal against an opponent (the task's reference, then each held-out opponent) on
duplicate deals (``agents.evaluation.duplicate.run_pairings``): the seats alternate policy,
opponent, policy, ... and every rotation of that lineup is played on each deal (with an odd number
of seats, the rotations of opponent, policy, opponent, ... too), so the policy holds every seat
equally often. The deal's score is the policy's mean reward over all its seats in the deal's games
minus the opponent's mean over theirs: with 2 players a game scores +2 or -2. With more seats the
policy plays beside copies of itself, and a win by any copy counts for it, as for a team: with 4
players a game scores +1 when a copy wins and -1 when an opponent does (with 6, +-2/3). Training,
in contrast, seats one learner among opponents only (``context.opponents``, or those you give).

**What a plugin may not do.** Build envs outside the context (``trash_env`` directly, or its own
``TrashVecEnv``): their steps are not counted, so the run is outside the protocol and must be
declared as such (with nothing counted it is invalid). Evaluate on the test deals: it cannot, their
seed is drawn after training, in another process, and no part of the training process holds it;
selecting among candidates with ``context.validate`` is allowed, and is what validation deals are
for. Change ``context.counter``, or step past the counting wrapper (``env.venv``, ``env.env``): the
count is the protocol's record of the budget.

**Built in** (:data:`BUILTIN`): ``maskable_ppo``, ``ppo``, ``a2c``, ``dqn``, ``qrdqn`` (the last four
without action masks: an illegal action ends the episode with -1), and ``maskable_ppo_selfplay``
(the task's baselines plus frozen snapshots of the learner), all through :mod:`agents.training.sb3`
with one fixed set of settings per algorithm (:data:`SETTINGS`), trained through the context's
counting wrapper (:func:`counting_vec_env`) like any plugin; and ``tabular_td``
(:mod:`agents.training.tabular_td`: two-player Help Your Neighbor only, a value table learned by
self-play with expectimax backups over the dice, for the open-budget track); and
``maskable_ppo_shaped`` (Trash: MaskablePPO with the suite's settings, trained against the task's
reference opponent only, its reward shaped by progress in hands and layouts,
:mod:`agents.training.shaping`, for the open-budget track's four-player ``pagat`` matches); and
``maskable_ppo_kickstart`` (Trash: the same, kickstarted by imitating the reference's decisions for
the first tenth of the budget, :mod:`agents.training.imitation`, then fine-tuned at a tenth of the
learning rate, returning the evaluation point's policy that scores best on validation deals); and
``fast_ppo`` (:mod:`agents.training.fast_ppo`: the same masked PPO written for throughput, stepping the
batched engine's arrays through the context's counting vector env, ``step_arrays``), with its presets
``fast_ppo_throughput`` and ``mmd`` (:mod:`agents.training.mmd`: magnetic mirror descent); and
``nfsp`` and ``psro`` (:mod:`agents.bench.self_play`: two-player self-play tasks).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import gymnasium
import numpy as np

from agents.base import Agent, SeatView
from agents.bench.self_play import NFSP, PSRO, run_of, stand_in
from agents.bench.settings import ON_POLICY, SELF_PLAY_SETTINGS, SETTINGS, UPDATES_AT_LEAST
from agents.bench.tasks import MIN_POINT_DEALS, Task
from agents.registry import make_agent
from trash_env.games import TRASH, get_game

Policy = Any  # an Agent, or a callable (observation, action_mask) -> action
Checkpoint = Callable[[int, Policy], None]
SHAPING = {"hands": 1.0, "progress": 1.0}  # maskable_ppo_shaped's weights (agents.training.shaping)
SHAPED_GAME = TRASH.name  # what agents.training.shaping's potentials measure: Trash's hands and layouts
KICKSTART = 0.1  # maskable_ppo_kickstart's share of the budget spent imitating the reference
KICKSTART_SETTINGS = {**SETTINGS["maskable_ppo"], "learning_rate": 3e-5}  # fine-tuning: a tenth of the rate
Validator = Callable[[Agent, "int | None"], dict]


@dataclass
class StepCounter:
    """The learner's timesteps taken through the context's envs (``steps``), and the most games one
    of them stepped at once (``largest_batch``: the runner's slack is one rollout of it)."""

    steps: int = 0
    largest_batch: int = 0

    def built(self, num_envs: int) -> None:
        self.largest_batch = max(self.largest_batch, int(num_envs))


class CountingEnv(gymnasium.Wrapper):
    """A single-agent env that counts each ``step`` as one learner timestep; ``action_masks`` and
    ``set_opponents`` go to the env (Gymnasium's wrappers forward no other methods)."""

    def __init__(self, env: Any, counter: StepCounter) -> None:
        super().__init__(env)
        self.counter = counter
        counter.built(1)

    def step(self, action: Any) -> Any:
        result = self.env.step(action)
        self.counter.steps += 1
        return result

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()

    def set_opponents(self, opponents: Any) -> None:
        self.env.unwrapped.set_opponents(opponents)


def counting_vec_env(venv: Any, counter: StepCounter) -> Any:
    """``venv`` (an SB3 ``VecEnv``) wrapped to count ``num_envs`` learner timesteps per step and to
    give ``action_masks()``: what the context's ``vec_env`` returns, and the wrapper the built-in
    algorithms train through (``agents.training.sb3.train(..., wrap_env=...)``)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class CountingVecEnv(VecEnvWrapper):
        """Counts ``num_envs`` timesteps per ``step_wait``; ``action_masks()`` from the batched engine,
        or stacked from the single-agent envs (``env_method("action_masks")``)."""

        def __init__(self, venv: Any, counter: StepCounter) -> None:
            super().__init__(venv)
            self.counter = counter
            counter.built(venv.num_envs)

        def reset(self) -> Any:
            return self.venv.reset()

        def step_wait(self) -> Any:
            result = self.venv.step_wait()
            self.counter.steps += self.num_envs
            return result

        def step_arrays(self, actions: np.ndarray) -> Any:
            """The batched engine's ``step_arrays`` (no infos: ``fast_ppo``), counted as a step."""
            result = self.venv.step_arrays(actions)
            self.counter.steps += self.num_envs
            return result

        def set_opponents(self, opponents: Any) -> None:
            self.venv.set_opponents(opponents)

        def action_masks(self) -> np.ndarray:
            own = getattr(self.venv, "action_masks", None)  # the batched engine's, through VecMonitor
            if callable(own):
                return np.asarray(own(), dtype=bool)
            return np.stack(self.venv.env_method("action_masks")).astype(bool)

    return CountingVecEnv(venv, counter)


def counting_aec_env(env: Any, counter: StepCounter) -> Any:
    """A PettingZoo AEC env that counts every ``step`` with an action (every seat is the learner);
    a dead agent's ``step(None)`` is not a decision and is not counted."""
    from pettingzoo.utils.wrappers import BaseWrapper

    class CountingAEC(BaseWrapper):
        def __init__(self, env: Any, counter: StepCounter) -> None:
            super().__init__(env)
            self.counter = counter
            counter.built(1)

        def step(self, action: Any) -> None:
            self.env.step(action)
            if action is not None:
                self.counter.steps += 1

        def last(self, observe: bool = True) -> Any:
            return self.env.last(observe)

        def agent_iter(self, max_iter: int = 2**63) -> Any:
            return self.env.agent_iter(max_iter)

    return CountingAEC(env, counter)


def _check_opponents(opponents: list[Any]) -> None:
    for opponent in opponents:
        if not callable(getattr(opponent, "act", None)):
            raise ValueError(
                f"opponents must be agents with act(view, rng), got {opponent!r}: "
                "wrap a policy with context.make_opponent(policy)"
            )


@dataclass
class TaskContext:
    """What an algorithm is given to train on a task (see the module docstring)."""

    task: Task
    seed: int
    budget: int
    eval_points: list[int]
    work_dir: Path  # a folder the algorithm may write to (snapshots, logs)
    opponents: list[Agent] = field(default_factory=list)
    validator: Validator | None = None  # set by the runner: (agent, deals or None) -> score on validation deals
    counter: StepCounter = field(default_factory=StepCounter)

    @property
    def config(self) -> Any:
        return self.task.config()

    @property
    def counted_steps(self) -> int:
        """The learner's timesteps taken so far through the context's envs."""
        return self.counter.steps

    def validate(self, policy: Policy, deals: int | None = None) -> dict[str, Any]:
        """``policy``'s score against the task's reference on the first ``deals`` validation deals
        (default: as many as a curve point): ``{"score", "low", "high", "normalized", "deals"}``.
        Never the test deals, whose seed is drawn after training."""
        if self.validator is None:
            raise ValueError("context.validate: this context has no validator (the runner gives one)")
        if deals is not None and (isinstance(deals, bool) or not isinstance(deals, int) or deals < MIN_POINT_DEALS):
            raise ValueError(
                f"context.validate: deals must be an integer of at least {MIN_POINT_DEALS} or None, got {deals!r}"
            )
        return self.validator(as_agent(policy, self.task), deals)

    def make_opponent(self, policy: Policy) -> Agent:
        """``policy`` (an agent, or a callable ``(observation, mask) -> action``) as an agent of the
        task's game, to seat as an opponent (in ``opponents=``); checked against the task's rules."""
        agent = as_agent(policy, self.task)
        agent.check_config(self.config)
        return agent

    def _opponents(self, opponents: list[Any] | None) -> list[Any]:
        pool = list(opponents) if opponents is not None else self.opponents
        if not pool:
            raise ValueError(f"task {self.task.name} trains by self-play: give the opponents (your snapshots)")
        _check_opponents(pool)
        return pool

    def _single_agent_env(self, opponents: list[Any], **kwargs: Any) -> Any:
        game = get_game(self.task.game)
        return game.single_agent_env(preset=self.task.preset, opponents=opponents, **self.task.rules, **kwargs)

    def single_agent_env(self, opponents: list[Any] | None = None, **kwargs: Any) -> Any:
        """The task's Gymnasium env: one learner seat (drawn per episode) against ``opponents``
        (agents; default: the task's training opponents; a self-play task must give its own),
        counting each step."""
        return CountingEnv(self._single_agent_env(self._opponents(opponents), **kwargs), self.counter)

    def pettingzoo_env(self, **kwargs: Any) -> Any:
        """The task's PettingZoo AEC env (every seat asked: for self-play and multi-agent learners),
        counting each step with an action."""
        env = get_game(self.task.game).aec_env(preset=self.task.preset, **self.task.rules, **kwargs)
        return counting_aec_env(env, self.counter)

    def vec_env(self, num_envs: int, opponents: list[Any] | None = None, batched: bool = False) -> Any:
        """A Stable-Baselines3 vector env of ``num_envs`` single-agent games, counting
        ``num_envs`` timesteps per step, with ``action_masks()``: the game's batched engine
        (``TrashVecEnv`` or ``NeighborVecEnv``) with the task's opponents, else ``DummyVecEnv``
        over the single-agent env (with ``opponents``: agents). ``batched=True`` puts ``opponents``
        on the batched engine too: each must decide in batches (``act_batch``, asked between the
        learner's steps) or play inside the engine (a baseline the engine has, by name; a value
        table, :class:`agents.value_table.ValueTableAgent`)."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if batched or (not self.task.self_play and opponents is None):
            from agents.training.sb3 import batched_vec_env

            task = self.task
            given = opponents is not None or task.self_play  # (a self-play task's must be given)
            pool = self._opponents(opponents) if given else list(task.opponents)
            venv = batched_vec_env(task.game, num_envs, task.preset, pool, self.seed, task.rules)
            return counting_vec_env(venv, self.counter)
        from stable_baselines3.common.env_util import make_vec_env

        pool = self._opponents(opponents)
        venv = make_vec_env(lambda: self._single_agent_env(pool), n_envs=num_envs, seed=self.seed)
        return counting_vec_env(venv, self.counter)


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
    against_reference: bool = False  # train against the task's reference opponent only (baseline tasks)
    shaping: dict[str, float] = field(default_factory=dict)  # agents.training.shaping's weights (Trash)
    kickstart: float = 0.0  # the budget's fraction spent imitating the reference first (agents.training.imitation)
    select: bool = False  # return the evaluation point's policy that scores best on validation deals
    last_kickstart: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)  # the last run's figures
    last_selection: list[dict[str, Any]] = field(default_factory=list, compare=False, repr=False)  # and choices

    def train(self, context: TaskContext, checkpoint: Checkpoint) -> Policy:
        from agents.training import sb3 as training
        from agents.training.sb3.settings import MASKED

        task = context.task
        if self.shaping and task.game != SHAPED_GAME:
            raise ValueError(f"{self.name} shapes Trash rewards (layouts, hands won), not {task.name}")
        opponents = [] if task.self_play else [task.reference] if self.against_reference else list(task.opponents)
        self_play = task.self_play or self.add_self_play
        batched = self.settings["algo"] in MASKED  # both games have a batched engine, which takes legal actions only
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
            opponents=opponents,
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
        candidates: list[tuple[int, Any]] = []
        keep = (candidates, Path(context.work_dir)) if self.select else None
        points = PointCallback(context.eval_points, checkpoint, context.config, task.preset, keep)
        callbacks = [points]
        if self.kickstart:
            from agents.training.imitation import Kickstart, reference_batch

            reference = reference_batch(task.reference, task.game, task.num_players)
            self.last_kickstart.clear()
            steps = int(context.budget * self.kickstart)
            callbacks.insert(0, Kickstart(reference, steps, seed=context.seed, report=self.last_kickstart))

        def wrap(venv: Any) -> Any:  # counted as a plugin's, then shaped (the count sees every step)
            venv = counting_vec_env(venv, context.counter)
            if self.shaping:
                from agents.training.shaping import progress_shaping

                venv = progress_shaping(venv, task.num_players, **self.shaping)
            return venv

        result = training.train(args, callbacks=callbacks, wrap_env=wrap)  # logs, prints nothing
        if result.exit_status:  # stopped by Ctrl-C or SIGTERM: not a finished run, and the sweep stops
            raise KeyboardInterrupt
        if candidates:
            return self._best_on_validation(context, candidates)
        return result.agent

    def _best_on_validation(self, context: TaskContext, candidates: list[tuple[int, Any]]) -> Any:
        """The candidate scoring best on the validation deals (``context.validate``: a curve point's
        deals); ties go to the earliest. Each one's score is kept in ``last_selection``."""
        self.last_selection.clear()
        best = None
        for timesteps, agent in candidates:
            score = context.validate(agent)["score"]
            self.last_selection.append({"timesteps": timesteps, "validation_score": score})
            if best is None or score > best[0]:
                best = (score, timesteps, agent)
        assert best is not None
        for entry in self.last_selection:
            entry["chosen"] = entry["timesteps"] == best[1]
        return best[2]


class PointCallback:
    """Calls ``checkpoint(timesteps, agent)`` as training passes each evaluation point (an SB3 callback,
    made lazily so this module imports without Stable-Baselines3); with ``keep`` (a list and a
    folder), saves each point's policy in the folder and appends it to the list as ``(timesteps,
    agent)``, loaded from its file."""

    def __new__(
        cls,
        points: list[int],
        checkpoint: Checkpoint,
        config: Any,
        preset: str,
        keep: tuple[list[tuple[int, Any]], Path] | None = None,
    ) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        from agents.learned import LearnedAgent, policy_metadata, save_policy

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
                    if keep is not None:  # a policy file: the model's own policy goes on training
                        import torch

                        kept, folder = keep
                        path = save_policy(self.model, folder / f"point_{len(kept)}.zip", config, preset)
                        with torch.random.fork_rng(devices=[]):  # building the network draws from torch's
                            agent = LearnedAgent.load(path, name="policy")  # generator: training must not see it
                        kept.append((int(self.num_timesteps), agent))

        return _Points()


@dataclass
class FastPPO:
    """``fast_ppo``: :mod:`agents.training.fast_ppo`'s masked PPO on the task's batched engine, through
    the context's counting vector env (its ``step_arrays``), against the task's opponents or, on a
    self-play task, frozen snapshots of the learner; checkpoints at the context's points."""

    name: str = "fast_ppo"
    overrides: dict[str, Any] = field(default_factory=dict)  # FastSettings fields over its defaults (tuned)

    def train(self, context: TaskContext, checkpoint: Checkpoint) -> Policy:
        from agents.training.fast_ppo import FastSettings, train_fast

        task = context.task
        given = {key: tuple(value) if isinstance(value, list) else value for key, value in self.overrides.items()}
        settings = FastSettings(**given).fitted(context.budget)
        opponents = [stand_in(context)] if task.self_play else None
        venv = context.vec_env(settings.n_envs, opponents=opponents, batched=True)
        policy, _ = train_fast(venv, settings=settings, self_play=task.self_play, **run_of(context, checkpoint))
        return policy


BUILTIN: dict[str, Callable[[], Any]] = {
    **{name: (lambda name=name: SB3Algorithm(name, SETTINGS[name])) for name in SETTINGS},
    "maskable_ppo_selfplay": lambda: SB3Algorithm(
        "maskable_ppo_selfplay", SETTINGS["maskable_ppo"], add_self_play=True
    ),
    "tabular_td": lambda: _tabular_td(),
    "fast_ppo": FastPPO,
    "fast_ppo_throughput": lambda: _fast_variant("fast_ppo_throughput"),
    "mmd": lambda: _fast_variant("mmd"),
    "nfsp": NFSP,
    "psro": PSRO,
    "maskable_ppo_shaped": lambda: SB3Algorithm(
        "maskable_ppo_shaped", SETTINGS["maskable_ppo"], against_reference=True, shaping=dict(SHAPING)
    ),
    "maskable_ppo_kickstart": lambda: SB3Algorithm(
        "maskable_ppo_kickstart",
        KICKSTART_SETTINGS,
        against_reference=True,
        shaping=dict(SHAPING),
        kickstart=KICKSTART,
        select=True,
    ),
}


def _fast_variant(name: str) -> FastPPO:
    """``fast_ppo`` with a preset's settings, by the built-in's name (imported when the built-in is
    made: the trainers import torch)."""
    from agents.training.fast_ppo import throughput_overrides
    from agents.training.mmd import mmd_overrides

    presets = {"fast_ppo_throughput": throughput_overrides, "mmd": mmd_overrides}
    return FastPPO(name, presets[name]())


def _tabular_td() -> Any:
    from agents.training.tabular_td import TabularTD  # (Numba compiles its kernels on first use)

    return TabularTD()


def with_settings(algorithm: str, values: dict[str, Any]) -> Any:
    """The built-in ``algorithm`` with ``values`` over its fixed settings."""
    import dataclasses

    built = BUILTIN[algorithm]()
    if isinstance(built, FastPPO):
        return dataclasses.replace(built, overrides=dict(values))
    if isinstance(built, SB3Algorithm):  # agents.training.sb3.Args takes lists
        listed = {key: list(value) if isinstance(value, tuple) else value for key, value in values.items()}
        return dataclasses.replace(built, settings={**built.settings, **listed})
    raise ValueError(f"{algorithm} takes no settings")


def load_algorithm(spec: str) -> Any:
    """A built-in algorithm by name, a tunable built-in with the package's named settings
    (``ALGORITHM@NAME``: :mod:`agents.bench.tune`, named ``ALGORITHM-NAME``), or ``module:attribute``
    (a class is instantiated)."""
    if spec in BUILTIN:
        return BUILTIN[spec]()
    base, at, settings = spec.partition("@")
    if at:
        import dataclasses

        from agents.bench.tuned_settings import tuned_values

        if base not in BUILTIN:
            raise ValueError(f"unknown algorithm {base!r} for --settings: built in are {sorted(BUILTIN)}")
        return dataclasses.replace(with_settings(base, tuned_values(base, settings)), name=f"{base}-{settings}")
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
