"""Train on `trash_v0` with Ray RLlib, as a multi-agent problem, and evaluate against the baselines.

Training as a library, as :mod:`agents.training.sb3`: :func:`train` takes the settings
(:class:`Args`) and returns a :class:`~agents.training.runs.TrainResult`, logging its progress
(``logging``) rather than printing it; the command ``trash-train-rllib``
(:mod:`agents.commands.train_rllib`, and ``python train_rllib.py``) parses the settings from the
command line and shows the log and the final tables.

    python train_rllib.py                                    # local Ray, self-play, small budget
    python train_rllib.py --opponents random greedy          # one learner seat against baseline seats
    python train_rllib.py --num-env-runners 8 --address auto # an existing cluster (or set RAY_ADDRESS)
    python train_rllib.py --preset pagat --num-players 3 --override layout_size=8
    python train_rllib.py --help

PPO on RLlib's new API stack. The environment is RLlib's PettingZoo wrapper
around ``trash_v0`` (:class:`trash_env.trash.rllib_env.TrashRLlibEnv`); every exposed
seat maps to one shared policy ("shared"): in self-play all seats, against
``--opponents`` one learner seat per episode while the baselines play the
others inside the environment. The policy is RLlib's action-masking RLModule
(``ActionMaskingTorchRLModule``, from RLlib's own example): it adds log(mask)
to the logits, so no illegal action is ever sampled.

Everything goes to ``runs/NAME/``: ``policy/`` (the exported RLModule with
``trash_rl.json``, an agent spec for ``trash-evaluate`` and
``trash-play``), ``checkpoints/iteration_N/`` (RLlib's checkpoint of
the whole algorithm, for ``--resume``), ``progress.json`` (per iteration) and
``final_eval.json`` (duplicate deals against the baselines).

As ``train.py``: bad settings are refused before Ray starts (a ValueError; on the command
line one line, exit status 2); an existing run is never overwritten silently (:mod:`agents.training.runs`);
Ctrl-C or SIGTERM stops after the current iteration, saves a checkpoint and
the policy so far, writes the progress, logs the command that resumes the
run and exits with 128 + the signal number; a second Ctrl-C exits at once.

Needs the ``rllib`` extra (``pip install 'trash-rl[rllib]'``).
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from agents.arguments import (
    at_least,
    command_line,
    override_words,
    program_name,
    program_words,
    rules_config,
    rules_fields,
    shell_command,
)
from agents.evaluation.summary import write_json
from agents.processes import GracefulStop, set_threads
from agents.registry import default_baselines
from agents.rllib_policy import RLlibAgent, export_policy
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

logger = logging.getLogger(__name__)

COMMAND = "train_rllib.py"
GAME = "trash"  # RLlib trains on trash_v0 (trash_env.trash.rllib_env)
RUN_NAME_TEXT = "preset, players, mode and seed; _2, _3 ... if that folder holds a run"  # default_run_name


@dataclass
class Args:
    """RLlib training settings; every field is a command-line flag but ``rules``."""

    run_name: Annotated[str, shown_default(RUN_NAME_TEXT)] = ""
    """name of the run folder under --out-dir"""
    out_dir: Path = Path("runs")
    """where runs are written"""
    overwrite: bool = False
    """replace the run already in the run folder (otherwise an explicit --run-name that holds a run is refused)"""
    preset: str = "standard"
    """rules preset (R11)"""
    num_players: int = 2
    """players at the table"""
    overrides: Overrides = field(default_factory=list)
    """a rules field on top of the preset (VALUE read as JSON where it parses: 8, true, null)"""
    rules: Rules = field(default_factory=dict)
    """rules fields given from Python, under any --override; not a flag"""
    opponents: Annotated[list[str], shown_default("self-play, every seat learns")] = field(default_factory=list)
    """baselines for the other seats (one learner seat per episode)"""
    iterations: int = 10
    """PPO training iterations, in all (a resumed run continues its count)"""
    checkpoint_every: int = 5
    """iterations between checkpoints of the whole algorithm (0: only when stopped by a signal)"""
    resume: Annotated[Path | None, shown_default("a new run", metavar="FOLDER")] = None
    """a checkpoint folder (runs/NAME/checkpoints/iteration_N) to continue training from"""
    batch_size: int = 4000
    """environment steps (learner decisions) per iteration"""
    minibatch_size: int = 500
    """SGD minibatch size"""
    epochs: int = 4
    """passes over each batch"""
    learning_rate: float = 3e-4
    """optimizer step size"""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of the policy and value networks"""
    num_env_runners: int = 0
    """RLlib EnvRunner actors sampling in parallel (0: sample in the driver)"""
    address: Annotated[str | None, shown_default("RAY_ADDRESS if set, else a new local Ray instance")] = None
    """Ray cluster address"""
    seed: int = 0
    """seeds the environments, the model and the evaluation"""
    threads: Annotated[int | None, shown_default("OMP_NUM_THREADS when set, else 1", metavar="N")] = None
    """threads for torch, OpenMP and Numba; the small networks here train fastest on one"""
    eval_baselines: list[str] = field(default_factory=lambda: list(default_baselines(GAME)))
    """baselines the exported policy is evaluated against"""
    final_eval_deals: int = 2000
    """duplicate deals per baseline in the final evaluation (0: none)"""
    final_eval_on_interrupt: bool = False
    """run the final evaluation also when Ctrl-C or SIGTERM stops the run"""
    eval_workers: int = 2
    """processes for the final evaluation"""


