"""Train on `trash_v0` with Ray RLlib, as a multi-agent problem, and evaluate against the baselines.

    python train_rllib.py                                    # local Ray, self-play, small budget
    python train_rllib.py --opponents random greedy          # one learner seat against baseline seats
    python train_rllib.py --num-env-runners 8 --address auto # an existing cluster (or set RAY_ADDRESS)
    python train_rllib.py --help

PPO on RLlib's new API stack. The environment is RLlib's PettingZoo wrapper
around ``trash_v0`` (:class:`trash_env.rllib_env.TrashRLlibEnv`); every exposed
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

As ``train.py``: a bad argument is refused before Ray starts (one line, exit
status 2); an existing run is never overwritten silently (:mod:`agents.training.runs`);
Ctrl-C or SIGTERM stops after the current iteration, saves a checkpoint and
the policy so far, writes the progress, prints the command that resumes the
run and exits with 128 + the signal number; a second Ctrl-C exits at once.

Needs the ``rllib`` extra (``pip install -e '.[rllib]'``).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from agents.arguments import at_least, command_line, parse_overrides, python_command, shell_command, stoppable_command
from agents.evaluation.report import final_evaluation, write_json
from agents.processes import GracefulStop, run_stoppable
from agents.rllib_policy import export_policy
from agents.training.runs import RunFolder, choose_run_folder
from trash_env.trash.config import make_config

PROG = "train_rllib.py"


@dataclass
class Args:
    """RLlib training settings; every field is a command-line flag."""

    run_name: str = ""
    """name of the run folder under out_dir (default: preset, players, mode, seed; a fresh _2, _3 ... if that
    folder already holds a run)"""
    out_dir: Path = Path("runs")
    """where runs are written"""
    overwrite: bool = False
    """replace the run already in the run folder (otherwise an explicit --run-name that holds a run is refused)"""
    preset: str = "standard"
    """rules preset (R11)"""
    num_players: int = 2
    """players at the table"""
    overrides: list[str] = field(default_factory=list)
    """more rules fields as FIELD=VALUE"""
    opponents: list[str] = field(default_factory=list)
    """baselines for the other seats (one learner seat per episode); empty: self-play, every seat learns"""
    iterations: int = 10
    """PPO training iterations, in all (a resumed run continues its count)"""
    checkpoint_every: int = 5
    """iterations between checkpoints of the whole algorithm (0: only when stopped by a signal)"""
    resume: Path | None = None
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
    address: str | None = None
    """Ray cluster address (default: RAY_ADDRESS if set, else a new local Ray instance)"""
    seed: int = 0
    """seeds the environments, the model and the evaluation"""
    eval_baselines: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """baselines the exported policy is evaluated against"""
    final_eval_deals: int = 2000
    """duplicate deals per baseline in the final evaluation (0: none)"""
    final_eval_on_interrupt: bool = False
    """run the final evaluation also when the run is stopped by Ctrl-C or SIGTERM (default: skip it)"""
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
    from trash_env.rllib_env import TrashRLlibEnv

    env_config = {
        "preset": args.preset,
        "num_players": args.num_players,
        "opponents": [make_agent(spec) for spec in args.opponents],
        "seed": args.seed,
        **parse_overrides(args.overrides),
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
        raise ValueError(f"--resume {str(path)!r} is not a checkpoint folder written by {PROG} (iteration_N)")
    return int(number)


def prepare(args: Args) -> Setup:
    """Check every setting, the rules, the agents and any checkpoint to resume, and choose the run
    folder; a ValueError naming the problem, before anything is written or Ray starts."""
    check_settings(args)
    rules = {"num_players": args.num_players, **parse_overrides(args.overrides)}
    config = make_config(args.preset, **rules)
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
    settings = replace(args, resume=checkpoint, run_name=folder.name, overwrite=False)
    return shell_command([python_command(), PROG, *command_line(settings)])


def save_checkpoint(algorithm: Any, run_dir: Path, iteration: int) -> Path:
    """RLlib's checkpoint of the whole algorithm (modules, optimizers, counters), written atomically."""
    from trash_env.files import atomic_folder

    path = run_dir / "checkpoints" / f"iteration_{iteration}"
    with atomic_folder(path) as partial:
        algorithm.save_to_path(str(partial.resolve()))
    return path


