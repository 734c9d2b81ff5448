"""The environments and the model of a Stable-Baselines3 training run: the opponents' games as one
vector env (the batched engine's where it applies, else SB3's over the single-agent env) and the
algorithm's model over it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from agents.learned import (
    algorithms,
)
from agents.processes import worker_signals
from agents.training.sb3.settings import (
    ADVANTAGE_ACTOR_CRITIC,
    ALGORITHMS,
    MASKED,
    QUANTILES,
    VALUE_BASED,
    Args,
    rules_fields,
)
from trash_env.games import get_game


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
    if args.algo not in MASKED:
        raise ValueError(f"--batched takes masked actions only: use one of --algo {', '.join(MASKED)}")
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
    from agents.training.sb3.masked import MASKED_ALGORITHMS

    algorithm = {**algorithms(), **MASKED_ALGORITHMS}[ALGORITHMS[args.algo]]
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
            | ({"n_quantiles": args.n_quantiles} if args.algo in QUANTILES else {}),
            tensorboard_log=tensorboard_log,
            **common,
        )
    if args.algo in ADVANTAGE_ACTOR_CRITIC:  # one update every n_steps per environment, no minibatches
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
