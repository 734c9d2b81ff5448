"""Train a Trash (or Help Your Neighbor) agent with Stable-Baselines3 and evaluate it against the baselines.

This is ``train.py``'s machinery (the script at the repository root runs :func:`cli`); the benchmark
suite (:mod:`agents.bench`) trains its built-in algorithms with it.

    python train.py                                   # MaskablePPO, standard, 2 players, small budget
    python train.py --game help_your_neighbor         # the dice variant (R12)
    python train.py --algo ppo --total-timesteps 300000
    python train.py --self-play --opponents greedy    # greedy plus frozen snapshots of the learner
    python train.py --resume runs/NAME/checkpoints/step_50000.zip --total-timesteps 300000
    python train.py --help

Reads top to bottom: arguments and their checks, seeding, environments, the
model, callbacks (duplicate-deal evaluation, checkpoints, self-play, stopping on
a signal), training, the final evaluation table and the learning curve.
Everything a run writes goes to ``runs/NAME/``: ``policy.zip`` (the trained
policy, with its configuration), ``checkpoints/``, ``tb/`` (TensorBoard),
``eval_history.json``, ``final_eval.json`` and ``learning_curve.png``.

Work is never lost: a bad argument is refused (one line, exit status 2) before
anything is written; an existing run is never overwritten silently
(:mod:`agents.training.runs`); Ctrl-C or SIGTERM stops at the next step, saves a
checkpoint and the policy so far, writes the history and learning curve, prints
the command that resumes the run and exits with 128 + the signal number (130
for Ctrl-C); a second Ctrl-C exits at once. Every file is written atomically.

Needs the ``train`` and ``eval`` extras (``pip install -e '.[train,eval]'``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from agents.arguments import at_least, command_line, parse_overrides, python_command, shell_command, stoppable_command
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.report import final_evaluation, write_json
from agents.evaluation.stats import pair_summaries
from agents.learned import LearnedAgent, algorithms, check_compatible, policy_metadata, read_metadata, save_policy
from agents.processes import GracefulStop, run_stoppable, worker_signals
from agents.registry import make_agent
from agents.training.runs import RunFolder, choose_run_folder
from trash_env.files import atomic_path
from trash_env.games import get_game
from trash_env.single_agent import NeighborSingleAgentEnv, TrashSingleAgentEnv

PROG = "train.py"

ALGORITHMS = {"maskable_ppo": "MaskablePPO", "ppo": "PPO", "a2c": "A2C", "dqn": "DQN", "qrdqn": "QRDQN"}
VALUE_BASED = ("dqn", "qrdqn")  # a replay buffer and a Q-network (no n_steps, no entropy bonus)
SINGLE_AGENT_ENVS = {"trash": TrashSingleAgentEnv, "help_your_neighbor": NeighborSingleAgentEnv}
# Per game: random plus the best heuristic baseline, as opponents and as the evaluation's yardsticks.
DEFAULT_BASELINES = {"trash": ["random", "greedy"], "help_your_neighbor": ["random", "heuristic"]}


@dataclass
class Args:
    """Training settings; every field is a command-line flag (``--total-timesteps`` ...)."""

    run_name: str = ""
    """name of the run folder under out_dir (default: preset, players, algorithm, seed; a fresh _2, _3 ... if
    that folder already holds a run)"""
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
    overrides: list[str] = field(default_factory=list)
    """more rules fields as FIELD=VALUE"""
    algo: Literal["maskable_ppo", "ppo", "a2c", "dqn", "qrdqn"] = "maskable_ppo"
    """MaskablePPO uses action masks; PPO, A2C, DQN and QR-DQN (sb3-contrib) do not, and an illegal action ends
    the episode with -1"""
    total_timesteps: int = 150_000
    """learner decisions to train for, in all (a resumed run continues its count)"""
    n_envs: int = 4
    """parallel environments"""
    subproc: bool = False
    """run the environments in subprocesses (SubprocVecEnv) instead of in this process"""
    batched: bool = False
    """run the n_envs games on the batched engine (trash_env.trash.vec_env.TrashVecEnv): Trash only, opponents among
    random/greedy/counter, no self-play"""
    seed: int = 0
    """seeds the environments, the model and every evaluation"""
    opponents: list[str] = field(default_factory=list)
    """baseline opponents; each opponent seat draws one per episode (default: random and greedy; random and
    heuristic for Help Your Neighbor)"""
    self_play: bool = False
    """add frozen snapshots of the learner to the opponent pool"""
    self_play_only: bool = False
    """train against the learner's own snapshots only (the first is the untrained policy); implies --self-play"""
    snapshot_every: int = 50_000
    """timesteps between self-play snapshots"""
    pool_size: int = 4
    """self-play snapshots kept in the pool (newest)"""
    learning_rate: float = 3e-4
    """optimizer step size"""
    n_steps: int = 512
    """PPO: steps per environment per update"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 10
    """PPO: passes over each rollout per update"""
    gamma: float = 0.995
    """discount; the only reward comes at the end of the hand"""
    ent_coef: float = 0.01
    """PPO: entropy bonus"""
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of the policy (and value) network"""
    n_quantiles: int = 25
    """QR-DQN: quantiles of the return per action (sb3-contrib's 200 trained about 40x slower on CPU)"""
    eval_every: int = 25_000
    """timesteps between evaluations against the baselines (0: none)"""
    eval_deals: int = 300
    """duplicate deals per baseline at each periodic evaluation"""
    eval_baselines: list[str] = field(default_factory=list)
    """baselines the policy is evaluated against (default: random and greedy; random and heuristic for Help
    Your Neighbor)"""
    final_eval_deals: int = 2000
    """duplicate deals per baseline in the final evaluation (0: none)"""
    final_eval_on_interrupt: bool = False
    """run the final evaluation also when the run is stopped by Ctrl-C or SIGTERM (default: skip it)"""
    eval_workers: int = 2
    """processes for the final evaluation"""
    checkpoint_every: int = 50_000
    """timesteps between checkpoints (0: none)"""
    resume: Path | None = None
    """a checkpoint or policy file to continue training from (its run, if it belongs to one)"""
    progress_bar: bool = True
    """SB3's progress bar"""
    tensorboard: bool = True
    """write TensorBoard logs to runs/NAME/tb"""


