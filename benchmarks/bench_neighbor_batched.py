"""The batched Help Your Neighbor engine against the scalar path: random play, MaskablePPO, evaluation.

All in one run, on this machine:

1. random legal play, decisions per second (observations and action masks included): the batched
   engine (`trash_env.neighbor.batched`, fast mode, every seat asked) at B = 1, 64, 1024, 8192
   games of two players (1024 also on one thread: from 256 games the engine uses Numba's threads)
   and 1024 of four (actions drawn uniformly from the masks with NumPy, counted in the time), and
   `help_your_neighbor_v0` through its AEC API (as benchmarks/bench_env.py);
2. MaskablePPO training timesteps per second with the benchmark suite's settings
   (`agents.bench.algorithms.SETTINGS["maskable_ppo"]`: 8 games, 256 steps per game per update,
   minibatch 512; the model `train.py` builds from them) against random and heuristic opponents, as
   the `hyn-2p` task trains: on `NeighborVecEnv` and on SB3's `DummyVecEnv` over
   `NeighborSingleAgentEnv`; then both again at 64 games (32 steps each, the same rollout of 2,048),
   and tuned for throughput (256 games x 16 steps, minibatches of 2,048, 4 epochs), each also timed
   without its updates (the rollouts alone: the games and the policy's forward passes);
3. evaluation of `heuristic` against `random` (two players, duplicate deals), games per second, on
   the batched engine and on the scalar path (one process), which play the very same games
   (checked on the deals both play).

Sections 2 and 3 run on one thread for torch and Numba, as `train.py` and `trash-evaluate` do by
default (`--threads`); section 1 uses Numba's threads where the engine does (from 256 games).

    python benchmarks/bench_neighbor_batched.py                  # about 3 minutes
    python benchmarks/bench_neighbor_batched.py --json docs/speed/neighbor_batched.json

Needs the batched and train extras.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench_env import play_aec, play_engine
from figures import (  # this folder's: run as a script, its folder is on sys.path
    engine_speed_parser,
    one_torch_thread,
    write_figures,
)

from trash_env import help_your_neighbor_v0
from trash_env.neighbor.batched import NeighborBatch
from trash_env.neighbor.rules import make_config

OPPONENTS = ["random", "heuristic"]  # the hyn-2p task's training opponents (the game's default baselines)
# The suite's MaskablePPO settings, then with more games (the same rollout of 2,048 timesteps), then tuned
# for throughput as Trash's headline self-play figure is (256 games, minibatches of 2,048, 4 epochs).
KINDS = ("batched", "dummy")  # NeighborVecEnv, DummyVecEnv over NeighborSingleAgentEnv
TRAINING = [{}, {"n_envs": 64, "n_steps": 32}, {"n_envs": 256, "n_steps": 16, "batch_size": 2048, "n_epochs": 4}]


def play_batched(
    batch_size: int, seconds: float, seed: int, num_players: int = 2, parallel: bool | None = None
) -> float:
    """Decisions/s of random play on the batched engine (fast mode, every seat asked); ``parallel`` as
    ``NeighborBatch`` takes it (default: Numba's threads from 256 games on)."""
    batch = NeighborBatch(make_config(num_players=num_players), batch_size, seed=seed, parallel=parallel)
    return play_engine(batch, seconds, seed)


def train_speed(batched: bool, timesteps: int, seed: int, **overrides: int) -> tuple[float, float]:
    """MaskablePPO timesteps/s (learner decisions, updates included) with the suite's settings, the
    model and vector env ``train.py`` builds for them (``--batched`` or not); and the timesteps/s of
    the rollouts alone (the games and the policy's forward passes, without the updates)."""
    from agents.bench.algorithms import SETTINGS
    from agents.registry import make_agent
    from agents.training import sb3 as train

    settings = {**SETTINGS["maskable_ppo"], **overrides}
    n_envs, n_steps = settings["n_envs"], settings["n_steps"]
    args = train.Args(
        game="help_your_neighbor", batched=batched, opponents=list(OPPONENTS), seed=seed, tensorboard=False, **settings
    )
    opponents = [make_agent(name, "help_your_neighbor") for name in OPPONENTS]
    env = train.make_vec_env_for(args, opponents)
    model = train.make_model(args, env, Path("."))
    model.learn(n_steps * n_envs)  # warm-up: compilation, the first rollout
    updates = [0.0]
    update = model.train

    def timed_update() -> None:
        begin = time.perf_counter()
        update()
        updates[0] += time.perf_counter() - begin

    model.train = timed_update
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    env.close()
    return timesteps / elapsed, timesteps / (elapsed - updates[0])


def evaluation_speed(engine: str, deals: int, seed: int) -> tuple[float, list]:
    """Games/s of a duplicate evaluation of heuristic against random (two players) on one engine."""
    from agents.evaluation.duplicate import run_pairings

    config = make_config(num_players=2)
    run_pairings(config, [("heuristic", "random")], 2, seed=seed, engine=engine)  # warm-up
    start = time.perf_counter()
    games = run_pairings(config, [("heuristic", "random")], deals, seed=seed, engine=engine)
    return len(games) / (time.perf_counter() - start), games


def main() -> None:
    parser = engine_speed_parser(__doc__.splitlines()[0], "docs/speed/neighbor_batched.json")
    parser.add_argument("--deals", type=int, nargs=2, default=[40_000, 2_000], help="evaluation deals: batched, scalar")
    args = parser.parse_args()
    print(one_torch_thread())

    print("\n1. random legal play (observations and masks included), decisions per second")
    rows = [(f"batched engine, B = {b}", play_batched(b, args.seconds, args.seed)) for b in (1, 64, 1024, 8192)]
    rows.append(("batched engine, B = 1024, one thread", play_batched(1024, args.seconds, args.seed, parallel=False)))
    rows.append(("batched engine, 4 players, B = 1024", play_batched(1024, args.seconds, args.seed, num_players=4)))
    aec = play_aec(help_your_neighbor_v0.env, args.seconds, args.seed)[0]
    rows.append(("help_your_neighbor_v0 via env()", aec))
    for name, rate in rows:
        print(f"  {name:38s} {rate:12,.0f}   {rate / aec:7.1f}x help_your_neighbor_v0")

    from agents.processes import set_threads

    set_threads(1)  # as train.py and trash-evaluate run by default: one thread for torch and Numba
    print("\n2. MaskablePPO training (random and heuristic opponents, one thread), timesteps per second")
    training = []
    for overrides in TRAINING:
        runs = {kind: train_speed(kind == "batched", args.timesteps, args.seed, **overrides) for kind in KINDS}
        speeds = {kind: total for kind, (total, _) in runs.items()}
        rollouts = {kind: rollout for kind, (_, rollout) in runs.items()}
        ratio, rollout_ratio = speeds["batched"] / speeds["dummy"], rollouts["batched"] / rollouts["dummy"]
        shown = {"n_envs": 8, "n_steps": 256, **overrides}
        settings = ", ".join(f"{key} {value}" for key, value in shown.items())
        print(
            f"  {settings}: NeighborVecEnv {speeds['batched']:,.0f}, "
            f"DummyVecEnv {speeds['dummy']:,.0f}; {ratio:.2f}x   (rollouts alone: {rollouts['batched']:,.0f} "
            f"against {rollouts['dummy']:,.0f}, {rollout_ratio:.2f}x)"
        )
        training.append(shown | speeds | {"ratio": ratio, "rollouts": rollouts, "rollout_ratio": rollout_ratio})

    print("\n3. evaluation, heuristic vs random (2 players, duplicate deals, one thread), games per second")
    batched_rate, batched_games = evaluation_speed("batched", args.deals[0], args.seed)
    scalar_rate, scalar_games = evaluation_speed("scalar", args.deals[1], args.seed)
    same = batched_games[: len(scalar_games)] == scalar_games
    print(f"  batched engine {batched_rate:12,.0f}  ({args.deals[0]:,} deals)")
    print(f"  scalar path    {scalar_rate:12,.0f}  ({args.deals[1]:,} deals, one process)")
    print(f"  {batched_rate / scalar_rate:.1f}x; the same games on the deals both played: {same}")
    if not same:
        raise SystemExit("the engines played different games: a bug")

    write_figures(
        args.json,
        {
            "random_play": dict(rows),
            "decisions_per_second": dict(rows)["batched engine, B = 1024"],
            "training": training,
            "training_ratio": training[0]["ratio"],
            "evaluation": {
                "batched": batched_rate,
                "scalar": scalar_rate,
                "ratio": batched_rate / scalar_rate,
                "deals": {"batched": args.deals[0], "scalar": args.deals[1]},
                "same_games": same,
            },
        },
    )


if __name__ == "__main__":
    main()
