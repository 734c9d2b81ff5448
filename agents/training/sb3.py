"""Train a Trash (or Help Your Neighbor) agent with Stable-Baselines3 and evaluate it against the baselines.

Training as a library: :func:`train` takes the settings (:class:`Args`) and returns a
:class:`~agents.training.runs.TrainResult` (the run folder, the policy file and the policy as an
agent, the learning curve, the final evaluation); the benchmark suite (:mod:`agents.bench`) trains
its built-in algorithms with it. Its progress is logged (``logging``), not printed; the command
``trash-train`` (:mod:`agents.commands.train`, and ``python train.py``) parses the same settings
from the command line (:func:`cli`) and shows the log and the final tables:

    python train.py                                   # MaskablePPO, standard, 2 players, small budget
    python train.py --game help_your_neighbor         # the dice variant (R12)
    python train.py --algo ppo --total-timesteps 300000
    python train.py --self-play --opponents greedy    # greedy plus frozen snapshots of the learner
    python train.py --preset pagat --num-players 3 --override layout_size=8 --override max_turns=300
    python train.py --resume runs/NAME/checkpoints/step_50000.zip --total-timesteps 300000
    python train.py --help

Reads top to bottom: the settings, environments, the model, callbacks
(duplicate-deal evaluation, checkpoints, self-play, stopping on a signal), the ranges of the
settings and the memory they need, reading a checkpoint to resume without unpickling it, the
preparation of a run (:func:`prepare`), then its steps (:func:`run`): :func:`build` a new model or
:func:`restore` one, :func:`make_callbacks`, :func:`learn`, :func:`finish` (the policy, the
learning curve, the final evaluation).
Everything a run writes goes to ``runs/NAME/``: ``policy.zip`` (the trained
policy, with its configuration), ``checkpoints/``, ``tb/`` (TensorBoard),
``eval_history.json``, ``final_eval.json`` and ``learning_curve.png``.

**Resuming never runs code from the file.** SB3's own loader unpickles fields of a checkpoint, so
``--resume`` does not use it: the model is built from the settings as a new run's is, the weights and
optimizer state are read as tensors only (``torch.load(weights_only=True)``) and checked to fit it
(names, shapes, finite values), and SB3's step counters come from the ``training_state`` this
package writes into every policy file and checkpoint (``trash_rl.json``; for older files the
plain-JSON fields of SB3's ``data``, never its pickles). A checkpoint, self-play snapshot or
learning curve that is damaged is refused in one line before the run writes anything.

Work is never lost: bad settings are refused (a ValueError; on the command line one line, exit
status 2) before anything is written: every number finite and in range, the memory the
environments and buffers need within what the machine has, ``--run-name`` a plain name,
``--out-dir`` writable; a run that fails before it trains leaves no folder. An existing run is
never overwritten silently (:mod:`agents.training.runs`); Ctrl-C or SIGTERM stops at the next step, saves a
checkpoint and the policy so far, writes the history and learning curve, logs
the command that resumes the run and exits with 128 + the signal number (130
for Ctrl-C); a second Ctrl-C exits at once. Every file is written atomically.

Needs the ``train`` extra (``pip install 'trash-rl[train]'``, which brings ``eval`` too).
"""

from __future__ import annotations

import copy
import io
import json
import logging
import math
import os
import time
import warnings
import zipfile
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from agents import arguments, registry
from agents.arguments import (
    at_least,
    command_line,
    override_words,
    program_name,
    program_words,
    rules_config,
    shell_command,
    stoppable_command,
)
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.report import write_json
from agents.evaluation.stats import pair_summaries
from agents.learned import (
    METADATA_NAME,
    LearnedAgent,
    algorithms,
    check_compatible,
    describe_network,
    policy_metadata,
    read_metadata,
    save_policy,
)
from agents.processes import GracefulStop, set_threads, worker_signals
from agents.registry import make_agent
from agents.training.runs import (
    Overrides,
    Rules,
    RunFolder,
    TrainResult,
    choose_run_folder,
    evaluate_at_end,
    run_under_stop,
    shown_default,
)
from trash_env.files import atomic_path, read_zip_member
from trash_env.games import GAMES, game_of, get_game

logger = logging.getLogger(__name__)

COMMAND = "train.py"
GameName = Literal[tuple(GAMES)]  # the names of the games (trash_env.games), as the choices of --game

ALGORITHMS = {"maskable_ppo": "MaskablePPO", "ppo": "PPO", "a2c": "A2C", "dqn": "DQN", "qrdqn": "QRDQN"}
VALUE_BASED = ("dqn", "qrdqn")  # a replay buffer and a Q-network (no n_steps, no entropy bonus)
# What --help says of the defaults that are filled in from other settings (default_run_name, the game's
# default baselines: random plus its default opponent, agents.registry.default_baselines).
RUN_NAME_TEXT = "preset, players, algorithm and seed; _2, _3 ... if that folder holds a run"
BASELINES_TEXT = "; ".join(
    " and ".join(registry.default_baselines(game.name)) + f" for {game.title}" for game in GAMES.values()
)