def train(setup: Setup, stop: GracefulStop) -> dict[str, Any]:
    """Train, export and evaluate as :func:`prepare` set up; a signal stops it after the current iteration."""
    args, config = setup.args, setup.config
    if setup.folder.note:
        print(setup.folder.note)
    run_dir = setup.folder.claim()
    write_json(run_dir / "args.json", json.loads(json.dumps(asdict(args), default=str)))

    import ray

    address = args.address or os.environ.get("RAY_ADDRESS")
    ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    cpus = ray.cluster_resources().get("CPU", 0)
    print(f"Ray: {'cluster ' + address if address else 'local instance'}, {cpus:.0f} CPUs")
    algorithm = build_algorithm(args)
    progress = list(setup.resumed)
    first = 1
    if args.resume is not None:
        algorithm.restore_from_path(str(args.resume.resolve()))
        first = checkpoint_iteration(args.resume) + 1
        print(f"resuming {args.resume} after iteration {first - 1}")
    start = time.perf_counter()
    checkpoint = None
    iteration = first - 1
    try:
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
            print(
                f"[iteration {iteration}/{args.iterations}] env steps {row['env_steps']:,}, "
                f"mean episode return {row['episode_return_mean']}, {row['seconds']} s",
                flush=True,
            )
            write_json(run_dir / "progress.json", {"progress": progress})
            periodic = args.checkpoint_every and iteration % args.checkpoint_every == 0
            if stop.requested or periodic:
                checkpoint = save_checkpoint(algorithm, run_dir, iteration)
            if stop.requested:
                break
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
    print(f"trained {iteration} iterations in {train_seconds:.0f} s; policy exported to {policy_dir}")
    result = {"policy": policy_dir, "summary": None, "progress": progress, "run_dir": run_dir}
    result.update(interrupted=interrupted, exit_code=stop.exit_code)
    if interrupted:
        print(f"stopped by {stop.signal_name} after iteration {iteration} of {args.iterations}")
        print(
            f"checkpoint saved to {checkpoint}. To resume the run:\n  {resume_command(args, setup.folder, checkpoint)}"
        )
    if args.final_eval_deals == 0 or (stop.requested and not args.final_eval_on_interrupt):
        if stop.requested:
            print(
                "final evaluation skipped (--final-eval-on-interrupt runs it); evaluate the policy with: "
                f"trash-evaluate {policy_dir} {' '.join(args.eval_baselines)}",
                flush=True,
            )
        return result

    # Final evaluation: the saved policy, as any user would load it, against every baseline.
    with stop.at_once(f"The policy is exported to {policy_dir}."):
        result["summary"] = final_evaluation(
            config,
            str(policy_dir),
            args.eval_baselines,
            args.final_eval_deals,
            args.seed,
            args.eval_workers,
            run_dir / "final_eval.json",
        )
    return result


SAFE_POINT = "the end of this iteration"


def main(args: Args) -> dict[str, Any]:
    """Train and evaluate with ``args`` (from Python); a ValueError for bad settings, raised before
    anything is written. The result says whether a signal stopped the run (``exit_code``)."""
    return run_stoppable(args, prepare, train, SAFE_POINT)


def cli(argv: Sequence[str] | None = None) -> int:
    """The command line: exit status 0, 2 for a bad argument (one line, nothing written), or
    128 + the signal number when Ctrl-C or SIGTERM stopped the run."""
    return stoppable_command(PROG, Args, prepare, train, SAFE_POINT, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(cli())
