"""Train a Trash (or Help Your Neighbor) agent with Stable-Baselines3 and evaluate it against the baselines.

    python train.py                                   # MaskablePPO, standard, 2 players, small budget
    python train.py --game help_your_neighbor         # the dice variant (R12)
    python train.py --algo ppo --total-timesteps 300000
    python train.py --self-play --opponents greedy    # greedy plus frozen snapshots of the learner
    python train.py --resume runs/NAME/checkpoints/step_50000.zip --total-timesteps 300000
    python train.py --help

Reads top to bottom: arguments, seeding, environments, the model, callbacks
(duplicate-deal evaluation, checkpoints, self-play), training, the final
evaluation table and the learning curve. Everything a run writes goes to
``runs/NAME/``: ``policy.zip`` (the trained policy, with its configuration),
``checkpoints/``, ``tb/`` (TensorBoard), ``eval_history.json``,
``final_eval.json`` and ``learning_curve.png``.

Needs the ``train`` and ``eval`` extras (``pip install -e '.[train,eval]'``).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tyro
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure as configure_logger
from stable_baselines3.common.utils import set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from agents.evaluate import final_evaluation, parse_overrides, write_json
from agents.evaluation import run_pairings
from agents.learned import LearnedAgent, algorithms, check_compatible, policy_metadata, read_metadata, save_policy
from agents.registry import make_agent
from agents.stats import pair_summaries
from trash_env.games import get_game
from trash_env.single_agent import NeighborSingleAgentEnv, TrashSingleAgentEnv

ALGORITHMS = {"maskable_ppo": "MaskablePPO", "ppo": "PPO", "dqn": "DQN"}
SINGLE_AGENT_ENVS = {"trash": TrashSingleAgentEnv, "help_your_neighbor": NeighborSingleAgentEnv}
# Per game: random plus the best heuristic baseline, as opponents and as the evaluation's yardsticks.
DEFAULT_BASELINES = {"trash": ["random", "greedy"], "help_your_neighbor": ["random", "heuristic"]}


@dataclass
class Args:
    """Training settings; every field is a command-line flag (``--total-timesteps`` ...)."""

    run_name: str = ""
    """name of the run folder under out_dir (default: preset, players, algorithm, seed)"""
    out_dir: Path = Path("runs")
    """where runs are written"""
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
    algo: Literal["maskable_ppo", "ppo", "dqn"] = "maskable_ppo"
    """MaskablePPO uses action masks; PPO and DQN do not, and an illegal action ends the episode with -1"""
    total_timesteps: int = 150_000
    """learner decisions to train for, in all (a resumed run continues its count)"""
    n_envs: int = 4
    """parallel environments"""
    subproc: bool = False
    """run the environments in subprocesses (SubprocVecEnv) instead of in this process"""
    batched: bool = False
    """run the n_envs games on the batched engine (trash_env.vec_env.TrashVecEnv): Trash only, opponents among
    random/greedy/counter, no self-play"""
    seed: int = 0
    """seeds the environments, the model and every evaluation"""
    opponents: list[str] = field(default_factory=list)
    """baseline opponents; each opponent seat draws one per episode (default: random and greedy; random and
    heuristic for Help Your Neighbor)"""
    self_play: bool = False
    """add frozen snapshots of the learner to the opponent pool"""
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
    gamma: float = 0.995
    """discount; the only reward comes at the end of the hand"""
    ent_coef: float = 0.01
    """PPO: entropy bonus"""
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of the policy (and value) network"""
    eval_every: int = 25_000
    """timesteps between evaluations against the baselines (0: none)"""
    eval_deals: int = 300
    """duplicate deals per baseline at each periodic evaluation"""
    eval_baselines: list[str] = field(default_factory=list)
    """baselines the policy is evaluated against (default: as --opponents)"""
    final_eval_deals: int = 2000
    """duplicate deals per baseline in the final evaluation"""
    eval_workers: int = 2
    """processes for the final evaluation"""
    checkpoint_every: int = 50_000
    """timesteps between checkpoints (0: none)"""
    resume: Path | None = None
    """a checkpoint or policy file to continue training from"""
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
    """Fill in the game's default opponents and evaluation baselines."""
    args.opponents = args.opponents or DEFAULT_BASELINES[args.game]
    args.eval_baselines = args.eval_baselines or DEFAULT_BASELINES[args.game]


def make_env_factory(args: Args, opponents: list[Any]):
    rules = rules_fields(args)
    env_class = SINGLE_AGENT_ENVS[args.game]
    return lambda: env_class(args.preset, opponents=opponents, **rules)