@dataclass
class Args:
    """Training settings; every field is a command-line flag (``--total-timesteps`` ...) but ``rules``."""

    run_name: Annotated[str, shown_default(RUN_NAME_TEXT)] = ""
    """name of the run folder under --out-dir"""
    out_dir: Path = Path("runs")
    """where runs are written"""
    overwrite: bool = False
    """replace the run already in the run folder (otherwise an explicit --run-name that holds a run is refused)"""
    game: GameName = "trash"
    """the game: Trash, or the dice variant Help Your Neighbor (R12)"""
    preset: str = "standard"
    """rules preset (R11; Help Your Neighbor has only standard)"""
    num_players: int = 2
    """players at the table; the learner takes one seat, drawn each episode"""
    match: bool = False
    """play matches of hands (R9) instead of single hands (Trash only)"""
    overrides: Overrides = field(default_factory=list)
    """a rules field on top of the preset (VALUE read as JSON where it parses: 8, true, null)"""
    rules: Rules = field(default_factory=dict)
    """rules fields given from Python (the benchmark suite's tasks), under any --override; not a flag"""
    algo: Literal["maskable_ppo", "ppo", "a2c", "dqn", "qrdqn"] = "maskable_ppo"
    """MaskablePPO uses the action masks; PPO, A2C, DQN and QR-DQN do not (an illegal action ends the episode)"""
    total_timesteps: int = 150_000
    """learner decisions to train for, in all (a resumed run continues its count)"""
    n_envs: int = 4
    """parallel environments"""
    subproc: bool = False
    """run the environments in subprocesses (SubprocVecEnv) instead of in this process"""
    batched: bool = False
    """run the n_envs games on the batched engine (TrashVecEnv, NeighborVecEnv): opponents its in-engine baselines"""
    seed: int = 0
    """seeds the environments, the model and every evaluation"""
    threads: Annotated[int | None, shown_default("OMP_NUM_THREADS when set, else 1", metavar="N")] = None
    """threads for torch, OpenMP and Numba; the small networks here train fastest on one"""
    opponents: Annotated[list[str], shown_default(BASELINES_TEXT)] = field(default_factory=list)
    """baseline opponents; each opponent seat draws one per episode"""
    self_play: bool = False
    """add frozen snapshots of the learner to the opponent pool"""
    self_play_only: bool = False
    """train against the learner's own snapshots only (the first is the untrained policy); implies --self-play"""
    snapshot_every: int = 50_000
    """timesteps between self-play snapshots"""
    pool_size: int = 4
    """self-play snapshots kept in the pool (the newest)"""
    learning_rate: float = 3e-4
    """optimizer step size"""
    n_steps: int = 512
    """PPO and A2C: steps per environment per update"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 10
    """PPO: passes over each rollout per update"""
    gamma: float = 0.995
    """discount; the only reward comes at the end of the hand"""
    ent_coef: float = 0.01
    """PPO and A2C: entropy bonus"""
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of the policy (and value) network"""
    n_quantiles: int = 25
    """QR-DQN: quantiles of the return per action (sb3-contrib's 200 trained about 40x slower on CPU)"""
    learning_starts: int = 2_000
    """DQN, QR-DQN: timesteps of random play that fill the replay buffer before learning starts"""
    target_update_interval: int = 2_000
    """DQN, QR-DQN: timesteps between updates of the target network"""
    eval_every: int = 25_000
    """timesteps between evaluations against the baselines (0: none)"""
    eval_deals: int = 300
    """duplicate deals per baseline at each periodic evaluation"""
    eval_baselines: Annotated[list[str], shown_default(BASELINES_TEXT)] = field(default_factory=list)
    """baselines the policy is evaluated against"""
    final_eval_deals: int = 2000
    """duplicate deals per baseline in the final evaluation (0: none)"""
    final_eval_on_interrupt: bool = False
    """run the final evaluation also when Ctrl-C or SIGTERM stops the run"""
    eval_workers: int = 2
    """processes for the final evaluation"""
    checkpoint_every: int = 50_000
    """timesteps between checkpoints (0: none)"""
    resume: Annotated[Path | None, shown_default("a new run", metavar="FILE")] = None
    """a checkpoint or policy file to continue training from (in its run, if it belongs to one). Nothing in
    it is unpickled: the weights and optimizer state are read as tensors only (torch's weights_only), the
    step counters as JSON; the model is built from these flags, which the resume command a run prints gives"""
    progress_bar: bool = True
    """SB3's progress bar"""
    tensorboard: bool = True
    """write TensorBoard logs to runs/NAME/tb"""


def rules_fields(args: Args) -> dict[str, Any]:
    """The rules fields of the run besides its preset (the same for its configuration and its
    environments): --num-players and --match, then ``rules``, then every --override on top."""
    return arguments.rules_fields(args.game, args.num_players, args.match, args.overrides, args.rules)


def build_config(args: Args) -> Any:
    """The run's rules configuration: a ValueError naming a bad rules flag."""
    return rules_config(args.game, args.preset, args.num_players, args.match, args.overrides, args.rules)


def resolve_baselines(args: Args) -> None:
    """Fill in the game's default opponents and evaluation baselines (with --self-play-only the
    opponents are a placeholder, ``random``, replaced by the first snapshot before training)."""
    if args.self_play_only:
        if args.opponents:
            raise ValueError("--self-play-only trains against snapshots only: drop --opponents")
        args.self_play = True
        args.opponents = ["random"]
    args.opponents = args.opponents or list(registry.default_baselines(args.game))
    args.eval_baselines = args.eval_baselines or list(registry.default_baselines(args.game))


def make_env_factory(args: Args, opponents: list[Any]):
    rules = rules_fields(args)
    game = get_game(args.game)

    def make() -> Any:
        if args.subproc:  # in the worker process: Ctrl-C is for the main process, which stops the workers
            worker_signals()
        return game.single_agent_env(preset=args.preset, opponents=opponents, **rules)

    return make


def check_batched(args: Args) -> None:
    """--batched needs what the game's batched engine plays: its vectorisable baselines (self-play snapshots
    are asked in batches between the engine's steps)."""
    if not args.batched:
        return
    if args.subproc:
        raise ValueError("--batched runs every game in one process; drop --subproc")
    if args.algo != "maskable_ppo":
        raise ValueError("--batched takes masked actions only: use --algo maskable_ppo")
    engine = get_game(args.game).engine
    if engine is None:
        raise ValueError(f"--batched: {args.game} has no batched engine")
    vectorisable = engine.policies
    others = sorted(set(args.opponents) - set(vectorisable))
    if others:
        raise ValueError(f"--batched: opponents {others} are not among the in-engine baselines {list(vectorisable)}")


def batched_vec_env(
    game: str, n_envs: int, preset: str, opponents: list[Any], seed: int | None, rules: dict[str, Any]
) -> Any:
    """The batched engine's vector env of ``game`` (``TrashVecEnv`` or ``NeighborVecEnv``) in a
    ``VecMonitor``, which adds ``info["episode"]``: SB3 logs rollout/ep_rew_mean and ep_len_mean as
    on the scalar path."""
    return VecMonitor(get_game(game).vec_env(n_envs, preset=preset, opponents=opponents, seed=seed, **rules))


def make_vec_env_for(args: Args, opponents: list[Any]) -> Any:
    """SB3 vector envs over the single-agent env, or the batched engine's (--batched)."""
    if args.batched:
        return batched_vec_env(args.game, args.n_envs, args.preset, args.opponents, args.seed, rules_fields(args))
    return make_vec_env(
        make_env_factory(args, opponents),
        n_envs=args.n_envs,
        seed=args.seed,
        vec_env_cls=SubprocVecEnv if args.subproc else DummyVecEnv,
    )


WrapEnv = Callable[[Any], Any]  # a training vector env -> the env to train on (train's wrap_env)


