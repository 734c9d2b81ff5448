"""Train a Trash (or Help Your Neighbor) agent with Stable-Baselines3 and evaluate it against the baselines.

Training as a library: :func:`train` takes the settings (:class:`Args`) and returns a
:class:`~agents.training.runs.TrainResult` (the run folder, the policy file and the policy as an
agent, the learning curve, the final evaluation); the benchmark suite (:mod:`agents.bench`) trains
its built-in algorithms with it. Its progress is logged (``logging``), not printed; the command
``trash-train`` (:mod:`agents.commands.train`, and ``python train.py``) parses the same settings
from the command line and shows the log and the final tables:

    python train.py                                   # MaskablePPO, standard, 2 players, small budget
    python train.py --game help_your_neighbor         # the dice variant (R12)
    python train.py --algo ppo --total-timesteps 300000
    python train.py --self-play --opponents greedy    # greedy plus frozen snapshots of the learner
    python train.py --preset pagat --num-players 3 --override layout_size=8 --override max_turns=300
    python train.py --resume runs/NAME/checkpoints/step_50000.zip --total-timesteps 300000
    python train.py --help

By job: the settings, their ranges and the memory they need (:mod:`.settings`), the environments and
the model (:mod:`.envs`), the callbacks (:mod:`.callbacks`: duplicate-deal evaluation, checkpoints,
self-play, stopping on a signal), reading a checkpoint to resume without unpickling it
(:mod:`.resume`), and here the preparation of a run (:func:`prepare`) and its steps (:func:`run`):
:func:`build` a new model or :func:`restore` one, :func:`make_callbacks`, :func:`learn`,
:func:`finish` (the policy, the learning curve, the final evaluation). The command line is
:mod:`agents.commands.train`.
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

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.utils import set_random_seed

from agents.evaluation.summary import write_json
from agents.learned import (
    LearnedAgent,
    check_compatible,
    policy_metadata,
    read_metadata,
)
from agents.processes import GracefulStop, set_threads
from agents.registry import make_agent
from agents.training.runs import (
    RunFolder,
    TrainResult,
    choose_run_folder,
    evaluate_at_end,
    run_under_stop,
)
from agents.training.sb3.callbacks import DuplicateEvalCallback, PolicyCheckpoint, StopOnSignal, plot_learning_curve
from agents.training.sb3.envs import WrapEnv, batched_vec_env, check_batched, make_model, make_vec_env_for
from agents.training.sb3.resume import Resume, continue_from, read_resume, resume_command, save_checkpoint
from agents.training.sb3.settings import (
    ALGORITHMS,
    COMMAND,
    VALUE_BASED,
    Args,
    build_config,
    check_memory,
    check_settings,
    default_run_name,
    memory_needed,
    resolve_baselines,
)

logger = logging.getLogger(__name__)

__all__ = [  # the training library's surface; the parts are in the modules named in the docstring
    "ALGORITHMS",
    "COMMAND",
    "SAFE_POINT",
    "VALUE_BASED",
    "Args",
    "PolicyCheckpoint",
    "Setup",
    "Training",
    "WrapEnv",
    "batched_vec_env",
    "build",
    "build_config",
    "check_batched",
    "finish",
    "learn",
    "make_callbacks",
    "make_model",
    "make_vec_env_for",
    "memory_needed",
    "prepare",
    "resolve_baselines",
    "restore",
    "resume_command",
    "run",
    "train",
]


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
    if args.trainer == "fast":
        from agents.training.fast_ppo import run_fast

        return run_fast(setup, stop, run_dir)
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