def rules_fields(args: Args) -> dict[str, Any]:
    """--num-players and --match, then any --overrides on top (the same for config and envs)."""
    fields = {"num_players": args.num_players, **parse_overrides(args.overrides)}
    if args.game == "trash":
        fields["match"] = args.match
    elif args.match:
        raise ValueError("--match: Help Your Neighbor has no matches of hands (R12)")
    return fields


def build_config(args: Args) -> Any:
    return get_game(args.game).make_config(args.preset, **rules_fields(args))


def resolve_baselines(args: Args) -> None:
    """Fill in the game's default opponents and evaluation baselines (with --self-play-only the
    opponents are a placeholder, ``random``, replaced by the first snapshot before training)."""
    if args.self_play_only:
        if args.opponents:
            raise ValueError("--self-play-only trains against snapshots only: drop --opponents")
        args.self_play = True
        args.opponents = ["random"]
    args.opponents = args.opponents or DEFAULT_BASELINES[args.game]
    args.eval_baselines = args.eval_baselines or DEFAULT_BASELINES[args.game]


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
            learning_starts=2_000,
            batch_size=args.batch_size,
            exploration_fraction=0.3,
            target_update_interval=2_000,
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
    deals; the score difference and its 95% interval go to TensorBoard and stdout."""

    def __init__(
        self,
        config: Any,
        metadata: dict[str, Any],
        baselines: list[str],
        deals: int,
        every: int,
        seed: int,
        history: list[dict[str, Any]],
    ) -> None:
        super().__init__()
        self.config, self.metadata, self.baselines = config, metadata, baselines
        self.deals, self.every, self.seed, self.history = deals, every, seed, history
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = on_grid(self.num_timesteps, self.every)  # a resumed run keeps its spacing
        if self.every and self.num_timesteps == 0:
            self.evaluate()  # the untrained policy: the start of the learning curve

    def _on_step(self) -> bool:
        if self.every and self.num_timesteps - self.last >= self.every:
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
        print(f"[eval @ {self.model.num_timesteps:,} steps, {self.deals} duplicate deals] {scores}", flush=True)


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
    at_least("--total-timesteps", args.total_timesteps, 1)
    at_least("--n-envs", args.n_envs, 1)
    at_least("--seed", args.seed, 0)
    at_least("--n-steps", args.n_steps, 1)
    at_least("--batch-size", args.batch_size, 1 if args.algo in VALUE_BASED else 2)  # SB3's PPO needs 2
    at_least("--n-epochs", args.n_epochs, 1)
    at_least("--n-quantiles", args.n_quantiles, 1)
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
    """The command line that continues this run from ``checkpoint`` with the same settings."""
    defaults = DEFAULT_BASELINES[args.game]
    settings = replace(
        args,
        resume=checkpoint,
        run_name=folder.name,
        overwrite=False,
        opponents=[] if args.opponents == defaults else args.opponents,  # what resolve_baselines filled in
        eval_baselines=[] if args.eval_baselines == defaults else args.eval_baselines,
    )
    return shell_command([python_command(), PROG, *command_line(settings)])


def reload_snapshots(run_dir: Path, timesteps: int, pool_size: int) -> list[Any]:
    """A resumed self-play run's pool: its newest snapshots up to the step it resumes from."""
    steps = sorted(
        int(path.stem.removeprefix("step_"))
        for path in (run_dir / "snapshots").glob("step_*.zip")
        if path.stem.removeprefix("step_").isdigit()
    )
    kept = [step for step in steps if step <= timesteps][-pool_size:]
    return [LearnedAgent.load(run_dir / "snapshots" / f"step_{step}.zip", name=f"snapshot_{step}") for step in kept]