def make_model(args: Args, vec_env: Any, run_dir: Path) -> Any:
    algorithm = algorithms()[ALGORITHMS[args.algo]]
    tensorboard_log = str(run_dir / "tb") if args.tensorboard else None
    common = {"learning_rate": args.learning_rate, "gamma": args.gamma, "seed": args.seed, "verbose": 0}
    if args.algo in VALUE_BASED:
        return algorithm(
            "MlpPolicy",
            vec_env,
            buffer_size=100_000,
            learning_starts=args.learning_starts,
            batch_size=args.batch_size,
            exploration_fraction=0.3,
            target_update_interval=args.target_update_interval,
            train_freq=4,
            policy_kwargs={"net_arch": args.net_arch}
            | ({"n_quantiles": args.n_quantiles} if args.algo == "qrdqn" else {}),
            tensorboard_log=tensorboard_log,
            **common,
        )
    if args.algo == "a2c":  # one update every n_steps per environment, no minibatches
        return algorithm(
            "MlpPolicy",
            vec_env,
            n_steps=args.n_steps,
            ent_coef=args.ent_coef,
            policy_kwargs={"net_arch": {"pi": args.net_arch, "vf": args.net_arch}},
            tensorboard_log=tensorboard_log,
            **common,
        )
    return algorithm(
        "MlpPolicy",
        vec_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": {"pi": args.net_arch, "vf": args.net_arch}},
        tensorboard_log=tensorboard_log,
        **common,
    )


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


# Upper bounds of the settings (their lower bounds are in check_settings).
MAX_COUNT = 2**63 - 1  # step counts and intervals end up in numpy and TensorBoard as 64-bit integers
MAX_SEED = 2**32 - 1  # numpy's global seed (SB3's set_random_seed) is one 32-bit word
MAX_DEALS = 1_000_000  # an evaluation keeps every deal's result in memory
THREADS_PER_CORE = 4  # more threads than cores only slow the small networks down (docs/speed.md)


def at_most(flag: str, value: float, high: float, why: str = "") -> None:
    """A ``ValueError`` naming ``flag`` unless ``value <= high`` (``why``: the reason for the bound)."""
    if not value <= high:
        raise ValueError(f"{flag} must be at most {high}{why}, got {value}")


def check_settings(args: Args) -> None:
    """A ValueError naming the flag of a setting out of its range: every number of :class:`Args` is
    checked (the floats finite), and the memory the run needs against the memory there is."""
    if args.threads is not None:
        at_least("--threads", args.threads, 1)
        cores = os.cpu_count() or 1
        at_most("--threads", args.threads, THREADS_PER_CORE * cores, f" ({THREADS_PER_CORE} per core, {cores} here)")
    counts = [
        ("--total-timesteps", args.total_timesteps, 1),
        ("--n-envs", args.n_envs, 1),
        ("--n-steps", args.n_steps, 1),
        ("--batch-size", args.batch_size, 1 if args.algo in VALUE_BASED else 2),  # SB3's PPO needs 2
        ("--n-epochs", args.n_epochs, 1),
        ("--n-quantiles", args.n_quantiles, 1),
        ("--learning-starts", args.learning_starts, 0),
        ("--target-update-interval", args.target_update_interval, 1),
        *(("--net-arch", width, 1) for width in args.net_arch),
        ("--eval-every", args.eval_every, 0),
        ("--eval-workers", args.eval_workers, 1),
        ("--checkpoint-every", args.checkpoint_every, 0),
    ]
    at_least("--seed", args.seed, 0)
    at_most("--seed", args.seed, MAX_SEED, " (numpy's seeds are 32-bit)")
    for flag, value, low in counts:
        at_least(flag, value, low)
        at_most(flag, value, MAX_COUNT)
    for flag, value, low in (("--eval-deals", args.eval_deals, 1), ("--final-eval-deals", args.final_eval_deals, 0)):
        at_least(flag, value, low)
        at_most(flag, value, MAX_DEALS)
    if not 0 < args.learning_rate <= 1:  # also refuses NaN and infinity
        raise ValueError(f"--learning-rate must be above 0 and at most 1, got {args.learning_rate}")
    if not 0 < args.gamma <= 1:
        raise ValueError(f"--gamma must be in (0, 1], got {args.gamma}")
    if not 0 <= args.ent_coef <= 1:  # the entropy bonus beside a reward of about one a hand
        raise ValueError(f"--ent-coef must be at least 0 and at most 1, got {args.ent_coef}")
    if args.self_play:
        for flag, value in (("--snapshot-every", args.snapshot_every), ("--pool-size", args.pool_size)):
            at_least(flag, value, 1, " with --self-play")
            at_most(flag, value, MAX_COUNT)


# Memory a run takes besides its buffers and network (measured: docs of check_memory).
ENV_BYTES = 64 * 2**10  # one environment in this process: a game with its opponents, about 13-22 KiB
SUBPROCESS_BYTES = 200 * 2**20  # one --subproc worker: a Python process with torch imported, about 185 MiB
REPLAY_BUFFER_SIZE = 100_000  # the transitions DQN and QR-DQN keep (make_model)
FLOAT = 4  # bytes of a float32: SB3's buffers and networks