def model_config(args: Args) -> dict[str, Any]:
    """The RLModule's network: the same hidden layers for the encoder and the heads."""
    return {"head_fcnet_hiddens": args.hidden, "fcnet_hiddens": args.hidden}


def build_algorithm(args: Args) -> Any:
    """The PPO algorithm: environment, one shared action-masking policy, sampling and training settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from agents.registry import make_agent
    from trash_env.trash.rllib_env import TrashRLlibEnv

    env_config = {
        "preset": args.preset,
        "opponents": [make_agent(spec) for spec in args.opponents],
        "seed": args.seed,
        **rules_fields(GAME, args.num_players, overrides=args.overrides, rules=args.rules),
    }
    config = (
        PPOConfig()
        .environment(TrashRLlibEnv, env_config=env_config, disable_env_checking=True)  # its checker ignores masks
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *_, **__: "shared")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config(args))
                }
            )
        )
        .env_runners(num_env_runners=args.num_env_runners)
        .training(
            train_batch_size_per_learner=args.batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.epochs,
            lr=args.learning_rate,
            gamma=0.995,
        )
        .debugging(seed=args.seed)
    )
    return config.build_algo()


def check_settings(args: Args) -> None:
    """A ValueError naming the flag of a setting out of its range."""
    if args.threads is not None:
        at_least("--threads", args.threads, 1)
    at_least("--iterations", args.iterations, 1)
    at_least("--checkpoint-every", args.checkpoint_every, 0)
    at_least("--batch-size", args.batch_size, 1)
    at_least("--minibatch-size", args.minibatch_size, 1)
    if args.minibatch_size > args.batch_size:
        raise ValueError(f"--minibatch-size {args.minibatch_size} is larger than --batch-size {args.batch_size}")
    at_least("--epochs", args.epochs, 1)
    if not args.learning_rate > 0:
        raise ValueError(f"--learning-rate must be above 0, got {args.learning_rate}")
    for width in args.hidden:
        at_least("--hidden", width, 1)
    at_least("--num-env-runners", args.num_env_runners, 0)
    at_least("--seed", args.seed, 0)
    at_least("--final-eval-deals", args.final_eval_deals, 0)
    at_least("--eval-workers", args.eval_workers, 1)


def default_run_name(args: Args) -> str:
    mode = "vs_" + "_".join(args.opponents) if args.opponents else "selfplay"
    return f"rllib_{args.preset}_{args.num_players}p_{mode}_seed{args.seed}"


@dataclass
class Setup:
    """What :func:`prepare` checked: everything a run needs; nothing is written and Ray is not started."""

    args: Args
    config: Any
    folder: RunFolder
    resumed: list[dict[str, Any]]  # the progress rows of the run being resumed, up to its checkpoint


def checkpoint_iteration(path: Path) -> int:
    """The iteration of a checkpoint folder written by this script (``iteration_N``)."""
    number = path.name.removeprefix("iteration_")
    if not path.is_dir() or not number.isdigit() or not (path / "algorithm_state.pkl").exists():
        raise ValueError(
            f"--resume {str(path)!r} is not a checkpoint folder written by {program_name(COMMAND)} (iteration_N)"
        )
    return int(number)


def prepare(args: Args) -> Setup:
    """Check every setting, the rules, the agents and any checkpoint to resume, and choose the run
    folder; a ValueError naming the problem, before anything is written or Ray starts."""
    check_settings(args)
    config = rules_config(GAME, args.preset, args.num_players, overrides=args.overrides, rules=args.rules)
    from agents.registry import make_agent

    for spec in args.opponents + args.eval_baselines:
        make_agent(spec).check_config(config)
    folder = choose_run_folder(args.out_dir, args.run_name, default_run_name(args), args.overwrite, args.resume)
    resumed: list[dict[str, Any]] = []
    if args.resume is not None:
        done = checkpoint_iteration(args.resume)
        progress = folder.path / "progress.json"
        if progress.is_file():
            resumed = [row for row in json.loads(progress.read_text())["progress"] if row["iteration"] <= done]
    return Setup(args, config, folder, resumed)


def resume_command(args: Args, folder: RunFolder, checkpoint: Path) -> str:
    """The command line that continues this run from ``checkpoint`` with the same settings (rules
    given from Python become ``--override`` flags)."""
    settings = replace(
        args,
        resume=checkpoint,
        run_name=folder.name,
        overwrite=False,
        rules={},
        overrides=[*override_words(args.rules), *args.overrides],
    )
    return shell_command([*program_words(COMMAND), *command_line(settings)])


def save_checkpoint(algorithm: Any, run_dir: Path, iteration: int) -> Path:
    """RLlib's checkpoint of the whole algorithm (modules, optimizers, counters), written atomically."""
    from trash_env.files import atomic_folder

    path = run_dir / "checkpoints" / f"iteration_{iteration}"
    with atomic_folder(path) as partial:
        algorithm.save_to_path(str(partial.resolve()))
    return path