def train(setup: Setup, stop: GracefulStop, extra_callbacks: Sequence[Any] = ()) -> dict[str, Any]:
    """Train, save and evaluate as :func:`prepare` set up; a signal stops it at the next step.
    ``extra_callbacks`` (SB3 callbacks) run beside train.py's own (the suite's evaluation points)."""
    args, config = setup.args, setup.config
    if setup.folder.note:
        print(setup.folder.note)
    run_dir = setup.folder.claim()
    write_json(run_dir / "args.json", json.loads(json.dumps(asdict(args), default=str)))
    set_random_seed(args.seed)

    # Opponents: baselines by name, plus self-play snapshots as training goes.
    base_opponents = setup.opponents
    vec_env = make_vec_env_for(args, base_opponents)
    # What set_opponents takes with the snapshots: the batched engine's baselines by name, agents otherwise;
    # with --self-play-only nothing (the placeholder the envs were made with goes at the first snapshot).
    env_opponents = [] if args.self_play_only else list(args.opponents if args.batched else base_opponents)

    if setup.resume_metadata is not None:
        model = algorithms()[setup.resume_metadata["algorithm"]].load(
            str(args.resume),
            env=vec_env,
            device="cpu",
            tensorboard_log=str(run_dir / "tb") if args.tensorboard else None,
        )
        print(f"resuming {args.resume} at {model.num_timesteps:,} timesteps")
    else:
        model = make_model(args, vec_env, run_dir)

    history: list[dict[str, Any]] = []
    previous = run_dir / "eval_history.json"
    if args.resume is not None and previous.is_file():  # a resumed run extends its learning curve
        history += [
            row for row in json.loads(previous.read_text())["history"] if row["timesteps"] < model.num_timesteps
        ]
    pool: list[Any] | None = None
    if args.self_play:
        pool = reload_snapshots(run_dir, model.num_timesteps, args.pool_size) if args.resume is not None else []
        if args.self_play_only and not pool:  # the untrained policy is the first opponent
            path = save_policy(model, run_dir / "snapshots" / f"step_{model.num_timesteps}.zip", config, args.preset)
            pool = [LearnedAgent.load(path, name=f"snapshot_{model.num_timesteps}")]
        if pool:
            vec_env.env_method("set_opponents", env_opponents + pool)
    metadata = policy_metadata(model, config, args.preset)
    evaluation = DuplicateEvalCallback(
        config, metadata, args.eval_baselines, args.eval_deals, args.eval_every, args.seed, history
    )
    callbacks = [
        StopOnSignal(stop),
        *extra_callbacks,
        evaluation,
        PolicyCheckpoint(run_dir / "checkpoints", args.checkpoint_every, config, args.preset),
    ]
    if args.self_play:
        callbacks.append(
            PolicyCheckpoint(
                run_dir / "snapshots", args.snapshot_every, config, args.preset, pool, env_opponents, args.pool_size
            )
        )

    remaining = args.total_timesteps - model.num_timesteps
    callback = CallbackList(callbacks)
    if remaining <= 0:  # nothing left to train: the final evaluation still needs a set-up callback
        model.set_logger(configure_logger(None, []))
        callback.init_callback(model)
    start = time.perf_counter()
    if remaining > 0:
        model.learn(
            remaining,
            callback=callback,
            progress_bar=args.progress_bar,
            reset_num_timesteps=args.resume is None,
            tb_log_name=args.algo,
        )
    train_seconds = time.perf_counter() - start
    vec_env.close()
    interrupted = stop.requested and model.num_timesteps < args.total_timesteps
    checkpoint = None
    if interrupted:  # a resumable checkpoint where training stopped
        checkpoint = save_policy(
            model, run_dir / "checkpoints" / f"step_{model.num_timesteps}.zip", config, args.preset, interrupted=True
        )
    elif not stop.requested and (args.eval_every or args.final_eval_deals) and (
        not history or history[-1]["timesteps"] != model.num_timesteps
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
    print(f"trained {model.num_timesteps:,} timesteps in {train_seconds:.0f} s; policy saved to {policy_path}")
    result = {
        "policy": policy_path,
        "agent": LearnedAgent(model.policy, policy_metadata(model, config, args.preset), path=str(policy_path)),
        "summary": None,
        "history": history,
        "timesteps": model.num_timesteps,
        "run_dir": run_dir,
        "interrupted": interrupted,
        "exit_code": stop.exit_code,
    }
    if interrupted:
        what, command = "resume the run", resume_command(args, setup.folder, checkpoint)
        print(f"stopped by {stop.signal_name} at {model.num_timesteps:,} of {args.total_timesteps:,} timesteps")
        print(f"checkpoint saved to {checkpoint}")
    else:
        what, command = "run the final evaluation", resume_command(args, setup.folder, policy_path)
    later = f"To {what}:\n  {command}"
    if args.final_eval_deals == 0 or (stop.requested and not args.final_eval_on_interrupt):
        if stop.requested:
            print(f"final evaluation skipped (--final-eval-on-interrupt runs it). {later}", flush=True)
        return result
    if interrupted:
        print(later, flush=True)

    # Final evaluation: the saved policy, as any user would load it, against every baseline.
    with stop.at_once(f"The policy is saved to {policy_path}. {later}"):
        result["summary"] = final_evaluation(
            config,
            str(policy_path),
            args.eval_baselines,
            args.final_eval_deals,
            args.seed,
            args.eval_workers,
            run_dir / "final_eval.json",
        )
    return result


SAFE_POINT = "the next step"


def main(args: Args, extra_callbacks: Sequence[Any] = ()) -> dict[str, Any]:
    """Train and evaluate with ``args`` (from Python); a ValueError for bad settings, raised before
    anything is written. The result says whether a signal stopped the run (``exit_code``) and holds
    the trained policy as an agent (``agent``)."""
    return run_stoppable(args, prepare, lambda setup, stop: train(setup, stop, extra_callbacks), SAFE_POINT)


def cli(argv: Sequence[str] | None = None) -> int:
    """The command line: exit status 0, 2 for a bad argument (one line, nothing written), or
    128 + the signal number when Ctrl-C or SIGTERM stopped the run."""
    return stoppable_command(PROG, Args, prepare, train, SAFE_POINT, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(cli())