def check_batched(args: Args) -> None:
    """--batched needs what the batched engine plays inside: Trash and vectorisable baselines."""
    if not args.batched:
        return
    from agents.evaluation import VECTORISABLE

    if args.game != "trash":
        raise ValueError("--batched: the batched engine plays Trash only")
    if args.self_play:
        raise ValueError("--batched: self-play snapshots cannot play inside the batched engine; drop --self-play")
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
        from trash_env.vec_env import TrashVecEnv

        return TrashVecEnv(args.n_envs, args.preset, opponents=args.opponents, seed=args.seed, **rules_fields(args))
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
    if args.algo == "dqn":
        return algorithm(
            "MlpPolicy",
            vec_env,
            buffer_size=100_000,
            learning_starts=2_000,
            batch_size=args.batch_size,
            exploration_fraction=0.3,
            target_update_interval=2_000,
            train_freq=4,
            policy_kwargs={"net_arch": args.net_arch},
            tensorboard_log=tensorboard_log,
            **common,
        )
    return algorithm(
        "MlpPolicy",
        vec_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": {"pi": args.net_arch, "vf": args.net_arch}},
        tensorboard_log=tensorboard_log,
        **common,
    )


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
        self.last = self.num_timesteps  # a resumed run keeps its spacing
        if self.every and self.num_timesteps == 0:
            self.evaluate()  # the untrained policy: the start of the learning curve

    def _on_step(self) -> bool:
        if self.every and self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps
            self.evaluate()
        return True

    def evaluate(self) -> None:
        agent = LearnedAgent(self.model, self.metadata, name="policy")
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
        self.last = self.num_timesteps  # a resumed run keeps its spacing

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
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(args: Args) -> dict[str, Any]:
    resolve_baselines(args)
    check_batched(args)
    config = build_config(args)
    if args.self_play and args.pool_size < 1:
        raise ValueError(f"--pool-size must be at least 1 with --self-play, got {args.pool_size}")
    resume_metadata = None
    if args.resume is not None:  # check before anything is written
        resume_metadata = read_metadata(args.resume)
        check_compatible(resume_metadata, config, source=f"checkpoint {args.resume}")
        if resume_metadata["algorithm"] != ALGORITHMS[args.algo]:
            raise ValueError(
                f"{args.resume} was trained with {resume_metadata['algorithm']}, not {ALGORITHMS[args.algo]}"
            )
    prefix = args.preset if args.game == "trash" else args.game
    run_name = args.run_name or f"{prefix}_{args.num_players}p_{args.algo}_seed{args.seed}"
    run_dir = args.out_dir / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), default=str, indent=2))
    set_random_seed(args.seed)

    # Opponents: baselines by name, plus self-play snapshots as training goes.
    base_opponents = [make_agent(spec, args.game) for spec in args.opponents]
    for opponent in base_opponents:
        opponent.check_config(config)
    vec_env = make_vec_env_for(args, base_opponents)

    if resume_metadata is not None:
        model = algorithms()[resume_metadata["algorithm"]].load(
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
    pool: list[Any] | None = [] if args.self_play else None
    metadata = policy_metadata(model, config, args.preset)
    callbacks = [
        DuplicateEvalCallback(
            config, metadata, args.eval_baselines, args.eval_deals, args.eval_every, args.seed, history
        ),
        PolicyCheckpoint(run_dir / "checkpoints", args.checkpoint_every, config, args.preset),
    ]
    if args.self_play:
        callbacks.append(
            PolicyCheckpoint(
                run_dir / "snapshots", args.snapshot_every, config, args.preset, pool, base_opponents, args.pool_size
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
    if not history or history[-1]["timesteps"] != model.num_timesteps:
        callbacks[0].evaluate()  # the final point of the learning curve
    policy_path = save_policy(model, run_dir / "policy.zip", config, args.preset, train_seconds=train_seconds)
    vec_env.close()
    print(f"trained {model.num_timesteps:,} timesteps in {train_seconds:.0f} s; policy saved to {policy_path}")

    # Final evaluation: the saved policy, as any user would load it, against every baseline.
    summary = final_evaluation(
        config,
        str(policy_path),
        args.eval_baselines,
        args.final_eval_deals,
        args.seed,
        args.eval_workers,
        run_dir / "final_eval.json",
    )
    write_json(run_dir / "eval_history.json", {"history": history})
    if history:
        plot_learning_curve(
            history, args.eval_baselines, run_dir / "learning_curve.png", f"{run_name}: score vs baselines"
        )
    return {"policy": policy_path, "summary": summary, "history": history, "timesteps": model.num_timesteps}


if __name__ == "__main__":
    main(tyro.cli(Args))