def start_ray(args: Args) -> None:
    """Join the cluster of --address (or RAY_ADDRESS), else start a local Ray instance."""
    import ray

    address = args.address or os.environ.get("RAY_ADDRESS")
    ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    cpus = ray.cluster_resources().get("CPU", 0)
    logger.info(f"Ray: {'cluster ' + address if address else 'local instance'}, {cpus:.0f} CPUs")


def iterate(
    algorithm: Any, setup: Setup, run_dir: Path, stop: GracefulStop, first: int, progress: list[dict[str, Any]]
) -> tuple[int, Path | None]:
    """PPO iterations from ``first`` up to --iterations, each logged and added to ``progress``
    (``progress.json``), with a checkpoint every --checkpoint-every and where a signal stops them
    (after the iteration under way); the last iteration done and the last checkpoint."""
    args = setup.args
    start = time.perf_counter()
    checkpoint = None
    iteration = first - 1
    for iteration in range(first, args.iterations + 1):
        result = algorithm.train()
        runners = result.get("env_runners", {})
        row = {
            "iteration": iteration,
            "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
            "episode_return_mean": runners.get("episode_return_mean"),
            "seconds": round(time.perf_counter() - start, 1),
        }
        progress.append(row)
        logger.info(
            f"[iteration {iteration}/{args.iterations}] env steps {row['env_steps']:,}, "
            f"mean episode return {row['episode_return_mean']}, {row['seconds']} s"
        )
        write_json(run_dir / "progress.json", {"progress": progress})
        periodic = args.checkpoint_every and iteration % args.checkpoint_every == 0
        if stop.requested or periodic:
            checkpoint = save_checkpoint(algorithm, run_dir, iteration)
        if stop.requested:
            break
    return iteration, checkpoint