def memory_needed(args: Args, observation_size: int, num_actions: int) -> dict[str, int]:
    """An estimate of the bytes a run's largest allocations take, by what takes them (named with the
    flags that size it): the environments, the rollout or replay buffer (as far as the run fills
    it), the network with its gradients and Adam's two moments, and a minibatch through it."""
    layers = [observation_size, *args.net_arch]

    def weights(outputs: int) -> int:
        return sum((inputs + 1) * width for inputs, width in zip(layers, [*layers[1:], outputs], strict=True))

    widths = sum(args.net_arch)
    per_env = SUBPROCESS_BYTES if args.subproc else ENV_BYTES
    parts = {"the environments (--n-envs)": args.n_envs * per_env}
    if args.algo in VALUE_BASED:
        outputs = num_actions * (args.n_quantiles if args.algo == "qrdqn" else 1)
        transition = (2 * observation_size + 5) * FLOAT  # observation, next one, action (int64), reward, done, timeout
        slots = max(REPLAY_BUFFER_SIZE // args.n_envs, 1) * args.n_envs
        parts["the replay buffer (--n-envs)"] = min(slots, args.total_timesteps + args.n_envs) * transition
        parts["the network (--net-arch, --n-quantiles)"] = 5 * weights(outputs) * FLOAT  # with the target network
        parts["a minibatch (--batch-size)"] = args.batch_size * (2 * transition + 3 * (widths + outputs) * FLOAT)
    else:
        rollout = args.n_steps * args.n_envs
        masks = num_actions if args.algo == "maskable_ppo" else 0
        # 7 floats a step besides the observation; the observations are copied once when the rollout is read.
        parts["the rollout buffer (--n-steps x --n-envs)"] = rollout * (2 * observation_size + 7 + masks) * FLOAT
        parts["the network (--net-arch)"] = 4 * (weights(num_actions) + weights(1)) * FLOAT
        rows = rollout if args.algo == "a2c" else min(args.batch_size, rollout)
        parts["a minibatch (--batch-size)"] = rows * 6 * (widths + num_actions + 1) * FLOAT
    return parts


def available_memory() -> int | None:
    """Bytes of memory the system can still give (Linux's MemAvailable; elsewhere the physical
    memory), or None where neither can be read."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def flags_of(part: str) -> str:
    """The flags that size a part of :func:`memory_needed`: ``--n-steps or --n-envs``."""
    return part.partition("(")[2].rstrip(")").replace(" x ", " or ").replace(", ", " or ")


def gib(count: int) -> str:
    return f"{count / 2**30:,.1f} GiB"


def check_memory(args: Args, config: Any) -> None:
    """A ValueError naming the flags to lower when the run would need more memory than is available
    (:func:`memory_needed`), instead of an allocation error once it has started. The sizes of an
    environment are measured ones (``tracemalloc`` of 200 games, the RSS of a ``--subproc`` worker)
    rounded up; the buffers are counted as SB3 allocates them."""
    game = game_of(config)
    parts = memory_needed(args, game.make_observer(config).size, game.num_actions)
    available = available_memory()
    if available is None or sum(parts.values()) <= available:
        return
    largest = max(parts, key=parts.__getitem__)
    raise ValueError(
        f"these settings need about {gib(sum(parts.values()))} of memory, more than the {gib(available)} "
        f"available: {largest} alone takes {gib(parts[largest])}; lower {flags_of(largest)}"
    )


# ---------------------------------------------------------------------- resuming without unpickling
#
# SB3's own loader (BaseAlgorithm.load) unpickles the fields of a checkpoint's ``data`` member, so a crafted
# file could run code. A resume instead builds the model from the settings, as a new run does, loads the
# weights and optimizer state as tensors only (``torch.load(weights_only=True)``) after checking that they fit
# it, and restores SB3's step counters from JSON this package writes (``training_state`` in ``trash_rl.json``;
# for files written before, the plain-JSON fields of ``data``, never its pickles).

TRAINING_STATE_VERSION = 1
# SB3's counters that training goes on from, by the type each has; the rest of what SB3 saves (schedules,
# spaces, the policy class) is rebuilt from the settings. DQN and QR-DQN also keep their exploration.
COUNTERS: dict[str, type] = {
    "num_timesteps": int,
    "_episode_num": int,
    "_n_updates": int,
    "_current_progress_remaining": float,  # the learning-rate (and exploration) schedules' progress
}
EXPLORATION_COUNTERS: dict[str, type] = {"_n_calls": int, "exploration_rate": float}
# Settings a model keeps, by their flag: a resume notes those its checkpoint was trained with otherwise.
SETTING_FLAGS = {
    "learning_rate": "--learning-rate",
    "gamma": "--gamma",
    "ent_coef": "--ent-coef",
    "n_steps": "--n-steps",
    "batch_size": "--batch-size",
    "n_epochs": "--n-epochs",
    "learning_starts": "--learning-starts",
    "target_update_interval": "--target-update-interval",
}
DATA_LIMIT = 64 * 2**20  # bytes of SB3's data member read from an older checkpoint
HISTORY_LIMIT = 64 * 2**20  # bytes of a run's eval_history.json


def counters_of(algorithm: str) -> dict[str, type]:
    """The counters (:data:`COUNTERS`) a model of ``algorithm`` (``DQN``, ``MaskablePPO`` ...) trains on from."""
    return COUNTERS | (EXPLORATION_COUNTERS if algorithm in ("DQN", "QRDQN") else {})


def finite_number(value: Any) -> bool:
    """A JSON number (not a boolean) that is finite and within a 64-bit count."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) <= MAX_COUNT if isinstance(value, int) else math.isfinite(value)


def number_settings(model_or_data: Any) -> dict[str, Any]:
    """The numeric settings of :data:`SETTING_FLAGS` that a model (or SB3's data, a dict) holds."""
    get = model_or_data.get if isinstance(model_or_data, dict) else lambda name: getattr(model_or_data, name, None)
    return {name: get(name) for name in SETTING_FLAGS if finite_number(get(name))}


def training_state(model: Any) -> dict[str, Any]:
    """What a checkpoint keeps (in its ``trash_rl.json``) for a resume to go on where it stopped, as
    JSON: SB3's counters, the settings the model trained with, and the recent episodes behind the
    logged rollout means."""
    episodes = [
        {"r": float(episode["r"]), "l": int(episode["l"]), "t": float(episode["t"])}
        for episode in model.ep_info_buffer or ()
        if isinstance(episode, dict) and {"r", "l", "t"} <= set(episode)
    ]
    return {
        "version": TRAINING_STATE_VERSION,
        "counters": {name: kind(getattr(model, name)) for name, kind in counters_of(type(model).__name__).items()},
        "settings": number_settings(model),
        "episodes": episodes,
    }


def save_checkpoint(model: Any, path: Path, config: Any, preset: str, **extra: Any) -> Path:
    """:func:`~agents.learned.save_policy` with the :func:`training_state` a resume needs: every
    policy file and checkpoint a run writes can be resumed without unpickling."""
    return save_policy(model, path, config, preset, training_state=training_state(model), **extra)


@dataclass
class Resume:
    """What :func:`prepare` read for ``--resume``, every part checked: nothing is read later."""

    parameters: dict[str, Any]  # SB3's state dicts by name (policy, policy.optimizer): tensors only
    counters: dict[str, Any]  # COUNTERS (and EXPLORATION_COUNTERS) to go on from
    episodes: list[dict[str, Any]]  # the recent episodes (SB3's ep_info_buffer), possibly none
    notes: list[str]  # settings the checkpoint was trained with otherwise, to log
    history: list[dict[str, Any]]  # the run's learning curve before the checkpoint
    snapshots: list[Any] | None  # the self-play pool up to the checkpoint (None without self-play)


def first_line(error: BaseException) -> str:
    """An exception as one short line: its message's first line (its type when it has none)."""
    lines = str(error).strip().splitlines()
    return lines[0][:300] if lines else type(error).__name__


def load_tensors(path: Path, name: str, raw: bytes) -> Any:
    """A ``.pth`` member loaded with ``torch.load(weights_only=True)``: tensors and plain containers
    only, anything else (a pickled object) refused before it is built."""
    import pickle

    import torch

    try:
        return torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise ValueError(f"{path}: its {name} holds more than tensors, which is never loaded") from None
    except Exception as error:
        raise ValueError(f"{path}: its {name} is damaged ({first_line(error)})") from None


def check_weights(path: Path, member: str, saved: Any, module: Any) -> None:
    """A ValueError unless ``saved`` is a state dict of ``module``: every name, shape and dtype as
    it has them (strict: no weight missing, none renamed or left over), every value finite."""
    import torch

    if not isinstance(saved, dict) or not all(
        isinstance(key, str) and isinstance(value, torch.Tensor) for key, value in saved.items()
    ):
        raise ValueError(f"{path}: its {member} is not a set of named tensors")
    wanted = module.state_dict()
    differences = [f"{key} missing" for key in wanted if key not in saved]
    differences += [f"{key} unexpected" for key in saved if key not in wanted]
    differences += [
        f"{key} is {tuple(saved[key].shape)} {saved[key].dtype}, not {tuple(value.shape)} {value.dtype}"
        for key, value in wanted.items()
        if key in saved and (saved[key].shape != value.shape or saved[key].dtype != value.dtype)
    ]
    if differences:
        more = f" and {len(differences) - 3} more" if len(differences) > 3 else ""
        raise ValueError(
            f"{path}: its {member} does not fit the network these settings build ({'; '.join(differences[:3])}{more})"
        )
    broken = [key for key, value in saved.items() if value.is_floating_point() and not bool(value.isfinite().all())]
    if broken:
        raise ValueError(f"{path}: its {member} holds non-finite weights ({', '.join(broken[:3])})")


def fits(value: Any, parameter: Any) -> bool:
    """An optimizer state value for ``parameter``: a finite number, or a finite tensor of its shape
    (or a scalar, Adam's step)."""
    import torch

    if isinstance(value, torch.Tensor):
        shaped = value.dim() == 0 or value.shape == parameter.shape
        return shaped and (not value.is_floating_point() or bool(value.isfinite().all()))
    return finite_number(value)


def check_optimizer_state(path: Path, member: str, saved: Any, optimizer: Any) -> dict[str, Any]:
    """The state of ``saved`` for ``optimizer``, with ``optimizer``'s own parameter groups (its
    hyperparameters, from the settings); a ValueError unless it is a state of these parameters."""
    fresh = optimizer.state_dict()
    wanted = [group["params"] for group in fresh["param_groups"]]
    groups = saved.get("param_groups") if isinstance(saved, dict) else None
    state = saved.get("state") if isinstance(saved, dict) else None
    if (
        not isinstance(state, dict)
        or not isinstance(groups, list)
        or [group.get("params") if isinstance(group, dict) else None for group in groups] != wanted
    ):
        raise ValueError(f"{path}: its {member} is not an optimizer state of this network's parameters")
    parameters = dict(
        zip(
            [index for group in wanted for index in group],
            [parameter for group in optimizer.param_groups for parameter in group["params"]],
            strict=True,
        )
    )
    for index, values in state.items():
        if index not in parameters or not isinstance(values, dict):
            raise ValueError(f"{path}: its {member} holds a state for a parameter the network does not have")
        if not all(fits(value, parameters[index]) for value in values.values()):
            raise ValueError(f"{path}: its {member} holds a state of parameter {index} that does not fit it")
    return {"state": state, "param_groups": copy.deepcopy(fresh["param_groups"])}


def dry_step(probe: Any, parameters: dict[str, Any]) -> None:
    """Load a copy of ``parameters`` into the throwaway model ``probe`` and take one optimizer step
    with zero gradients, as training's first update will: an optimizer state that does not fit fails
    here, before the run writes anything."""
    import torch

    probe.set_parameters(copy.deepcopy(parameters), exact_match=True, device="cpu")
    optimizer = probe.policy.optimizer
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            parameter.grad = torch.zeros_like(parameter)
    optimizer.step()


def read_parameters(path: Path, archive: zipfile.ZipFile, probe: Any) -> dict[str, Any]:
    """SB3's state dicts of the checkpoint (``policy.pth``, ``policy.optimizer.pth``), as tensors
    only, checked against ``probe`` (a model built from the settings): each member no larger than
    four times the network, every weight named and shaped as the network has it and finite, the
    optimizer state one for these parameters; a ValueError naming the file and the problem."""
    import torch
    from stable_baselines3.common.save_util import recursive_getattr

    network_bytes = sum(tensor.numel() * tensor.element_size() for tensor in probe.policy.state_dict().values())
    limit = 4 * network_bytes + 2**20
    parameters: dict[str, Any] = {}
    for name in probe._get_torch_save_params()[0]:
        target, member = recursive_getattr(probe, name), f"{name}.pth"
        saved = load_tensors(path, member, read_zip_member(archive, member, limit, path))
        if isinstance(target, torch.optim.Optimizer):
            parameters[name] = check_optimizer_state(path, member, saved, target)
        else:
            check_weights(path, member, saved, target)
            parameters[name] = saved
    try:
        dry_step(probe, parameters)
    except Exception as error:
        raise ValueError(f"{path}: its weights do not load into the network ({first_line(error)})") from None
    return parameters


def check_counters(path: Path, where: str, values: Any, kinds: dict[str, type]) -> dict[str, Any]:
    """The counters ``kinds`` of ``values`` (a dict read from JSON), each of its type and range; a
    ValueError naming the first that is missing or wrong."""
    checked: dict[str, Any] = {}
    for name, kind in kinds.items():
        value = values.get(name) if isinstance(values, dict) else None
        valid = finite_number(value) and (kind is float or (isinstance(value, int) and value >= 0))
        if valid and name == "exploration_rate":
            valid = 0 <= value <= 1
        if not valid:
            raise ValueError(f"{path}: {where} has no valid {name} (found {value!r}), so it cannot be resumed")
        checked[name] = kind(value)
    return checked


def check_episodes(path: Path, episodes: Any, window: int) -> list[dict[str, Any]]:
    """The recent episodes of a training state: at most ``window`` of them, each its return, length
    and time as finite numbers."""
    valid = isinstance(episodes, list) and len(episodes) <= window
    valid = valid and all(
        isinstance(episode, dict) and set(episode) == {"r", "l", "t"} and all(map(finite_number, episode.values()))
        for episode in episodes
    )
    if not valid:
        raise ValueError(f"{path}: its {METADATA_NAME} has a training_state whose episodes are unreadable")
    return episodes


def read_sb3_data(path: Path, archive: zipfile.ZipFile) -> dict[str, Any]:
    """The plain-JSON fields of SB3's ``data`` member (of a checkpoint written before this package
    kept its training state): every value SB3 pickled (``:serialized:``) is dropped unread."""
    raw = read_zip_member(archive, "data", DATA_LIMIT, path)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{path}: its SB3 data is not JSON ({first_line(error)})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: its SB3 data is not a JSON object")
    return {key: value for key, value in data.items() if not (isinstance(value, dict) and ":serialized:" in value)}


def read_training_state(
    path: Path, metadata: dict[str, Any], archive: zipfile.ZipFile, window: int
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The counters, settings and recent episodes a resume goes on from: the ``training_state`` of
    ``trash_rl.json``, or for an older file the plain-JSON fields of SB3's data (no episodes)."""
    kinds = counters_of(metadata["algorithm"])
    state = metadata.get("training_state")
    if state is None:
        data = read_sb3_data(path, archive)
        return check_counters(path, "its SB3 data", data, kinds), number_settings(data), []
    if not isinstance(state, dict) or state.get("version") != TRAINING_STATE_VERSION:
        found = state.get("version") if isinstance(state, dict) else state
        raise ValueError(f"{path}: its {METADATA_NAME} has a training_state of an unknown version ({found!r})")
    counters = check_counters(path, f"its {METADATA_NAME}'s training_state", state.get("counters"), kinds)
    settings = state.get("settings")
    return (
        counters,
        number_settings(settings if isinstance(settings, dict) else {}),
        check_episodes(path, state.get("episodes", []), window),
    )


def probe_model(args: Args, opponents: list[Any], run_dir: Path) -> Any:
    """A model built as the run will build its own (:func:`make_model`), on one environment and with
    SB3's remarks on its sizes silenced: what a checkpoint to resume must fit. Nothing is written."""
    game, rules = get_game(args.game), rules_fields(args)
    vec_env = DummyVecEnv([lambda: game.single_agent_env(preset=args.preset, opponents=opponents, **rules)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_model(args, vec_env, run_dir)


def check_network(path: Path, metadata: dict[str, Any], probe: Any) -> None:
    """A ValueError when the checkpoint describes another network than the settings build."""
    trained, built = metadata.get("network"), describe_network(probe)
    if trained is not None and trained != built:
        flags = "--net-arch and --n-quantiles" if "n_quantiles" in built else "--net-arch"
        raise ValueError(f"{path} holds the network {trained}, these settings build {built}: give the run's {flags}")


def read_checkpoint(path: Path, metadata: dict[str, Any], probe: Any) -> tuple[dict[str, Any], ...]:
    """The parameters (:func:`read_parameters`) and the training state (:func:`read_training_state`)
    of the checkpoint at ``path``; a ValueError for a file that is not a whole, undamaged checkpoint."""
    check_network(path, metadata, probe)
    try:
        with zipfile.ZipFile(path) as archive:
            parameters = read_parameters(path, archive, probe)
            counters, settings, episodes = read_training_state(path, metadata, archive, probe._stats_window_size)
    except ValueError:
        raise
    except Exception as error:  # the archive itself: truncated or changed since read_metadata read it
        raise ValueError(f"{path} is not a readable checkpoint ({first_line(error)})") from None
    if metadata.get("num_timesteps", counters["num_timesteps"]) != counters["num_timesteps"]:
        raise ValueError(
            f"{path}: its {METADATA_NAME} says {metadata['num_timesteps']!r} timesteps, its training state "
            f"{counters['num_timesteps']}: the file is damaged"
        )
    return parameters, counters, settings, episodes


def read_history(path: Path, before: int, baselines: list[str]) -> list[dict[str, Any]]:
    """The points of a run's learning curve (``eval_history.json``) before ``before`` timesteps, which
    a resumed run extends; a ValueError naming the file if it is not a curve against ``baselines``."""
    if not path.is_file():
        return []
    try:
        if path.stat().st_size > HISTORY_LIMIT:
            raise ValueError(f"larger than {HISTORY_LIMIT:,} bytes")
        rows = json.loads(path.read_bytes()).get("history")
    except (OSError, ValueError, RecursionError, AttributeError) as error:
        rows = f"unreadable: {first_line(error)}"

    def point(row: Any) -> bool:
        if (
            not isinstance(row, dict)
            or isinstance(row.get("timesteps"), bool)
            or not isinstance(row.get("timesteps"), int)
        ):
            return False
        scores = [row.get(baseline) for baseline in baselines]
        return all(
            isinstance(score, dict)
            and finite_number(score.get("mean"))
            and all(score.get(key) is None or finite_number(score.get(key)) for key in ("low", "high"))
            for score in scores
        )

    if not isinstance(rows, list) or not all(map(point, rows)):
        found = rows if isinstance(rows, str) else "points without a score against each of them"
        raise ValueError(
            f"{path} is not a learning curve against {', '.join(baselines)} ({found}): resume with the run's "
            "--eval-baselines, or move the file out of the run to start its curve again"
        )
    return [row for row in rows if row["timesteps"] < before]


def reload_snapshots(run_dir: Path, timesteps: int, pool_size: int, config: Any) -> list[Any]:
    """A resumed self-play run's pool: its newest snapshots up to the step it resumes from, each loaded
    as weights only (nothing unpickled) for these rules; a ValueError naming a snapshot that cannot be."""
    steps = sorted(
        int(path.stem.removeprefix("step_"))
        for path in (run_dir / "snapshots").glob("step_*.zip")
        if path.stem.removeprefix("step_").isdigit()
    )
    pool = []
    for step in [step for step in steps if step <= timesteps][-pool_size:]:
        path = run_dir / "snapshots" / f"step_{step}.zip"
        try:
            snapshot = LearnedAgent.load(path, name=f"snapshot_{step}")
            snapshot.check_config(config)
        except ValueError as error:
            raise ValueError(
                f"self-play snapshot {path} cannot be loaded as weights only ({error}); "
                f"move it out of {path.parent} to resume without it"
            ) from None
        pool.append(snapshot)
    return pool


def read_resume(args: Args, config: Any, metadata: dict[str, Any], folder: RunFolder, opponents: list[Any]) -> Resume:
    """Everything ``--resume`` goes on from, read and checked before the run writes anything: the
    checkpoint's weights, optimizer state and counters (:func:`read_checkpoint`, against a model
    built from the settings), and from the run folder its learning curve and self-play snapshots."""
    assert args.resume is not None
    path = Path(args.resume)
    probe = probe_model(args, opponents, folder.path)
    try:
        parameters, counters, settings, episodes = read_checkpoint(path, metadata, probe)
        notes = [
            f"{path} was trained with {flag} {settings[name]}; this run trains with {getattr(probe, name)}"
            for name, flag in SETTING_FLAGS.items()
            if name in settings and hasattr(probe, name) and settings[name] != getattr(probe, name)
        ]
    finally:
        probe.env.close()
    steps = counters["num_timesteps"]
    history = [] if folder.replace else read_history(folder.path / "eval_history.json", steps, args.eval_baselines)
    snapshots = None
    if args.self_play:
        snapshots = [] if folder.replace else reload_snapshots(folder.path, steps, args.pool_size, config)
    return Resume(parameters, counters, episodes, notes, history, snapshots)


def continue_from(model: Any, resume: Resume) -> None:
    """Set ``model`` (built from the settings, its parameters loaded) to the checkpoint's counters
    and recent episodes, so ``learn(reset_num_timesteps=False)`` goes on as SB3's own loader would."""
    for name, value in resume.counters.items():
        setattr(model, name, value)
    if resume.episodes:
        model.ep_info_buffer = deque(resume.episodes, maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)


def default_run_name(args: Args) -> str:
    game = get_game(args.game)
    prefix = args.preset if len(game.presets) > 1 else game.name  # a game of one preset: by its name
    return f"{prefix}_{args.num_players}p_{args.algo}_seed{args.seed}"


@dataclass
class Setup:
    """What :func:`prepare` checked and built: everything a run needs; nothing is written yet."""

    args: Args
    config: Any
    folder: RunFolder
    opponents: list[Any]
    resume: Resume | None  # what --resume goes on from, read and checked


def prepare(args: Args) -> Setup:
    """Check every setting (and the memory they need), the rules, the agents, the run folder (a plain
    name, writable) and any checkpoint to resume, read whole (:func:`read_resume`); a ValueError
    naming the problem, before anything is written."""
    resolve_baselines(args)
    check_settings(args)
    check_batched(args)
    config = build_config(args)
    check_memory(args, config)
    metadata = None
    if args.resume is not None:
        metadata = read_metadata(args.resume)
        check_compatible(metadata, config, source=f"checkpoint {args.resume}")
        if metadata["algorithm"] != ALGORITHMS[args.algo]:
            raise ValueError(f"{args.resume} was trained with {metadata['algorithm']}, not {ALGORITHMS[args.algo]}")
    folder = choose_run_folder(args.out_dir, args.run_name, default_run_name(args), args.overwrite, args.resume)
    opponents = [make_agent(spec, args.game) for spec in args.opponents]
    for agent in [*opponents, *(make_agent(spec, args.game) for spec in args.eval_baselines)]:
        agent.check_config(config)
    resume = read_resume(args, config, metadata, folder, opponents) if metadata is not None else None
    return Setup(args, config, folder, opponents, resume)


def resume_command(args: Args, folder: RunFolder, checkpoint: Path) -> str:
    """The command line that continues this run from ``checkpoint`` with the same settings (rules
    given from Python become ``--override`` flags)."""
    defaults = list(registry.default_baselines(args.game))
    settings = replace(
        args,
        resume=checkpoint,
        run_name=folder.name,
        overwrite=False,
        # What resolve_baselines filled in: the game's defaults, and --self-play-only's placeholder opponent
        # and the --self-play it implies (given again, --opponents would be refused with --self-play-only).
        opponents=[] if args.self_play_only or args.opponents == defaults else args.opponents,
        self_play=args.self_play and not args.self_play_only,
        eval_baselines=[] if args.eval_baselines == defaults else args.eval_baselines,
        rules={},
        overrides=[*override_words(args.rules), *args.overrides],
    )
    return shell_command([*program_words(COMMAND), *command_line(settings)])


# ---------------------------------------------------------------------- the steps of a run


@dataclass
class Training:
    """A run under way: what :func:`build` or :func:`restore` made, shared by the steps after them."""

    setup: Setup
    run_dir: Path
    vec_env: Any
    model: Any
    history: list[dict[str, Any]]  # the learning curve so far: empty, or a resumed run's earlier points
    pool: list[Any] | None  # the self-play snapshots among the opponents (None without self-play)


def snapshot_companions(setup: Setup) -> list[Any]:
    """What the environments' opponents are besides the self-play snapshots (``set_opponents`` takes
    both): the batched engine's baselines by name, agents otherwise; with --self-play-only nothing
    (the placeholder the environments were made with goes at the first snapshot)."""
    args = setup.args
    if args.self_play_only:
        return []
    return list(args.opponents if args.batched else setup.opponents)


def start_pool(training: Training) -> None:
    """Hand the environments the snapshots the run starts with; with --self-play-only and none yet,
    the untrained policy is the first."""
    args, config, steps = training.setup.args, training.setup.config, training.model.num_timesteps
    if training.pool is None:
        return
    if args.self_play_only and not training.pool:
        path = save_checkpoint(
            training.model, training.run_dir / "snapshots" / f"step_{steps}.zip", config, args.preset
        )
        training.pool.append(LearnedAgent.load(path, name=f"snapshot_{steps}"))
    if training.pool:
        training.vec_env.env_method("set_opponents", snapshot_companions(training.setup) + training.pool)


def build(setup: Setup, run_dir: Path, wrap_env: WrapEnv | None = None) -> Training:
    """A new run: its environments (wrapped by ``wrap_env`` if given, :func:`train`) and a new model."""
    args = setup.args
    vec_env = make_vec_env_for(args, setup.opponents)
    vec_env = wrap_env(vec_env) if wrap_env is not None else vec_env
    model = make_model(args, vec_env, run_dir)
    training = Training(setup, run_dir, vec_env, model, history=[], pool=[] if args.self_play else None)
    start_pool(training)
    return training


def restore(setup: Setup, run_dir: Path, wrap_env: WrapEnv | None = None) -> Training:
    """A run continued from ``--resume``: its environments and a model built from the settings as a new
    run's is, given the checkpoint's weights, optimizer state and counters that :func:`prepare` read
    (nothing unpickled), the learning curve and the self-play snapshots up to that count."""
    args, resume = setup.args, setup.resume
    assert resume is not None and args.resume is not None  # prepare read it
    vec_env = make_vec_env_for(args, setup.opponents)
    vec_env = wrap_env(vec_env) if wrap_env is not None else vec_env
    model = make_model(args, vec_env, run_dir)
    model.set_parameters(resume.parameters, exact_match=True, device="cpu")
    continue_from(model, resume)
    for note in resume.notes:
        logger.info(note)
    logger.info(f"resuming {args.resume} at {model.num_timesteps:,} timesteps")
    pool = None if resume.snapshots is None else list(resume.snapshots)
    training = Training(setup, run_dir, vec_env, model, list(resume.history), pool)
    start_pool(training)
    return training


def make_callbacks(
    training: Training, stop: GracefulStop, extra: Sequence[BaseCallback] = ()
) -> tuple[CallbackList, DuplicateEvalCallback]:
    """The run's callbacks: stopping on a signal, ``extra`` (the suite's evaluation points), the periodic
    evaluation (returned too: it gives the learning curve its last point), checkpoints and self-play
    snapshots. With nothing left to train they are set up here, as ``learn`` would."""
    setup, model = training.setup, training.model
    args, config = setup.args, setup.config
    metadata = policy_metadata(model, config, args.preset)
    evaluation = DuplicateEvalCallback(
        config,
        metadata,
        args.eval_baselines,
        args.eval_deals,
        args.eval_every,
        args.seed,
        training.history,
        total=args.total_timesteps,
    )
    callbacks = [
        StopOnSignal(stop),
        *extra,
        evaluation,
        PolicyCheckpoint(training.run_dir / "checkpoints", args.checkpoint_every, config, args.preset),
    ]
    if training.pool is not None:
        callbacks.append(
            PolicyCheckpoint(
                training.run_dir / "snapshots",
                args.snapshot_every,
                config,
                args.preset,
                training.pool,
                snapshot_companions(setup),
                args.pool_size,
            )
        )
    callback = CallbackList(callbacks)
    if args.total_timesteps <= model.num_timesteps:  # the final evaluation point still needs its model
        model.set_logger(configure_logger(None, []))
        callback.init_callback(model)
    return callback, evaluation


def learn(training: Training, callback: CallbackList) -> float:
    """Train up to --total-timesteps (a signal stops it at the next step); the seconds it took."""
    args, model = training.setup.args, training.model
    remaining = args.total_timesteps - model.num_timesteps
    start = time.perf_counter()
    try:
        if remaining > 0:
            model.learn(
                remaining,
                callback=callback,
                progress_bar=args.progress_bar,
                reset_num_timesteps=args.resume is None,
                tb_log_name=args.algo,
            )
    finally:
        training.vec_env.close()
    return time.perf_counter() - start


def finish(
    training: Training, stop: GracefulStop, evaluation: DuplicateEvalCallback, train_seconds: float
) -> TrainResult:
    """Save what the run made: a resumable checkpoint if a signal stopped it (else the last point of
    the learning curve), the policy, the history and the curve; then the final evaluation."""
    setup, model, history = training.setup, training.model, training.history
    args, config, run_dir = setup.args, setup.config, training.run_dir
    interrupted = stop.requested and model.num_timesteps < args.total_timesteps
    checkpoint = None
    if interrupted:  # a resumable checkpoint where training stopped
        checkpoint = save_checkpoint(
            model, run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip", config, args.preset, interrupted=True
        )
    elif (
        not stop.requested
        and (args.eval_every or args.final_eval_deals)
        and (not history or history[-1]["timesteps"] != model.num_timesteps)
    ):
        evaluation.evaluate()  # the final point of the learning curve (none when no evaluation is asked)
    policy_path = save_checkpoint(
        model, run_dir / "policy.zip", config, args.preset, train_seconds=train_seconds, interrupted=interrupted
    )
    write_json(run_dir / "eval_history.json", {"history": history})
    if history:
        plot_learning_curve(
            history, args.eval_baselines, run_dir / "learning_curve.png", f"{setup.folder.name}: score vs baselines"
        )
    logger.info(f"trained {model.num_timesteps:,} timesteps in {train_seconds:.1f} s; policy saved to {policy_path}")
    if interrupted:
        assert checkpoint is not None
        later = f"To resume the run:\n  {resume_command(args, setup.folder, checkpoint)}"
        logger.info(f"stopped by {stop.signal_name} at {model.num_timesteps:,} of {args.total_timesteps:,} timesteps")
        logger.info(f"checkpoint saved to {checkpoint}")
    else:
        later = f"To run the final evaluation:\n  {resume_command(args, setup.folder, policy_path)}"
    summary = evaluate_at_end(
        config,
        policy_path,
        args,
        stop,
        run_dir,
        skipped=f"final evaluation skipped (--final-eval-on-interrupt runs it). {later}",
        exiting=f"The policy is saved to {policy_path}. {later}",
        announce=later if interrupted else None,
    )
    return TrainResult(
        run_dir=run_dir,
        policy=policy_path,
        agent=LearnedAgent(model.policy, policy_metadata(model, config, args.preset), path=str(policy_path)),
        timesteps=model.num_timesteps,
        history=history,
        summary=summary,
        interrupted=interrupted,
        exit_status=stop.exit_code,
        checkpoint=checkpoint,
    )


def run(
    setup: Setup, stop: GracefulStop, callbacks: Sequence[BaseCallback] = (), wrap_env: WrapEnv | None = None
) -> TrainResult:
    """Train, save and evaluate as :func:`prepare` set up, step by step: the run folder and its
    settings, a new model (:func:`build`) or the one to resume (:func:`restore`), the callbacks,
    training, and :func:`finish`. ``stop`` is asked at every step."""
    args = setup.args
    set_threads(args.threads)
    run_dir = setup.folder.start(args)
    try:
        set_random_seed(args.seed)
        training = restore(setup, run_dir, wrap_env) if args.resume is not None else build(setup, run_dir, wrap_env)
    except BaseException:  # nothing trained: a folder made for this run alone goes again
        setup.folder.release()
        raise
    callback, evaluation = make_callbacks(training, stop, callbacks)
    train_seconds = learn(training, callback)
    return finish(training, stop, evaluation, train_seconds)


SAFE_POINT = "the next step"


def train(
    args: Args,
    stop: GracefulStop | None = None,
    callbacks: Sequence[BaseCallback] = (),
    wrap_env: WrapEnv | None = None,
) -> TrainResult:
    """Train and evaluate with ``args``, from Python: a ValueError for bad settings, raised before
    anything is written (:func:`prepare`). Ctrl-C or SIGTERM stops the run at the next step and it
    saves what it has (``result.interrupted``, ``result.exit_status``), through ``stop`` if given,
    else a :class:`~agents.processes.GracefulStop` of its own. ``callbacks`` (SB3 callbacks) run
    beside the run's own, such as the benchmark suite's evaluation points; ``wrap_env`` wraps the
    training vector env right after it is built (the suite's step counter). Progress is logged
    (``logging``, logger ``agents.training.sb3``), not printed: the command shows the log (SB3's
    own progress bar, with ``progress_bar``, still draws itself on the terminal)."""
    return run_under_stop(run, prepare(args), stop, SAFE_POINT, callbacks, wrap_env)


def cli(argv: Sequence[str] | None = None) -> int:
    """The command line (``trash-train``): exit status 0, 2 for a bad argument (one line, nothing
    written), or 128 + the signal number when Ctrl-C or SIGTERM stopped the run."""
    return stoppable_command(program_name(COMMAND), Args, prepare, run, SAFE_POINT, argv, __doc__.splitlines()[0])
