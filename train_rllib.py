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
``trash_rl.json``, an agent spec for ``python -m agents.evaluate`` and
``python -m agents.play``), ``progress.json`` (per iteration) and
``final_eval.json`` (duplicate deals against the baselines).

Needs the ``rllib`` extra (``pip install -e '.[rllib]'``).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import tyro

from agents.evaluate import final_evaluation, parse_overrides, write_json
from agents.rllib_policy import export_policy
from trash_env.config import make_config


@dataclass
class Args:
    """RLlib training settings; every field is a command-line flag."""

    run_name: str = ""
    """name of the run folder under out_dir (default: preset, players, mode, seed)"""
    out_dir: Path = Path("runs")
    """where runs are written"""
    preset: str = "standard"
    """rules preset (R11)"""
    num_players: int = 2
    """players at the table"""
    overrides: list[str] = field(default_factory=list)
    """more rules fields as FIELD=VALUE"""
    opponents: list[str] = field(default_factory=list)
    """baselines for the other seats (one learner seat per episode); empty: self-play, every seat learns"""
    iterations: int = 10
    """PPO training iterations"""
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
    """duplicate deals per baseline in the final evaluation"""
    eval_workers: int = 2
    """processes for the final evaluation"""


def build_algorithm(args: Args) -> Any:
    """The PPO algorithm: environment, one shared action-masking policy, sampling and training settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from trash_env.rllib_env import TrashRLlibEnv

    env_config = {
        "preset": args.preset,
        "num_players": args.num_players,
        "opponents": args.opponents,
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
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"head_fcnet_hiddens": args.hidden, "fcnet_hiddens": args.hidden},
                    )
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


def main(args: Args) -> dict[str, Any]:
    rules = {"num_players": args.num_players, **parse_overrides(args.overrides)}
    config = make_config(args.preset, **rules)  # a bad configuration fails here, before Ray starts
    from agents.registry import make_agent

    for spec in args.opponents + args.eval_baselines:
        make_agent(spec).check_config(config)
    if args.iterations < 1:
        raise ValueError(f"--iterations must be at least 1, got {args.iterations}")
    mode = "vs_" + "_".join(args.opponents) if args.opponents else "selfplay"
    run_name = args.run_name or f"rllib_{args.preset}_{args.num_players}p_{mode}_seed{args.seed}"
    run_dir = args.out_dir / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), default=str, indent=2))

    import ray

    address = args.address or os.environ.get("RAY_ADDRESS")
    ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    cpus = ray.cluster_resources().get("CPU", 0)
    print(f"Ray: {'cluster ' + address if address else 'local instance'}, {cpus:.0f} CPUs")
    algorithm = build_algorithm(args)
    progress = []
    start = time.perf_counter()
    try:
        for iteration in range(1, args.iterations + 1):
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
        train_seconds = time.perf_counter() - start
        policy_dir = export_policy(
            algorithm.get_module("shared"),
            run_dir / "policy",
            config,
            args.preset,
            iterations=args.iterations,
            env_steps=progress[-1]["env_steps"],
            train_seconds=round(train_seconds, 1),
        )
    finally:
        algorithm.stop()
        ray.shutdown()
    write_json(run_dir / "progress.json", {"progress": progress})
    print(f"trained {args.iterations} iterations in {train_seconds:.0f} s; policy exported to {policy_dir}")

    # Final evaluation: the saved policy, as any user would load it, against every baseline.
    summary = final_evaluation(
        config,
        str(policy_dir),
        args.eval_baselines,
        args.final_eval_deals,
        args.seed,
        args.eval_workers,
        run_dir / "final_eval.json",
    )
    return {"policy": policy_dir, "summary": summary, "progress": progress}


if __name__ == "__main__":
    main(tyro.cli(Args))