def run(setup: Setup, stop: GracefulStop) -> TrainResult:
    """Train, export and evaluate as :func:`prepare` set up: the run folder and its settings, Ray, the
    algorithm (restored from --resume), the iterations, the exported policy, the final evaluation.
    ``stop`` is asked after every iteration."""
    args, config = setup.args, setup.config
    set_threads(args.threads)
    run_dir = setup.folder.start(args)

    import ray

    start_ray(args)
    algorithm = build_algorithm(args)
    progress = list(setup.resumed)
    first = 1
    if args.resume is not None:
        algorithm.restore_from_path(str(args.resume.resolve()))
        first = checkpoint_iteration(args.resume) + 1
        logger.info(f"resuming {args.resume} after iteration {first - 1}")
    start = time.perf_counter()
    try:
        iteration, checkpoint = iterate(algorithm, setup, run_dir, stop, first, progress)
        train_seconds = time.perf_counter() - start
        interrupted = iteration < args.iterations
        policy_dir = export_policy(
            algorithm.get_module("shared"),
            run_dir / "policy",
            config,
            args.preset,
            iterations=iteration,
            env_steps=progress[-1]["env_steps"] if progress else 0,
            train_seconds=round(train_seconds, 1),
            interrupted=interrupted,
        )
    finally:
        algorithm.stop()
        ray.shutdown()
    write_json(run_dir / "progress.json", {"progress": progress})
    logger.info(f"trained {iteration} iterations in {train_seconds:.0f} s; policy exported to {policy_dir}")
    if interrupted:
        logger.info(f"stopped by {stop.signal_name} after iteration {iteration} of {args.iterations}")
        assert checkpoint is not None  # iterate saves one where a signal stops it
        command = resume_command(args, setup.folder, checkpoint)
        logger.info(f"checkpoint saved to {checkpoint}. To resume the run:\n  {command}")
    evaluate = f"trash-evaluate {policy_dir} {' '.join(args.eval_baselines)}"
    summary = evaluate_at_end(
        config,
        policy_dir,
        args,
        stop,
        run_dir,
        skipped=f"final evaluation skipped (--final-eval-on-interrupt runs it); evaluate the policy with: {evaluate}",
        exiting=f"The policy is exported to {policy_dir}.",
    )
    return TrainResult(
        run_dir=run_dir,
        policy=policy_dir,
        agent=RLlibAgent.load(policy_dir),
        timesteps=progress[-1]["env_steps"] if progress else 0,
        history=progress,
        summary=summary,
        interrupted=interrupted,
        exit_status=stop.exit_code,
        checkpoint=checkpoint if interrupted else None,
    )


SAFE_POINT = "the end of this iteration"


def train(args: Args, stop: GracefulStop | None = None) -> TrainResult:
    """Train and evaluate with ``args``, from Python: a ValueError for bad settings, raised before
    anything is written or Ray starts (:func:`prepare`). Ctrl-C or SIGTERM stops the run after the
    iteration under way and it saves what it has (``result.interrupted``, ``result.exit_status``),
    through ``stop`` if given, else a :class:`~agents.processes.GracefulStop` of its own. Progress
    is logged (logger ``agents.training.rllib``), not printed: the command shows the log."""
    return run_under_stop(run, prepare(args), stop, SAFE_POINT)
