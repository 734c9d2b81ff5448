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

Reads top to bottom: the settings and their checks (:func:`prepare`), environments, the model,
callbacks (duplicate-deal evaluation, checkpoints, self-play, stopping on a signal), then the steps
of a run (:func:`run`): :func:`build` a new model or :func:`restore` one, :func:`make_callbacks`,
:func:`learn`, :func:`finish` (the policy, the learning curve, the final evaluation).
Everything a run writes goes to ``runs/NAME/``: ``policy.zip`` (the trained
policy, with its configuration), ``checkpoints/``, ``tb/`` (TensorBoard),
``eval_history.json``, ``final_eval.json`` and ``learning_curve.png``.

Work is never lost: bad settings are refused (a ValueError; on the command line one line, exit
status 2) before anything is written; an existing run is never overwritten silently
(:mod:`agents.training.runs`); Ctrl-C or SIGTERM stops at the next step, saves a
checkpoint and the policy so far, writes the history and learning curve, logs
the command that resumes the run and exits with 128 + the signal number (130
for Ctrl-C); a second Ctrl-C exits at once. Every file is written atomically.

Needs the ``train`` and ``eval`` extras (``pip install -e '.[train,eval]'``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
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
from agents.learned import LearnedAgent, algorithms, check_compatible, policy_metadata, read_metadata, save_policy
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
from trash_env.files import atomic_path
from trash_env.single_agent import NeighborSingleAgentEnv, TrashSingleAgentEnv

logger = logging.getLogger(__name__)

COMMAND = "train.py"

ALGORITHMS = {"maskable_ppo": "MaskablePPO", "ppo": "PPO", "a2c": "A2C", "dqn": "DQN", "qrdqn": "QRDQN"}
VALUE_BASED = ("dqn", "qrdqn")  # a replay buffer and a Q-network (no n_steps, no entropy bonus)
SINGLE_AGENT_ENVS = {"trash": TrashSingleAgentEnv, "help_your_neighbor": NeighborSingleAgentEnv}
# Per game: random plus the best heuristic baseline (agents.registry), as opponents and as the evaluation's yardsticks.
DEFAULT_BASELINES = {game: list(names) for game, names in registry.DEFAULT_BASELINES.items()}
# What --help says of the defaults that are filled in from other settings (default_run_name, DEFAULT_BASELINES).
RUN_NAME_TEXT = "preset, players, algorithm and seed; _2, _3 ... if that folder holds a run"
BASELINES_TEXT = "; ".join(
    " and ".join(DEFAULT_BASELINES[game]) + where
    for game, where in (("trash", ""), ("help_your_neighbor", " for Help Your Neighbor"))
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
    game: Literal["trash", "help_your_neighbor"] = "trash"
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
    """run the n_envs games on the batched engine (TrashVecEnv): Trash only, opponents random/greedy/counter"""
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
    """a checkpoint or policy file to continue training from (in its run, if it belongs to one)"""
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
    args.opponents = args.opponents or list(DEFAULT_BASELINES[args.game])
    args.eval_baselines = args.eval_baselines or list(DEFAULT_BASELINES[args.game])


def make_env_factory(args: Args, opponents: list[Any]):
    rules = rules_fields(args)
    env_class = SINGLE_AGENT_ENVS[args.game]

    def make() -> Any:
        if args.subproc:  # in the worker process: Ctrl-C is for the main process, which stops the workers
            worker_signals()
        return env_class(args.preset, opponents=opponents, **rules)

    return make


def check_batched(args: Args) -> None:
    """--batched needs what the batched engine plays: Trash, vectorisable baselines (self-play snapshots are
    asked in batches between the engine's steps)."""
    if not args.batched:
        return
    from agents.evaluation.batched import VECTORISABLE

    if args.game != "trash":
        raise ValueError("--batched: the batched engine plays Trash only")
    if args.subproc:
        raise ValueError("--batched runs every game in one process; drop --subproc")
    if args.algo != "maskable_ppo":
        raise ValueError("--batched takes masked actions only: use --algo maskable_ppo")
    others = sorted(set(args.opponents) - set(VECTORISABLE))
    if others:
        raise ValueError(f"--batched: opponents {others} are not among the in-engine baselines {list(VECTORISABLE)}")


def make_vec_env_for(args: Args, opponents: list[Any]) -> Any:
    """SB3 vector envs over the single-agent env, or the batched engine's (--batched)."""
    if args.batched:
        from trash_env.trash.vec_env import TrashVecEnv

        # VecMonitor adds info["episode"], so SB3 logs rollout/ep_rew_mean and ep_len_mean as on the scalar path.
        return VecMonitor(
            TrashVecEnv(args.n_envs, args.preset, opponents=args.opponents, seed=args.seed, **rules_fields(args))
        )
    return make_vec_env(
        make_env_factory(args, opponents),
        n_envs=args.n_envs,
        seed=args.seed,
        vec_env_cls=SubprocVecEnv if args.subproc else DummyVecEnv,
    )


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
            path = save_policy(self.model, self.folder / f"step_{self.num_timesteps}.zip", self.config, self.preset)
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


def check_settings(args: Args) -> None:
    """A ValueError naming the flag of a setting out of its range."""
    if args.threads is not None:
        at_least("--threads", args.threads, 1)
    at_least("--total-timesteps", args.total_timesteps, 1)
    at_least("--n-envs", args.n_envs, 1)
    at_least("--seed", args.seed, 0)
    at_least("--n-steps", args.n_steps, 1)
    at_least("--batch-size", args.batch_size, 1 if args.algo in VALUE_BASED else 2)  # SB3's PPO needs 2
    at_least("--n-epochs", args.n_epochs, 1)
    at_least("--n-quantiles", args.n_quantiles, 1)
    at_least("--learning-starts", args.learning_starts, 0)
    at_least("--target-update-interval", args.target_update_interval, 1)
    if not args.learning_rate > 0:
        raise ValueError(f"--learning-rate must be above 0, got {args.learning_rate}")
    if not 0 < args.gamma <= 1:
        raise ValueError(f"--gamma must be in (0, 1], got {args.gamma}")
    at_least("--ent-coef", args.ent_coef, 0)
    for width in args.net_arch:
        at_least("--net-arch", width, 1)
    at_least("--eval-every", args.eval_every, 0)
    at_least("--eval-deals", args.eval_deals, 1)
    at_least("--final-eval-deals", args.final_eval_deals, 0)
    at_least("--eval-workers", args.eval_workers, 1)
    at_least("--checkpoint-every", args.checkpoint_every, 0)
    if args.self_play:
        at_least("--snapshot-every", args.snapshot_every, 1, " with --self-play")
        at_least("--pool-size", args.pool_size, 1, " with --self-play")


def default_run_name(args: Args) -> str:
    prefix = args.preset if args.game == "trash" else args.game
    return f"{prefix}_{args.num_players}p_{args.algo}_seed{args.seed}"


@dataclass
class Setup:
    """What :func:`prepare` checked and built: everything a run needs; nothing is written yet."""

    args: Args
    config: Any
    folder: RunFolder
    opponents: list[Any]
    resume_metadata: dict[str, Any] | None


def prepare(args: Args) -> Setup:
    """Check every setting, the rules, the agents and any file to resume, and choose the run
    folder; a ValueError naming the problem, before anything is written."""
    resolve_baselines(args)
    check_settings(args)
    check_batched(args)
    config = build_config(args)
    resume_metadata = None
    if args.resume is not None:
        resume_metadata = read_metadata(args.resume)
        check_compatible(resume_metadata, config, source=f"checkpoint {args.resume}")
        if resume_metadata["algorithm"] != ALGORITHMS[args.algo]:
            raise ValueError(
                f"{args.resume} was trained with {resume_metadata['algorithm']}, not {ALGORITHMS[args.algo]}"
            )
    folder = choose_run_folder(args.out_dir, args.run_name, default_run_name(args), args.overwrite, args.resume)
    opponents = [make_agent(spec, args.game) for spec in args.opponents]
    for agent in [*opponents, *(make_agent(spec, args.game) for spec in args.eval_baselines)]:
        agent.check_config(config)
    return Setup(args, config, folder, opponents, resume_metadata)


def resume_command(args: Args, folder: RunFolder, checkpoint: Path) -> str:
    """The command line that continues this run from ``checkpoint`` with the same settings (rules
    given from Python become ``--override`` flags)."""
    defaults = DEFAULT_BASELINES[args.game]
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


def reload_snapshots(run_dir: Path, timesteps: int, pool_size: int) -> list[Any]:
    """A resumed self-play run's pool: its newest snapshots up to the step it resumes from."""
    steps = sorted(
        int(path.stem.removeprefix("step_"))
        for path in (run_dir / "snapshots").glob("step_*.zip")
        if path.stem.removeprefix("step_").isdigit()
    )
    kept = [step for step in steps if step <= timesteps][-pool_size:]
    return [LearnedAgent.load(run_dir / "snapshots" / f"step_{step}.zip", name=f"snapshot_{step}") for step in kept]


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
        path = save_policy(training.model, training.run_dir / "snapshots" / f"step_{steps}.zip", config, args.preset)
        training.pool.append(LearnedAgent.load(path, name=f"snapshot_{steps}"))
    if training.pool:
        training.vec_env.env_method("set_opponents", snapshot_companions(training.setup) + training.pool)


def build(setup: Setup, run_dir: Path) -> Training:
    """A new run: its environments and a new model."""
    args = setup.args
    vec_env = make_vec_env_for(args, setup.opponents)
    model = make_model(args, vec_env, run_dir)
    training = Training(setup, run_dir, vec_env, model, history=[], pool=[] if args.self_play else None)
    start_pool(training)
    return training


def restore(setup: Setup, run_dir: Path) -> Training:
    """A run continued from ``--resume``: its environments, the model loaded with its timestep count,
    the learning curve and the self-play snapshots up to that count."""
    args = setup.args
    assert setup.resume_metadata is not None and args.resume is not None  # prepare read them
    vec_env = make_vec_env_for(args, setup.opponents)
    model = algorithms()[setup.resume_metadata["algorithm"]].load(
        str(args.resume),
        env=vec_env,
        device="cpu",
        tensorboard_log=str(run_dir / "tb") if args.tensorboard else None,
    )
    logger.info(f"resuming {args.resume} at {model.num_timesteps:,} timesteps")
    history: list[dict[str, Any]] = []
    previous = run_dir / "eval_history.json"
    if previous.is_file():  # a resumed run extends its learning curve
        history = [row for row in json.loads(previous.read_text())["history"] if row["timesteps"] < model.num_timesteps]
    pool = reload_snapshots(run_dir, model.num_timesteps, args.pool_size) if args.self_play else None
    training = Training(setup, run_dir, vec_env, model, history, pool)
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
        checkpoint = save_policy(
            model, run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip", config, args.preset, interrupted=True
        )
    elif (
        not stop.requested
        and (args.eval_every or args.final_eval_deals)
        and (not history or history[-1]["timesteps"] != model.num_timesteps)
    ):
        evaluation.evaluate()  # the final point of the learning curve (none when no evaluation is asked)
    policy_path = save_policy(
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


def run(setup: Setup, stop: GracefulStop, callbacks: Sequence[BaseCallback] = ()) -> TrainResult:
    """Train, save and evaluate as :func:`prepare` set up, step by step: the run folder and its
    settings, a new model (:func:`build`) or the one to resume (:func:`restore`), the callbacks,
    training, and :func:`finish`. ``stop`` is asked at every step."""
    args = setup.args
    set_threads(args.threads)
    run_dir = setup.folder.start(args)
    set_random_seed(args.seed)
    training = restore(setup, run_dir) if args.resume is not None else build(setup, run_dir)
    callback, evaluation = make_callbacks(training, stop, callbacks)
    train_seconds = learn(training, callback)
    return finish(training, stop, evaluation, train_seconds)


SAFE_POINT = "the next step"


def train(args: Args, stop: GracefulStop | None = None, callbacks: Sequence[BaseCallback] = ()) -> TrainResult:
    """Train and evaluate with ``args``, from Python: a ValueError for bad settings, raised before
    anything is written (:func:`prepare`). Ctrl-C or SIGTERM stops the run at the next step and it
    saves what it has (``result.interrupted``, ``result.exit_status``), through ``stop`` if given,
    else a :class:`~agents.processes.GracefulStop` of its own. ``callbacks`` (SB3 callbacks) run
    beside the run's own, such as the benchmark suite's evaluation points. Progress is logged
    (``logging``, logger ``agents.training.sb3``), not printed: the command shows the log (SB3's
    own progress bar, with ``progress_bar``, still draws itself on the terminal)."""
    return run_under_stop(run, prepare(args), stop, SAFE_POINT, callbacks)


def cli(argv: Sequence[str] | None = None) -> int:
    """The command line (``trash-train``): exit status 0, 2 for a bad argument (one line, nothing
    written), or 128 + the signal number when Ctrl-C or SIGTERM stopped the run."""
    return stoppable_command(program_name(COMMAND), Args, prepare, run, SAFE_POINT, argv, __doc__.splitlines()[0])
