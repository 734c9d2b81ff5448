"""The settings of a Stable-Baselines3 training run (:class:`Args`: the flags of ``trash-train``), the
rules configuration they make, their ranges (:func:`check_settings`) and the memory they need
(:func:`check_memory`): bad settings are a ValueError naming the flag, raised before anything is written."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from agents import arguments, registry
from agents.arguments import at_least, at_most, rules_config
from agents.training.runs import (
    Overrides,
    Rules,
    shown_default,
)
from trash_env.games import GAMES, game_of, get_game

COMMAND = "train.py"
GameName = Literal[tuple(GAMES)]  # the names of the games (trash_env.games), as the choices of --game

ALGORITHMS = {
    "maskable_ppo": "MaskablePPO",
    "masked_a2c": "MaskableA2C",
    "masked_dqn": "MaskedDQN",
    "masked_qrdqn": "MaskedQRDQN",
    "ppo": "PPO",
    "a2c": "A2C",
    "dqn": "DQN",
    "qrdqn": "QRDQN",
}
MASKED = ("maskable_ppo", "masked_a2c", "masked_dqn", "masked_qrdqn")  # read the action mask (sb3.masked)
VALUE_BASED = ("dqn", "qrdqn", "masked_dqn", "masked_qrdqn")  # a replay buffer and a Q-network (no n_steps)
QUANTILES = ("qrdqn", "masked_qrdqn")  # QR-DQN's quantile network (--n-quantiles)
ADVANTAGE_ACTOR_CRITIC = ("a2c", "masked_a2c")  # one update every n_steps per environment, no minibatches
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
    trainer: Literal["sb3", "fast"] = "sb3"
    """sb3: Stable-Baselines3 (the reference); fast: agents.training.fast_ppo's masked PPO on the batched engine,
    faster, with its own settings (agents.training.fast_ppo.FastSettings: 64 games x 32 steps, 10 epochs over
    minibatches of 512, gamma 0.995, 64x64 networks; the flags of the model and its envs below are SB3's), saved
    as policy.npz"""
    algo: Literal["maskable_ppo", "masked_a2c", "masked_dqn", "masked_qrdqn", "ppo", "a2c", "dqn", "qrdqn"] = (
        "maskable_ppo"
    )
    """MaskablePPO and the masked A2C, DQN and QR-DQN (agents.training.sb3.masked) act, explore and bootstrap over the
    legal actions; PPO, A2C, DQN and QR-DQN do not (an illegal action ends the episode as a loss)"""
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


# Upper bounds of the settings (their lower bounds are in check_settings).
MAX_COUNT = 2**63 - 1  # step counts and intervals end up in numpy and TensorBoard as 64-bit integers
MAX_SEED = 2**32 - 1  # numpy's global seed (SB3's set_random_seed) is one 32-bit word
MAX_DEALS = 1_000_000  # an evaluation keeps every deal's result in memory
THREADS_PER_CORE = 4  # more threads than cores only slow the small networks down (docs/speed.md)


def check_settings(args: Args) -> None:
    """A ValueError naming the flag of a setting out of its range: every number of :class:`Args` is
    checked (the floats finite), and the memory the run needs against the memory there is."""
    if args.threads is not None:
        at_least("--threads", args.threads, 1)
        cores = os.cpu_count() or 1
        at_most("--threads", args.threads, THREADS_PER_CORE * cores, f"{THREADS_PER_CORE} per core, {cores} here")
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
    at_most("--seed", args.seed, MAX_SEED, "numpy's seeds are 32-bit")
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
    if args.trainer == "fast":
        if args.algo != "maskable_ppo":
            raise ValueError(f"--trainer fast is a masked PPO: --algo {args.algo} is SB3's (--trainer sb3)")
        for flag, given in (("--resume", args.resume is not None), ("--subproc", args.subproc)):
            if given:
                raise ValueError(f"{flag} is for --trainer sb3 (--trainer fast trains from scratch, batched)")
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
        outputs = num_actions * (args.n_quantiles if args.algo in QUANTILES else 1)
        transition = (2 * observation_size + 5) * FLOAT  # observation, next one, action (int64), reward, done, timeout
        if args.algo in MASKED:
            transition += num_actions  # the next state's mask, a byte an action
        slots = max(REPLAY_BUFFER_SIZE // args.n_envs, 1) * args.n_envs
        parts["the replay buffer (--n-envs)"] = min(slots, args.total_timesteps + args.n_envs) * transition
        parts["the network (--net-arch, --n-quantiles)"] = 5 * weights(outputs) * FLOAT  # with the target network
        parts["a minibatch (--batch-size)"] = args.batch_size * (2 * transition + 3 * (widths + outputs) * FLOAT)
    else:
        rollout = args.n_steps * args.n_envs
        masks = num_actions if args.algo in MASKED else 0
        # 7 floats a step besides the observation; the observations are copied once when the rollout is read.
        parts["the rollout buffer (--n-steps x --n-envs)"] = rollout * (2 * observation_size + 7 + masks) * FLOAT
        parts["the network (--net-arch)"] = 4 * (weights(num_actions) + weights(1)) * FLOAT
        rows = rollout if args.algo in ADVANTAGE_ACTOR_CRITIC else min(args.batch_size, rollout)
        parts["a minibatch (--batch-size)"] = rows * 6 * (widths + num_actions + 1) * FLOAT
    return parts


def available_memory() -> int | None:
    """Bytes of memory the system can still give (psutil's ``available``: what can be given to processes
    without swapping), or None where psutil cannot tell."""
    import psutil

    try:
        return int(psutil.virtual_memory().available)
    except (OSError, RuntimeError, AttributeError):
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


def default_run_name(args: Args) -> str:
    game = get_game(args.game)
    prefix = args.preset if len(game.presets) > 1 else game.name  # a game of one preset: by its name
    algorithm = "fast_ppo" if args.trainer == "fast" else args.algo
    return f"{prefix}_{args.num_players}p_{algorithm}_seed{args.seed}"
